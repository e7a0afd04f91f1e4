"""`/api/health`: whether the database and the broker answer, said within a second.

Load balancers and orchestrators act on this answer, so it must come at once whatever is
down: a PostgreSQL or a Redis that refuses connections, but also one that accepts them and
never answers (a paused server, a host gone from the network). Both checks run side by side
on threads of their own and the answer waits for them at most ``HEALTH_TIMEOUT`` seconds; a
check still running then is reported as ``error: timeout``. The web process lets a health
request in at once, ahead of the requests waiting for its views (common/admission.py).

The database check takes a connection the way a request would: from the process's pool when
it has one (waiting for it no longer than the health check may), so it says whether this
process can serve, not only whether PostgreSQL is up.
"""

import logging
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_for_futures

import psycopg
import redis
from celery import current_app
from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

logger = logging.getLogger(__name__)

#: Seconds the answer waits for the checks (they run at once, side by side).
HEALTH_TIMEOUT = 0.6
#: The checks' threads, shared by every health request of the process: a flood of health
#: requests queues here (and is answered "timeout") instead of starting threads without end.
_checks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="health")


def _failure(service: str, exc: Exception) -> str:
    """The report of a failed check: the error's type only (anyone may read the health check,
    and a driver's message names hosts and ports); the message goes to the log."""
    logger.warning("health: the %s check failed: %s: %s", service, type(exc).__name__, exc)
    return f"error: {type(exc).__name__}"


def database_status(timeout: float = HEALTH_TIMEOUT) -> str:
    """ "ok" when the database answers a query, else "error: ..."."""
    try:
        if connection.vendor != "postgresql":
            with connection.cursor() as cursor:  # SQLite: a file of this machine
                cursor.execute("SELECT 1")
                cursor.fetchone()
        elif (pool := connection.pool) is not None:
            pool.open()  # as Django does before its first connection
            with pool.connection(timeout=timeout) as conn:
                conn.execute("SELECT 1").fetchone()
        else:
            params = connection.get_connection_params()
            # libpq waits at least 2 s to connect: the caller's deadline is the bound.
            params["connect_timeout"] = max(2, round(timeout))
            with psycopg.connect(**params) as conn:
                conn.execute("SELECT 1").fetchone()
    except Exception as exc:  # any failure is a report, not a crash
        return _failure("database", exc)
    return "ok"


def broker_status(timeout: float = HEALTH_TIMEOUT) -> str:
    """ "embedded" without a broker, "ok" when the broker answers, else "error: ..."."""
    if settings.CELERY_EMBEDDED:
        return "embedded"
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith(("redis://", "rediss://")):
            client = redis.Redis.from_url(
                url, socket_connect_timeout=timeout, socket_timeout=timeout, retry=None
            )
            try:
                client.ping()
            finally:
                client.close()
        else:
            # The project's Celery app (config.celery), which every process has loaded.
            with current_app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, timeout=timeout)
                # Opening a channel makes the transport talk to the server.
                conn.default_channel  # noqa: B018
    except Exception as exc:
        return _failure("broker", exc)
    return "ok"


def check_all(timeout: float = HEALTH_TIMEOUT) -> dict[str, str]:
    """Both checks at once, waiting at most ``timeout`` s; one not done then is "error:
    timeout" (its thread ends on its own short timeouts)."""
    report = {}
    futures = {"broker": _checks.submit(broker_status, timeout)}
    if connection.vendor == "postgresql":
        futures["database"] = _checks.submit(database_status, timeout)
    else:  # SQLite, a file of this machine: on the request's thread and its connection
        report["database"] = database_status(timeout)
    wait_for_futures(futures.values(), timeout=timeout)
    for service, future in futures.items():
        if future.done():
            report[service] = future.result()
        else:
            future.cancel()  # still queued behind other checks: never run it
            logger.warning("health: the %s check did not answer within %s s", service, timeout)
            report[service] = "error: timeout"
    return report


class HealthView(APIView):
    """Whether the database and the broker answer: 200 when both do, 503 otherwise, within a
    second whatever is down."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []  # probes poll often; they must never be throttled

    @extend_schema(
        responses={
            (200, "application/json"): inline_serializer(
                "Health",
                {
                    "status": serializers.ChoiceField(["ok", "error"]),
                    "database": serializers.CharField(),
                    "broker": serializers.CharField(),
                },
            ),
            (503, "application/json"): inline_serializer(
                "HealthFailing",
                {
                    "status": serializers.ChoiceField(["ok", "error"]),
                    "database": serializers.CharField(),
                    "broker": serializers.CharField(),
                },
            ),
        },
        auth=[],
    )
    def get(self, request: Request) -> Response:
        report = check_all()
        healthy = report["database"] == "ok" and report["broker"] in ("ok", "embedded")
        body = {
            "status": "ok" if healthy else "error",
            "database": report["database"],
            "broker": report["broker"],
        }
        return Response(body, status=200 if healthy else 503)
