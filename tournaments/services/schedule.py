"""Events on a clock: registration opens and the event starts by itself, at the set times.

:func:`clock_sweep` runs every few seconds (beat's ``sweep-event-clock``; embedded, the clock
sweeper thread at the same interval). It is the organiser's hand on the buttons, nothing more:
it calls :func:`~tournaments.services.registration.event_open_registration` for every draft
whose ``registration_opens_at`` has come, then
:func:`~tournaments.services.start.event_start` for every event open for registration whose
``starts_at`` has come, each with a line in the event's audit log saying the schedule did it
(no user, the reason naming the time set).

*Due, not "at this minute".* An event is picked up by what it is (its status) and when it was
due (at or before ``now``), never by the minute it was due in: after a restart or an outage the
first pass opens or starts everything that came due meanwhile, late (the audit line says how
late) but not forgotten.

*Exactly once.* Each event is taken in its own transaction with ``SELECT ... FOR UPDATE SKIP
LOCKED`` on the row, re-read with its status condition: a second sweeper (another worker, beat
firing twice, a second web process embedded) skips a row the first is working on, and finds it
no longer due once that one has committed. The services check the status under the same lock,
so a racing organiser's click makes one of the two a no-op too.

*An event that cannot start* because fewer than two entries are left (after those who did not
check in are withdrawn) is cancelled, its reason saying so: at the start time players expect
the event to begin or to be called off, not to sit in "registration" past its time. Any other
refusal (two of one stable in a rated round robin, an unknown bot strategy) is something the
organiser can fix: the event stays open, one audit line ``start_refused`` says why, and the
next pass tries again (so it starts by itself once fixed).

A draft is the organiser's work in progress: its start time alone never starts it; only one
that opens registration by itself (or that the organiser opened) is started by the clock.

*E-mail.* Each pass also queues "about to start" for the entrants of events whose check-in
window has opened (tournaments.services.reminders), and queues again the e-mails whose send
is overdue (accounts.mail).

*Recurring events.* A draft with a repeat rule is a template (tournaments.services.repeat):
never opened nor started itself, it gives its occurrences, which :func:`occurrences_create`
makes first in each pass (see there).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from itertools import islice, takewhile
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.outbox import mails_retry
from tournaments.models import Event, EventLog
from tournaments.services.base import TournamentError, log_action
from tournaments.services.cancellation import event_cancel
from tournaments.services.events import check_in_derive
from tournaments.services.registration import event_open_registration
from tournaments.services.reminders import event_reminders_queue
from tournaments.services.repeat import starts_after
from tournaments.services.start import event_start

#: Events opened or started in one pass at most (the rest are due in the next pass).
BATCH = 50
#: Occurrences of one template created in one pass at most.
OCCURRENCES_AHEAD = 10
#: An event the clock opens or starts: not a template (a draft with a repeat rule).
NOT_TEMPLATE = Q(repeat_rule="") | ~Q(status=Event.Status.DRAFT)
#: The settings an occurrence does not take from its template: its own identity, times and
#: progress, and the template's repeat settings (every other setting is copied, so one the
#: model gains is copied too).
NOT_COPIED = {
    "id",
    "name",
    "status",
    "starts_at",
    "registration_opens_at",
    "registration_closes_at",
    "check_in_opens_at",
    "seeding_seed",
    "repeat_rule",
    "repeat_lead_minutes",
    "repeat_timezone",
}


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _late(moment: datetime, now: datetime) -> str:
    minutes = int((now - moment).total_seconds() // 60)
    return f", {minutes} minutes late" if minutes >= 1 else ""


def _take(pk: int, status: str, field: str, now: datetime) -> Event | None:
    """The event's row, locked, if it is still due; None if taken by another sweeper or done."""
    return (
        Event.objects.select_for_update(skip_locked=True)
        .filter(NOT_TEMPLATE, pk=pk, status=status, **{f"{field}__lte": now})
        .first()
    )


def _due(status: str, field: str, now: datetime) -> list[int]:
    return list(
        Event.objects.filter(NOT_TEMPLATE, status=status, **{f"{field}__lte": now})
        .order_by(field, "pk")
        .values_list("pk", flat=True)[:BATCH]
    )


def registrations_open(*, now: datetime | None = None) -> int:
    """Open registration of every draft whose ``registration_opens_at`` has come."""
    now = now or timezone.now()
    opened = 0
    for pk in _due(Event.Status.DRAFT, "registration_opens_at", now):
        with transaction.atomic():
            event = _take(pk, Event.Status.DRAFT, "registration_opens_at", now)
            if event is None:
                continue
            assert event.registration_opens_at is not None
            reason = (
                f"by the schedule: registration opens at {_when(event.registration_opens_at)}"
                + _late(event.registration_opens_at, now)
            )
            event_open_registration(event=event, now=now, reason=reason)
            opened += 1
    return opened


def events_start(*, now: datetime | None = None) -> dict[str, int]:
    """Start every event open for registration whose ``starts_at`` has come (see the module
    doc for one that cannot start)."""
    now = now or timezone.now()
    counts = {"started": 0, "cancelled": 0, "refused": 0}
    for pk in _due(Event.Status.REGISTRATION, "starts_at", now):
        with transaction.atomic():
            event = _take(pk, Event.Status.REGISTRATION, "starts_at", now)
            if event is None:
                continue
            assert event.starts_at is not None
            due = f"the start time {_when(event.starts_at)}"
            reason = f"by the schedule: {due}{_late(event.starts_at, now)}"
            try:
                with transaction.atomic():  # a refused start leaves nothing behind
                    event_start(event=event, now=now, reason=reason)
            except TournamentError as error:
                if error.code == "not_enough_entries":
                    event_cancel(
                        event=event,
                        reason=f"by the schedule: too few players at {due} ({error})",
                    )
                    counts["cancelled"] += 1
                else:
                    _refused(event, error)
                    counts["refused"] += 1
                continue
            counts["started"] += 1
    return counts


