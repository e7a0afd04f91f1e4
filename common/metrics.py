"""What an operator watches: Prometheus metrics at ``/metrics``.

The series (all prefixed ``ginrummy_``):

- ``http_request_duration_seconds{route,method,status}``: every HTTP request by URL route
  (the route pattern, e.g. ``api/games/<int:pk>/actions``, never the path itself);
- ``move_duration_seconds{outcome}``: a move in the service, lock to commit, REST or socket
  (``outcome`` ``played`` or ``refused``);
- ``admission_wait_seconds{lane}``: a request's wait for one of its web process's
  ``WEB_VIEW_CONCURRENCY`` slots (``common.admission``), by lane (``play``: a game's view,
  a move, a Continue; ``other``);
- ``sockets_open{socket}``: sockets held now (``game``, ``event``, ``me``), summed over the
  live web processes; ``push_latency_seconds``: from a change's publish to its view being
  sent on a table socket;
- ``celery_task_duration_seconds{task,queue}``: every task run, by its queue; and
  ``celery_queue_length{queue}``: messages waiting in each queue, read from the broker when
  scraped;
- ``clock_lag_seconds``: from a clock's deadline to its settlement (the sweep's delay);
- ``matchmaker_pass_seconds`` and ``matchmaker_queue_size`` (players waiting in every
  ladder queue, read when scraped);
- ``webhook_deliveries{status}``: webhook deliveries by status (``failed`` ones gave up after
  their retries), read when scraped.

The figures read when scraped from an app's tables are gauges the app registers from its
``AppConfig.ready()`` (:func:`gauge_register`: a name, a help text, and a function that reads
the value), so this module imports no app.

Several processes: with ``PROMETHEUS_MULTIPROC_DIR`` set (``deploy/cluster.py`` and the
compose file set it; an empty directory, shared by the web processes and the workers of one
host, emptied before they start) each process writes its samples there and any web process answers
for all of them (``prometheus_client``'s multiprocess mode). Without it (the embedded default,
one process) the process's own registry answers.

Who may read: clients from ``METRICS_ALLOWED_IPS`` (addresses or networks; loopback by
default), or any client sending ``Authorization: Bearer <METRICS_TOKEN>`` when that is set.
Anyone else gets a 404, as for a page that does not exist.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from common import embedded
from common.broker import broker_redis
from common.lanes import BATCH, INTERACTIVE

logger = logging.getLogger(__name__)

#: Request and move latencies, in seconds: fine below a second, where people feel it.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
TASK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 180.0)

HTTP_REQUEST_SECONDS = Histogram(
    "ginrummy_http_request_duration_seconds",
    "HTTP requests by URL route, method and status",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
MOVE_SECONDS = Histogram(
    "ginrummy_move_duration_seconds",
    "A move in the service, from taking the match's lock to the commit",
    ["outcome"],
    buckets=LATENCY_BUCKETS,
)
SOCKETS_OPEN = Gauge(
    "ginrummy_sockets_open",
    "Sockets held now, by kind",
    ["socket"],
    multiprocess_mode="livesum",
)
ADMISSION_WAIT_SECONDS = Histogram(
    "ginrummy_admission_wait_seconds",
    "A request's wait for a free slot in its web process's views (WEB_VIEW_CONCURRENCY)",
    ["lane"],
    buckets=LATENCY_BUCKETS,
)
PUSH_SECONDS = Histogram(
    "ginrummy_push_latency_seconds",
    "From a change published to its view sent on a table socket",
    buckets=LATENCY_BUCKETS,
)
TASK_SECONDS = Histogram(
    "ginrummy_celery_task_duration_seconds",
    "Celery task runs by task and queue",
    ["task", "queue"],
    buckets=TASK_BUCKETS,
)
CLOCK_LAG_SECONDS = Histogram(
    "ginrummy_clock_lag_seconds",
    "From a clock's deadline (turn or pause) to its settlement",
    buckets=LATENCY_BUCKETS,
)
MATCHMAKER_PASS_SECONDS = Histogram(
    "ginrummy_matchmaker_pass_seconds",
    "One matchmaker pass over a ladder's queue",
    buckets=LATENCY_BUCKETS,
)
TASK_FAILURES = Counter(
    "ginrummy_celery_task_failures_total", "Celery task runs that raised", ["task", "queue"]
)


#: What a registered gauge reads: a number, or with labels a number for each tuple of values.
GaugeValue = float | Mapping[tuple[str, ...], float]


@dataclass(frozen=True)
class _RegisteredGauge:
    name: str
    documentation: str
    read: Callable[[], GaugeValue]
    labels: tuple[str, ...]


_gauges: dict[str, _RegisteredGauge] = {}


def gauge_register(
    name: str,
    documentation: str,
    read: Callable[[], GaugeValue],
    *,
    labels: tuple[str, ...] = (),
) -> None:
    """Add a gauge read when ``/metrics`` is scraped (an app's figure from its tables).

    ``read()`` returns the value, or with ``labels`` a mapping of label values (a tuple, in
    the order of ``labels``) to values. A failing read (the database down) leaves the gauge
    out of that answer. Registering a name again replaces it (``ready()`` may run twice).
    """
    _gauges[name] = _RegisteredGauge(name, documentation, read, tuple(labels))


class _ScrapeTimeCollector(Collector):
    """Figures read when scraped: queue lengths from the broker, the apps' gauges."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield from self._queue_lengths()
        for gauge in list(_gauges.values()):
            yield from self._registered(gauge)

    def _queue_lengths(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "ginrummy_celery_queue_length",
            "Messages waiting in each Celery queue",
            labels=["queue"],
        )
        if settings.CELERY_EMBEDDED:
            for queue, waiting in embedded.queued().items():
                family.add_metric([queue], waiting)
        else:
            client = broker_redis()
            try:
                for queue in (INTERACTIVE, BATCH):
                    family.add_metric([queue], client.llen(queue) if client else 0)
            except Exception:  # Redis down: the scrape answers without this series
                logger.warning("metrics: queue lengths unavailable", exc_info=True)
                return
        yield family

    def _registered(self, gauge: _RegisteredGauge) -> Iterator[GaugeMetricFamily]:
        try:
            value = gauge.read()
        except Exception:  # the database down: answer with what the processes hold
            logger.warning("metrics: %s unavailable", gauge.name, exc_info=True)
            return
        if not gauge.labels:
            yield GaugeMetricFamily(gauge.name, gauge.documentation, value=value)
            return
        family = GaugeMetricFamily(gauge.name, gauge.documentation, labels=list(gauge.labels))
        for values, number in value.items():
            family.add_metric(list(values), number)
        yield family


@cache
def registry() -> CollectorRegistry:
    """The registry ``/metrics`` answers from: every process of the host, or this one."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        combined = CollectorRegistry()
        multiprocess.MultiProcessCollector(combined)
    else:
        combined = REGISTRY
    combined.register(_ScrapeTimeCollector())
    return combined


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer "):
        return hmac.compare_digest(header.removeprefix("Bearer ").encode(), token.encode())
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``: the Prometheus text format, for allowed clients only (else 404)."""
    if not _allowed(request):
        raise Http404
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


class RequestMetricsMiddleware:
    """Times every request by its URL route (the pattern matched, not the path)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None and match.route else "unmatched"
        HTTP_REQUEST_SECONDS.labels(route, request.method, str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response


def mark_process_dead(pid: int) -> None:
    """A process of the host ended: its live gauges (sockets open) no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)
