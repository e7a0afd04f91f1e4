"""The account page's display name and preferences, and the theme every page is drawn in.

A display name changed on ``/account`` is checked as at sign-up, by the same service as
``PATCH /api/me``: both refuse the same names, in the same words. The preferences (colours,
sounds, confirm before discarding) are the player's, shown by ``GET /api/me`` and set on
either; every page carries them (``<html data-theme>``, ``<body data-sounds>``).
"""

import re

import pytest
from django.test import Client

from accounts import names
from accounts.models import Player
from tests.factories import BotFactory, PlayerFactory

pytestmark = pytest.mark.django_db

CYRILLIC_A = "\u0430"


@pytest.fixture
def alice_web(alice) -> Client:
    client = Client()
    client.force_login(alice.user)
    return client


def field_errors(page: str) -> list[str]:
    """The messages shown beside the fields of a page."""
    return [
        re.sub(r"&#x27;|&#39;", "'", text)
        for text in re.findall(r'<p class="error" role="alert">(.*?)</p>', page)
    ]


# --- the display name --------------------------------------------------------------------------


def test_i_change_my_display_name_on_the_account_page(alice_web, alice):
    response = alice_web.post("/account/name", {"name": "Alice the Bold"}, follow=True)

    assert response.status_code == 200
    assert "Your display name is now Alice the Bold." in response.text
    alice.refresh_from_db()
    assert alice.name == "Alice the Bold"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("bob", "taken, in another case"),
        ("B0b", "a look-alike of Bob"),
        (f"Z{CYRILLIC_A}ra", "Latin mixed with Cyrillic"),
        ("Ada (expert)", "a bot's suffix"),
        ("deleted-12", "a deleted account's name"),
        ("Expert bot", "a look-alike of a bot's name"),
        ("", "empty"),
        ("<b>", "characters a name may not hold"),
        ("x" * 41, "too long"),
    ],
)
def test_the_page_and_the_api_refuse_the_same_names_in_the_same_words(
    alice_web, alice_client, alice, bob, name, why
):
    BotFactory(name="Expert Bot")
    api = alice_client.patch("/api/me", {"name": name}, format="json")
    page = alice_web.post("/account/name", {"name": name})

    assert api.status_code == 400, why
    assert page.status_code == 400, why
    assert field_errors(page.text) == api.json()["errors"]["name"], why
    alice.refresh_from_db()
    assert alice.name == "Alice"


def test_a_look_alike_refusal_has_its_code_on_the_api_and_its_words_on_the_page(
    alice_web, alice_client, bob
):
    api = alice_client.patch("/api/me", {"name": "B0b"}, format="json")
    page = alice_web.post("/account/name", {"name": "B0b"})

    assert api.json()["code"] == names.CONFUSABLE
    assert field_errors(page.text) == [names.CONFUSABLE_MESSAGE]
    assert 'value="B0b"' in page.text  # the field keeps what was typed


def test_the_name_is_normalised_as_at_sign_up(alice_web, alice):
    alice_web.post("/account/name", {"name": "  \uff24\uff4f\uff52\uff41  "})  # full-width

    alice.refresh_from_db()
    assert alice.name == "Dora"


def test_anonymous_visitors_cannot_rename_anyone(alice):
    response = Client().post("/account/name", {"name": "Mallory"})

    assert response.status_code == 302 and "/login" in response["Location"]
    alice.refresh_from_db()
    assert alice.name == "Alice"


# --- the preferences -----------------------------------------------------------------------


def test_my_preferences_start_as_the_device_is_set_sounds_on_and_no_confirmation(alice_web):
    page = alice_web.get("/account").text

    assert re.search(r'<input type="radio" name="theme" value="system"[^>]* checked', page)
    assert re.search(r'<input type="checkbox" name="sounds"[^>]* checked', page)
    assert not re.search(r'<input type="checkbox" name="confirm_discard"[^>]* checked', page)


def test_i_save_my_preferences_on_the_account_page_and_the_api_reads_them(
    alice_web, alice_client, alice
):
    response = alice_web.post(
        "/account/preferences", {"theme": "dark", "confirm_discard": "on"}, follow=True
    )

    assert "Your preferences are saved." in response.text
    alice.refresh_from_db()
    assert (alice.theme, alice.sounds, alice.confirm_discard) == ("dark", False, True)
    me = alice_client.get("/api/me").json()
    assert (me["theme"], me["sounds"], me["confirm_discard"]) == ("dark", False, True)


def test_a_theme_that_is_not_one_is_refused_beside_the_field(alice_web, alice):
    response = alice_web.post("/account/preferences", {"theme": "purple", "sounds": "on"})

    assert response.status_code == 400
    assert field_errors(response.text) == [
        "Select a valid choice. purple is not one of the available choices."
    ]
    alice.refresh_from_db()
    assert alice.theme == "system"


# --- every page in the chosen colours, with the preferences for the scripts -------------------


@pytest.mark.parametrize("theme", ["system", "light", "dark"])
def test_every_page_is_drawn_in_the_chosen_theme(alice_web, alice, theme):
    Player.objects.filter(pk=alice.pk).update(theme=theme)

    for path in ("/", "/lobby", "/account", "/how-to-play", "/leaderboard"):
        page = alice_web.get(path).text
        assert f'<html lang="en" data-theme="{theme}">' in page, path


def test_a_visitor_gets_the_devices_colours_sounds_on_and_no_confirmation(db):
    page = Client().get("/").text

    assert '<html lang="en" data-theme="system">' in page
    assert '<meta name="color-scheme" content="light dark">' in page
    assert 'data-sounds="on" data-confirm-discard="off"' in page


def test_the_pages_carry_my_sounds_and_confirmation_for_the_table(alice_web, alice):
    Player.objects.filter(pk=alice.pk).update(sounds=False, confirm_discard=True)

    page = alice_web.get("/lobby").text

    assert 'data-sounds="off" data-confirm-discard="on"' in page


def test_a_staff_account_without_a_player_gets_the_defaults(db):
    staff = PlayerFactory(user__username="root").user
    Player.objects.filter(user=staff).delete()
    client = Client()
    client.force_login(staff)

    page = client.get("/account").text

    assert '<html lang="en" data-theme="system">' in page
    assert "Preferences" not in page
    assert client.post("/account/preferences", {"theme": "dark"}).status_code == 302
