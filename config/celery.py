"""The Celery app: configuration from Django settings (``CELERY_*``), a base task class.

Every task of the project gets, from :class:`Task`:

- retries with exponential backoff and jitter when the database is briefly unreachable
  (``OperationalError``/``InterfaceError``), up to ``max_retries``;
- a redelivery cap: a message whose worker died ``CELERY_TASK_MAX_REDELIVERIES`` times is
  dropped with an error log and recorded as failed (:class:`RedeliveryCapReached`) instead of
  killing workers forever;
- ``delay_on_commit``/``apply_async_on_commit`` (from Celery's ``DjangoTask``): enqueue only
  once the surrounding transaction has committed. With no broker configured the task then runs
  in-process: on the in-process worker's threads (common/embedded.py), or with
  ``EMBEDDED_WORKER=inline`` right after the commit in the committing thread.

Workers keep their database connection between tasks (``CELERY_DB_REUSE_MAX``) and, like
Django does around each request, drop it when it is too old or broken.
"""

import functools
import logging
import os
import time

from celery import Celery, signals
from celery.contrib.django.task import DjangoTask
from django.db import InterfaceError, OperationalError, close_old_connections, transaction

from common import embedded, periodic
from common.broker import broker_redis
from common.lanes import queue_of
from common.metrics import TASK_FAILURES, TASK_SECONDS

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)


class RedeliveryCapReached(Exception):
    """A task whose worker died every time it ran it (a poison message) was dropped."""


class Task(DjangoTask):
    """Base class of every task here: retries on database hiccups, caps redeliveries."""

    autoretry_for = (OperationalError, InterfaceError)
    retry_backoff = True  # 1 s, 2 s, 4 s, ... between retries
    retry_backoff_max = 60
    retry_jitter = True  # spread retries so recovering workers do not stampede the database
    max_retries = 5

    def apply(self, args=None, kwargs=None, *, throw=None, **options):
        """Run the task in-process (embedded mode), retrying like a worker would.

        Celery, when told to propagate eager errors, raises the ``Retry`` of the first failed
        attempt to the caller instead of retrying. So attempts run without propagation (Celery
        then reruns a retried task at once, without the backoff) and only the final error is
        raised, as ``task_eager_propagates`` asks.
        """
        propagate = self.app.conf.task_eager_propagates if throw is None else throw
        result = super().apply(args, kwargs, throw=False, **options)
        if propagate and result.failed() and isinstance(result.result, BaseException):
            raise result.result
        return result

    def apply_async(self, args=None, kwargs=None, **options):
        """Publish to the broker; embedded, run in-process (see common/embedded.py).

        Embedded with ``EMBEDDED_WORKER=threads`` the task goes to the in-process worker and an
        :class:`~common.embedded.InProcessResult` comes back at once; its errors are logged
        there, and raised only by ``get()``. Inline (and with a broker) this is Celery's own.
        """
        if self.app.conf.task_always_eager and embedded.uses_threads():
            return embedded.submit(self, args, kwargs, **options)
        return super().apply_async(args, kwargs, **options)

    def retry_later(self, countdown: float) -> None:
        """Run this task again in ``countdown`` seconds as its next retry, in either mode.

        With a worker (and inline) this raises Celery's ``Retry`` (:meth:`retry`), the
        countdown waiting in the broker. On the in-process worker Celery would rerun an eager
        task's retry at once, countdown or not (every attempt within milliseconds): the next
        attempt is queued instead, waits on the worker's timer thread and counts as the next
        retry, and this returns (the run ends as one that failed and will be retried).
        """
        request = self.request
        if request.is_eager and embedded.uses_threads():
            self.apply_async(
                request.args, request.kwargs, countdown=countdown, retries=request.retries + 1
            )
            return
        raise self.retry(countdown=countdown)

    def delay_on_commit(self, *args, **kwargs) -> None:
        """``delay`` once the transaction commits; see :meth:`apply_async_on_commit`."""
        self._on_commit(functools.partial(self.apply_async, args, kwargs, ignore_result=True))

    def apply_async_on_commit(self, *args, **kwargs) -> None:
        """``apply_async`` once the transaction commits.

        With a broker, a failure to publish (Redis down at that moment) is logged and does not
        reach the caller: the change it follows has committed and must be answered as such, and
        every kind of follow-up work is redone by a sweep (clocks and lost bot work in
        ``games.sweep_clocks``, ladder starts and results in ``ladders.sweep``, tournament
        results in ``tournaments.sweep``). Embedded with threads the same holds: the task is
        handed to the in-process worker, which logs its errors. Inline (``EMBEDDED_WORKER=
        inline``) the task runs in the committing thread and its errors propagate.

        Nobody can wait for such a task, so its result is not kept (``ignore_result``): with
        the Redis result backend every publish would otherwise subscribe the publishing
        process to the task's result channel, on a connection shared by all its threads,
        and the worker would store and announce a result nobody reads.
        """
        kwargs.setdefault("ignore_result", True)
        self._on_commit(functools.partial(self.apply_async, *args, **kwargs))

    def _on_commit(self, publish) -> None:
        def send() -> None:
            publish()

        # Django names the callback in its log line when a robust one fails (a partial has
        # no name, and the logging itself would then fail).
        send.__qualname__ = f"{self.name}.publish"
        transaction.on_commit(send, robust=not self._runs_inline())

    def _runs_inline(self) -> bool:
        """Embedded with EMBEDDED_WORKER=inline: tasks run in the thread that queues them."""
        if not self.app.conf.task_always_eager:
            return False
        return not embedded.uses_threads()

    def __call__(self, *args, **kwargs):
        if self._redelivery_cap_reached():
            # Acknowledged and dropped, and recorded as failed (the result backend keeps the
            # FAILURE with this error; the worker logs it): see _redelivery_cap_reached.
            raise RedeliveryCapReached(
                f"{self.name}[{self.request.id}] dropped: its worker died "
                f"{self.app.conf.get('task_max_redeliveries') or 5} times running it"
            )
        return super().__call__(*args, **kwargs)

    def _redelivery_cap_reached(self) -> bool:
        """Count redeliveries of this message; true once the cap is reached.

        Redis marks a message ``redelivered`` when it goes back to the queue because its worker
        died (reject on worker lost, or the visibility timeout). Only those deliveries are
        counted, so the normal path costs nothing. A retry is a new message (``retries`` is in
        the key) and starts a new count.
        """
        request = self.request
        if request.is_eager or not (request.delivery_info or {}).get("redelivered"):
            return False
        client = broker_redis()
        if client is None:
            return False
        key = f"ginrummy:redeliveries:{request.id}:{request.retries}"
        count = client.incr(key)
        client.expire(key, 24 * 3600)
        cap = self.app.conf.get("task_max_redeliveries") or 5
        if count < cap:
            logger.warning("Task %s[%s] redelivered (%d of %d)", self.name, request.id, count, cap)
            return False
        logger.error(
            "Task %s[%s] dropped after %d redeliveries: its worker died every time. "
            "Arguments: %r %r",
            self.name,
            request.id,
            count,
            request.args,
            request.kwargs,
        )
        return True


