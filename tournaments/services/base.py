"""What every tournament service shares: its errors, the audit log and the lock order.

Every change runs in one transaction. A change to a running event locks the event row, so two
matches finishing at once advance it one after the other. The lock order is: the event's
unfinished matches (by id), then the event, then its pairings. A match that finishes holds its
own row (games locks it) and then takes the event in
:func:`tournaments.services.results.pairing_record`, the ``match_finished`` receiver; services
that may end or cancel matches of the event lock those rows first (:func:`lock_live_matches`),
so no two transactions ever wait for each other in a circle.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils.translation import gettext as _

from common.errors import ServiceError
from games.models import IN_PROGRESS, Match
from tournaments.models import Entry, Event, EventLog, Pairing

User = AbstractBaseUser


class TournamentError(ServiceError):
    """A refused request of the tournaments."""


class Conflict(TournamentError):
    """The event is not in a state that allows this (closed, full, over, already done)."""

    status = 409
    code = "conflict"


def event_is(status: str) -> str:
    """ "the event is <status>": the words of a refusal for an event in that state."""
    said = {
        Event.Status.DRAFT: _("the event is draft"),
        Event.Status.REGISTRATION: _("the event is registration"),
        Event.Status.RUNNING: _("the event is running"),
        Event.Status.FINISHED: _("the event is finished"),
        Event.Status.CANCELLED: _("the event is cancelled"),
    }
    return said.get(status) or _("the event is %(status)s") % {"status": status}


def entry_is(status: str, *, already: bool = False) -> str:
    """ "the entry is <status>" (or "already <status>"): a refusal's words for an entry."""
    if already:
        said = {
            Entry.Status.REGISTERED: _("the entry is already registered"),
            Entry.Status.CHECKED_IN: _("the entry is already checked_in"),
            Entry.Status.WITHDRAWN: _("the entry is already withdrawn"),
            Entry.Status.DISQUALIFIED: _("the entry is already disqualified"),
        }
        return said.get(status) or _("the entry is already %(status)s") % {"status": status}
    said = {
        Entry.Status.REGISTERED: _("the entry is registered"),
        Entry.Status.CHECKED_IN: _("the entry is checked_in"),
        Entry.Status.WITHDRAWN: _("the entry is withdrawn"),
        Entry.Status.DISQUALIFIED: _("the entry is disqualified"),
    }
    return said.get(status) or _("the entry is %(status)s") % {"status": status}


def log_action(
    event: Event,
    action: str,
    actor: User | None,
    reason: str = "",
    *,
    pairing: Pairing | None = None,
    entry: Entry | None = None,
    **detail: Any,
) -> None:
    """Write one line of the event's audit log: what was done, by whom, why."""
    EventLog.objects.create(
        event=event,
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        reason=reason,
        pairing=pairing,
        entry=entry,
        detail=detail,
    )


def lock_event(event_id: int) -> Event:
    """The event's row, locked to the end of the transaction (after its live matches)."""
    return Event.objects.select_for_update().get(pk=event_id)


def lock_live_matches(event_id: int, *, entry: Entry | None = None) -> None:
    """Lock the event's unfinished matches (by id) before the event row: see the module doc."""
    pairings = Pairing.objects.filter(event_id=event_id, match__isnull=False)
    if entry is not None:
        pairings = pairings.filter(Q(entry_a=entry) | Q(entry_b=entry))
    ids = list(pairings.filter(match__status__in=IN_PROGRESS).values_list("match_id", flat=True))
    if ids:
        list(
            Match.objects.select_for_update()
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
