"""Look-alike names: normalised (NFKC), one script, no skeleton of another's, bot suffix for bots.

The look-alikes are written with escapes, so that what each test sends is plain to read:
``\u0430`` is the Cyrillic small a, ``\u0410`` the Cyrillic capital A.
"""

import pytest
from django.test import Client

from accounts import names
from accounts.models import Player
from accounts.services import bot_create
from tests.factories import BotFactory, PlayerFactory

pytestmark = pytest.mark.django_db

REGISTER = "/api/auth/register"
GOOD_PASSWORD = "correct horse battery staple"
CYRILLIC_A = "\u0430"


def register(client, name, username="mallory"):
    return client.post(REGISTER, {"username": username, "password": GOOD_PASSWORD, "name": name})


# --- the rules, one by one ------------------------------------------------------------------


def test_a_full_width_name_is_stored_normalised(client):
    response = register(client, "\uff24\uff4f\uff52\uff41")  # "Dora" in full-width letters

    assert response.status_code == 201
    assert response.json()["player"]["name"] == "Dora"
    assert Player.objects.filter(name="Dora").exists()


def test_a_full_width_copy_of_a_name_is_taken(client, alice):
    response = register(client, "\uff21\uff2c\uff29\uff23\uff25")  # ALICE in full-width letters

    assert response.status_code == 400
    assert response.json()["errors"] == {"name": ["A player with this name already exists."]}


def test_a_name_mixing_latin_and_cyrillic_is_refused(client):
    response = register(client, f"Z{CYRILLIC_A}ra")  # nobody is called that yet

    assert response.status_code == 400
    assert response.json() == {
        "detail": "Invalid input.",
        "code": "name_mixed_script",
        "errors": {"name": [names.MIXED_SCRIPT_MESSAGE]},
    }
    assert not Player.objects.filter(user__username="mallory").exists()


def test_a_name_in_one_other_script_is_fine(client):
    assert register(client, "\u0411\u043e\u0440\u0438\u0441").status_code == 201  # Boris


def test_latin_with_han_and_kana_is_fine(client):
    assert register(client, "Ken \u5065\u592a \u30b1\u30f3").status_code == 201


def test_a_look_alike_all_in_cyrillic_is_refused(client):
    PlayerFactory(user__username="cope", name="Cope")

    response = register(client, "\u0421\u043e\u0440\u0435")  # "Cope", all in Cyrillic

    assert response.status_code == 400
    assert response.json()["code"] == "name_confusable"
    assert response.json()["errors"] == {"name": [names.CONFUSABLE_MESSAGE]}


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [
        ("Bob", "B0b"),  # zero for O, in another case
        ("lan", "Ian"),  # capital I for small L
        ("mike", "rnike"),  # r n for m
        ("Lola", "Lo1a"),  # one for small L
    ],
)
def test_latin_look_alikes_are_refused(client, existing, look_alike):
    PlayerFactory(user__username="someone", name=existing)

    response = register(client, look_alike)

    assert response.status_code == 400
    assert response.json()["code"] == "name_confusable"


@pytest.mark.parametrize(
    "look_alike",
    [
        "AIice",  # capital I for small L: looks like "Alice"
        "ALlCE",  # small L for capital I: looks like "ALICE"
        "\uff21\uff29ice",  # full-width A and I, normalised to "AIice"
    ],
)
def test_renaming_to_a_look_alike_of_another_spelling_is_refused(bob_client, bob, look_alike):
    PlayerFactory(user__username="alice", name="alice")

    response = bob_client.patch("/api/me", {"name": look_alike})

    assert response.status_code == 400
    assert response.json()["code"] == "name_confusable"
    bob.refresh_from_db()
    assert bob.name == "Bob"


def test_the_look_alike_that_came_first_blocks_the_plain_name(client):
    PlayerFactory(user__username="someone", name="ALlCE")

    response = register(client, "alice")

    assert response.status_code == 400
    assert response.json()["code"] == "name_confusable"


