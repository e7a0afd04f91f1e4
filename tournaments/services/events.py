"""Creating and checking events: the options an event may take, the rules its matches play."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from games import services as play
from tournaments.formats.standings import UNPLAYED_MODES, validate_tiebreaks
from tournaments.live import event_changed
from tournaments.models import Entry, Event, Format, Seeding
from tournaments.services.base import TournamentError, User, log_action


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
    if event.duplicate_deals and event.pk is not None:
        people = event.entries.filter(status__in=Entry.ACTIVE).exclude(player__kind=Player.Kind.BOT)
        if people.exists():
            raise TournamentError(
                "duplicate deals are for house bots only, and people are entered",
                code="duplicate_deals_need_bots",
            )
    opens, closes = event.registration_opens_at, event.registration_closes_at
    if opens and closes and closes <= opens:
        raise TournamentError(
            "registration must close after it opens", code="invalid_registration_window"
        )
    if event.capacity is not None and event.capacity < 2:
        raise TournamentError("an event needs room for at least two players", code="capacity")


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
    event = Event(name=name, format=format, created_by=created_by, **options)
    event_validate(event)
    event.save()
    log_action(event, "create", created_by)
    event_changed(event)
    return event
