"""What the embedded default runs in the background: an in-process worker and a clock sweeper.

With no broker there are no Celery workers and no beat. This module stands in for both.

**The in-process worker.** ``Task.apply_async`` (and so ``delay``, ``delay_on_commit`` and
``apply_async_on_commit``; see config/celery.py) hands each task to :func:`submit` when the
service runs embedded with ``EMBEDDED_WORKER=threads`` (the default). The caller gets an
:class:`InProcessResult` at once and the task runs on a background thread, never inside the
request that queued it. Two lanes of threads, so that work a person waits for is never stuck
behind batch work:

- *interactive*: the tasks the apps declare play (``common.lanes``: a bot's reply, a clock
  countdown, matchmaking, pushes), ``EMBEDDED_INTERACTIVE_THREADS`` threads;
- *batch*: everything else (whole bot matches, event advancement, webhooks, ratings),
  ``EMBEDDED_BATCH_THREADS`` threads.

Each run closes old database connections before and after (as Django does around a request)
and goes through ``Task.apply``, which retries database errors as a worker would; a failure
is logged and the thread goes on. A countdown or an ETA waits on one timer thread, never in a
lane's thread. The threads are daemons, started on first use; queued work lives in memory only,
so work that was queued when the process stopped is redone by the sweeps (below), as in the
distributed mode when the broker loses a message. Time limits are not enforced (a thread
cannot be killed). :func:`wait_idle` waits until nothing is queued, running or scheduled:
management commands and tests use it.

``EMBEDDED_WORKER=inline`` keeps the older behaviour: the task runs right after the commit in
the committing thread. The unit tests use it (their transactions never commit, and their
in-memory SQLite database cannot be shared with other threads).

**The clock sweeper.** A human whose clock runs out must lose on time even if nobody reads the
game. One thread per process runs the periodic tasks the apps declare (``common.periodic``),
the ones beat runs in the distributed mode, each by its registered name at its embedded
interval (beat's, or more often); each skips rows locked by work in progress, so one thread
per process is harmless.

:func:`embedded_start` starts all of it in a web process (config/wsgi.py, config/asgi.py).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from celery import states
from celery.exceptions import TimeoutError as ResultTimeout
from celery.utils import uuid
from django.conf import settings
from django.db import close_old_connections
from kombu import serialization

from common import periodic, task_names
from common.lanes import BATCH, INTERACTIVE, queue_of

logger = logging.getLogger(__name__)

_started = threading.Event()
#: Set to end the clock sweeper (a test server shutting down before its database does).
_stopping = threading.Event()
_sweeper: threading.Thread | None = None


# --- the clock sweeper ------------------------------------------------------------------------


def _loop(interval: float) -> None:
    """Every ``interval`` seconds, run each periodic task that is due (common.periodic)."""
    last_run: dict[str, float] = {}
    while not _stopping.wait(interval):
        try:
            close_old_connections()
        except Exception:
            logger.exception("embedded sweeper: closing old connections failed")
        for entry in periodic.embedded_schedule():
            now = time.monotonic()
            if entry.name in last_run and now - last_run[entry.name] < entry.embedded_every:
                continue
            last_run[entry.name] = now
            try:
                # The task's function, in this thread, as beat's run of it on a worker.
                task_names.registered(entry.task).run(**entry.embedded_kwargs)
            except Exception:  # keep sweeping: one failed pass must not stop the clocks
                logger.exception("embedded sweep %s (%s) failed", entry.name, entry.task)


def start_clock_sweeper(interval: float = 1.0) -> bool:
    """Start the sweep thread unless it runs already; True if this call started it."""
    global _sweeper
    if _started.is_set():
        return False
    _started.set()
    _stopping.clear()
    _sweeper = threading.Thread(target=_loop, args=(interval,), name="clock-sweeper", daemon=True)
    _sweeper.start()
    return True


def stop_clock_sweeper(timeout: float = 10.0) -> None:
    """End the sweep thread after its current pass, and wait for it (a server shutting down
    before its database: the browser tests' live server)."""
    _stopping.set()
    if _sweeper is not None:
        _sweeper.join(timeout)
    _started.clear()


def embedded_start() -> None:
    """Start what the embedded mode runs beside a web process; nothing with a broker.

    Called once by each entry point (WSGI, ASGI); calling it again does nothing more.
    """
    if not settings.CELERY_EMBEDDED:
        return
    if settings.EMBEDDED_CLOCK_SWEEP:
        start_clock_sweeper()
    if uses_threads():
        _worker.start()


# --- the in-process worker --------------------------------------------------------------------


def uses_threads() -> bool:
    """True when embedded tasks go to the in-process worker (read at each call)."""
    return settings.EMBEDDED_WORKER == "threads"


def lane_of(task_name: str) -> str:
    """The lane a task runs in: its queue's (interactive for the play the apps declare)."""
    return queue_of(task_name)


class InProcessResult:
    """What ``delay``/``apply_async`` return embedded with threads: an id, then the outcome.

    Like Celery's ``AsyncResult``: ``get`` waits for the task and returns its value, or raises
    its error (``propagate=False``: returns the error instead).
    """

    def __init__(self, task_id: str, name: str) -> None:
        self.id = self.task_id = task_id
        self.name = name
        self.state = states.PENDING
        self.result: Any = None
        self.traceback: str | None = None
        self._done = threading.Event()

    def __repr__(self) -> str:
        return f"<InProcessResult: {self.name}[{self.id}] {self.state}>"

    def ready(self) -> bool:
        return self._done.is_set()

    def successful(self) -> bool:
        return self.state == states.SUCCESS

    def failed(self) -> bool:
        return self.state == states.FAILURE

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the task has run; False if ``timeout`` seconds passed first."""
        return self._done.wait(timeout)

    def get(self, timeout: float | None = None, propagate: bool = True, **_ignored: Any) -> Any:
        if not self._done.wait(timeout):
            raise ResultTimeout(f"{self.name}[{self.id}] did not finish in {timeout} s")
        if propagate and self.failed() and isinstance(self.result, BaseException):
            raise self.result
        return self.result

    def _finish(self, state: str, result: Any, traceback: str | None = None) -> None:
        self.state, self.result, self.traceback = state, result, traceback
        self._done.set()


@dataclass(order=True)
class _Job:
    due: float  # time.monotonic() at which it may run (0: now)
    seq: int
    task: Any = field(compare=False)
    args: tuple = field(compare=False)
    kwargs: dict = field(compare=False)
    options: dict = field(compare=False)
    result: InProcessResult = field(compare=False)
    lane: str = field(compare=False)


class InProcessWorker:
    """Two lanes of daemon threads and one timer thread; see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._queues = {INTERACTIVE: queue.SimpleQueue(), BATCH: queue.SimpleQueue()}
        self._scheduled: list[_Job] = []  # a heap by due time, watched by the timer thread
        self._outstanding = 0  # queued + running + scheduled
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start the threads unless they run already (thread counts read from settings)."""
        with self._lock:
            if self._threads:
                return
            sizes = {
                INTERACTIVE: settings.EMBEDDED_INTERACTIVE_THREADS,
                BATCH: settings.EMBEDDED_BATCH_THREADS,
            }
            for lane, size in sizes.items():
                for number in range(1, size + 1):
                    thread = threading.Thread(
                        target=self._serve,
                        args=(lane,),
                        name=f"embedded-{lane}-{number}",
                        daemon=True,
                    )
                    self._threads.append(thread)
            self._threads.append(
                threading.Thread(target=self._time, name="embedded-timer", daemon=True)
            )
            for thread in self._threads:
                thread.start()

    def submit(self, task, args, kwargs, options: dict) -> InProcessResult:
        """Queue ``task`` (after its countdown or ETA, if any); returns at once."""
        options = dict(options)
        task_id = options.pop("task_id", None) or uuid()
        delay = _delay_of(options.pop("countdown", None), options.pop("eta", None))
        for unused in ("producer", "shadow", "add_to_parent", "ignore_result"):
            options.pop(unused, None)
        # As Celery does eagerly: the arguments go through the task serializer, so what would
        # fail to reach a real worker fails here too, in the caller.
        serializer = options.get("serializer") or task.app.conf.task_serializer
        content_type, encoding, data = serialization.dumps((args or (), kwargs or {}), serializer)
        args, kwargs = serialization.loads(data, content_type, encoding, accept=[content_type])
        result = InProcessResult(task_id, task.name)
        job = _Job(
            due=time.monotonic() + delay if delay > 0 else 0.0,
            seq=next(self._seq),
            task=task,
            args=tuple(args),
            kwargs=kwargs,
            options=options,
            result=result,
            lane=lane_of(task.name),
        )
        self.start()
        with self._lock:
            self._outstanding += 1
            if job.due:
                heapq.heappush(self._scheduled, job)
                self._lock.notify_all()  # the timer thread may have to wake sooner
                return result
        self._queues[job.lane].put(job)
        return result

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is queued, running or scheduled; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._outstanding == 0, timeout)

    @property
    def outstanding(self) -> int:
        """Tasks queued, running or waiting for their countdown."""
        with self._lock:
            return self._outstanding

    def _time(self) -> None:
        """Move each scheduled job to its lane when it is due."""
        while True:
            with self._lock:
                while not self._scheduled or self._scheduled[0].due > time.monotonic():
                    wait = self._scheduled[0].due - time.monotonic() if self._scheduled else None
                    self._lock.wait(wait)
                job = heapq.heappop(self._scheduled)
            self._queues[job.lane].put(job)

    def _serve(self, lane: str) -> None:
        jobs = self._queues[lane]
        while True:
            job = jobs.get()
            state, value, traceback = states.FAILURE, None, None
            try:
                state, value, traceback = self._run(job)
            except BaseException as error:  # never let one task end the thread
                logger.exception(
                    "Task %s[%s] broke the in-process worker's %s lane; it goes on",
                    job.task.name,
                    job.result.id,
                    job.lane,
                )
                value = error
            finally:
                # Under the lock, so whoever sees the result ready also sees it counted done.
                with self._lock:
                    self._outstanding -= 1
                    job.result._finish(state, value, traceback)
                    self._lock.notify_all()

    def _run(self, job: _Job) -> tuple[str, Any, str | None]:
        """Run one task as a worker would; its state, value (or error) and traceback."""
        close_old_connections()
        try:
            outcome = job.task.apply(
                job.args, job.kwargs, task_id=job.result.id, throw=False, **job.options
            )
        finally:
            close_old_connections()
        if outcome.failed():
            # One line: celery.app.trace has logged the traceback already.
            logger.error(
                "Task %s[%s] failed in the in-process worker (%s lane): %r",
                job.task.name,
                job.result.id,
                job.lane,
                outcome.result,
            )
        return outcome.state, outcome.result, outcome.traceback


def _delay_of(countdown: float | None, eta: datetime | str | None) -> float:
    """Seconds to wait before a task may run, from Celery's ``countdown`` or ``eta``."""
    if countdown is not None:
        return max(0.0, float(countdown))
    if eta is None:
        return 0.0
    if isinstance(eta, str):
        eta = datetime.fromisoformat(eta)
    if eta.tzinfo is None:
        eta = eta.replace(tzinfo=UTC)  # as Celery reads a naive ETA (enable_utc)
    return max(0.0, (eta - datetime.now(UTC)).total_seconds())


_worker = InProcessWorker()


def submit(task, args=None, kwargs=None, **options) -> InProcessResult:
    """Run ``task`` on the in-process worker; see :meth:`InProcessWorker.submit`."""
    return _worker.submit(task, args, kwargs, options)


def wait_idle(timeout: float | None = None) -> bool:
    """Wait until the in-process worker has nothing queued, running or scheduled.

    True when it is idle (at once when it never ran anything), False if ``timeout`` seconds
    passed first. Tasks that queue more tasks keep it busy until those have run too.
    """
    return _worker.wait_idle(timeout)


def outstanding() -> int:
    """How many tasks the in-process worker has queued, running or scheduled."""
    return _worker.outstanding


def queued() -> dict[str, int]:
    """Tasks waiting in each lane (not yet running), as the queues' lengths are reported."""
    return {lane: jobs.qsize() for lane, jobs in _worker._queues.items()}
