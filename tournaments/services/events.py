"""Creating, editing and checking events: the options an event may take, the rules its matches
play."""

from __future__ import annotations

import copy
from typing import Any

from django.db import transaction

from accounts.models import Player
from games import services as play
from tournaments.formats.standings import UNPLAYED_MODES, validate_tiebreaks
from tournaments.live import event_changed
from tournaments.models import Entry, Event, EventLog, Format, Seeding, Venue
from tournaments.services import two_stage
from tournaments.services.base import Conflict, TournamentError, User, log_action

#: The longest arena, in minutes (a day).
ARENA_MAX_MINUTES = 24 * 60


def event_validate(event: Event) -> None:
    """Refuse an event whose options make no sense, naming the option (TournamentError)."""
    if event.format not in Format.values:
        raise TournamentError(
            f"unknown format {event.format!r}; known: {', '.join(Format.values)}",
            code="unknown_format",
        )
    if event.seeding not in Seeding.values:
        raise TournamentError(
            f"unknown seeding method {event.seeding!r}; known: {', '.join(Seeding.values)}",
            code="unknown_seeding",
        )
    if not isinstance(event.tiebreaks, list):
        raise TournamentError("tiebreaks must be a list of names", code="invalid_tiebreaks")
    try:
        validate_tiebreaks(event.tiebreaks)
    except ValueError as error:
        raise TournamentError(str(error), code="invalid_tiebreaks") from None
    if event.tiebreak_unplayed not in UNPLAYED_MODES:
        raise TournamentError(
            f"unknown tiebreak_unplayed {event.tiebreak_unplayed!r}; known: "
            f"{', '.join(UNPLAYED_MODES)}",
            code="invalid_tiebreaks",
        )
    if event.best_of % 2 == 0:
        raise TournamentError("a match is best of an odd number of games", code="invalid_rules")
    try:
        match_rules(event)
    except play.PlayError as error:
        raise TournamentError(str(error), code="invalid_rules") from None
    if event.venue not in Venue.values:
        raise TournamentError(
            f"unknown venue {event.venue!r}; known: {', '.join(Venue.values)}",
            code="invalid_venue",
        )
    if event.venue != Venue.ONLINE and event.duplicate_deals:
        raise TournamentError(
            "duplicate deals are dealt by the server: they cannot be played at a table",
            code="duplicate_deals_at_table",
        )
    if event.venue != Venue.ONLINE and event.format == Format.ARENA:
        raise TournamentError(
            "an arena pairs players as they finish, on the clock: it is played online",
            code="arena_online_only",
        )
    if event.duplicate_deals and event.pk is not None:
        people = event.entries.filter(status__in=Entry.ACTIVE).exclude(player__kind=Player.Kind.BOT)
        if people.exists():
            raise TournamentError(
                "duplicate deals are for house bots only, and people are entered",
                code="duplicate_deals_need_bots",
            )
    if event.venue == Venue.ONLINE and event.pk is not None:
        guests = event.entries.filter(status__in=Entry.ACTIVE, player__kind=Player.Kind.GUEST)
        if guests.exists():
            raise TournamentError(
                "guests are entered, who cannot play online: keep the event at tables (or "
                "mixed), or withdraw the guests first",
                code="guests_need_tables",
            )
    opens, closes = event.registration_opens_at, event.registration_closes_at
    if opens and closes and closes <= opens:
        raise TournamentError(
            "registration must close after it opens", code="invalid_registration_window"
        )
    minutes = event.arena_minutes
    if minutes is not None and not 0 < minutes <= ARENA_MAX_MINUTES:
        raise TournamentError(
            f"arena_minutes must be more than 0 and at most {ARENA_MAX_MINUTES}; got {minutes}",
            code="invalid_arena_minutes",
        )
    if event.capacity is not None and event.capacity < 2:
        raise TournamentError("an event needs room for at least two players", code="capacity")
    if event.format == Format.TWO_STAGE:
        two_stage.options_check(event)


def match_rules(event: Event) -> dict[str, Any]:
    """The rule set of the event's matches: its rules, best of N to the target, duplicate deals."""
    built = play.rules_build(event.rules or None, best_of=event.best_of, target=event.target)
    return built.replace(duplicate_deals=event.duplicate_deals).to_dict()


def time_control(event: Event) -> play.TimeControl | None:
    if event.base_seconds is None:
        return None
    return play.TimeControl(
        base_seconds=event.base_seconds,
        increment_seconds=event.increment_seconds,
        turn_limit_seconds=event.turn_limit_seconds,
        timeout_policy=event.timeout_policy,
    )


def event_create(
    *, name: str, format: str, created_by: User | None = None, **options: Any
) -> Event:
    """A new event in draft. Options are Event fields; bad ones raise TournamentError."""
    known = {f.name for f in Event._meta.get_fields() if getattr(f, "editable", False)}
    unknown = set(options) - known
    if unknown:
        raise TournamentError(f"unknown event option(s): {', '.join(sorted(unknown))}")
    if format == Format.TWO_STAGE:
        # Groups are snake-seeded by rating unless the organiser seeds them another way.
        options.setdefault("seeding", Seeding.RATING)
    event = Event(name=name, format=format, created_by=created_by, **options)
    event_validate(event)
    event.save()
    log_action(event, "create", created_by)
    event_changed(event)
    return event


#: Settings that change only before the start (after it only the name does), as in the admin.
EDITABLE_ONCE_STARTED = {"name"}


def event_update(*, event: Event, by: User | None = None, **changes: Any) -> Event:
    """Change an event's settings (staff): validated as a whole, logged ``edit`` with the
    fields that changed, as the admin's change form logs it. Once the event has started only
    the name changes (409 ``event_started``)."""
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=event.pk)
        changed = [name for name, value in changes.items() if getattr(event, name) != value]
        started = event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION)
        frozen = sorted(set(changed) - EDITABLE_ONCE_STARTED) if started else []
        if frozen:
            raise Conflict(
                f"the event has started: {', '.join(frozen)} can no longer change",
                code="event_started",
            )
        candidate = copy.copy(event)
        for name, value in changes.items():
            setattr(candidate, name, value)
        event_validate(candidate)
        if changed:
            candidate.save(update_fields=changed)
            EventLog.objects.create(
                event=candidate,
                action="edit",
                actor=by if by is not None and by.is_authenticated else None,
                detail={"fields": changed},
            )
    return candidate
