"""Unit tests run embedded tasks inline, right after the commit in the committing thread.

Their transactions never commit (or commit into an in-memory SQLite database that other
threads cannot share), so the in-process worker's threads would never see their rows. The
tests of the worker itself (test_embedded_worker.py) run it in a child process on a file.
"""

import pytest


@pytest.fixture(autouse=True)
def _embedded_tasks_inline(settings):
    settings.EMBEDDED_WORKER = "inline"


@pytest.fixture(autouse=True)
def _socket_database_work_on_the_test_thread(settings):
    """Sockets' database work on Channels' one thread, which is the test's own here (the
    in-memory SQLite database cannot be written from several threads)."""
    settings.SOCKET_DB_THREADS = 0
