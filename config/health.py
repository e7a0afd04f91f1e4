"""`/api/health`: whether the database and the broker answer."""

import logging

from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

logger = logging.getLogger(__name__)


def _failure(service: str, exc: Exception) -> str:
    """The report of a failed check: the error's type only (anyone may read the health check,
    and a driver's message names hosts and ports); the message goes to the log."""
    logger.warning("health: the %s check failed: %s: %s", service, type(exc).__name__, exc)
    return f"error: {type(exc).__name__}"


def database_status() -> str:
    """ "ok" when the database answers a query, else "error: ..."."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is a report, not a crash
        return _failure("database", exc)
    return "ok"


def broker_status(timeout: float = 2.0) -> str:
    """ "embedded" without a broker, "ok" when the broker answers, else "error: ..."."""
    if settings.CELERY_EMBEDDED:
        return "embedded"
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=timeout)
            # Opening a channel makes the transport talk to the server (Redis: PING).
            conn.default_channel  # noqa: B018
    except Exception as exc:
        return _failure("broker", exc)
    return "ok"


class HealthView(APIView):
    """Whether the database and the broker answer: 200 when both do, 503 otherwise."""

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
        database = database_status()
        broker = broker_status()
        healthy = database == "ok" and broker in ("ok", "embedded")
        body = {"status": "ok" if healthy else "error", "database": database, "broker": broker}
        return Response(body, status=200 if healthy else 503)
