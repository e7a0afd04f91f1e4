"""Embedded mode: no broker, and `delay_on_commit` runs the task in-process after commit."""

import pytest
from celery import shared_task
from django.db import OperationalError, transaction

from accounts.models import Player
from config.celery import Task, app, ping

pytestmark = pytest.mark.django_db(transaction=True)


@shared_task(name="tests.unit.bot_from_task")
def bot_from_task(name: str) -> int:
    return Player.objects.create(kind="bot", name=name, bot_strategy="random").id


def test_embedded_mode_runs_tasks_in_process(settings):
    assert settings.CELERY_EMBEDDED
    assert app.conf.task_always_eager and app.conf.task_eager_propagates

    assert ping.delay().get(timeout=1) == "pong"


def test_tasks_share_the_project_base_class():
    assert isinstance(ping, Task)
    assert isinstance(bot_from_task, Task)


def test_delay_on_commit_runs_after_the_commit():
    with transaction.atomic():
        bot_from_task.delay_on_commit("Committed")
        # Not yet: the task waits for the commit.
        assert not Player.objects.filter(name="Committed").exists()

    assert Player.objects.filter(name="Committed").exists()


def test_delay_on_commit_in_a_rolled_back_transaction_runs_nothing():
    with pytest.raises(RuntimeError), transaction.atomic():
        bot_from_task.delay_on_commit("RolledBack")
        raise RuntimeError("abort")

    assert not Player.objects.filter(name="RolledBack").exists()


_attempts: list[int] = []


@shared_task(name="tests.unit.flaky_database", bind=True)
def flaky_database(self, failures: int) -> str:
    _attempts.append(self.request.retries)
    if len(_attempts) <= failures:
        raise OperationalError("server closed the connection unexpectedly")
    return "done"


def test_database_errors_are_retried():
    _attempts.clear()

    assert flaky_database.delay(2).get(timeout=1) == "done"
    assert _attempts == [0, 1, 2]


def test_retries_give_up_after_max_retries():
    _attempts.clear()

    with pytest.raises(OperationalError):
        flaky_database.delay(100).get(timeout=1)
    assert len(_attempts) == Task.max_retries + 1
