"""Challenges and matches over the API: a bot at once, a human who accepts or declines."""

import hashlib

import pytest

from games.models import Game, Match
from tests.factories import BotFactory


@pytest.fixture
def greedy(db):
    return BotFactory(name="Greta", bot_strategy="greedy")


def test_challenging_a_bot_starts_the_match_at_once(alice_client, alice, greedy):
    response = alice_client.post(
        "/api/matches", {"opponent": greedy.pk, "target": 100, "best_of": 3}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "active"
    assert body["player_a"]["id"] == alice.pk and body["player_b"]["id"] == greedy.pk
    assert (body["best_of"], body["target"]) == (3, 100)
    assert body["current_game"] == Game.objects.get(match_id=body["id"]).pk
    assert body["seed"] is None, "the seed stays secret while the match is played"
    assert len(body["seed_commitment"]) == 64


def test_a_human_challenge_waits_for_an_answer_and_accepting_starts_it(
    alice_client, bob_client, alice, bob
):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    assert created["status"] == "challenged" and created["current_game"] is None
    response = bob_client.post(f"/api/matches/{created['id']}/accept")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "active"
    assert Game.objects.filter(match_id=created["id"], status="active").count() == 1
    again = bob_client.post(f"/api/matches/{created['id']}/accept")
    assert again.status_code == 409 and again.json()["code"] == "not_pending"


def test_declining_a_challenge(alice_client, bob_client, bob):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    response = bob_client.post(f"/api/matches/{created['id']}/decline")
    assert response.json()["status"] == "declined"
    assert not Game.objects.filter(match_id=created["id"]).exists()


def test_only_the_challenged_player_answers_and_only_the_challenger_withdraws(
    alice_client, bob_client, bob
):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    own = alice_client.post(f"/api/matches/{created['id']}/accept")
    assert own.status_code == 403 and own.json()["code"] == "not_a_player"
    assert bob_client.post(f"/api/matches/{created['id']}/cancel").status_code == 403
    withdrawn = alice_client.post(f"/api/matches/{created['id']}/cancel")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "cancelled"


def test_another_players_challenge_is_not_found(alice_client, bob, charlie_client):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    assert charlie_client.get(f"/api/matches/{created['id']}").status_code == 404
    assert charlie_client.post(f"/api/matches/{created['id']}/accept").status_code == 404
    listed = [m["id"] for m in charlie_client.get("/api/matches").json()["results"]]
    assert created["id"] not in listed
    mine = [m["id"] for m in alice_client.get("/api/matches").json()["results"]]
    assert created["id"] in mine


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"opponent": 999_999}, "opponent"),
        ({}, "opponent"),
        ({"opponent": "x"}, "opponent"),
        ({"best_of": 4}, "best_of"),
        ({"target": 5}, "target"),
        ({"rules": 12}, "rules"),
        ({"time_control": {"base_seconds": 1}}, "time_control.base_seconds"),
        (
            {"time_control": {"base_seconds": 60, "timeout_policy": "pray"}},
            "time_control.timeout_policy",
        ),
    ],
)
def test_bad_challenges_get_field_messages(alice_client, greedy, body, field):
    body = {"opponent": greedy.pk, **body} if "opponent" not in body and body else body
    response = alice_client.post("/api/matches", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("rules", "code"),
    [
        ("nonsense", "invalid_rules"),
        ({"knock_limit": -1}, "invalid_rules"),
        ({"colour": 1}, "invalid_rules"),
    ],
)
def test_bad_rules_are_refused_naming_the_option(alice_client, greedy, rules, code):
    response = alice_client.post(
        "/api/matches", {"opponent": greedy.pk, "rules": rules}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == code
    assert not Match.objects.exists()


def test_a_player_cannot_challenge_themselves(alice_client, alice):
    response = alice_client.post("/api/matches", {"opponent": alice.pk}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "same_player"


def test_anonymous_users_cannot_challenge(client, greedy):
    assert client.post("/api/matches", {"opponent": greedy.pk}, format="json").status_code == 401


def test_resigning_gives_the_match_to_the_opponent(alice_client, alice, greedy):
    created = alice_client.post("/api/matches", {"opponent": greedy.pk}, format="json").json()
    response = alice_client.post(f"/api/matches/{created['id']}/resign")
    body = response.json()
    assert body["status"] == "finished" and body["winner"]["id"] == greedy.pk
    assert body["end_reason"] == "resigned"
    seed = int(body["seed"])
    assert hashlib.sha256(f"ginrummy:{seed}".encode()).hexdigest() == body["seed_commitment"]
    from games.engine.match import Match as EngineMatch
    from games.selectors import match_log

    match = Match.objects.get(pk=created["id"])
    assert EngineMatch.replay(match_log(match=match)).snapshot() == match.state
