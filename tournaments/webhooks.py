"""Webhooks: per-event URLs notified of ``event.started``, ``round.started``, ``match.finished``
and ``event.finished``.

A notification is queued inside the transaction that caused it (one
:class:`~tournaments.models.WebhookDelivery` row per subscribed webhook) and sent by the
``tournaments.deliver_webhook`` task after the commit, with retries and exponential backoff in
both modes (a Celery worker's retry, or the in-process worker's timer when embedded); every
attempt's status and a short excerpt of the answer are recorded on the row (the admin shows
them).

Each delivery is a JSON POST signed with the webhook's secret::

    X-Ginrummy-Event: match.finished
    X-Ginrummy-Delivery: <uuid, the same on every retry>
    X-Ginrummy-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>">

Delivery is at least once (a worker may die after the POST): receivers dedupe by the delivery
id, and check the signature and the timestamp with :func:`verify`.

**Where a webhook may point.** A webhook is a request the service makes on an organiser's
behalf, so it must not reach what only the service can reach (its database, Redis, a cloud
metadata address, the admin on loopback). :func:`url_check` resolves the host and refuses the
URL if any of its addresses is loopback, private, link-local, multicast, reserved, unspecified
or otherwise not globally routable; ``https`` only, unless ``WEBHOOK_ALLOW_HTTP``. It runs when
a webhook is saved (:meth:`Webhook.clean`, so the admin's forms) and again at every attempt,
and the attempt connects to the very address that was checked (no second lookup that a
rebinding DNS server could answer differently). Redirects are not followed: a 3xx is a failed
attempt. ``WEBHOOK_ALLOW_PRIVATE`` lets loopback and private addresses through, for a receiver
on the same machine in development and tests; it is off by default.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import json
import logging
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

from django.db.models import F
from django.utils import timezone

from common.enqueue import task_on_commit
from tournaments.models import Event, Webhook, WebhookDelivery
from tournaments.webhook_urls import Target, UnsafeWebhookURL, url_check

logger = logging.getLogger(__name__)

#: Seconds to wait for the connection, and for each read of the receiver's answer.
TIMEOUT = 5.0
#: Seconds a whole attempt may take: a receiver that drips its answer is cut off.
DEADLINE = 15.0
#: Retries after the first attempt (6 attempts in all, over about 2.5 minutes).
MAX_RETRIES = 5
#: Bytes of a response body read from the receiver (the rest is never read).
READ_LIMIT = 1024
#: Characters of the answer kept on the delivery row (an excerpt, for the admin).
EXCERPT_LIMIT = 200
USER_AGENT = "ginrummy-webhooks/1"


def tls_context() -> ssl.SSLContext:
    """The TLS settings of every https delivery: the system's CAs, the host name checked."""
    return ssl.create_default_context()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a checked address, whatever the host name resolves to now."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """As :class:`_PinnedHTTPConnection`, over TLS: the certificate must name the host."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=tls_context())
        self.address = target.address

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        try:
            self.sock = self._context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def excerpt(raw: bytes) -> str:
    """At most :data:`EXCERPT_LIMIT` characters of an answer, control characters escaped.

    What a receiver answers is only a hint for whoever reads the admin: it is cut short, and
    anything unprintable (newlines, terminal escapes, NULs) is written as a Python escape, so
    the excerpt is one line of visible text. The admin escapes it again as HTML.
    """
    text = raw.decode("utf-8", errors="replace")
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    if len(shown) > EXCERPT_LIMIT:
        return shown[: EXCERPT_LIMIT - 1] + "…"
    return shown


def post(target: Target, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    """POST ``body`` to ``target``'s checked address; the status and the start of the answer.

    Never follows a redirect (the 3xx comes back as it is) and reads at most
    :data:`READ_LIMIT` bytes of the answer. An attempt that has no complete answer after
    :data:`DEADLINE` seconds raises :class:`TimeoutError`.
    """
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target, TIMEOUT)
    # TIMEOUT bounds each read only; a receiver sending a byte every few seconds would hold
    # the worker for as long as it liked. The timer shuts the socket at the deadline, which
    # ends whichever read is waiting.
    cut = threading.Event()
    timer = threading.Timer(DEADLINE, _cut_off, args=(connection, cut))
    timer.daemon = True
    timer.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read(READ_LIMIT)
    except (OSError, http.client.HTTPException):
        if cut.is_set():
            raise TimeoutError(f"No complete answer within {DEADLINE:g} s") from None
        raise
    finally:
        timer.cancel()
        connection.close()
    if cut.is_set():
        raise TimeoutError(f"No complete answer within {DEADLINE:g} s")
    return response.status, answer


