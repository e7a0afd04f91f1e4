"""Browser tests: Playwright for Python drives Debian's Chromium against a live server.

The browser is Debian's ``chromium`` package (``make browsers`` installs it); Playwright's
own browser downloads do not work here and are never used. The database is a SQLite *file*:
every server thread gets its own connection, as in the embedded default (an in-memory
database would be one connection shared by the server's threads and the test's). Run them
with ``make test-e2e``.

The live server is the ASGI application under uvicorn in a thread of the test process
(:class:`AsgiLiveServer`), so the pages' sockets work as under ``make run``.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from common import embedded

E2E_DIR = Path(__file__).parent
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
# Chromium as root in a container, with no network but loopback: no sandbox, no GPU, and
# none of the background connections that this machine's closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-extensions",
]
#: Every e2e wait is bounded; a slow shared CI machine gets this long.
TIMEOUT_MS = 15_000


def pytest_collection_modifyitems(items):
    """Everything under tests/e2e/ is an e2e test."""
    for item in items:
        if E2E_DIR in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """The test database in a file (see the module docstring)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        db.setdefault("TEST", {})["NAME"] = str(Path(settings.VAR_DIR) / "test-e2e.sqlite3")


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the tests save screenshots: var/screenshots/ (gitignored)."""
    path = Path(settings.VAR_DIR) / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    for old in path.glob("failed-*.png"):  # from an earlier run
        old.unlink()
    return path


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make browsers` installs Debian's chromium")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)

    # Playwright's sync API runs an event loop in this thread; Django refuses database
    # calls from a thread with a running loop unless told that this is deliberate.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class AsgiLiveServer:
    """The ASGI application (pages, API and sockets) served by uvicorn in a thread.

    As ``make run`` serves it: one process, the in-memory channel layer, the embedded
    worker's threads and clock sweep, here on the test database.
    """

    def __init__(self) -> None:
        import socket

        import uvicorn

        from config.asgi import application
        from config.workers import socket_frame_limit

        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        host, port = self.socket.getsockname()
        self.url = f"http://{host}:{port}"
        config = uvicorn.Config(
            application,
            lifespan="off",
            log_level="warning",
            ws="websockets",
            ws_max_size=socket_frame_limit(),  # as make run and deploy/ serve
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the ASGI live server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        # The embedded clock sweeper would go on reading the database pytest-django closes.
        embedded.stop_clock_sweeper()


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        server = AsgiLiveServer()
    yield server
    server.stop()


@pytest.fixture
def live(asgi_server, transactional_db):
    """The live server's base URL, with the database emptied after each test."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("e2e tests need a file database: run them on their own (make test-e2e)")
    return asgi_server.url


@pytest.fixture
def context(browser, live) -> Iterator:
    context = browser.new_context(base_url=live, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def page(context, request, screenshots):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        page.screenshot(path=str(screenshots / f"failed-{request.node.name}.png"), full_page=True)
    assert not errors, f"JavaScript errors on the page: {errors}"
