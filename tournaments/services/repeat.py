"""Recurring events: the repeat rule of a template, its starts, and the check of its settings.

A *template* is a draft with a ``repeat_rule``, an iCalendar RRULE (``FREQ=DAILY;BYHOUR=20;
BYMINUTE=0``, ``FREQ=WEEKLY;BYDAY=SA;BYHOUR=14``) read by python-dateutil. Its first start
(the rule's DTSTART) is the template's ``starts_at``; the rule's times are wall-clock times in
``repeat_timezone``, so "20:00 daily" in Europe/London stays 20:00 there across the change to
and from summer time (its hour in UTC moves). The template itself is never opened nor
started: :func:`tournaments.services.schedule.occurrences_create` makes each occurrence, a
copy of its settings, ``repeat_lead_minutes`` before its start.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import islice, pairwise
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import rrule
from django.utils.translation import gettext as _

from tournaments.models import Event
from tournaments.services.base import TournamentError

#: The settings of a recurring event (see :func:`repeat_check`).
REPEAT_FIELDS = {"repeat_rule", "repeat_lead_minutes", "repeat_timezone"}
#: The shortest gap between two occurrences.
MIN_GAP = timedelta(minutes=15)
#: How many of the first starts the gap is checked on.
GAP_SAMPLE = 6


def is_template(event: Event) -> bool:
    """Whether the event repeats: a draft with a repeat rule."""
    return bool(event.repeat_rule) and event.status == Event.Status.DRAFT


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise TournamentError(
            _("unknown time zone %(name)r: give an IANA name, e.g. Europe/London") % {"name": name},
            code="invalid_repeat_rule",
            option="repeat_timezone",
        ) from None


#: Per process, for a rule (its text, first start and time zone): a start it gave that has
#: passed, to count on from. A rule counts from its first start, and one every 15 minutes gives
#: 35,000 starts a year: counting them all in every pass would weigh on the sweep. From a
#: start the rule gives, it gives the same starts as from its first (the intervals, and the
#: weekday, day or time left out of the rule, are those of any of its starts); not so with a
#: COUNT, which such a rule never uses.
_ANCHORS: dict[tuple[str, datetime, str], datetime] = {}
_ANCHORS_MAX = 10_000


def _rule(event: Event, *, first: datetime | None = None):
    """The parsed rule, its first start the template's ``starts_at`` (or ``first``, a start
    it gives) in its time zone."""
    if event.starts_at is None:
        raise TournamentError(
            _("a repeat rule counts from the first start: give starts_at too"),
            code="invalid_repeat_rule",
            option="repeat_rule",
        )
    text = event.repeat_rule.strip()
    if "DTSTART" in text.upper():
        raise TournamentError(
            _("the rule's first start is starts_at: leave DTSTART out of the rule"),
            code="invalid_repeat_rule",
            option="repeat_rule",
        )
    first = (first or event.starts_at).astimezone(_zone(event.repeat_timezone))
    try:
        return rrule.rrulestr(text, dtstart=first)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise TournamentError(
            _("not an iCalendar repeat rule (%(error)s); e.g. FREQ=DAILY;BYHOUR=20;BYMINUTE=0")
            % {"error": error},
            code="invalid_repeat_rule",
            option="repeat_rule",
        ) from None


def starts_after(event: Event, moment: datetime) -> Iterator[datetime]:
    """The template's starts after ``moment`` (UTC), in order (counted from the last start
    before ``moment`` seen in this process, if any: see :data:`_ANCHORS`)."""
    key = (event.repeat_rule, event.starts_at, event.repeat_timezone)
    anchor = _ANCHORS.get(key)
    countless = "COUNT" not in event.repeat_rule.upper()
    usable = anchor is not None and anchor <= moment and countless
    starts = iter(_rule(event, first=anchor if usable else None))
    last = None
    for start in starts:
        if start > moment:
            if countless and last is not None:
                if len(_ANCHORS) >= _ANCHORS_MAX:
                    _ANCHORS.clear()
                _ANCHORS[key] = last
            yield start.astimezone(UTC)
            break
        last = start
    for start in starts:
        yield start.astimezone(UTC)


def next_occurrence(event: Event, now: datetime) -> datetime | None:
    """The next start the rule gives after ``now``; None for an event that does not repeat
    (or whose rule has ended)."""
    if not is_template(event):
        return None
    try:
        return next(starts_after(event, now), None)
    except TournamentError:
        return None


def repeat_check(event: Event, *, changed: set[str]) -> None:
    """Refuse a repeat rule that cannot run, naming the setting (400 ``invalid_repeat_rule``,
    nothing saved): one that does not parse, one without a start, a bad time zone, one that
    repeats more often than every 15 minutes, one on an event that is no longer a draft, a
    check-in window longer than the lead (it would open before the occurrence exists)."""
    if not event.repeat_rule or not changed & (REPEAT_FIELDS | {"starts_at", "check_in_minutes"}):
        return
    if event.status != Event.Status.DRAFT:
        raise TournamentError(
            _("only a draft repeats: the occurrences are its copies"),
            code="invalid_repeat_rule",
            option="repeat_rule",
        )
    minutes = event.check_in_minutes
    if minutes is not None and minutes > event.repeat_lead_minutes:
        raise TournamentError(
            _(
                "each occurrence is created %(lead)s minutes before its start: a check-in "
                "window of %(minutes)s minutes would open before it exists"
            )
            % {"lead": event.repeat_lead_minutes, "minutes": minutes},
            code="invalid_repeat_rule",
            option="repeat_lead_minutes",
        )
    rule = _rule(event)
    starts = [start.astimezone(UTC) for start in islice(iter(rule), GAP_SAMPLE)]
    gaps = [later - earlier for earlier, later in pairwise(starts)]
    if gaps and min(gaps) < MIN_GAP:
        raise TournamentError(
            _("the rule repeats every %(minutes)s minutes: at most once every 15 minutes")
            % {"minutes": int(min(gaps).total_seconds() // 60)},
            code="invalid_repeat_rule",
            option="repeat_rule",
        )
