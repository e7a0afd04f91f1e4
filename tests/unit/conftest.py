"""Unit tests run embedded tasks inline, right after the commit in the committing thread.

Their transactions never commit (or commit into an in-memory SQLite database that other
threads cannot share), so the in-process worker's threads would never see their rows. The
tests of the worker itself (test_embedded_worker.py) run it in a child process on a file.
"""

import pytest


@pytest.fixture(autouse=True)
def _embedded_tasks_inline(settings):
    settings.EMBEDDED_WORKER = "inline"
