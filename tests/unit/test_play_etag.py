"""Polling a game view with ETag / If-None-Match: 304 until something happens at the table."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Match
from tests.play import active_game, move


@pytest.fixture
def duel(alice_client, bob_client, alice, bob):
    """Alice v Bob, accepted, with a clock: both players signed in."""
    created = alice_client.post(
        "/api/matches",
        {"opponent": bob.pk, "target": 50, "best_of": 1, "time_control": {"base_seconds": 60}},
        format="json",
    ).json()
    bob_client.post(f"/api/matches/{created['id']}/accept")
    match = Match.objects.get(pk=created["id"])
    game = active_game(match)
    clients = {0: alice_client, 1: bob_client}
    return match, game, clients[game.to_act], clients[1 - game.to_act]


def poll(client, game, etag=None):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(f"/api/games/{game.pk}", **headers)


def test_an_unchanged_game_answers_304_with_no_body(duel):
    _, game, mover, _ = duel
    first = poll(mover, game)
    etag = first.headers["ETag"]
    assert first.status_code == 200 and etag.startswith('W/"')
    assert "no-cache" in first.headers["Cache-Control"]
    assert "private" in first.headers["Cache-Control"]

    again = poll(mover, game, etag)

    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag


def test_a_strong_or_listed_copy_of_the_tag_matches_too(duel):
    _, game, mover, _ = duel
    etag = poll(mover, game).headers["ETag"]
    assert poll(mover, game, etag.removeprefix("W/")).status_code == 304
    assert poll(mover, game, f'"other", {etag}').status_code == 304
    assert poll(mover, game, '"other"').status_code == 200


def test_the_opponents_move_changes_the_tag(duel):
    _, game, mover, waiter = duel
    etag = poll(waiter, game).headers["ETag"]

    assert move(mover, game, 0, {"type": "pass"}).status_code == 200
    after = poll(waiter, game, etag)

    assert after.status_code == 200
    assert after.json()["ply"] == 1
    assert after.headers["ETag"] != etag


def test_a_move_answers_with_the_tag_of_the_new_view(duel):
    _, game, mover, _ = duel
    response = move(mover, game, 0, {"type": "pass"})
    assert response.status_code == 200
    assert poll(mover, game, response.headers["ETag"]).status_code == 304


def test_each_viewer_has_their_own_tag(duel, client):
    _, game, mover, waiter = duel
    tags = {poll(c, game).headers["ETag"] for c in (mover, waiter, client)}
    assert len(tags) == 3
    # A spectator's cached view never satisfies a player's poll (nor the reverse).
    assert poll(mover, game, poll(client, game).headers["ETag"]).status_code == 200


def test_a_clock_that_ran_out_is_settled_before_the_tag_is_compared(duel):
    match, game, _, waiter = duel
    etag = poll(waiter, game).headers["ETag"]
    game.refresh_from_db()
    past = timezone.now() - timedelta(seconds=1)
    game.clock_charged_at = game.turn_began_at = past - timedelta(seconds=60)
    game.turn_deadline = past
    game.save()

    after = poll(waiter, game, etag)

    assert after.status_code == 200
    assert after.json()["status"] == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.TIMEOUT


def test_the_clock_keeps_running_behind_a_304(duel):
    _, game, mover, _ = duel
    first = poll(mover, game)
    game.refresh_from_db()
    remaining = services.clock_remaining_ms(game.match, game, game.to_act, timezone.now())
    assert poll(mover, game, first.headers["ETag"]).status_code == 304
    assert first.json()["clocks"][game.to_act]["running"] is True
    assert remaining <= first.json()["clocks"][game.to_act]["remaining_ms"]
