"""Creating, editing and checking events: the options an event may take, the rules its matches
play."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from games import services as play
from tournaments.formats.standings import TIEBREAKS, UNPLAYED_MODES, validate_tiebreaks
from tournaments.live import event_changed
from tournaments.models import Entry, Event, EventLog, Format, Seeding, Venue
from tournaments.services import two_stage
from tournaments.services.base import Conflict, TournamentError, User, log_action
from tournaments.services.repeat import repeat_check

#: The longest arena, in minutes (a day).
ARENA_MAX_MINUTES = 24 * 60
#: The longest description, in characters (plain text or Markdown).
DESCRIPTION_MAX = 10_000
#: The settings of an event on a clock (see :func:`clock_check`).
CLOCK_FIELDS = {"starts_at", "check_in_minutes", "registration_opens_at", "check_in_opens_at"}


def _tiebreaks_refusal(names: list) -> str:
    """What is wrong with a list of tiebreaks, in the reader's language (the pure
    :func:`~tournaments.formats.standings.validate_tiebreaks` says it in English)."""
    seen: list = []
    for name in names:
        if name not in TIEBREAKS:
            return _("unknown tiebreak %(name)r; known: %(known)s") % {
                "name": name,
                "known": ", ".join(TIEBREAKS),
            }
        if name in seen:
            return _("tiebreak %(name)r is listed twice") % {"name": name}
        seen.append(name)
    return _("tiebreaks must be a list of names")


def event_validate(event: Event) -> None:
    """Refuse an event whose options make no sense, naming the option (TournamentError)."""
    if event.format not in Format.values:
        raise TournamentError(
            _("unknown format %(format)r; known: %(known)s")
            % {"format": event.format, "known": ", ".join(Format.values)},
            code="unknown_format",
        )
    if event.seeding not in Seeding.values:
        raise TournamentError(
            _("unknown seeding method %(seeding)r; known: %(known)s")
            % {"seeding": event.seeding, "known": ", ".join(Seeding.values)},
            code="unknown_seeding",
        )
    if not isinstance(event.tiebreaks, list):
        raise TournamentError(_("tiebreaks must be a list of names"), code="invalid_tiebreaks")
    try:
        validate_tiebreaks(event.tiebreaks)
    except ValueError:
        raise TournamentError(
            _tiebreaks_refusal(event.tiebreaks), code="invalid_tiebreaks"
        ) from None
    if event.tiebreak_unplayed not in UNPLAYED_MODES:
        raise TournamentError(
            _("unknown tiebreak_unplayed %(value)r; known: %(known)s")
            % {"value": event.tiebreak_unplayed, "known": ", ".join(UNPLAYED_MODES)},
            code="invalid_tiebreaks",
        )
    if event.best_of % 2 == 0:
        raise TournamentError(_("a match is best of an odd number of games"), code="invalid_rules")
    try:
        match_rules(event)
    except play.PlayError as error:
        raise TournamentError(str(error), code="invalid_rules") from None
    if event.venue not in Venue.values:
        raise TournamentError(
            _("unknown venue %(venue)r; known: %(known)s")
            % {"venue": event.venue, "known": ", ".join(Venue.values)},
            code="invalid_venue",
        )
    if event.venue != Venue.ONLINE and event.duplicate_deals:
        raise TournamentError(
            _("duplicate deals are dealt by the server: they cannot be played at a table"),
            code="duplicate_deals_at_table",
        )
    if event.venue != Venue.ONLINE and event.format == Format.ARENA:
        raise TournamentError(
            _("an arena pairs players as they finish, on the clock: it is played online"),
            code="arena_online_only",
        )
    if event.duplicate_deals and event.pk is not None:
        people = event.entries.filter(status__in=Entry.ACTIVE).exclude(player__kind=Player.Kind.BOT)
        if people.exists():
            raise TournamentError(
                _("duplicate deals are for house bots only, and people are entered"),
                code="duplicate_deals_need_bots",
            )
    if event.venue == Venue.ONLINE and event.pk is not None:
        guests = event.entries.filter(status__in=Entry.ACTIVE, player__kind=Player.Kind.GUEST)
        if guests.exists():
            raise TournamentError(
                _(
                    "guests are entered, who cannot play online: keep the event at tables (or "
                    "mixed), or withdraw the guests first"
                ),
                code="guests_need_tables",
            )
    opens, closes = event.registration_opens_at, event.registration_closes_at
    if opens and closes and closes <= opens:
        raise TournamentError(
            _("registration must close after it opens"), code="invalid_registration_window"
        )
    minutes = event.arena_minutes
    if minutes is not None and not 0 < minutes <= ARENA_MAX_MINUTES:
        raise TournamentError(
            _("arena_minutes must be more than 0 and at most %(max)s; got %(minutes)s")
            % {"max": ARENA_MAX_MINUTES, "minutes": minutes},
            code="invalid_arena_minutes",
        )
    if event.capacity is not None and event.capacity < 2:
        raise TournamentError(_("an event needs room for at least two players"), code="capacity")
    if len(event.description or "") > DESCRIPTION_MAX:
        raise TournamentError(
            _("the description is at most %(max)s characters; it has %(count)s")
            % {
                "max": format(DESCRIPTION_MAX, ","),
                "count": format(len(event.description), ","),
            },
            code="description_too_long",
            option="description",
        )
    if event.format == Format.TWO_STAGE:
        two_stage.options_check(event)


def check_in_derive(event: Event, *, given: set[str] | frozenset[str] = frozenset()) -> None:
    """Set ``check_in_opens_at`` from ``starts_at`` and ``check_in_minutes`` (in place).

    ``check_in_opens_at`` stays the one truth every reader uses: check-in opens then
    (:func:`~tournaments.services.registration.entry_check_in`), the start withdraws those who
    did not check in when it is set (:func:`~tournaments.services.start.event_start`), the API
    and the pages show it. An event on a clock gives its window in minutes instead; this
    derives the moment from them at every write of the settings (:func:`event_create`,
    :func:`event_update`), so moving the start moves the check-in with it. With minutes set,
    a ``check_in_opens_at`` given (``given``) that says otherwise is refused (400
    ``check_in_conflict``); clearing the minutes without giving a moment clears the check-in.
    An event without minutes keeps a ``check_in_opens_at`` given as it is.
    """
    minutes, starts = event.check_in_minutes, event.starts_at
    if minutes is None:
        if "check_in_minutes" in given and "check_in_opens_at" not in given:
            event.check_in_opens_at = None
        return
    if starts is None:
        return  # refused by clock_check: the minutes count back from the start
    derived = starts - timedelta(minutes=minutes)
    if "check_in_opens_at" in given and event.check_in_opens_at not in (None, derived):
        raise TournamentError(
            _(
                "check_in_opens_at follows from starts_at and check_in_minutes: give one or "
                "the other"
            ),
            code="check_in_conflict",
            option="check_in_opens_at",
        )
    event.check_in_opens_at = derived


def clock_check(event: Event, *, changed: set[str], now: datetime | None = None) -> None:
    """Refuse a clock that cannot run, naming the setting (400, nothing saved).

    Only what ``changed`` touches is checked against ``now`` (a start already passed does not
    stop an organiser renaming the event): a start in the past (``start_in_past``),
    registration opening after the start (``registration_after_start``), a check-in window
    without a start (``check_in_needs_start``), longer than the time left before the start
    (``check_in_too_long``) or opening before registration does
    (``check_in_before_registration``). Not part of :func:`event_validate`, which the start
    runs too: by then the start time has come.
    """
    if not changed & CLOCK_FIELDS:
        return
    now = now or timezone.now()
    starts, opens = event.starts_at, event.registration_opens_at
    minutes = event.check_in_minutes
    if "starts_at" in changed and starts is not None and starts <= now:
        raise TournamentError(
            _("the start is in the past: give a time to come"),
            code="start_in_past",
            option="starts_at",
        )
    if starts is not None and opens is not None and opens > starts:
        raise TournamentError(
            _("registration must open before the start"),
            code="registration_after_start",
            option="registration_opens_at",
        )
    if minutes is None:
        return
    if starts is None:
        raise TournamentError(
            _(
                "a check-in window counts back from the start: give starts_at too, or no "
                "check_in_minutes"
            ),
            code="check_in_needs_start",
            option="check_in_minutes",
        )
    check_in = starts - timedelta(minutes=minutes)
    if changed & {"starts_at", "check_in_minutes"} and check_in < now:
        left = max(0, int((starts - now).total_seconds() // 60))
        raise TournamentError(
            _(
                "a check-in window of %(minutes)s minutes is longer than the time left before "
                "the start (%(left)s minutes)"
            )
            % {"minutes": minutes, "left": left},
            code="check_in_too_long",
            option="check_in_minutes",
        )
    if opens is not None and check_in < opens:
        raise TournamentError(
            _(
                "the check-in window would open before registration does: shorten it, or open "
                "registration earlier"
            ),
            code="check_in_before_registration",
            option="check_in_minutes",
        )


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
    """A new event in draft, organised by its creator and ``co_organisers`` (users). Options
    are Event fields; bad ones raise TournamentError."""
    co_organisers = options.pop("co_organisers", None)
    known = {f.name for f in Event._meta.get_fields() if getattr(f, "editable", False)}
    unknown = set(options) - known
    if unknown:
        raise TournamentError(
            _("unknown event option(s): %(options)s") % {"options": ", ".join(sorted(unknown))}
        )
    if format == Format.TWO_STAGE:
        # Groups are snake-seeded by rating unless the organiser seeds them another way.
        options.setdefault("seeding", Seeding.RATING)
    event = Event(name=name, format=format, created_by=created_by, **options)
    check_in_derive(event, given=set(options))
    clock_check(event, changed=set(options))
    repeat_check(event, changed=set(options))
    event_validate(event)
    event.save()
    if co_organisers:
        event.co_organisers.set(co_organisers)
    log_action(event, "create", created_by)
    event_changed(event)
    return event


#: Settings that change only before the start (after it only the name and who organises it
#: do), as in the admin.
EDITABLE_ONCE_STARTED = {"name", "co_organisers"}


def event_update(*, event: Event, by: User | None = None, **changes: Any) -> Event:
    """Change an event's settings (staff): validated as a whole, logged ``edit`` with the
    fields that changed, as the admin's change form logs it. ``co_organisers`` (users) replaces
    those the event has. Once the event has started only the name and the co-organisers
    change (409 ``event_started``)."""
    co_organisers = changes.pop("co_organisers", None)
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=event.pk)
        changed = [name for name, value in changes.items() if getattr(event, name) != value]
        if co_organisers is not None and {u.pk for u in co_organisers} != set(
            event.co_organisers.values_list("pk", flat=True)
        ):
            changed.append("co_organisers")
        started = event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION)
        frozen = sorted(set(changed) - EDITABLE_ONCE_STARTED) if started else []
        if frozen:
            raise Conflict(
                _("the event has started: %(options)s can no longer change")
                % {"options": ", ".join(frozen)},
                code="event_started",
            )
        candidate = copy.copy(event)
        for name, value in changes.items():
            setattr(candidate, name, value)
        check_in_derive(candidate, given=set(changes))
        if candidate.check_in_opens_at != event.check_in_opens_at:
            changed = list(dict.fromkeys([*changed, "check_in_opens_at"]))
        clock_check(candidate, changed=set(changed))
        repeat_check(candidate, changed=set(changed))
        if "repeat_rule" in changed and event.repeat_rule and not candidate.repeat_rule:
            # Stopped: no more occurrences; those already created stay as they are.
            candidate.repeat_stopped_at = timezone.now()
            changed.append("repeat_stopped_at")
        event_validate(candidate)
        if changed:
            fields = [name for name in changed if name != "co_organisers"]
            if fields:
                candidate.save(update_fields=fields)
            if "co_organisers" in changed:
                candidate.co_organisers.set(co_organisers)
            EventLog.objects.create(
                event=candidate,
                action="edit",
                actor=by if by is not None and by.is_authenticated else None,
                detail={"fields": changed},
            )
    return candidate
