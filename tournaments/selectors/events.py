"""Events and who may change them: the list, the organisers' rights, a player's entry."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from accounts.hooks import Busy
from accounts.models import Player
from tournaments.models import Entry, Event


def event_list() -> QuerySet[Event]:
    """Every event with its number of active entries, newest first."""
    return (
        Event.objects.select_related("champion")
        .annotate(entries_count=Count("entries", filter=Q(entries__status__in=Entry.ACTIVE)))
        .order_by("-id")
    )


#: The site-wide permission to change every event, not only one's own (superusers hold it).
MANAGE_ALL_EVENTS = "tournaments.manage_all_events"


def may_manage(user: Any, event: Event) -> bool:
    """Whether ``user`` may change ``event``: one of its organisers (its creator and the
    co-organisers they named), or someone who may manage every event. The one rule of who
    may change an event; the model permission each action needs is asked besides."""
    if user is None or not user.is_authenticated:
        return False
    if user.has_perm(MANAGE_ALL_EVENTS):
        return True
    if event.created_by_id is not None and event.created_by_id == user.pk:
        return True
    return event.co_organisers.filter(pk=user.pk).exists()


def organisers_of(event: Event) -> list[Any]:
    """The event's organisers: its creator first, then its co-organisers by username."""
    found = [event.created_by] if event.created_by_id is not None else []
    others = event.co_organisers.select_related("player").order_by("username")
    found += [user for user in others if user.pk != event.created_by_id]
    return found


def organised_by(user: Any) -> Q:
    """The events ``user`` organises (created or co-organised), as a filter."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    return Q(created_by=user) | Q(
        pk__in=Event.co_organisers.through.objects.filter(user_id=user.pk).values("event_id")
    )


def entry_of(*, event: Event, player: Player | None) -> Entry | None:
    if player is None:
        return None
    return Entry.objects.filter(event=event, player=player).first()


def player_busy(player: Player) -> Busy | None:
    """The player's entry in an event that has not ended, as the reason their account stays
    (a hook of ``accounts.hooks``: a running bracket would wait on a player nobody can be)."""
    entry = (
        Entry.objects.select_related("event")
        .filter(player=player, status__in=Entry.ACTIVE)
        .exclude(event__status__in=[Event.Status.FINISHED, Event.Status.CANCELLED])
        .first()
    )
    if entry is None:
        return None
    return Busy(
        _("you are entered in the event %(event)r: withdraw from it first")
        % {"event": entry.event.name},
        {"event": entry.event_id},
    )
