"""Unit tests run embedded tasks inline, right after the commit in the committing thread.

Their transactions never commit (or commit into an in-memory SQLite database that other
threads cannot share), so the in-process worker's threads would never see their rows. The
tests of the worker itself (test_embedded_worker.py) run it in a child process on a file.
"""

import pytest
from schemathesis.pytest.plugin import SchemathesisFunction


def pytest_collection_modifyitems(items):
    """A node id of its own for each of schemathesis's tests (test_fuzz_api.py).

    Schemathesis makes a test per API operation, named ``test_x[GET /api/...]``, but pytest
    9.2 builds a node id from the bare function name: all of them share one id, and
    pytest-xdist, which hands tests to its workers by id, would run one and drop the rest.
    """
    for item in items:
        if not isinstance(item, SchemathesisFunction) or item.nodeid.endswith(f"::{item.name}"):
            continue
        label = item.name.removeprefix(f"{item.originalname}[").removesuffix("]")
        item._id = item.parent.id.child(item.originalname).with_params(label)


@pytest.fixture(autouse=True)
def _embedded_tasks_inline(settings):
    settings.EMBEDDED_WORKER = "inline"


@pytest.fixture(autouse=True)
def _socket_database_work_on_the_test_thread(settings):
    """Sockets' database work on Channels' one thread, which is the test's own here (the
    in-memory SQLite database cannot be written from several threads)."""
    settings.SOCKET_DB_THREADS = 0
