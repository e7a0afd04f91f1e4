"""Tasks used only by the integration tests; workers load them with ``--include``."""

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
