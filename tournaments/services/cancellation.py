"""Cancelling an event that has not ended, with its unfinished matches."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games import services as play
from games.models import IN_PROGRESS
from tournaments.live import event_changed
from tournaments.models import Event, Pairing
from tournaments.services.base import (
    Conflict,
    User,
    event_is,
    lock_event,
    lock_live_matches,
    log_action,
)


def event_cancel(*, event: Event, by: User | None = None, reason: str = "") -> Event:
    """Cancel an event that has not ended; its unfinished matches are cancelled."""
    with transaction.atomic():
        lock_live_matches(event.pk)
        event = lock_event(event.pk)
        if event.is_over:
            raise Conflict(event_is(event.status), code="event_over")
        live = Pairing.objects.filter(event=event, match__status__in=IN_PROGRESS).select_related(
            "match"
        )
        for pairing in live:
            assert pairing.match is not None
            play.match_cancel(match=pairing.match, reason=f"event cancelled: {reason}"[:300])
        event.status = Event.Status.CANCELLED
        event.finished_at = timezone.now()
        event.cancel_reason = reason[:300]
        event.save(update_fields=["status", "finished_at", "cancel_reason"])
        log_action(event, "cancel", by, reason)
        event_changed(event)
    return event
