"""Faults at a human game's deadline: the worker settling it dies (a pool child, the whole
worker); the timeout is applied exactly once, and the match still replays from its log.

To kill a worker *while* it settles the clock, the test holds the match row's lock from its
own connection just before the deadline: the settling task (a ``settle_clock`` countdown sent
to this test's worker) blocks on that lock inside the worker, the test sees it waiting in
``pg_stat_activity``, kills the worker with SIGKILL, and only then lets go of the lock.

(Kills in the middle of a bot match: tests/integration/test_play_crash.py.)
"""

from __future__ import annotations

import os
import signal
import time

import psycopg
import pytest
from django.utils import timezone

from games import selectors, services, tasks
from games.engine.match import Match as EngineMatch
from games.models import Game, Match
from tests.integration.conftest import wait_for, worker_database_url

pytestmark = pytest.mark.django_db(transaction=True)

VISIBILITY_TIMEOUT = 8
SHORT = {
    "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
    "CELERY_TASK_TIME_LIMIT": str(VISIBILITY_TIMEOUT - 1),
    "CELERY_TASK_SOFT_TIME_LIMIT": str(VISIBILITY_TIMEOUT - 2),
}


@pytest.fixture
def no_countdowns(monkeypatch):
    """The services' own countdowns are not sent: this test sends the one it kills."""
    monkeypatch.setattr(tasks.settle_clock, "apply_async_on_commit", lambda *a, **k: None)


def timed_match(alice, bob, seconds: int = 3) -> tuple[Match, Game]:
    """Alice v Bob, one game, `seconds` each on the clock, forfeit on time."""
    match = services.challenge_create(
        challenger=alice,
        opponent=bob,
        best_of=1,
        time_control=services.TimeControl(base_seconds=seconds),
    )
    services.challenge_answer(match=match, player=bob, accept=True)
    return Match.objects.get(pk=match.pk), Game.objects.get(match=match)


class RowLock:
    """The match row locked from a connection of the test's own, outside Django."""

    def __init__(self, match_id: int):
        self.conn = psycopg.connect(worker_database_url(), autocommit=False)
        self.conn.execute("SELECT id FROM games_match WHERE id = %s FOR UPDATE", [match_id])

    def waiters(self) -> int:
        """Other backends waiting for a lock (the worker's task, blocked on our row).

        Not matched on FOR UPDATE: PostgreSQL keeps only the first 1 kB of a query's text,
        and Django's select list of the match row is longer than that.
        """
        with psycopg.connect(worker_database_url(), autocommit=True) as probe:
            row = probe.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock' "
                "AND query ILIKE '%%games_match%%' AND pid <> %s",
                [self.conn.info.backend_pid],
            ).fetchone()
        return row[0]

    def release(self) -> None:
        if not self.conn.closed:
            self.conn.commit()
            self.conn.close()


def settle_at_deadline_and_block(game: Game, queue: str) -> tuple[object, RowLock]:
    """Send the countdown for the game's deadline; hold the row; wait until the task blocks."""
    delay = (game.turn_deadline - timezone.now()).total_seconds()
    lock = RowLock(game.match_id)
    result = tasks.settle_clock.apply_async(
        (game.match_id,), countdown=max(0.0, delay) + 0.05, queue=queue
    )
    try:
        wait_for(lambda: lock.waiters() >= 1, timeout=delay + 15, interval=0.05)
    except BaseException:
        lock.release()  # never leave the row locked: the test database could not be emptied
        raise
    return result, lock


def assert_timed_out_once(match: Match, loser_index: int) -> None:
    match.refresh_from_db()
    game = Game.objects.get(match=match)
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.TIMEOUT
    assert game.forfeit_by == loser_index and game.status == Game.Status.FINISHED
    assert match.winner_id == match.players[1 - loser_index]
    assert len(game.results) == 1  # one outcome, not two
    replayed = EngineMatch.replay(selectors.match_log(match=match))
    assert replayed.snapshot() == match.state


def test_a_pool_child_killed_while_settling_a_deadline_settles_it_once_on_redelivery(
    worker_factory, alice, bob, no_countdowns
):
    worker = worker_factory(
        name="deadline-child", queues="deadline-child", pool="prefork", concurrency=1, **SHORT
    )
    match, game = timed_match(alice, bob)
    loser = game.to_act
    [child] = worker.pool_pids()

    result, lock = settle_at_deadline_and_block(game, "deadline-child")
    try:
        os.kill(child, signal.SIGKILL)
        time.sleep(0.3)  # the parent sees its child die and rejects the message (redelivered)
    finally:
        lock.release()

    assert result.get(timeout=30) is True  # the second delivery settled it
    assert f"games.settle_clock[{result.id}] redelivered" in worker.log()
    assert child not in worker.pool_pids()
    assert_timed_out_once(match, loser)


def test_a_whole_worker_killed_at_a_deadline_loses_nothing_a_read_settles_it_and_the_redelivered_task_changes_nothing(  # noqa: E501
    worker_factory, alice, bob, no_countdowns, client
):
    first = worker_factory(name="deadline-whole", queues="deadline-whole", **SHORT)
    match, game = timed_match(alice, bob)
    loser = game.to_act

    result, lock = settle_at_deadline_and_block(game, "deadline-whole")
    try:
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.process.wait(10)
    finally:
        lock.release()

    # Nobody settles it now (no worker, no beat): the next read does, lazily.
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    response = client.get(f"/api/games/{game.pk}")
    assert response.status_code == 200 and response.json()["status"] == "finished"
    assert_timed_out_once(match, loser)

    # The unacknowledged countdown comes back after the visibility timeout: it finds the
    # clock settled and changes nothing.
    time.sleep(max(0.0, killed_at + VISIBILITY_TIMEOUT - time.monotonic()))
    second = worker_factory(name="deadline-whole-2", queues="deadline-whole", **SHORT)
    assert result.get(timeout=30) is False
    assert f"games.settle_clock[{result.id}] redelivered" in second.log()
    assert_timed_out_once(match, loser)
