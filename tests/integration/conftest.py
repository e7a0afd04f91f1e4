"""Integration fixtures: the real PostgreSQL and Redis, and real Celery workers.

The services are checked once per session. Unreachable outside CI: every integration test is
skipped with one line saying why. Unreachable with ``CI=true``: the run fails.

Workers run as subprocesses (``celery -A config worker``) on the pytest-django *test* database
and the same Redis, so tests that use them need ``django_db(transaction=True)``: a worker cannot
see rows of a transaction the test has not committed.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connections
from rest_framework.test import APIClient

from config.celery import app
from tests.conftest import sign_in
from tests.factories import BotFactory
from tests.integration.tasks import SlowGreedyBot

ROOT = Path(__file__).resolve().parents[2]
#: How long a worker or beat may take to start: a child process importing Django and Celery
#: takes seconds on a quiet machine and minutes on a busy one; only a broken start waits this.
START_SECONDS = 180.0


def _problem() -> str | None:
    """Why the integration services cannot be used, or None when they can."""
    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        return f"DATABASE_URL is not PostgreSQL (engine {db['ENGINE']})"
    broker = settings.CELERY_BROKER_URL
    if not broker.startswith("redis://"):
        return f"CELERY_BROKER_URL is not a Redis URL ({broker or 'unset: embedded mode'})"
    try:
        psycopg.connect(
            host=db["HOST"],
            port=db["PORT"] or 5432,
            user=db["USER"],
            password=db["PASSWORD"],
            dbname=db["NAME"],
            connect_timeout=3,
        ).close()
    except psycopg.Error as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"PostgreSQL at {db['HOST']}:{db['PORT']} is unreachable ({first_line})"
    try:
        redis.Redis.from_url(broker, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis at {broker} is unreachable ({exc})"
    return None


_SKIP_PREFIX = "integration tests skipped: "


@pytest.fixture(scope="session", autouse=True)
def integration_services():
    """Check PostgreSQL and Redis once; start every session with an empty test Redis db."""
    problem = _problem()
    if problem:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.exit(f"CI=true and the integration services are not usable: {problem}", 3)
        pytest.skip(f"{_SKIP_PREFIX}{problem} (with CI=true this fails the run)")
    # Messages left by an interrupted earlier run would otherwise reach this run's workers.
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


@pytest.fixture(autouse=True)
def fresh_throttles():
    """Every test starts with the whole request allowance of its client address.

    The live servers keep their throttles in the shared test Redis, and every test's client is
    127.0.0.1: a test that spends the allowance (a flood) would otherwise leave the next
    tests' reads throttled for the rest of the minute.
    """
    if settings.CHANNEL_REDIS_URL:
        client = redis.Redis.from_url(settings.CHANNEL_REDIS_URL)
        stale = list(client.scan_iter(match="ginrummy:*throttle*", count=1000))
        if stale:
            client.delete(*stale)
        client.close()
    yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Report every skip for unreachable services at one place, so `-ra` prints one line."""
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple) and _SKIP_PREFIX in report.longrepr[2]:
        report.longrepr = (__file__, _problem.__code__.co_firstlineno, report.longrepr[2])
    return report
    # Messages left by an interrupted earlier run would otherwise reach this run's workers.
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()