def _cut_off(connection: http.client.HTTPConnection, cut: threading.Event) -> None:
    cut.set()
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # closed already
            sock.shutdown(socket.SHUT_RDWR)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes, *, tolerance: int = 300) -> bool:
    """For receivers: True if ``header`` signs ``body`` with ``secret`` and is fresh.

    ``header`` is the ``X-Ginrummy-Signature`` value and ``body`` the request's raw bytes.
    A timestamp more than ``tolerance`` seconds away from now, in the past (a replayed
    delivery) or in the future, is refused, as is any malformed header.
    """
    try:
        parts = dict(item.split("=", 1) for item in header.split(","))
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - timestamp) > tolerance:
        return False
    expected = sign(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))


def event_json(event: Event) -> dict[str, Any]:
    return {"id": event.pk, "name": event.name, "format": event.format, "status": event.status}


def emit(event: Event, event_type: str, data: dict[str, Any] | Callable[[], dict[str, Any]]) -> int:
    """Queue ``event_type`` for every active webhook of ``event`` that wants it.

    Call inside the transaction that made the change: the rows commit with it, and the
    deliveries are sent only after the commit. ``data`` may be a function, called only when
    some webhook wants the notification. Returns how many were queued.
    """
    hooks = [h for h in Webhook.objects.filter(event=event, active=True) if event_type in h.events]
    if not hooks:
        return 0
    payload = {
        "type": event_type,
        "created_at": timezone.now().isoformat(),
        "event": event_json(event),
        "data": data() if callable(data) else data,
    }
    deliveries = WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(webhook=h, event_type=event_type, payload=payload) for h in hooks]
    )
    for delivery in deliveries:
        task_on_commit("tournaments.deliver_webhook", delivery.pk)
    return len(deliveries)


def body_of(delivery: WebhookDelivery) -> bytes:
    """The exact bytes POSTed: the payload with the delivery id, compact, keys sorted."""
    document = {"id": str(delivery.uuid), **delivery.payload}
    return json.dumps(document, separators=(",", ":"), sort_keys=True).encode()


def deliver(delivery_id: int) -> bool:
    """One attempt to POST a delivery; records the response. True once it is delivered.

    The URL is checked again (:func:`url_check`) and the POST goes to the address checked; a
    refused URL, a redirect or any answer but a 2xx is a failed attempt. A delivery already
    delivered is not sent again (a rerun task changes nothing).
    """
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status == WebhookDelivery.Status.DELIVERED:
        return True
    if delivery.status == WebhookDelivery.Status.FAILED:
        return True  # given up on; the admin's "deliver again" resets it to pending first
    hook = delivery.webhook
    body = body_of(delivery)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Ginrummy-Event": delivery.event_type,
        "X-Ginrummy-Delivery": str(delivery.uuid),
        "X-Ginrummy-Signature": sign(hook.secret, int(time.time()), body),
    }
    status: int | None = None
    answer = b""
    error = ""
    try:
        status, answer = post(url_check(hook.url), body, headers)
    except UnsafeWebhookURL as exc:
        error = f"Refused: {exc}"
    except (OSError, http.client.HTTPException, ValueError) as exc:
        error = str(exc) or type(exc).__name__
    ok = status is not None and 200 <= status < 300
    if status is not None and not ok:
        error = f"HTTP {status}"
        if 300 <= status < 400:
            error += " (redirects are not followed)"
    now = timezone.now()
    changes: dict[str, Any] = {
        "attempts": F("attempts") + 1,
        "response_status": status,
        "response_body": excerpt(answer),
        "error": "" if ok else error[:300],
        "last_attempt_at": now,
    }
    if ok:
        changes.update(status=WebhookDelivery.Status.DELIVERED, delivered_at=now)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(**changes)
    if not ok:
        logger.info("webhook delivery %s to %s failed: %s", delivery.pk, hook.url, error)
    return ok


def give_up(delivery_id: int) -> None:
    """The last retry failed: the delivery is marked failed (the admin can send it again)."""
    WebhookDelivery.objects.filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING).update(
        status=WebhookDelivery.Status.FAILED
    )


def backoff(retries: int) -> float:
    """Seconds before retry ``retries + 1``: 5, 10, 20, 40, 80 with up to 20% jitter."""
    base = 5.0 * 2**retries
    return base + random.uniform(0, base / 5)


def redeliver(delivery: WebhookDelivery) -> None:
    """Send a delivery again (the admin's action), whatever became of it."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=WebhookDelivery.Status.PENDING)
    task_on_commit("tournaments.deliver_webhook", delivery.pk)
