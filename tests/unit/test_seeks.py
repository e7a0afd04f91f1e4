"""Open games in the lobby (seeks): posted with a challenge's settings, listed for everyone,
joined with one request that starts the match for both, gone when taken, cancelled, expired
or when their poster leaves the lobby; refusals answer 4xx with a code and nothing changes."""

from datetime import timedelta

import pytest
from django.utils import timezone

from common import periodic
from games import rating_hook, seeks
from games.models import Game, Match, Seek
from ladders import services as ladder_services
from ladders.models import Rating
from tests.factories import PlayerFactory
from tests.tournaments import event_with, pairing
from tournaments import services as events

QUICK = {"target": 100, "best_of": 1, "time_control": {"base_seconds": 300, "increment_seconds": 5}}


def post(client, **body):
    return client.post("/api/seeks", {**QUICK, **body}, format="json")


def matches() -> list[tuple]:
    return list(Match.objects.order_by("pk").values_list("pk", "status", "player_a", "player_b"))


@pytest.fixture
def dora(db):
    return PlayerFactory(user__username="dora", name="Dora")


def test_a_posted_game_is_listed_and_joining_it_starts_the_match_for_both(
    alice_client, bob_client, charlie_client, alice, bob
):
    posted = post(alice_client)
    assert posted.status_code == 201, posted.content
    seek = posted.json()
    assert seek["status"] == "open" and seek["poster"]["id"] == alice.pk
    assert seek["poster"]["rating"] == 1500, "an unrated player shows the initial rating"
    assert (seek["target"], seek["best_of"], seek["rated"]) == (100, 1, False)
    assert seek["time_control"]["base_seconds"] == 300
    assert [s["id"] for s in charlie_client.get("/api/seeks").json()] == [seek["id"]]

    joined = bob_client.post(f"/api/seeks/{seek['id']}/join")
    assert joined.status_code == 200, joined.content
    body = joined.json()
    assert body["status"] == "taken"
    match = Match.objects.get(pk=body["match"])
    assert (match.player_a_id, match.player_b_id, match.status) == (alice.pk, bob.pk, "active")
    assert (match.target, match.best_of, match.base_seconds, match.increment_seconds) == (
        100,
        1,
        300,
        5,
    )
    assert body["game"] == Game.objects.get(match=match, status="active").pk
    assert charlie_client.get("/api/seeks").json() == [], "a taken game leaves the list"


def test_a_taken_game_is_a_409_seek_taken_for_the_next_and_only_one_match_starts(
    alice_client, bob_client, charlie_client
):
    seek = post(alice_client).json()
    assert bob_client.post(f"/api/seeks/{seek['id']}/join").status_code == 200
    before = matches()
    late = charlie_client.post(f"/api/seeks/{seek['id']}/join")
    assert late.status_code == 409 and late.json()["code"] == "seek_taken"
    assert late.json()["detail"]
    assert matches() == before


class _Stale:
    """The lock's read as a join racing another saw it: still open."""

    def __init__(self, seek):
        self.seek = seek

    def select_related(self, *fields):
        return self

    def get(self, **lookup):
        return self.seek


def test_two_joins_at_once_start_one_match(alice, bob, charlie, monkeypatch):
    """Charlie's join read the seek while it was open and Bob's took it meanwhile: the claim
    (a conditional update from ``open``) changes no row, so Charlie is refused
    ``seek_taken`` and one match starts."""
    seek = seeks.seek_create(poster=alice, target=100)
    stale = Seek.objects.get(pk=seek.pk)
    seeks.seek_join(seek=seek, player=bob)
    monkeypatch.setattr(Seek.objects, "select_for_update", lambda: _Stale(stale))
    with pytest.raises(seeks.Conflict) as refused:
        seeks.seek_join(seek=stale, player=charlie)
    assert refused.value.code == "seek_taken"
    assert Match.objects.count() == 1
    assert Seek.objects.get(pk=seek.pk).taken_by_id == bob.pk


def test_joining_your_own_open_game_is_a_409(alice_client):
    seek = post(alice_client).json()
    own = alice_client.post(f"/api/seeks/{seek['id']}/join")
    assert own.status_code == 409 and own.json()["code"] == "own_seek"
    assert Seek.objects.get(pk=seek["id"]).status == "open" and not Match.objects.exists()


def test_joining_outside_the_rating_range_is_a_409_with_the_joiners_rating(
    alice_client, bob_client
):
    seek = post(alice_client, rating_min=1600, rating_max=1900).json()
    outside = bob_client.post(f"/api/seeks/{seek['id']}/join")
    assert outside.status_code == 409, outside.content
    assert outside.json()["code"] == "outside_rating_range" and outside.json()["rating"] == 1500
    assert Seek.objects.get(pk=seek["id"]).status == "open" and not Match.objects.exists()
    inside = post(alice_client, rating_min=1400, rating_max=1600).json()
    assert bob_client.post(f"/api/seeks/{inside['id']}/join").status_code == 200


