"""What a request cannot do: set fields it does not own, outlive its token, flood, over-page.

- Mass assignment: state fields sent in a body (``hand``, ``rating``, ``winner``, ``is_staff``,
  ``ply`` of someone else's game, ``seed``, ``status``, ...) are ignored or refused.
- Tokens: an expired or revoked token opens nothing, on any app's endpoints.
- Throttling: sign-in, queue joins and moves each have a limit, answered 429 with Retry-After.
- Page sizes: every paginated list, found in the schema, serves at most 100 rows.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import Player
from games import services as play
from games.models import Game, Match
from ladders.models import QueueEntry, Rating
from tests.conftest import sign_in
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tournaments import services as events
from tournaments.models import Entry

pytestmark = pytest.mark.django_db

STATE_FIELDS = {
    "hand": ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"],
    "rating": 3000,
    "winner": 1,
    "is_staff": True,
    "is_superuser": True,
    "kind": "bot",
    "bot_strategy": "expert",
    "user": 1,
    "id": 999,
    "status": "finished",
    "seed": 42,
    "state": {},
    "games_won": [3, 0],
    "player_a": 1,
    "created_by": 1,
    "matches_played": 100,
    "checked_in_at": "2020-01-01T00:00:00Z",
}


# --- mass assignment ------------------------------------------------------------------------


def test_sign_up_cannot_make_a_staff_member_or_a_bot(client):
    body = {"username": "eve", "password": "a-long-test-passphrase", "name": "Eve"}

    response = client.post("/api/auth/register", {**STATE_FIELDS, **body}, format="json")

    assert response.status_code == 201
    user = get_user_model().objects.get(username="eve")
    assert not user.is_staff and not user.is_superuser
    player = Player.objects.get(user=user)
    assert player.kind == "human" and player.bot_strategy == ""
    assert response.json()["player"]["is_staff"] is False


def test_editing_yourself_changes_the_name_and_nothing_else(alice_client, alice):
    before = Player.objects.filter(pk=alice.pk).values().get()

    for path in ("/api/me", f"/api/players/{alice.pk}"):
        response = alice_client.patch(path, {**STATE_FIELDS, "name": "Alicia"}, format="json")
        assert response.status_code == 200, response.content

    after = Player.objects.filter(pk=alice.pk).values().get()
    assert after == {**before, "name": "Alicia"}
    assert not get_user_model().objects.get(pk=alice.user_id).is_staff


def test_a_challenge_cannot_pick_its_seed_winner_or_players(alice_client, alice, bob):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    body = {**STATE_FIELDS, "player_a": bob.pk, "winner": alice.pk, "opponent": gus.pk}

    response = alice_client.post("/api/matches", body, format="json")

    assert response.status_code == 201
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.player_a_id, match.player_b_id, match.created_by_id) == (
        alice.pk,
        gus.pk,
        alice.pk,
    )
    assert match.seed != 42 and match.status == Match.Status.ACTIVE and match.winner_id is None


def test_a_move_cannot_bring_its_own_hand_or_player(alice_client, alice, bob):
    match = play.challenge_create(challenger=alice, opponent=bob)
    play.challenge_answer(match=match, player=bob, accept=True)
    game = Game.objects.get(match=match)
    mover = alice_client if game.to_act == 0 else None
    if mover is None:  # bob is to act: alice sends his move with her body full of state
        body = {**STATE_FIELDS, "ply": game.ply, "type": "pass", "player": bob.pk, "seat": 1}
        response = alice_client.post(f"/api/games/{game.pk}/actions", body, format="json")
        assert response.status_code == 409 and response.json()["code"] == "not_your_turn"
    else:
        body = {**STATE_FIELDS, "ply": game.ply, "type": "pass", "player": bob.pk}
        response = alice_client.post(f"/api/games/{game.pk}/actions", body, format="json")
        assert response.status_code == 200
        view = response.json()
        assert view["hand"] != STATE_FIELDS["hand"]
    match.refresh_from_db()
    assert match.winner_id is None and match.status == Match.Status.ACTIVE


def test_joining_a_queue_or_an_event_sets_no_rating_seed_or_check_in(alice_client, alice):
    ladder = make_ladder()
    event = events.event_create(name="Open", format="swiss")
    events.event_open_registration(event=event)

    joined = alice_client.post(f"/api/ladders/{ladder.pk}/queue", STATE_FIELDS, format="json")
    registered = alice_client.post(f"/api/events/{event.pk}/register", STATE_FIELDS, format="json")

    assert joined.status_code == 201 and registered.status_code == 201
    assert Rating.objects.get(ladder=ladder, player=alice).rating == ladder.initial_rating
    assert QueueEntry.objects.get(player=alice).ladder_id == ladder.pk
    entry = Entry.objects.get(event=event, player=alice)
    assert entry.seed is None and entry.checked_in_at is None and entry.rating is None


# --- tokens -----------------------------------------------------------------------------------


def protected_requests(world: dict) -> list[tuple[str, str]]:
    """One request a signed-in player may make in each app."""
    return [
        ("get", "/api/me"),
        ("post", f"/api/matches/{world['match']}/resign"),
        ("get", f"/api/ladders/{world['ladder']}/queue"),
        ("post", f"/api/events/{world['event']}/register"),
        ("post", "/api/auth/logoutall"),
    ]


@pytest.fixture
def protected(alice, bob):
    match = play.challenge_create(challenger=bob, opponent=alice)
    ladder = make_ladder()
    event = events.event_create(name="Open", format="swiss")
    events.event_open_registration(event=event)
    return {"match": match.pk, "ladder": ladder.pk, "event": event.pk}


@pytest.mark.parametrize("how", ["expired", "revoked", "signed-out-everywhere", "forged"])
def test_a_dead_token_opens_nothing(alice, password, protected, how):
    client = APIClient()
    token = sign_in(client, "alice", password)
    other = APIClient()
    if how == "expired":
        AuthToken.objects.filter(user=alice.user).update(
            expiry=timezone.now() - timedelta(seconds=1)
        )
    elif how == "revoked":
        assert client.post("/api/auth/logout").status_code == 204
    elif how == "signed-out-everywhere":
        sign_in(other, "alice", password)
        assert other.post("/api/auth/logoutall").status_code == 204
    else:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token[:-4]}beef")
    before = (Match.objects.values_list("status").get(pk=protected["match"]), Entry.objects.count())

    for method, path in protected_requests(protected):
        response = getattr(client, method)(path)
        assert response.status_code == 401, f"{method.upper()} {path}: {response.status_code}"
        assert response.json()["code"] in ("authentication_failed", "not_authenticated")

    after = (Match.objects.values_list("status").get(pk=protected["match"]), Entry.objects.count())
    assert after == before


def test_tokens_are_stored_hashed(alice, password):
    token = sign_in(APIClient(), "alice", password)

    stored = AuthToken.objects.get(user=alice.user)
    assert token not in (stored.digest, stored.token_key)
    assert stored.token_key == token[: len(stored.token_key)]  # only a short lookup prefix
    assert stored.expiry is not None


# --- throttling -------------------------------------------------------------------------------


@pytest.fixture
def low_rates(monkeypatch):
    """Small limits for the scopes under test (DRF reads the rates once, at import)."""
    for scope, rate in {"sign-in": "3/min", "play": "4/min"}.items():
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)


def assert_throttled(response) -> None:
    assert response.status_code == 429, response.content
    assert response.json()["code"] == "throttled"
    assert int(response["Retry-After"]) > 0


def test_signing_in_is_throttled(client, alice, low_rates):
    for _ in range(3):
        client.post("/api/auth/login", {"username": "alice", "password": "guess"}, format="json")

    assert_throttled(
        client.post("/api/auth/login", {"username": "alice", "password": "guess"}, format="json")
    )


def test_joining_queues_is_throttled(alice_client, low_rates):
    ladder = make_ladder()
    url = f"/api/ladders/{ladder.pk}/queue"
    for _ in range(2):  # join and leave, twice: four requests
        assert alice_client.post(url).status_code == 201
        assert alice_client.delete(url).status_code == 204

    assert_throttled(alice_client.post(url))
    assert not QueueEntry.objects.exists()


def test_moves_are_throttled(alice_client, alice, bob, low_rates):
    match = play.challenge_create(challenger=alice, opponent=bob)
    play.challenge_answer(match=match, player=bob, accept=True)
    game = Game.objects.get(match=match)
    url = f"/api/games/{game.pk}/actions"
    for _ in range(4):  # stale moves still count
        alice_client.post(url, {"ply": 999, "type": "pass"}, format="json")

    assert_throttled(alice_client.post(url, {"ply": game.ply, "type": "pass"}, format="json"))
    assert Game.objects.get(pk=game.pk).ply == game.ply


# --- page sizes ---------------------------------------------------------------------------------


def paginated_lists(client, *, ladder, player) -> list[str]:
    """Every GET in the schema that takes ``page_size``, ids filled with the ladder's (the one
    list under an id) and the player's."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = []
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if get and any(p["name"] == "page_size" for p in get.get("parameters", [])):
            paths.append(
                path.replace("{id}", str(ladder.pk)).replace("{player_id}", str(player.pk))
            )
    return paths


def test_no_list_serves_more_than_a_hundred_rows(alice_client, alice):
    ladder = make_ladder()
    rivals = [PlayerFactory(user__username=f"rival{i}") for i in range(105)]
    for rival in rivals:
        play_ladder_match(ladder, alice, rival)
    Rating.objects.filter(ladder=ladder).update(last_active=timezone.now(), matches_played=20)
    lists = paginated_lists(alice_client, ladder=ladder, player=alice)
    assert {"/api/players", "/api/matches", f"/api/ladders/{ladder.pk}/leaderboard"} <= set(lists)

    for path in lists:
        response = alice_client.get(f"{path}?page_size=1000")
        assert response.status_code in (200, 400), f"{path}: {response.status_code}"
        if response.status_code == 200:
            assert len(response.json()["results"]) <= 100, path
    assert len(alice_client.get("/api/players?page_size=1000").json()["results"]) == 100
    assert len(alice_client.get("/api/matches?page_size=1000").json()["results"]) == 100
    history = alice_client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}/history?page_size=500")
    assert len(history.json()["results"]) == 100