def test_names_that_only_resemble_each_other_are_fine(client, alice):
    assert register(client, "Alicia").status_code == 201


def test_a_person_cannot_wear_the_bot_suffix(client):
    response = register(client, "Ada (expert)")

    assert response.status_code == 400
    assert response.json()["code"] == "name_reserved"
    assert response.json()["errors"] == {"name": [names.RESERVED_MESSAGE]}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ada (EXPERT)", "name_reserved"),
        ("Ada ( greedy )", "name_reserved"),
        ("Ada (rand0m)", "name_reserved"),  # a zero for the o
        ("Bo (bot)", "name_reserved"),
        ("Ada (\u0435\u0445\u0440\u0435rt)", "name_mixed_script"),  # Cyrillic e x p e
    ],
)
def test_the_bot_suffix_is_reserved_however_it_is_spelt(client, name, code):
    response = register(client, name)

    assert response.status_code == 400
    assert response.json()["code"] == code


def test_a_bracketed_part_that_names_no_strategy_is_fine(client):
    assert register(client, "Bob (UK)").status_code == 201


def test_house_bots_keep_their_suffix():
    assert bot_create(name="Ada (expert)", strategy="expert").name == "Ada (expert)"


def test_a_bot_cannot_pose_as_a_person_either(alice):
    with pytest.raises(Exception, match="looks too much like"):
        bot_create(name="A1ice", strategy="random")


# --- every way a name is chosen -------------------------------------------------------------


def test_renaming_myself_to_a_look_alike_is_refused(alice_client, bob):
    response = alice_client.patch("/api/me", {"name": "B0B"})

    assert response.status_code == 400
    assert response.json()["code"] == "name_confusable"


def test_renaming_my_player_to_the_bot_suffix_is_refused(alice_client, alice):
    response = alice_client.patch(f"/api/players/{alice.pk}", {"name": "\u0410da (expert)"})

    assert response.status_code == 400
    assert response.json()["code"] in ("name_mixed_script", "name_reserved")
    alice.refresh_from_db()
    assert alice.name == "Alice"


def test_renaming_myself_to_my_own_look_is_fine(alice_client):
    assert alice_client.patch("/api/me", {"name": "ALICE"}).status_code == 200


def test_the_sign_up_page_refuses_a_look_alike(alice):
    response = Client().post(
        "/signup",
        {
            "username": "mallory",
            "name": "A1ice",
            "password": GOOD_PASSWORD,
            "password_again": GOOD_PASSWORD,
        },
    )

    assert response.status_code == 200  # the form again, with the message
    assert str(names.CONFUSABLE_MESSAGE) in response.content.decode()
    assert not Player.objects.filter(user__username="mallory").exists()


def test_the_admin_refuses_a_look_alike(admin_client, alice):
    bot = BotFactory(name="Rita (random)")
    url = f"/admin/accounts/player/{bot.pk}/change/"
    form = {"kind": "bot", "name": f"{CYRILLIC_A}lice", "bot_strategy": "random"}
    form |= {"description": "", "auto_accept": "nobody"}

    response = admin_client.post(url, form)

    assert response.status_code == 200  # the form again
    assert str(names.MIXED_SCRIPT_MESSAGE) in response.content.decode()
    response = admin_client.post(url, {**form, "name": "A1ice"})
    assert str(names.CONFUSABLE_MESSAGE) in response.content.decode()
    bot.refresh_from_db()
    assert bot.name == "Rita (random)"


def test_the_admin_may_give_a_bot_its_suffix(admin_client):
    bot = BotFactory(name="Rita")
    form = {"kind": "bot", "name": "Rita (random)", "bot_strategy": "random"}
    form |= {"description": "", "auto_accept": "nobody"}

    response = admin_client.post(f"/admin/accounts/player/{bot.pk}/change/", form)

    assert response.status_code == 302, response.content.decode()[:2000]
    bot.refresh_from_db()
    assert bot.name == "Rita (random)"
