"""GET/PATCH /api/me: the caller's own player."""

import pytest
from rest_framework.test import APIClient

from accounts.models import Player
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_me_shows_my_player_and_account(alice_client, alice):
    response = alice_client.get("/api/me")

    assert response.status_code == 200
    assert response.json() == {
        "id": alice.id,
        "name": "Alice",
        "kind": "human",
        "bot_strategy": "",
        "created_at": alice.created_at.isoformat().replace("+00:00", "Z"),
        "username": "alice",
        "is_staff": False,
        "email_events": True,
        "language": "",
        "theme": "system",
        "sounds": True,
        "confirm_discard": False,
    }


def test_i_can_rename_myself(alice_client, alice):
    response = alice_client.patch("/api/me", {"name": "Alice the Bold"})

    assert response.status_code == 200
    assert response.json()["name"] == "Alice the Bold"
    alice.refresh_from_db()
    assert alice.name == "Alice the Bold"


def test_renaming_to_my_own_name_in_another_case_is_fine(alice_client, alice):
    response = alice_client.patch("/api/me", {"name": "ALICE"})

    assert response.status_code == 200
    assert response.json()["name"] == "ALICE" and response.json()["id"] == alice.pk
    alice.refresh_from_db()
    assert alice.name == "ALICE"


def test_i_cannot_take_another_players_name(alice_client, bob):
    response = alice_client.patch("/api/me", {"name": "bob"})

    assert response.status_code == 400
    assert response.json()["errors"] == {"name": ["A player with this name already exists."]}


def test_read_only_fields_are_ignored(alice_client, alice):
    response = alice_client.patch(
        "/api/me", {"kind": "bot", "is_staff": True, "bot_strategy": "expert", "username": "x"}
    )

    assert response.status_code == 200
    alice.refresh_from_db()
    alice.user.refresh_from_db()
    assert (alice.kind, alice.bot_strategy, alice.user.is_staff) == ("human", "", False)
    assert alice.user.username == "alice"


def test_a_staff_user_without_a_player_is_answered_their_account():
    UserFactory(username="root", is_staff=True)
    client = APIClient()
    client.force_authenticate(user=UserFactory(username="root"))

    response = client.get("/api/me")
    rename = client.patch("/api/me", {"name": "Root"}, format="json")

    assert response.status_code == 200
    assert response.json() == {
        "id": None,
        "name": None,
        "kind": None,
        "bot_strategy": "",
        "created_at": None,
        "username": "root",
        "is_staff": True,
        "permissions": [],
        "email_events": None,
        "language": "",
        "theme": "system",
        "sounds": True,
        "confirm_discard": False,
    }
    assert rename.status_code == 404
    assert not Player.objects.exists()


def test_anonymous_users_have_no_me(client):
    for response in (client.get("/api/me"), client.patch("/api/me", {"name": "Ghost"})):
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"
    assert not Player.objects.filter(name="Ghost").exists()


def test_i_set_my_preferences(alice_client, alice):
    response = alice_client.patch(
        "/api/me", {"theme": "dark", "sounds": False, "confirm_discard": True}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert (body["theme"], body["sounds"], body["confirm_discard"]) == ("dark", False, True)
    alice.refresh_from_db()
    assert (alice.theme, alice.sounds, alice.confirm_discard) == ("dark", False, True)
    assert alice.name == "Alice"  # a change of preferences alone leaves the name


def test_a_preference_left_out_is_left_as_it_was(alice_client, alice):
    alice_client.patch("/api/me", {"theme": "light"}, format="json")

    response = alice_client.patch("/api/me", {"sounds": False}, format="json")

    assert (response.json()["theme"], response.json()["sounds"]) == ("light", False)


@pytest.mark.parametrize(
    "body",
    [
        {"theme": "purple"},
        {"theme": ""},
        {"sounds": "yes"},
        {"confirm_discard": 1},
        {"language": "de"},
        {"language": None},
    ],
)
def test_a_preference_that_is_not_one_is_refused_and_nothing_changes(alice_client, alice, body):
    response = alice_client.patch("/api/me", {**body, "name": "Alicia"}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid" and response.json()["detail"]
    assert list(response.json()["errors"]) == list(body)
    alice.refresh_from_db()
    assert (alice.name, alice.theme, alice.sounds, alice.confirm_discard) == (
        "Alice",
        "system",
        True,
        False,
    )
