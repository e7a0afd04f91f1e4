"""A real worker on PostgreSQL and Redis: round trips, commits, rollbacks, connections."""

import uuid

import pytest
import redis
from django.conf import settings
from django.db import transaction

from accounts.models import Player
from config.celery import ping
from tests.integration.conftest import wait_for
from tests.integration.tasks import backend_pid, create_bot, die

pytestmark = pytest.mark.django_db(transaction=True)


def test_health_task_round_trip_through_redis(celery_worker):
    result = ping.delay()

    assert result.get(timeout=10) == "pong"
    assert not settings.CELERY_TASK_ALWAYS_EAGER  # it went through the broker


def test_a_task_writes_a_row_the_test_can_see(celery_worker):
    player_id = create_bot.delay("Written by a worker").get(timeout=10)

    assert Player.objects.get(id=player_id).name == "Written by a worker"


def test_delay_on_commit_publishes_after_the_commit(celery_worker):
    with transaction.atomic():
        Player.objects.create(kind="bot", name="Committed first", bot_strategy="random")
        create_bot.delay_on_commit("After the commit")

    assert wait_for(lambda: Player.objects.filter(name="After the commit").exists())


def test_work_queued_on_commit_keeps_no_result(celery_worker):
    """Nobody waits for it: no result stored by the worker, no result channel subscribed by
    the publisher (each publish would add one to the process's shared pub/sub connection)."""
    store = redis.Redis.from_url(settings.CELERY_RESULT_BACKEND)
    backend = create_bot.backend
    before = set(store.scan_iter("celery-task-meta-*"))
    subscribed_before = set(backend.result_consumer.subscribed_to)
    with transaction.atomic():
        create_bot.delay_on_commit("No result kept")
        ping.apply_async_on_commit(queue="batch")
    assert wait_for(lambda: Player.objects.filter(name="No result kept").exists())
    waited = backend_pid.delay()  # one that is waited for: its result is kept
    assert waited.get(timeout=10) > 0  # and, one worker a queue, the two before have run

    key = backend.get_key_for_task(waited.id)
    assert set(store.scan_iter("celery-task-meta-*")) - before == {key}
    assert set(backend.result_consumer.subscribed_to) - subscribed_before <= {key}


def test_a_rolled_back_transaction_publishes_nothing(celery_worker):
    with pytest.raises(RuntimeError), transaction.atomic():
        create_bot.delay_on_commit("Never")
        raise RuntimeError("the request failed")

    queue = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert queue.llen("batch") == queue.llen("interactive") == 0
    # One worker takes a queue's messages in order: once a later task of the same queue
    # (batch, as create_bot) has run, an earlier one would have.
    assert backend_pid.delay().get(timeout=10) > 0
    assert not Player.objects.filter(name="Never").exists()


def test_the_worker_keeps_its_database_connection_between_tasks(celery_worker):
    pids = {backend_pid.delay().get(timeout=10) for _ in range(3)}

    assert len(pids) == 1


def test_without_reuse_the_worker_reconnects_for_every_task(worker_factory):
    """The counter-check: Celery's default closes the connection around every task."""
    worker_factory(name="no-reuse", queues="no-reuse", CELERY_DB_REUSE_MAX="0")

    pids = {backend_pid.apply_async(queue="no-reuse").get(timeout=10) for _ in range(3)}

    assert len(pids) == 3


def test_a_prefork_worker_exposes_its_pool_children(worker_factory):
    worker = worker_factory(name="prefork", queues="prefork", pool="prefork", concurrency=1)

    children = worker.pool_pids()

    assert len(children) == 1 and children[0] != worker.pid
    assert ping.apply_async(queue="prefork").get(timeout=10) == "pong"


def test_a_task_that_keeps_killing_its_worker_is_dropped_after_the_cap(worker_factory):
    """With late acks a dying worker's task is requeued; the cap stops a poison loop."""
    worker_factory(name="poison", queues="poison", pool="prefork", CELERY_TASK_MAX_REDELIVERIES="2")
    counter = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    key = f"tests:die:{uuid.uuid4()}"

    result = die.apply_async(args=[key], queue="poison")

    # First delivery and one redelivery run (and kill their pool process); the second
    # redelivery reaches the cap and is acknowledged without running, recorded as failed.
    assert wait_for(lambda: result.state == "FAILURE", timeout=30)
    assert type(result.result).__name__ == "RedeliveryCapReached"
    assert int(counter.get(key)) == 2