def _refused(event: Event, error: TournamentError) -> None:
    """One audit line per start time and refusal, however many passes try again."""
    starts = event.starts_at.isoformat() if event.starts_at else None
    seen = EventLog.objects.filter(
        event=event, action="start_refused", detail__starts_at=starts, detail__code=error.code
    )
    if not seen.exists():
        log_action(
            event,
            "start_refused",
            None,
            f"by the schedule: the event could not start: {error}"[:300],
            starts_at=starts,
            code=error.code,
        )


def occurrence_settings(template: Event) -> dict:
    """The settings an occurrence copies from its template (see :data:`NOT_COPIED`)."""
    settings = {
        field.attname: copy.deepcopy(getattr(template, field.attname))
        for field in Event._meta.concrete_fields
        if field.editable and field.name not in NOT_COPIED
    }
    return {**settings, "created_by_id": template.created_by_id}


def _occurrence_create(template: Event, start: datetime, now: datetime) -> Event:
    local = start.astimezone(ZoneInfo(template.repeat_timezone))
    occurrence = Event(
        **occurrence_settings(template),
        name=f"{template.name} {local:%Y-%m-%d %H:%M}"[:120],
        template=template,
        starts_at=start,
        registration_opens_at=now,
    )
    check_in_derive(occurrence)
    occurrence.save()
    occurrence.co_organisers.set(template.co_organisers.all())
    log_action(
        occurrence,
        "create",
        None,
        f"by the schedule: an occurrence of {template.name} (event {template.pk}), "
        f"{template.repeat_lead_minutes} minutes before its start",
        template=template.pk,
    )
    return event_open_registration(
        event=occurrence, now=now, reason="by the schedule: a recurring event's occurrence"
    )


def _created(template: Event, start: datetime) -> bool:
    """Whether the occurrence is there already (spares most passes an insert refused)."""
    return Event.objects.filter(template=template, starts_at=start).exists()


def occurrences_create(*, now: datetime | None = None) -> int:
    """Create the occurrences of every template that are due: a copy of the template's
    settings as they are now, registration open, named after the template and the local date
    and time of its start.

    *Due*: its start is after ``now`` and at most ``repeat_lead_minutes`` away. A change to
    the template is therefore seen by every occurrence created after it, and by none created
    before (those are events of their own, changed one by one).

    *Only what is still to come.* After an outage the first pass creates the next
    occurrence(s) whose start is still ahead; those whose start passed meanwhile are skipped,
    not created late (a long outage of an hourly event would otherwise leave dozens of past
    events, each cancelled at once for want of players).

    *Exactly once.* An event has one occurrence per start (a unique constraint on the template
    and the start): a racing sweeper's copy fails to insert and is rolled back, as one that
    already exists. Each copy is made with the template's row locked and read again, so a
    change or a stop committed meanwhile is seen.
    """
    now = now or timezone.now()
    created = 0
    templates = Event.objects.filter(status=Event.Status.DRAFT).exclude(repeat_rule="")
    for template in templates.order_by("pk"):
        horizon = now + timedelta(minutes=template.repeat_lead_minutes)
        try:
            due = list(
                takewhile(
                    lambda start, horizon=horizon: start <= horizon,
                    islice(starts_after(template, now), OCCURRENCES_AHEAD),
                )
            )
        except TournamentError:
            continue  # a rule that no longer reads (a time zone gone): nothing to create
        for start in due:
            if _created(template, start):
                continue
            try:
                with transaction.atomic():
                    # The template as it is now, locked: a change or a stop committed
                    # meanwhile is seen (or waits for the copy).
                    fresh = _template_locked(template.pk, template.repeat_rule)
                    if fresh is None:
                        break
                    _occurrence_create(fresh, start, now)
            except IntegrityError:
                continue  # another sweeper created it first
            created += 1
    return created


def _template_locked(pk: int, rule: str) -> Event | None:
    """The template's row, locked, if it still repeats by ``rule``."""
    return (
        Event.objects.select_for_update()
        .filter(pk=pk, status=Event.Status.DRAFT, repeat_rule=rule)
        .first()
    )


def clock_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The periodic pass: create the occurrences of recurring events that are due, open the
    registrations that are due, e-mail the entrants of the events about to start
    (:mod:`~tournaments.services.reminders`), then start the events; and queue again the
    e-mails whose send is overdue."""
    now = now or timezone.now()
    return {
        "created": occurrences_create(now=now),
        "opened": registrations_open(now=now),
        "reminded": event_reminders_queue(now=now),
        **events_start(now=now),
        "mails_retried": mails_retry(now=now),
    }


def clock_due(*, now: datetime | None = None) -> dict[str, int]:
    """The on-time pass, every second: open the registrations and start the events whose time
    has come, nothing else (two indexed reads when nothing is due).

    :func:`clock_sweep` does the same every 15 s with the rest of the clock's work; this one
    makes an event start within a second or two of its time rather than up to a sweep's
    period late. Both take each event once (see the module doc), so they may overlap.
    """
    now = now or timezone.now()
    return {"opened": registrations_open(now=now), **events_start(now=now)}
