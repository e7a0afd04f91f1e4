"""Tasks and a slow bot, for the integration tests only; workers load them with ``--include``."""

import os
import signal
import time

import redis
from celery import shared_task
from django.conf import settings
from django.db import connection

from accounts.models import Player
from games.engine.bots import register
from games.engine.bots.greedy import GreedyBot


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


@shared_task(name="tests.nap")
def nap(seconds: float) -> str:
    """Sleep ``seconds``: a task a worker holds unacknowledged for that long."""
    time.sleep(seconds)
    return "rested"


@shared_task(name="tests.die", bind=True)
def die(self, counter_key: str) -> None:
    """Count the attempt in Redis, then kill the pool process running it (a poison task)."""
    redis.Redis.from_url(self.app.conf.broker_url).incr(counter_key)
    os.kill(os.getpid(), signal.SIGKILL)


# --- A slow bot for the crash tests of play_match ----------------------------------------
# Registered on import, so both the test process (which validates the bot players of a match)
# and every worker (``--include tests.integration.tasks``) know it.

#: Seconds the slow bot waits before each decision: a greedy best-of-3 match takes ~2 s.
SLOW_BOT_DELAY = 0.001


def slow_bot_started_key(seed: int) -> str:
    """Redis key counting how many times a slow bot built with ``seed`` began to play."""
    return f"tests:slow-bot:{seed}"


@register
class SlowGreedyBot(GreedyBot):
    """Plays exactly like the greedy bot (same seed, same choices), only slower.

    Its first decision counts in Redis, so a test knows the match is being played and how
    many times it was started (a redelivered task starts it again).
    """

    name = "tests-slow-greedy"
    description = "the greedy bot, waiting a millisecond before each decision"

    def choose(self, view):
        if not getattr(self, "_counted", False):
            self._counted = True
            redis.Redis.from_url(settings.CELERY_BROKER_URL).incr(slow_bot_started_key(self.seed))
        time.sleep(SLOW_BOT_DELAY)
        return super().choose(view)
