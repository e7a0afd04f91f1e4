"""External bots: a person creates bots they own, issues and revokes their tokens; a bot's
token plays and reads public data but is refused everywhere else; house bots stay as they are.

The cast: alice owns the bot Robo; bob is another person; Gus is a house bot.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts import services
from accounts.models import Player
from games.models import Game
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def make_bot(client: APIClient, name: str = "Robo", **extra) -> dict:
    response = client.post("/api/bots", {"name": name, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def issue_token(client: APIClient, bot_id: int) -> dict:
    response = client.post(f"/api/bots/{bot_id}/tokens")
    assert response.status_code == 201, response.content
    return response.json()


def bot_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def robo(alice_client) -> dict:
    return make_bot(alice_client, description="Plays the greedy line.")


@pytest.fixture
def robo_client(alice_client, robo) -> APIClient:
    return bot_client(issue_token(alice_client, robo["id"])["token"])


# --- creating and owning ------------------------------------------------------------------


def test_a_person_creates_a_bot_marked_external_with_its_owner(alice, alice_client):
    bot = make_bot(alice_client, "Robo", description="  Plays the greedy line. ")
    assert bot["kind"] == "external" and bot["owner"] == alice.pk
    assert bot["description"] == "Plays the greedy line."
    assert bot["auto_accept"] == "nobody"
    player = Player.objects.get(pk=bot["id"])
    assert player.is_external and not player.is_bot and player.owner == alice
    listed = alice_client.get("/api/bots").json()
    assert [b["id"] for b in listed] == [bot["id"]]


def test_a_bot_cannot_sign_in_to_the_web_pages(alice_client, client):
    bot = Player.objects.get(pk=make_bot(alice_client)["id"])
    username = bot.user.get_username()
    assert not bot.user.has_usable_password()
    sign_in = RequestFactory().post("/login")
    assert authenticate(request=sign_in, username=username, password="") is None
    response = client.post(
        "/api/auth/login", {"username": username, "password": "x" * 12}, format="json"
    )
    assert response.status_code == 400
    browser = Client()
    page = browser.post("/login", {"username": username, "password": "x" * 12})
    assert page.status_code == 200  # the form again, with its error
    assert "_auth_user_id" not in browser.session


def test_nobody_can_register_the_username_a_bot_has(alice_client, client):
    bot = Player.objects.get(pk=make_bot(alice_client)["id"])
    response = client.post(
        "/api/auth/register",
        {"username": bot.user.get_username(), "password": "a-long-test-passphrase"},
        format="json",
    )
    assert response.status_code == 400
    assert "username" in response.json()["errors"]


def test_a_bot_name_follows_the_players_name_rules(alice, alice_client, bob):
    response = alice_client.post("/api/bots", {"name": "bob"}, format="json")
    assert response.status_code == 400 and "name" in response.json()["errors"]
    response = alice_client.post("/api/bots", {}, format="json")
    assert response.status_code == 400 and "name" in response.json()["errors"]
    assert not Player.objects.filter(kind=Player.Kind.EXTERNAL).exists()


def test_another_persons_bot_is_not_found(bob_client, robo):
    assert bob_client.get(f"/api/bots/{robo['id']}").status_code == 404
    assert bob_client.post(f"/api/bots/{robo['id']}/tokens").status_code == 404
    assert bob_client.get("/api/bots").json() == []


def test_anonymous_cannot_create_a_bot(client):
    assert client.post("/api/bots", {"name": "Robo"}, format="json").status_code == 401


def test_only_a_person_owns_bots(robo):
    bot = Player.objects.get(pk=robo["id"])
    with pytest.raises(services.BotRefused):
        services.bot_register(owner=bot, name="Robo Junior")
    with pytest.raises(services.BotRefused):
        services.bot_register(owner=BotFactory(), name="Robo Senior")


def test_a_person_owns_a_bounded_number_of_bots(alice, alice_client, monkeypatch):
    monkeypatch.setattr(services, "BOTS_PER_OWNER_MAX", 2)
    make_bot(alice_client, "Robo One")
    make_bot(alice_client, "Robo Two")
    response = alice_client.post("/api/bots", {"name": "Robo Three"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "too_many_bots"
    assert Player.objects.filter(owner=alice).count() == 2


def test_the_owner_sets_which_challenges_the_bot_accepts(alice_client, robo):
    response = alice_client.patch(f"/api/bots/{robo['id']}", {"auto_accept": "bots"}, format="json")
    assert response.status_code == 200 and response.json()["auto_accept"] == "bots"
    response = alice_client.patch(
        f"/api/bots/{robo['id']}", {"auto_accept": "everybody"}, format="json"
    )
    assert response.status_code == 400 and "auto_accept" in response.json()["errors"]


def test_the_kinds_keep_their_fields_in_the_database(alice):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(kind=Player.Kind.EXTERNAL, name="Ghost", user=None, owner=alice)


# --- tokens ------------------------------------------------------------------------------


def test_tokens_are_listed_without_their_secret_and_revoked_by_key(alice_client, robo):
    issued = issue_token(alice_client, robo["id"])
    assert issued["expiry"] is None and issued["token"].startswith(issued["token_key"])
    listed = alice_client.get(f"/api/bots/{robo['id']}/tokens").json()
    assert [t["token_key"] for t in listed] == [issued["token_key"]]
    assert issued["token"] not in str(listed)
    client = bot_client(issued["token"])
    assert client.get("/api/bot/account").status_code == 200

    url = f"/api/bots/{robo['id']}/tokens/{issued['token_key']}"
    assert alice_client.delete(url).status_code == 204
    assert alice_client.delete(url).status_code == 404
    assert client.get("/api/bot/account").status_code == 401


def test_the_bot_account_answers_only_a_bots_token(alice_client, robo_client, robo):
    assert robo_client.get("/api/bot/account").json()["id"] == robo["id"]
    response = alice_client.get("/api/bot/account")
    assert response.status_code == 403 and response.json()["code"] == "not_a_bot"


# --- what a bot's token may do ------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("post", "/api/bots", {"name": "Robo Junior"}),
        ("get", "/api/bots", None),
        ("patch", "/api/me", {"name": "Robo Prime"}),
        ("post", "/api/events", {"name": "Cup"}),
    ],
)
def test_a_bot_token_is_refused_on_endpoints_for_people(robo_client, robo, method, url, body):
    response = getattr(robo_client, method)(url, body, format="json")
    assert response.status_code == 403, response.content
    assert response.json()["code"] == "bot_token_forbidden"
    assert Player.objects.get(pk=robo["id"]).name == "Robo"


def test_a_bot_token_reads_public_data_and_plays(robo_client, robo):
    assert robo_client.get("/api/players").status_code == 200
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    response = robo_client.post("/api/matches", {"opponent": gus.pk}, format="json")
    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["current_game"])
    view = robo_client.get(f"/api/games/{game.pk}").json()
    assert view["you"] == 0 and view["hand"]
    if view["your_turn"]:
        action = view["legal_actions"][0]
        response = robo_client.post(
            f"/api/games/{game.pk}/actions", {"ply": view["ply"], **action}, format="json"
        )
        assert response.status_code == 200, response.content
    bad = robo_client.post(
        f"/api/games/{game.pk}/actions", {"ply": view["ply"], "type": "fly"}, format="json"
    )
    assert bad.status_code == 400


def test_house_bots_stay_as_they_are():
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    assert gus.is_bot and not gus.is_external and gus.user is None and gus.owner is None


def test_an_external_bot_cannot_wear_a_house_bots_name(alice_client):
    """Nor an unnormalised one: full-width "Robo" is stored as "Robo"."""
    response = alice_client.post("/api/bots", {"name": "Ada (expert)"}, format="json")
    assert response.status_code == 400 and "name" in response.json()["errors"]
    full_width = "  \uff32\uff4f\uff42\uff4f "
    response = alice_client.post("/api/bots", {"name": full_width}, format="json")
    assert response.status_code == 201 and response.json()["name"] == "Robo"


@pytest.mark.parametrize(
    "body",
    [
        {"type": "fly"},  # no such action
        {"type": "discard"},  # a discard without its card
        {"type": "discard", "card": "ZZ"},  # no such card
        {"ply": "soon", "type": "pass"},  # a ply that is not a number
    ],
)
def test_a_malformed_move_is_refused_with_the_same_status_and_code_as_a_persons(
    robo_client, robo, bob_client, body
):
    """The same refusal whoever sends it: a bot is played by the rules of people."""
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    answers = []
    for client in (robo_client, bob_client):
        match = client.post("/api/matches", {"opponent": gus.pk}, format="json").json()
        game = Game.objects.get(pk=match["current_game"])
        view = client.get(f"/api/games/{game.pk}").json()
        response = client.post(
            f"/api/games/{game.pk}/actions", {"ply": view["ply"], **body}, format="json"
        )
        before = game.ply
        game.refresh_from_db()
        assert game.ply == before  # nothing was applied
        answers.append((response.status_code, response.json().get("code")))
    assert answers[0][0] == 400 and answers[0] == answers[1], answers