def worker_database_url() -> str:
    """The URL of pytest-django's test database (``test_<name>``), for subprocesses."""
    db = settings.DATABASES["default"]
    auth = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        auth += ":" + quote(db["PASSWORD"], safe="")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def subprocess_env(**overrides: str) -> dict[str, str]:
    """The environment for our subprocesses: this run's settings, the test database."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=worker_database_url(),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        PYTHONUNBUFFERED="1",
    )
    if not env.get("SECRET_KEY"):
        env["DEBUG"] = "1"
    # The tests' webhook receivers listen on loopback over plain HTTP: every worker of the
    # run may deliver to them (any worker on the queues may take a delivery), which the
    # production defaults refuse.
    env.update(WEBHOOK_ALLOW_HTTP="1", WEBHOOK_ALLOW_PRIVATE="1")
    # The background analysis of every rated match between people takes a core for minutes
    # a match: off, as in the test process (tests/conftest.py); its tests turn it on.
    env.setdefault("FAIRPLAY_ANALYSE", "0")
    env.update(overrides)
    return env


@dataclass
class Worker:
    """A Celery worker subprocess. ``pid`` is the main process; see :meth:`pool_pids`."""

    process: subprocess.Popen
    hostname: str
    log_path: Path
    pool: str
    started: list[int] = field(default_factory=list)
    #: Where ``log()`` begins, in bytes (see ``mark``).
    log_from: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def ping(self, timeout: float = 1.0) -> bool:
        """Whether the worker answers a broadcast ping."""
        return bool(app.control.ping(destination=[self.hostname], timeout=timeout))

    def pool_pids(self) -> list[int]:
        """The pool's child processes (prefork); a solo worker runs tasks in ``pid`` itself."""
        if self.pool == "solo":
            return [self.pid]
        stats = app.control.inspect(destination=[self.hostname], timeout=2).stats() or {}
        return list(stats[self.hostname]["pool"]["processes"])

    def log(self) -> str:
        """What the worker has written (since the last ``mark``)."""
        return self.log_path.read_bytes()[self.log_from :].decode(errors="replace")

    def mark(self) -> None:
        """From here ``log()`` shows only what comes after: a worker shared by several tests."""
        self.log_from = self.log_path.stat().st_size

    def settle(self, timeout: float = 30) -> None:
        """Drop this worker's waiting and scheduled tasks and wait until it runs none.

        A task still running when a test ends would hold row locks while pytest-django
        truncates the tables, and PostgreSQL would pick one of the two as a deadlock victim.
        """
        inspect = app.control.inspect(destination=[self.hostname], timeout=2)
        scheduled = (inspect.scheduled() or {}).get(self.hostname, [])
        ids = [task["request"]["id"] for task in scheduled]
        if ids:
            app.control.revoke(ids, destination=[self.hostname])
        app.control.purge()

        def idle() -> bool:
            active = (inspect.active() or {}).get(self.hostname)
            reserved = (inspect.reserved() or {}).get(self.hostname)
            return active == [] and reserved == []

        wait_for(idle, timeout=timeout, interval=0.1)

    def ready(self, timeout: float = START_SECONDS) -> "Worker":
        """Wait until the worker answers a ping; stop it and fail if it does not in time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker {self.hostname} exited at start-up:\n{self.tail()}")
            if self.ping(timeout=0.5):
                return self
        self.stop()
        raise RuntimeError(f"worker {self.hostname} did not answer a ping in time:\n{self.tail()}")

    def tail(self) -> str:
        return self.log()[-3000:]

    def stop(self, timeout: float = 15) -> None:
        """Warm shutdown by pid (SIGTERM), then SIGKILL if it does not go in time."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        self.wait_stopped(timeout)

    def wait_stopped(self, timeout: float = 15) -> None:
        """Wait for the process to end (after a SIGTERM); SIGKILL it if it does not in time."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def spawn_worker(
    *,
    name: str,
    log_dir: Path,
    pool: str = "solo",
    concurrency: int = 1,
    queues: str = "interactive,batch",
    **env: str,
) -> Worker:
    """Start ``celery -A config worker`` on ``queues``, not waiting for it (see ``ready``).

    ``env`` overrides environment variables of the worker (e.g. a short visibility timeout).
    """
    hostname = f"{name}@{socket.gethostname()}"
    log_path = log_dir / f"{name}.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--hostname",
        hostname,
        "--loglevel",
        "INFO",
        "--without-gossip",
        "--without-mingle",
        "--queues",
        queues,
        # The test-only tasks (tests/integration/tasks.py).
        "--include",
        "tests.integration.tasks",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=subprocess_env(**env), stdout=log, stderr=subprocess.STDOUT
        )
    return Worker(process, hostname, log_path, pool)


def start_worker(**kwargs) -> Worker:
    """Start a worker (``spawn_worker``'s arguments) and wait until it answers a ping."""
    return spawn_worker(**kwargs).ready()


@pytest.fixture(scope="session")
def session_worker(django_db_setup, tmp_path_factory):
    """One solo-pool worker for the session (pool from TEST_WORKER_POOL: solo or prefork).

    Stopped before pytest-django drops the test database, which must have no connections.
    """
    pool = os.environ.get("TEST_WORKER_POOL", "solo")
    worker = start_worker(name="pytest", log_dir=tmp_path_factory.mktemp("worker"), pool=pool)
    yield worker
    worker.stop()


@pytest.fixture
def celery_worker(session_worker):
    """The session's worker, settled after the test, before its tables are truncated."""
    yield session_worker
    if session_worker.process.poll() is None:
        session_worker.settle()


class WorkerFactory:
    """``factory(name=..., pool=..., **env)`` starts a worker; ``factory.many(names, ...)``
    starts several alike at once, their start-ups overlapping. All are stopped after."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.workers: list[Worker] = []

    def __call__(self, *, name: str, **kwargs) -> Worker:
        return self.many([name], **kwargs)[0]

    def many(self, names: list[str], **kwargs) -> list[Worker]:
        started = [spawn_worker(name=name, log_dir=self.log_dir, **kwargs) for name in names]
        self.workers.extend(started)
        return [worker.ready() for worker in started]

    def stop_all(self) -> None:
        """Warm shutdowns side by side: each takes seconds (a solo worker's about three)."""
        running = [worker for worker in self.workers if worker.process.poll() is None]
        for worker in running:
            worker.process.send_signal(signal.SIGTERM)
        for worker in running:
            worker.wait_stopped()


@pytest.fixture
def worker_factory(django_db_setup, tmp_path):
    """Start extra workers (see ``WorkerFactory``); stopped after the test."""
    factory = WorkerFactory(tmp_path)
    yield factory
    factory.stop_all()


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(interval)
    raise AssertionError(f"not true within {timeout} s: {predicate}")


# --- Play (games/): bots, real HTTP, racing threads -------------------------------------------
# Used by test_play_concurrency.py, test_play_crash.py and test_play_tasks.py.


@pytest.fixture
def greedy_bots(db):
    """Two bots playing the greedy strategy."""
    return (
        BotFactory(name="Greedy Gus", bot_strategy="greedy"),
        BotFactory(name="Greedy Grace", bot_strategy="greedy"),
    )


@pytest.fixture
def slow_bots(db):
    """Two bots that play exactly like the greedy ones, a millisecond per decision slower."""
    return (
        BotFactory(name="Slow Sam", bot_strategy=SlowGreedyBot.name),
        BotFactory(name="Slow Sue", bot_strategy=SlowGreedyBot.name),
    )


def token_for(username: str) -> str:
    """A real token for ``username``, from signing in through the API."""
    return sign_in(APIClient(), username)


def http(
    base_url: str, method: str, path: str, token: str | None = None, body: dict | None = None
) -> tuple[int, dict]:
    """One real HTTP request; the status and the JSON body (errors included)."""
    headers = {"Accept": "application/json"}
    data = None
    if token:
        headers["Authorization"] = f"Token {token}"
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(base_url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def run_threads(count: int, target: Callable[[int], object]) -> list[object]:
    """Run ``target(i)`` in ``count`` threads released at once; results (or errors) by ``i``.

    Each thread has its own database connection (Django's are per thread), closed at its end.
    """
    results: list[object] = [None] * count
    gate = threading.Barrier(count)

    def run(i: int) -> None:
        try:
            gate.wait()
            results[i] = target(i)
        except Exception as error:  # reported to the test, which decides
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running"
    return results


@pytest.fixture
def celery_beat(django_db_setup, tmp_path):
    """``celery -A config beat`` on the test database and Redis; stopped (by pid) after."""
    log_path = tmp_path / "beat.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "beat",
        "--loglevel",
        "INFO",
        "--schedule",
        str(tmp_path / "celerybeat-schedule"),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=subprocess_env(), stdout=log, stderr=subprocess.STDOUT
        )

    def sending() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"beat exited at start-up:\n{log_path.read_text()[-3000:]}")
        return b"Sending due task" in log_path.read_bytes()

    # Up once it sends its first due task (every sweep is due at start-up): what a test times
    # from here is the schedule, not how long a busy machine took to import beat.
    wait_for(sending, timeout=START_SECONDS, interval=0.2)
    yield process
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
