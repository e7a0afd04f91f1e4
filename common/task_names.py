"""The project's tasks by their registered names, for the platform that runs them.

The platform names a task instead of importing its app's ``tasks`` module (the tasks import
the services, which use the platform): the names are the ones the tasks register with
``@shared_task(name=...)``. A worker or beat imports every app's ``tasks`` module when it
starts; a web process has them imported here, once, the first time a name is not yet known
(Celery's autodiscovery, the same as a worker's). An unknown name fails loudly
(``NotRegistered``, a ``KeyError``) instead of dropping the work.
"""

from __future__ import annotations

import threading

from celery import Task, current_app

#: One thread at a time imports the tasks modules. Two threads importing them at once (a web
#: process's first two requests that enqueue work) can each be handed a module the other is
#: still executing, its tasks not yet registered: Python's import breaks the circle that
#: way, and the task would be missing.
_importing = threading.Lock()


def registered(name: str) -> Task:
    """The task registered as ``name``, importing the apps' tasks modules if need be."""
    tasks = current_app.tasks
    if name not in tasks:
        with _importing:
            if name not in tasks:
                current_app.loader.import_default_modules()
    return tasks[name]