def route_task(name, args, kwargs, options, task=None, **kw) -> dict:
    """Celery router: every task to its queue, interactive for the play the apps declare
    (common.lanes), else batch; a queue named when sending still wins."""
    return {"queue": queue_of(name)}


app = Celery("ginrummy", task_cls=Task)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_routes = (route_task,)
app.autodiscover_tasks()


@signals.task_prerun.connect
@signals.task_postrun.connect
def _close_old_connections(sender=None, **kwargs):
    """Apply CONN_MAX_AGE and CONN_HEALTH_CHECKS between tasks, as Django does per request.

    With CELERY_DB_REUSE_MAX set, Celery's fix-up no longer closes the connection around each
    task; without this a broken or very old connection would be reused by the next task.
    """
    if getattr(sender.request, "is_eager", False):
        return  # in-process: the surrounding request or test owns the connection
    close_old_connections()


@signals.import_modules.connect
def _beat_schedule(sender=None, **kwargs):
    """Beat's schedule: the periodic tasks the apps declare (common.periodic).

    Beat (like a worker) imports the apps' task modules before it reads its schedule, and
    Celery's Django fix-up sets Django up, the apps' ``ready()`` with it, on this same signal
    first (it connected when the app was made)."""
    app.conf.beat_schedule = periodic.beat_schedule()


_started: dict[str, float] = {}


def _queue_of_request(task) -> str:
    """The queue a task run came from (its routing key), or the one it is routed to."""
    info = getattr(task.request, "delivery_info", None) or {}
    return info.get("routing_key") or queue_of(task.name)


@signals.task_prerun.connect
def _task_started(task_id=None, **kwargs):
    _started[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **kwargs):
    """Every task run timed by task and queue for /metrics (common.metrics); failures counted."""
    started = _started.pop(task_id, None)
    if task is None or started is None:
        return
    queue = _queue_of_request(task)
    TASK_SECONDS.labels(task.name, queue).observe(time.perf_counter() - started)
    if state == "FAILURE":
        TASK_FAILURES.labels(task.name, queue).inc()


@app.task(name="health.ping")
def ping() -> str:
    """Answer "pong": proves a round trip through the broker to a worker and back."""
    return "pong"
