"""Enqueueing a task by its registered name, once the transaction commits.

A service that hands work to a task (a bot's reply, a countdown, a webhook's delivery) names
the task instead of importing its app's ``tasks`` module: the tasks import the services, so an
import the other way would close a circle. The names are the ones the tasks register with
``@shared_task(name=...)``, found by :func:`common.task_names.registered` (which imports the
apps' tasks modules in a web process the first time it needs them).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from common import embedded
from common.task_names import registered


def task_on_commit(name: str, *args: Any, **kwargs: Any) -> None:
    """Enqueue the task registered as ``name`` with these arguments after the commit."""
    registered(name).delay_on_commit(*args, **kwargs)


def task_on_commit_with(name: str, args: tuple = (), **options: Any) -> None:
    """Enqueue ``name`` after the commit with Celery options (``countdown=``, ``queue=``)."""
    registered(name).apply_async_on_commit(args, **options)


def shortcut_on_commit(name: str, args: tuple = (), *, countdown: float | None = None) -> None:
    """Enqueue, after the commit, work a periodic sweep does anyway, to have it done sooner.

    The sweep stays the guarantee, so the shortcut is left out where it would cost more than
    it saves: when tasks run inline in the committing thread (the unit tests' embedded
    worker: a pass run inside the commit of the change it follows would nest in it), and, for
    a countdown, in the embedded mode (its sweeper runs every second in each process) and
    when the countdown would outlast the broker's visibility timeout (Redis would hand the
    waiting message to a second worker).
    """
    if settings.CELERY_EMBEDDED and not embedded.uses_threads():
        return
    if countdown is not None:
        if settings.CELERY_EMBEDDED or countdown >= settings.CELERY_VISIBILITY_TIMEOUT - 60:
            return
        registered(name).apply_async_on_commit(args, countdown=countdown)
        return
    registered(name).delay_on_commit(*args)
