"""Webhooks: per-event URLs notified of ``event.started``, ``round.started``, ``match.finished``
and ``event.finished``.

A notification is queued inside the transaction that caused it (one
:class:`~tournaments.models.WebhookDelivery` row per subscribed webhook) and sent by the
``tournaments.deliver_webhook`` task after the commit, with retries and exponential backoff;
every attempt's response is recorded on the row (the admin shows them).

Each delivery is a JSON POST signed with the webhook's secret::

    X-Ginrummy-Event: match.finished
    X-Ginrummy-Delivery: <uuid, the same on every retry>
    X-Ginrummy-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>">

Delivery is at least once (a worker may die after the POST): receivers dedupe by the delivery
id, and check the signature and the timestamp with :func:`verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from django.db.models import F
from django.utils import timezone

from tournaments.models import Event, Webhook, WebhookDelivery

logger = logging.getLogger(__name__)

#: Seconds to wait for a receiver's answer.
TIMEOUT = 5.0
#: Retries after the first attempt (6 attempts in all, over about 2.5 minutes).
MAX_RETRIES = 5
#: Bytes of a response body kept on the delivery row.
BODY_LIMIT = 2000
USER_AGENT = "ginrummy-webhooks/1"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes, *, tolerance: int = 300) -> bool:
    """True if ``header`` signs ``body`` with ``secret`` and is at most ``tolerance`` s old."""
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
    from tournaments import tasks

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
        tasks.deliver_webhook.delay_on_commit(delivery.pk)
    return len(deliveries)


def body_of(delivery: WebhookDelivery) -> bytes:
    """The exact bytes POSTed: the payload with the delivery id, compact, keys sorted."""
    document = {"id": str(delivery.uuid), **delivery.payload}
    return json.dumps(document, separators=(",", ":"), sort_keys=True).encode()


def deliver(delivery_id: int) -> bool:
    """One attempt to POST a delivery; records the response. True once it is delivered.

    A delivery already delivered is not sent again (a rerun task changes nothing).
    """
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status == WebhookDelivery.Status.DELIVERED:
        return True
    if delivery.status == WebhookDelivery.Status.FAILED:
        return True  # given up on; the admin's "deliver again" resets it to pending first
    hook = delivery.webhook
    body = body_of(delivery)
    request = urllib.request.Request(
        hook.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Ginrummy-Event": delivery.event_type,
            "X-Ginrummy-Delivery": str(delivery.uuid),
            "X-Ginrummy-Signature": sign(hook.secret, int(time.time()), body),
        },
    )
    status: int | None = None
    text = ""
    error = ""
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            status = response.status
            text = response.read(BODY_LIMIT).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        status = exc.code
        text = exc.read(BODY_LIMIT).decode(errors="replace")
        error = f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        error = str(getattr(exc, "reason", exc))[:300] or type(exc).__name__
    ok = status is not None and 200 <= status < 300
    now = timezone.now()
    changes: dict[str, Any] = {
        "attempts": F("attempts") + 1,
        "response_status": status,
        "response_body": text,
        "error": "" if ok else error or f"HTTP {status}",
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
    from tournaments import tasks

    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=WebhookDelivery.Status.PENDING)
    tasks.deliver_webhook.delay_on_commit(delivery.pk)
