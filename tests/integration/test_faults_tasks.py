"""Faults of tasks and workers: a poison task, SIGTERM during a deploy, beat gone for a while,
matches sharing players finalised at once in opposite orders."""

from __future__ import annotations

import signal
import time
import uuid
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db import connections
from django.utils import timezone

from config.celery import ping
from games import selectors, services, tasks
from games.engine.match import Match as EngineMatch
from games.models import Game, Match
from ladders import services as ladders
from ladders.models import Rating, RatingChange
from tests.factories import PlayerFactory
from tests.integration.conftest import run_threads, wait_for
from tests.integration.tasks import die
from tests.integration.test_faults_deadline import assert_timed_out_once, timed_match
from tests.integration.test_play_crash import (
    assert_written_once_as_a_clean_run,
    slow_match,
    times_started,
)
from tests.ladders import make_ladder

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker():
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


# --- a poison task ---------------------------------------------------------------------------


def test_a_poison_task_is_capped_recorded_as_failed_and_does_not_loop(worker_factory, broker):
    worker = worker_factory(
        name="poison-cap", queues="poison-cap", pool="prefork", CELERY_TASK_MAX_REDELIVERIES="3"
    )
    key = f"tests:die:{uuid.uuid4()}"

    result = die.apply_async(args=[key], queue="poison-cap")

    assert wait_for(lambda: result.state == "FAILURE", timeout=40)
    assert type(result.result).__name__ == "RedeliveryCapReached"
    attempts = int(broker.get(key))
    assert attempts == 3  # the first delivery and two redeliveries ran; the third was dropped
    assert "dropped after 3 redeliveries" in worker.log()
    # No hot loop: nothing runs it again, and the worker goes on serving other work.
    time.sleep(3)
    assert int(broker.get(key)) == attempts
    assert ping.apply_async(queue="poison-cap").get(timeout=10) == "pong"
    assert broker.llen("poison-cap") == 0


# --- SIGTERM during a deploy --------------------------------------------------------------------


def test_sigterm_during_a_bot_match_lets_the_worker_finish_it_before_it_stops(
    worker_factory, slow_bots, broker
):
    """A deploy stops workers with SIGTERM: a warm shutdown finishes the task in hand."""
    worker = worker_factory(name="deploy", queues="deploy", pool="prefork", concurrency=1)
    match = slow_match(slow_bots, broker)

    result = tasks.play_match.apply_async((match.pk,), queue="deploy")
    wait_for(lambda: times_started(broker, match) == 1, timeout=20)
    worker.process.send_signal(signal.SIGTERM)

    code = worker.process.wait(60)
    assert code == 0, worker.log()[-3000:]  # it stopped by itself, after the task
    assert result.get(timeout=10) is True
    assert times_started(broker, match) == 1  # played once, not requeued
    assert_written_once_as_a_clean_run(match)


def test_a_task_sigterm_cannot_wait_for_is_requeued_and_played_once_by_the_next_worker(
    worker_factory, slow_bots, broker
):
    """A deploy that cannot wait (SIGTERM, then SIGKILL) leaves the task unacknowledged: the
    next worker plays it, once (late acks; the visibility timeout brings it back)."""
    visibility = 8
    short = {
        "CELERY_VISIBILITY_TIMEOUT": str(visibility),
        "CELERY_TASK_TIME_LIMIT": str(visibility - 1),
        "CELERY_TASK_SOFT_TIME_LIMIT": str(visibility - 2),
    }
    first = worker_factory(name="deploy-hard", queues="deploy-hard", **short)
    match = slow_match(slow_bots, broker)

    result = tasks.play_match.apply_async((match.pk,), queue="deploy-hard")
    wait_for(lambda: times_started(broker, match) == 1, timeout=20)
    first.process.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    first.process.send_signal(signal.SIGKILL)  # the grace period ran out
    stopped_at = time.monotonic()
    first.process.wait(10)
    assert Match.objects.get(pk=match.pk).status != Match.Status.FINISHED

    time.sleep(max(0.0, stopped_at + visibility - time.monotonic()))
    worker_factory(name="deploy-hard-2", queues="deploy-hard", **short)
    assert result.get(timeout=30) is True
    assert times_started(broker, match) == 2
    assert_written_once_as_a_clean_run(match)


# --- beat down for a minute ---------------------------------------------------------------------


def test_with_beat_down_for_a_minute_reads_and_moves_still_settle_expired_clocks(
    alice, bob, alice_client, bob_client, monkeypatch
):
    """No beat, no countdown (lost): the first read or move after a deadline settles it."""
    monkeypatch.setattr(tasks.settle_clock, "apply_async_on_commit", lambda *a, **k: None)
    match, game = timed_match(alice, bob, seconds=60)
    loser = game.to_act
    # A minute went by with nobody sweeping: the deadline passed a minute ago.
    Game.objects.filter(pk=game.pk).update(
        turn_deadline=timezone.now() - timedelta(seconds=60),
        clock_charged_at=timezone.now() - timedelta(seconds=120),
        turn_began_at=timezone.now() - timedelta(seconds=120),
    )
    mover = alice_client if loser == 0 else bob_client
    other = bob_client if loser == 0 else alice_client

    # The player who ran out tries to move: refused, and the timeout is recorded.
    late = mover.post(f"/api/games/{game.pk}/actions", {"ply": game.ply, "type": "pass"})
    assert late.status_code == 409
    assert_timed_out_once(match, loser)
    # The opponent's read sees the result; reading again changes nothing.
    for _ in range(2):
        view = other.get(f"/api/games/{game.pk}").json()
        assert view["status"] == "finished"
    assert_timed_out_once(match, loser)


# --- matches sharing players, finalised at once in opposite orders ------------------------------


def test_matches_sharing_players_finalised_at_once_in_opposite_orders_never_deadlock(alice, bob):
    """Rating both players of a match locks their two rating rows. Two matches of the same
    pair (A v B and B v A) finishing together lock them in opposite orders unless the locks
    are taken in one order (player id): twenty rounds of such pairs, finished by racing
    threads, must all be rated, once each, with no deadlock."""
    ladder = make_ladder()
    others = [PlayerFactory(user__username=f"racer{i}") for i in range(3)]
    rounds = 10
    for _ in range(rounds):
        pairs = [
            (alice, bob),
            (bob, alice),
            (others[0], others[1]),
            (others[1], others[0]),
            (alice, others[2]),
            (others[2], alice),
        ]
        matches = [
            ladders.ladder_match_create(ladder=ladder, player_a=a, player_b=b) for a, b in pairs
        ]

        def finish(i: int, matches=matches, pairs=pairs):
            loser = pairs[i][1] if i % 2 else pairs[i][0]
            return services.match_forfeit(match=matches[i], loser=loser, reason="race")

        results = run_threads(len(matches), finish)
        errors = [r for r in results if isinstance(r, Exception)]
        assert not errors, errors
        connections.close_all()
    finished = Match.objects.filter(ladder_link__ladder=ladder, status=Match.Status.FINISHED)
    assert finished.count() == rounds * 6
    assert RatingChange.objects.filter(ladder=ladder).count() == rounds * 6 * 2
    report = ladders.ratings_replay(pool=ladder)
    assert report.mismatches == 0 and report.drifted == 0, report.first_mismatch
    assert Rating.objects.filter(ladder=ladder).count() == 5  # alice, bob, three racers
    for match in finished[:5]:
        assert EngineMatch.replay(selectors.match_log(match=match)).winner is not None
