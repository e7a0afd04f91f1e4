"""GET /api/players (paginated, filtered), GET and PATCH /api/players/{id}."""

import pytest

from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def test_anyone_can_list_players(client, alice, bob):
    BotFactory(name="Randy (random)")

    response = client.get("/api/players")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert [p["name"] for p in body["results"]] == ["Alice", "Bob", "Randy (random)"]
    # Public data only: no usernames or account flags.
    assert set(body["results"][0]) == {"id", "name", "kind", "bot_strategy", "created_at"}


def test_players_filter_by_kind(client, alice):
    BotFactory(name="Greta (greedy)", bot_strategy="greedy")

    bots = client.get("/api/players", {"kind": "bot"}).json()["results"]
    humans = client.get("/api/players", {"kind": "human"}).json()["results"]

    assert [(p["name"], p["bot_strategy"]) for p in bots] == [("Greta (greedy)", "greedy")]
    assert [p["name"] for p in humans] == ["Alice"]


def test_players_filter_by_part_of_the_name(client, alice, bob, charlie):
    names = [p["name"] for p in client.get("/api/players", {"name": "LI"}).json()["results"]]

    assert names == ["Alice", "Charlie"]


def test_unknown_kind_is_a_400_naming_the_filter(client):
    response = client.get("/api/players", {"kind": "alien"})

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["kind"]


def test_players_are_paginated_with_a_capped_page_size(client):
    BotFactory.create_batch(105)

    page = client.get("/api/players", {"page_size": 1000}).json()
    second = client.get("/api/players", {"page_size": 10, "page": 2}).json()

    assert page["count"] == 105
    assert len(page["results"]) == 100
    assert page["next"].endswith("page=2&page_size=1000")
    assert len(second["results"]) == 10
    assert second["previous"] is not None


def test_page_past_the_end_is_a_404_in_the_error_shape(client):
    response = client.get("/api/players", {"page": 9})

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_anyone_can_read_one_player(client, bob):
    response = client.get(f"/api/players/{bob.id}")

    assert response.status_code == 200
    assert response.json()["name"] == "Bob"


def test_unknown_player_is_a_404(client):
    response = client.get("/api/players/999")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


def test_a_player_edits_their_own_profile(alice_client, alice):
    response = alice_client.patch(f"/api/players/{alice.id}", {"name": "Alicia"})

    assert response.status_code == 200
    assert response.json()["name"] == "Alicia"


def test_editing_another_player_is_forbidden(alice_client, bob):
    response = alice_client.patch(f"/api/players/{bob.id}", {"name": "Bobby"})

    assert response.status_code == 403
    assert response.json() == {
        "detail": "You can change only your own player.",
        "code": "permission_denied",
    }
    bob.refresh_from_db()
    assert bob.name == "Bob"


def test_editing_a_bot_is_forbidden(alice_client):
    bot = BotFactory()

    assert alice_client.patch(f"/api/players/{bot.id}", {"name": "Mine"}).status_code == 403


def test_anonymous_edits_are_refused(client, bob):
    assert client.patch(f"/api/players/{bob.id}", {"name": "Bobby"}).status_code == 401


def test_replacing_a_player_wholesale_is_not_allowed(alice_client, alice):
    response = alice_client.put(f"/api/players/{alice.id}", {"name": "Alicia"})

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
