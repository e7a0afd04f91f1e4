"""Tasks used only by the integration tests; workers load them with ``--include``."""

import os
import signal

import redis
from celery import shared_task
from django.db import connection

from accounts.models import Player


@shared_task(name="tests.create_bot")
def create_bot(name: str) -> int:
    """Write one row through the ORM; returns its id."""
    return Player.objects.create(kind=Player.Kind.BOT, name=name, bot_strategy="random").id


@shared_task(name="tests.backend_pid")
def backend_pid() -> int:
    """The PostgreSQL server process serving this worker's connection."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@shared_task(name="tests.die", bind=True)
def die(self, counter_key: str) -> None:
    """Count the attempt in Redis, then kill the pool process running it (a poison task)."""
    redis.Redis.from_url(self.app.conf.broker_url).incr(counter_key)
    os.kill(os.getpid(), signal.SIGKILL)