def test_the_rating_range_reads_the_rated_events_pool(alice, bob):
    pool = ladder_services.rated_events_pool()
    Rating.objects.create(ladder=pool, player=bob, rating=1720.4, peak=1720.4)
    seek = seeks.seek_create(poster=alice, rating_min=1700)
    assert rating_hook.ratings_of([alice.pk, bob.pk]) == {alice.pk: 1500, bob.pk: 1720}
    assert seeks.seek_join(seek=seek, player=bob).status == "taken"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"rules": "gin-rummy-deluxe"}, 400, "invalid_rules"),
        ({"rules": {"knock_limit": 500}}, 400, "invalid_rules"),
        ({"rules": {"duplicate_deals": True}}, 400, "duplicate_deals_need_bots"),
        ({"best_of": 4}, 400, "invalid"),
        ({"target": 5}, 400, "invalid"),
        ({"time_control": {"base_seconds": 1}}, 400, "invalid"),
        ({"rated": True}, 400, "rated_unavailable"),
        ({"rated": "yes"}, 400, "invalid"),
        ({"rating_min": 1800, "rating_max": 1200}, 400, "invalid_rating_range"),
        ({"rating_min": -5}, 400, "invalid"),
    ],
)
def test_impossible_settings_are_refused_as_a_challenges_are(alice_client, body, status, code):
    response = post(alice_client, **body)
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and response.json()["detail"]
    assert not Seek.objects.exists()


def test_posting_or_joining_while_your_tournament_match_is_ready_is_a_409(
    alice_client, bob_client, alice, bob, dora
):
    seek = post(bob_client).json()
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    ready = pairing(event, "R1.1").match
    refused = post(alice_client)
    assert refused.status_code == 409 and refused.json()["code"] == "in_tournament_match"
    joined = alice_client.post(f"/api/seeks/{seek['id']}/join")
    assert joined.status_code == 409 and joined.json()["code"] == "in_tournament_match"
    assert joined.json()["match"] == ready.pk
    assert Seek.objects.get(pk=seek["id"]).status == "open", "a refused join leaves it open"
    assert not Match.objects.exclude(pk=ready.pk).exists()


def test_the_poster_cancels_and_nobody_else_can(alice_client, bob_client):
    seek = post(alice_client).json()
    theirs = bob_client.post(f"/api/seeks/{seek['id']}/cancel")
    assert theirs.status_code == 403 and theirs.json()["code"] == "not_a_player"
    cancelled = alice_client.post(f"/api/seeks/{seek['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert bob_client.get("/api/seeks").json() == []
    late = bob_client.post(f"/api/seeks/{seek['id']}/join")
    assert late.status_code == 409 and late.json()["code"] == "seek_closed"


def test_an_expired_game_is_not_listed_nor_joined(alice, bob_client):
    seek = seeks.seek_create(poster=alice, now=timezone.now() - seeks.SEEK_TTL)
    assert bob_client.get("/api/seeks").json() == []
    late = bob_client.post(f"/api/seeks/{seek.pk}/join")
    assert late.status_code == 409 and late.json()["code"] == "seek_closed"
    assert seeks.seeks_expire() == 1
    assert Seek.objects.get(pk=seek.pk).status == "expired"


def test_beat_marks_the_expired_games_and_leaves_the_others(alice, bob, settings):
    from games import tasks

    entry = periodic.beat_schedule()["sweep-seeks"]
    assert entry["task"] == tasks.sweep_seeks.name == "games.sweep_seeks"
    old = seeks.seek_create(poster=alice, now=timezone.now() - seeks.SEEK_TTL)
    fresh = seeks.seek_create(poster=bob)
    assert tasks.sweep_seeks() == 1
    assert Seek.objects.get(pk=old.pk).status == "expired"
    assert Seek.objects.get(pk=fresh.pk).status == "open"


def test_the_poster_leaving_cancels_their_games_only(alice, bob):
    mine = seeks.seek_create(poster=alice)
    theirs = seeks.seek_create(poster=bob)
    assert seeks.seeks_poster_left(player_id=alice.pk) == 1
    assert Seek.objects.get(pk=mine.pk).status == "cancelled"
    assert Seek.objects.get(pk=theirs.pk).status == "open"


def test_at_most_three_open_games_each(alice_client):
    for _ in range(seeks.SEEKS_PER_PLAYER):
        assert post(alice_client).status_code == 201
    fourth = post(alice_client)
    assert fourth.status_code == 409 and fourth.json()["code"] == "too_many_seeks"


def test_joining_closes_both_players_other_open_games(alice, bob, charlie):
    taken = seeks.seek_create(poster=alice)
    other = seeks.seek_create(poster=alice)
    bobs = seeks.seek_create(poster=bob)
    charlies = seeks.seek_create(poster=charlie)
    seeks.seek_join(seek=taken, player=bob)
    statuses = dict(Seek.objects.values_list("pk", "status"))
    assert statuses[other.pk] == statuses[bobs.pk] == "cancelled"
    assert statuses[charlies.pk] == "open"


def test_anonymous_may_list_but_not_post_or_join(client, alice):
    seek = seeks.seek_create(poster=alice)
    assert client.get("/api/seeks").status_code == 200
    assert client.post("/api/seeks", QUICK, content_type="application/json").status_code == 401
    assert client.post(f"/api/seeks/{seek.pk}/join").status_code == 401
    assert client.get("/api/seeks/999999").status_code == 404


def test_expiry_is_ten_minutes(alice):
    seek = seeks.seek_create(poster=alice)
    assert seek.expires_at - seek.created_at == pytest.approx(
        timedelta(minutes=10), abs=timedelta(seconds=1)
    )
