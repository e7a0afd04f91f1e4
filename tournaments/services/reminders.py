"""E-mail to an event's entrants when it is about to start (a step of the clock's sweep,
:func:`tournaments.services.schedule.clock_sweep`).

*When.* An event "is about to start" when its check-in window opens (``check_in_opens_at``).
An event without a check-in window but with a start time is about to start
:data:`LEAD` before it. An event with neither (started by hand, no check-in) sends none.

*Who.* Each entry still in (registered or checked in) made before that moment: a person who
enters once the window is open has just seen the event's page. Whether they get mail at all
(a person with an address who did not turn it off) is :func:`accounts.mail.address_of`.

*Once per entrant and event*, however many sweepers race: the event's row is taken with
``SELECT ... FOR UPDATE SKIP LOCKED`` while its mails are queued, and each mail's row is
unique per player and event (:class:`accounts.models.Mail`), so a second sweeper skips the
event or finds the mails queued.

*Never late.* Only events still open for registration whose start (if set) is ahead are
considered: after an outage the sweep mails about events still to come and none that
started meanwhile; a mail queued but not yet sent when the event starts is dropped.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import Mail, Player
from accounts.outbox import mail_queue
from tournaments.mails import EVENT_STARTING, event_starting_mail
from tournaments.models import Entry, Event

#: Without a check-in window, an event is about to start this long before its start.
LEAD = timedelta(minutes=30)


def reminder_at(event: Event) -> datetime | None:
    """When the event's entrants are told it is about to start (None: never)."""
    if event.check_in_opens_at is not None:
        return event.check_in_opens_at
    if event.starts_at is not None:
        return event.starts_at - LEAD
    return None


def _due(now: datetime) -> list[Event]:
    return list(
        Event.objects.filter(status=Event.Status.REGISTRATION)
        .filter(
            Q(check_in_opens_at__lte=now)
            | Q(check_in_opens_at__isnull=True, starts_at__lte=now + LEAD)
        )
        .filter(Q(starts_at__gt=now) | Q(starts_at__isnull=True))
        .order_by("pk")
    )


def _unmailed(event: Event, moment: datetime):
    mailed = Mail.objects.filter(player=OuterRef("player"), kind=EVENT_STARTING, about=event.pk)
    return (
        Entry.objects.filter(
            event=event,
            status__in=Entry.ACTIVE,
            registered_at__lte=moment,
            player__kind=Player.Kind.HUMAN,
            player__email_events=True,
            player__deleted_at__isnull=True,
        )
        .exclude(player__user__email="")
        .exclude(Exists(mailed))
        .select_related("player__user")
        .order_by("pk")
    )


def event_reminders_queue(*, now: datetime | None = None) -> int:
    """Queue "about to start" for every entrant of every event whose moment has come (see the
    module doc); the mails go out after the commit. Returns how many were queued."""
    now = now or timezone.now()
    queued = 0
    for due in _due(now):
        moment = reminder_at(due)
        if moment is None or not _unmailed(due, moment).exists():
            continue  # every entrant told (the usual case: the lock is taken only for work)
        with transaction.atomic():
            # Locked and read again: a second sweeper skips it, one started meanwhile is
            # not due any more.
            event = (
                Event.objects.select_for_update(skip_locked=True)
                .filter(pk=due.pk, status=Event.Status.REGISTRATION)
                .first()
            )
            if event is None:
                continue
            moment = reminder_at(event)
            if moment is None or moment > now:
                continue
            if event.starts_at is not None and event.starts_at <= now:
                continue
            for entry in _unmailed(event, moment):
                subject, body = event_starting_mail(event=event, player=entry.player)
                queued += mail_queue(
                    player=entry.player,
                    kind=EVENT_STARTING,
                    about=event.pk,
                    subject=subject,
                    body=body,
                    expires_at=event.starts_at,
                )
    return queued
