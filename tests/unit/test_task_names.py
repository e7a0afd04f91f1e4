"""Tasks found by name in a web process whose first requests enqueue work at the same time.

A web process imports the apps' tasks modules the first time a request names a task. Two
threads doing that at once were each handed a tasks module the other was still executing
(Python's import breaks such a circle by returning the unfinished module), and one got
``NotRegistered``: a move answered 500. Each child process below starts with no tasks
module imported and has eight threads ask for tasks at the same moment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import threading

import django

django.setup()
from common.task_names import registered

names = ["games.bot_move", "games.settle_clock"]
errors = []
start = threading.Barrier(8)


def ask(i):
    start.wait()
    try:
        registered(names[i % 2])
    except Exception as error:
        errors.append(repr(error))


threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("ERRORS", len(errors), errors[:1])
"""

#: Without the lock most children failed (7 of 12 on a quiet machine): ten all passing
#: by chance would be about one in a thousand.
CHILDREN = 10


def test_threads_that_first_name_tasks_together_all_find_them():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": "",
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
        "DEBUG": "1",
        "LOG_LEVEL": "WARNING",
    }
    for _ in range(CHILDREN):
        done = subprocess.run(
            [sys.executable, "-c", CHILD],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "ERRORS 0 " in done.stdout, done.stdout[-2000:]
