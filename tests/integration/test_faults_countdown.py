"""A countdown longer than Redis's visibility timeout runs several times: one effect.

Redis hands an unacknowledged message to a worker again once the visibility timeout has
passed, and a countdown task stays unacknowledged in its worker until it is due, so a long
countdown is delivered more than once (measured: 40 s with a 10 s timeout ran four
times). The service never sends such a countdown (services._follow_up leaves long ones to
the sweep); this test sends one on purpose, with a 2 s visibility timeout, and checks that
the clock is settled once whatever the number of runs.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from games import tasks
from tests.integration.conftest import wait_for
from tests.integration.test_faults_deadline import assert_timed_out_once, timed_match

pytestmark = pytest.mark.django_db(transaction=True)

TINY = {
    "CELERY_VISIBILITY_TIMEOUT": "2",
    "CELERY_TASK_TIME_LIMIT": "1",
    "CELERY_TASK_SOFT_TIME_LIMIT": "1",
}


def runs(worker, task_id: str) -> list[str]:
    done = f"games.settle_clock[{task_id}] succeeded"
    return [line.rsplit(":", 1)[1].strip() for line in worker.log().splitlines() if done in line]


def test_a_countdown_outliving_the_visibility_timeout_runs_again_and_settles_once(
    worker_factory, alice, bob, monkeypatch
):
    monkeypatch.setattr(tasks.settle_clock, "apply_async_on_commit", lambda *a, **k: None)
    worker = worker_factory(name="countdown", queues="countdown", **TINY)
    match, game = timed_match(alice, bob, seconds=10)
    loser = game.to_act
    delay = (game.turn_deadline - timezone.now()).total_seconds()

    result = tasks.settle_clock.apply_async((match.pk,), countdown=delay + 0.05, queue="countdown")

    # Every delivery that comes due runs: one settles the clock, the others find it settled.
    outcomes = wait_for(lambda: len(runs(worker, result.id)) >= 2 and runs(worker, result.id),
                        timeout=delay + 30, interval=0.2)  # fmt: skip
    assert outcomes.count("True") == 1, outcomes
    assert set(outcomes) <= {"True", "False"}
    assert_timed_out_once(match, loser)
