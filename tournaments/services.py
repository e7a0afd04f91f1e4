"""Writes of tournaments: events, registration, seeding, the start, advancing, results, no-shows.

Every change runs in one transaction. A change to a running event locks the event row, so two
matches finishing at once advance it one after the other. The lock order is: the event's
unfinished matches (by id), then the event, then its pairings. A match that finishes holds its
own row (games locks it) and then takes the event in :func:`pairing_record`, the
``match_finished`` receiver; services that may end or cancel matches of the event lock those
rows first, so no two transactions ever wait for each other in a circle.

Advancing is idempotent: a result is recorded once per pairing and match, and
:func:`_advance` derives what to do from the recorded results alone (for brackets through the
pure :func:`tournaments.formats.bracket.resolve`), so running it twice changes nothing and an
overridden result repairs everything downstream by the same pass.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from accounts.models import Player
from config.errors import ServiceError
from games import services as play
from games.engine import bots as engine_bots
from games.models import IN_PROGRESS, Match
from tournaments import webhooks
from tournaments.formats import FORMATS_VERSION, double_elim, round_robin, single_elim, swiss
from tournaments.formats import bracket as brackets
from tournaments.formats.standings import UNPLAYED_MODES, validate_tiebreaks
from tournaments.live import event_changed, match_players_tell
from tournaments.models import Entry, Event, EventLog, Format, Pairing, Round, Seeding
from tournaments.rating_hook import DEFAULT_RATING, ratings_for
from tournaments.signals import rated_match_finished

logger = logging.getLogger(__name__)

User = AbstractBaseUser


# --- errors -------------------------------------------------------------------------------


class TournamentError(ServiceError):
    """A refused request of the tournaments."""


class Conflict(TournamentError):
    """The event is not in a state that allows this (closed, full, over, already done)."""

    status = 409
    code = "conflict"


# --- creating and checking events -----------------------------------------------------------


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
    _log(event, "create", created_by)
    event_changed(event)
    return event


def _log(
    event: Event,
    action: str,
    actor: User | None,
    reason: str = "",
    *,
    pairing: Pairing | None = None,
    entry: Entry | None = None,
    **detail: Any,
) -> None:
    EventLog.objects.create(
        event=event,
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        reason=reason,
        pairing=pairing,
        entry=entry,
        detail=detail,
    )


def _lock_event(event_id: int) -> Event:
    return Event.objects.select_for_update().get(pk=event_id)


def _lock_live_matches(event_id: int, *, entry: Entry | None = None) -> None:
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


def event_open_registration(
    *, event: Event, by: User | None = None, now: datetime | None = None
) -> Event:
    """Open registration now (a draft, or an event whose registration was closed)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event.pk)
        if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
            raise Conflict(f"the event is {event.status}", code="event_started")
        event.status = Event.Status.REGISTRATION
        if event.registration_opens_at is None or event.registration_opens_at > now:
            event.registration_opens_at = now
        if event.registration_closes_at is not None and event.registration_closes_at <= now:
            event.registration_closes_at = None
        event.save(update_fields=["status", "registration_opens_at", "registration_closes_at"])
        _log(event, "open_registration", by)
        event_changed(event)
    return event


def event_close_registration(
    *, event: Event, by: User | None = None, now: datetime | None = None
) -> Event:
    """Close registration now; the event can still be started (or reopened)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event.pk)
        if event.status != Event.Status.REGISTRATION:
            raise Conflict("registration is not open", code="registration_closed")
        event.registration_closes_at = now
        event.save(update_fields=["registration_closes_at"])
        _log(event, "close_registration", by)
        event_changed(event)
    return event


# --- registration ---------------------------------------------------------------------------


def registration_open(event: Event, now: datetime | None = None) -> bool:
    """Whether players may register now (late registration into a Swiss included)."""
    now = now or timezone.now()
    if event.status == Event.Status.RUNNING:
        return _late_registration_open(event)
    if event.status != Event.Status.REGISTRATION:
        return False
    if event.registration_opens_at is not None and now < event.registration_opens_at:
        return False
    return event.registration_closes_at is None or now < event.registration_closes_at


def _late_registration_open(event: Event) -> bool:
    """A running Swiss takes late entries until half its rounds have started."""
    if event.format != Format.SWISS or not event.late_registration:
        return False
    started = event.rounds.count()
    return 2 * started < (event.rounds_planned or 0)


def _active_count(event: Event) -> int:
    return event.entries.filter(status__in=Entry.ACTIVE).count()


def _enter(event: Event, player: Player, now: datetime, *, by: User | None, admin: bool) -> Entry:
    """With the event locked: add ``player`` (or take back one who withdrew before the start)."""
    if event.is_over:
        raise Conflict(f"the event is {event.status}", code="event_over")
    if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
        raise TournamentError(
            f"bot {player.name!r} plays an unknown strategy {player.bot_strategy!r}",
            code="unknown_bot",
        )
    if event.duplicate_deals and not player.is_bot:
        # See games.services.rules_check_players: a person would play both halves of a pair.
        raise TournamentError(
            "this event plays duplicate deals, which are for house bots only",
            code="duplicate_deals_need_bots",
        )
    running = event.status == Event.Status.RUNNING
    if running and not _late_registration_open(event):
        raise Conflict("the event has started", code="registration_closed")
    if not admin and not running and not registration_open(event, now):
        raise Conflict("registration is closed", code="registration_closed")
    entry = Entry.objects.filter(event=event, player=player).first()
    if entry is not None and entry.status == Entry.Status.DISQUALIFIED:
        raise Conflict(f"{player.name} is disqualified from this event", code="disqualified")
    if entry is not None and (entry.is_active or running):
        raise Conflict(f"{player.name} is already registered", code="already_registered")
    if event.capacity is not None and _active_count(event) >= event.capacity:
        raise Conflict(f"the event is full ({event.capacity} players)", code="event_full")
    if entry is None:
        entry = Entry(event=event, player=player)
    entry.status = Entry.Status.REGISTERED
    entry.withdrawn_at = None
    entry.note = ""
    if running:
        # A late Swiss entry: the next pairing number, paired from the next round on.
        entry.late = True
        entry.seed = (event.entries.aggregate(top=Max("seed"))["top"] or 0) + 1
    entry.save()
    _log(event, "add_entry" if admin else "register", by, entry=entry, player=player.pk)
    event_changed(event)
    return entry


def entry_register(*, event: Event, player: Player, now: datetime | None = None) -> Entry:
    """A signed-in player registers themself (while registration is open)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event.pk)
        return _enter(event, player, now, by=player.user, admin=False)


def entry_add(*, event: Event, player: Player, by: User | None = None) -> Entry:
    """An organiser enters a player or a bot (before the start, or late into a Swiss)."""
    with transaction.atomic():
        event = _lock_event(event.pk)
        return _enter(event, player, timezone.now(), by=by, admin=True)


def bots_add(*, event: Event, count: int, strategy: str, by: User | None = None) -> list[Entry]:
    """Create ``count`` new bots of ``strategy`` and enter them (named after the event)."""
    from accounts.services import bot_create

    if strategy not in engine_bots.BOTS:
        raise TournamentError(
            f"unknown bot strategy {strategy!r}; known: {', '.join(sorted(engine_bots.BOTS))}",
            code="unknown_bot",
        )
    if not 1 <= count <= 1024:
        raise TournamentError("add between 1 and 1024 bots at a time", code="invalid_count")
    with transaction.atomic():
        event = _lock_event(event.pk)
        entries = []
        base = Player.objects.filter(kind=Player.Kind.BOT).count()
        for i in range(count):
            number = base + i + 1
            while Player.objects.filter(
                name__iexact=f"{strategy.capitalize()} bot {number}"
            ).exists():
                number += 1
            bot = bot_create(name=f"{strategy.capitalize()} bot {number}", strategy=strategy)
            entries.append(_enter(event, bot, timezone.now(), by=by, admin=True))
        return entries


def entry_check_in(*, entry: Entry, now: datetime | None = None, by: User | None = None) -> Entry:
    """Confirm a registered player will play (during the check-in window before the start)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(entry.event_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if event.status != Event.Status.REGISTRATION:
            raise Conflict("check-in is only before the start", code="check_in_closed")
        if event.check_in_opens_at is None:
            raise Conflict("this event has no check-in", code="no_check_in")
        if now < event.check_in_opens_at:
            raise Conflict("check-in has not opened yet", code="check_in_closed")
        if entry.status == Entry.Status.CHECKED_IN:
            return entry
        if not entry.is_active:
            raise Conflict(f"the entry is {entry.status}", code="not_registered")
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = now
        entry.save(update_fields=["status", "checked_in_at"])
        _log(event, "check_in", by, entry=entry)
        event_changed(event)
    return entry


def entry_withdraw(
    *,
    entry: Entry,
    by: User | None = None,
    reason: str = "",
    disqualify: bool = False,
    now: datetime | None = None,
) -> Entry:
    """Withdraw (or disqualify) an entry. In a running event its unfinished match is forfeited,
    and it is paired no more (in a bracket it counts as a bye from now on)."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock_live_matches(entry.event_id, entry=entry)
        event = _lock_event(entry.event_id)
        entry = (
            Entry.objects.select_for_update(of=("self",)).select_related("player").get(pk=entry.pk)
        )
        if event.is_over:
            raise Conflict(f"the event is {event.status}", code="event_over")
        if entry.status == Entry.Status.DISQUALIFIED or (
            entry.status == Entry.Status.WITHDRAWN and not disqualify
        ):
            raise Conflict(f"the entry is already {entry.status}", code="already_withdrawn")
        entry.status = Entry.Status.DISQUALIFIED if disqualify else Entry.Status.WITHDRAWN
        entry.withdrawn_at = now
        entry.note = reason[:300]
        if event.status != Event.Status.RUNNING:
            entry.seed = None
        entry.save(update_fields=["status", "withdrawn_at", "note", "seed"])
        _log(event, "disqualify" if disqualify else "withdraw", by, reason, entry=entry)
        if event.status == Event.Status.RUNNING:
            live = Pairing.objects.filter(
                Q(entry_a=entry) | Q(entry_b=entry), event=event, match__status__in=IN_PROGRESS
            ).select_related("match")
            why = "disqualified" if disqualify else "withdrew"
            for pairing in live:
                assert pairing.match is not None
                match = play.match_forfeit(
                    match=pairing.match,
                    loser=entry.player,
                    reason=f"{why}: {reason}"[:300] if reason else why,
                    end_reason=Match.EndReason.FORFEIT,
                )
                pairing_record(match=match)  # in case a receiver failed; idempotent
            _advance(event, now)
        event_changed(event)
    return entry


def entry_reinstate(*, entry: Entry, by: User | None = None) -> Entry:
    """Take back a withdrawn player: before the start, or into later rounds of a Swiss."""
    with transaction.atomic():
        event = _lock_event(entry.event_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if entry.status != Entry.Status.WITHDRAWN:
            raise Conflict(f"the entry is {entry.status}", code="not_withdrawn")
        if event.is_over:
            raise Conflict(f"the event is {event.status}", code="event_over")
        if event.status == Event.Status.RUNNING and event.format != Format.SWISS:
            raise Conflict(
                "only a Swiss takes a withdrawn player back once it has started",
                code="cannot_reinstate",
            )
        running = event.status == Event.Status.RUNNING
        if not running and event.capacity is not None and _active_count(event) >= event.capacity:
            raise Conflict(f"the event is full ({event.capacity} players)", code="event_full")
        entry.status = Entry.Status.REGISTERED
        entry.withdrawn_at = None
        entry.save(update_fields=["status", "withdrawn_at"])
        _log(event, "reinstate", by, entry=entry)
        event_changed(event)
    return entry


# --- seeding and the start ----------------------------------------------------------------


def _seed(event: Event, entries: list[Entry], *, at_start: bool) -> list[Entry]:
    """Number ``entries`` 1..N by the event's seeding method (saved); others lose their seed.

    A random seeding is drawn at the start (``at_start``) and its seed recorded then: a seed
    drawn while entries may still come would let anyone who learnt it compute the bracket.
    Before the start it is provisional, from a seed that is thrown away, unless the organiser
    fixed ``seeding_seed`` (a reproducible event).
    """
    if event.seeding == Seeding.RATING:
        ratings = ratings_for(e.player_id for e in entries)
        for e in entries:
            e.rating = ratings.get(e.player_id)
        order = sorted(
            entries,
            key=lambda e: (-(e.rating if e.rating is not None else DEFAULT_RATING), e.pk),
        )
    elif event.seeding == Seeding.RANDOM:
        seed = event.seeding_seed
        if seed is None:
            seed = secrets.randbits(62)
            if at_start:
                event.seeding_seed = seed
                event.save(update_fields=["seeding_seed"])
        order = sorted(entries, key=lambda e: e.pk)
        random.Random(seed).shuffle(order)
    elif event.seeding == Seeding.MANUAL:
        given = [e.seed for e in entries if e.seed is not None]
        twice = sorted({s for s in given if given.count(s) > 1})
        if twice:
            raise TournamentError(f"seed {twice[0]} is given to two entries", code="duplicate_seed")
        # Seeds as given (any numbers, in order), then the unseeded by registration.
        order = sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, e.pk))
    else:
        raise TournamentError(f"unknown seeding method {event.seeding!r}", code="unknown_seeding")
    for number, e in enumerate(order, start=1):
        e.seed = number
    Entry.objects.filter(event=event).exclude(pk__in=[e.pk for e in order]).update(seed=None)
    Entry.objects.bulk_update(order, ["seed", "rating"])
    return order


def event_seed(*, event: Event, by: User | None = None) -> list[Entry]:
    """Seed the active entries now (the start seeds again; a random seeding draws anew)."""
    with transaction.atomic():
        event = _lock_event(event.pk)
        if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
            raise Conflict(f"the event is {event.status}", code="event_started")
        entries = list(event.entries.filter(status__in=Entry.ACTIVE).select_related("player"))
        order = _seed(event, entries, at_start=False)
        _log(event, "seed", by, method=event.seeding, seeding_seed=event.seeding_seed)
        event_changed(event)
    return order


@lru_cache(maxsize=32)
def _bracket_for(format: str, entrants: int, option: bool, classic: bool) -> brackets.Bracket:
    if format == Format.SINGLE_ELIM:
        return single_elim.build(entrants, third_place=option)
    rounds = brackets.bracket_size(entrants).bit_length() - 1
    orders = double_elim.classic_orders(rounds) if classic else None
    return double_elim.build(entrants, reset=option, orders=orders)


def bracket_of(event: Event) -> brackets.Bracket:
    """The event's bracket (elimination formats, once started), by the rules it started with."""
    assert event.entrants_count is not None
    option = event.third_place if event.format == Format.SINGLE_ELIM else event.bracket_reset
    return _bracket_for(event.format, event.entrants_count, option, event.formats_version is None)


def event_start(*, event: Event, by: User | None = None, now: datetime | None = None) -> Event:
    """Start: remove those who did not check in, seed, create the first round, start matches.

    Bot-vs-bot matches go to the workers at once (on commit); human matches wait for their
    players until the grace period ends.
    """
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event.pk)
        if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
            raise Conflict(f"the event is {event.status}", code="event_started")
        event_validate(event)
        if event.check_in_opens_at is not None:
            for entry in event.entries.filter(status=Entry.Status.REGISTERED):
                entry.status = Entry.Status.WITHDRAWN
                entry.withdrawn_at = now
                entry.note = "did not check in"
                entry.save(update_fields=["status", "withdrawn_at", "note"])
                _log(event, "no_check_in", by, entry=entry)
        entries = list(event.entries.filter(status__in=Entry.ACTIVE).select_related("player"))
        if len(entries) < 2:
            raise TournamentError(
                f"an event needs at least two entries to start; it has {len(entries)}",
                code="not_enough_entries",
            )
        for entry in entries:
            if entry.player.is_bot and entry.player.bot_strategy not in engine_bots.BOTS:
                raise TournamentError(
                    f"bot {entry.player.name!r} plays an unknown strategy", code="unknown_bot"
                )
        order = _seed(event, entries, at_start=True)
        n = len(order)
        event.status = Event.Status.RUNNING
        event.started_at = now
        event.entrants_count = n
        event.formats_version = FORMATS_VERSION
        if event.format == Format.SWISS:
            event.rounds_planned = event.swiss_rounds or swiss.default_rounds(n)
        elif event.format == Format.ROUND_ROBIN:
            event.rounds_planned = round_robin.rounds_count(n, double=event.double_round_robin)
        else:
            event.rounds_planned = len(bracket_of(event).rounds)
        event.save()
        _log(event, "start", by, entrants=n, seeding_seed=event.seeding_seed)
        webhooks.emit(
            event,
            "event.started",
            {
                "entrants": [_entry_json(e) for e in order],
                "rounds_planned": event.rounds_planned,
            },
        )
        if event.is_elimination:
            _create_bracket(event)
        _advance(event, now)
        event_changed(event)
    return event


def _create_bracket(event: Event) -> None:
    """Every round and every match of the bracket, players filled in as results come."""
    bracket = bracket_of(event)
    rounds = Round.objects.bulk_create(
        [
            Round(event=event, number=i, name=spec.name)
            for i, spec in enumerate(bracket.rounds, start=1)
        ]
    )
    pairings = []
    for number, spec in enumerate(bracket.rounds):
        for table, key in enumerate(spec.keys, start=1):
            node = bracket.nodes[key]
            pairings.append(
                Pairing(
                    event=event,
                    round=rounds[number],
                    key=key,
                    table=table,
                    winner_to=_target(bracket, node.winner_to),
                    loser_to=_target(bracket, node.loser_to),
                )
            )
    Pairing.objects.bulk_create(pairings)


def _target(bracket: brackets.Bracket, target: tuple[str, int] | None) -> str:
    """Where a winner or loser goes, as shown: ``W2.1:a``; ``GF2:b if b wins`` for the reset."""
    if target is None:
        return ""
    shown = f"{target[0]}:{'ab'[target[1]]}"
    return f"{shown} if b wins" if bracket.nodes[target[0]].reset else shown


def event_cancel(*, event: Event, by: User | None = None, reason: str = "") -> Event:
    """Cancel an event that has not ended; its unfinished matches are cancelled."""
    with transaction.atomic():
        _lock_live_matches(event.pk)
        event = _lock_event(event.pk)
        if event.is_over:
            raise Conflict(f"the event is {event.status}", code="event_over")
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
        _log(event, "cancel", by, reason)
        event_changed(event)
    return event


# --- advancing ------------------------------------------------------------------------------


def _advance(event: Event, now: datetime) -> None:
    """With the event locked: do whatever the recorded results call for (idempotent)."""
    if event.status != Event.Status.RUNNING:
        return
    if event.is_elimination:
        _advance_bracket(event, now)
    else:
        _advance_rounds(event, now)


@dataclass(slots=True)
class _Row:
    """A pairing as the bracket pass reads it (plain values: this runs after every match)."""

    pk: int
    key: str
    round_id: int
    entry_a_id: int | None
    entry_b_id: int | None
    status: str
    result: str
    winner_id: int | None
    match_id: int | None

    @property
    def entries(self) -> tuple[int | None, int | None]:
        return (self.entry_a_id, self.entry_b_id)


_ROW_FIELDS = [f.name for f in dataclasses.fields(_Row)]


def _advance_bracket(event: Event, now: datetime) -> None:
    bracket = bracket_of(event)
    entries = list(
        event.entries.filter(seed__isnull=False)
        .order_by("seed")
        .values_list("pk", "status", "player_id")
    )
    entrants = [pk for pk, _, _ in entries]
    absent = {pk for pk, status, _ in entries if status not in Entry.ACTIVE}
    players = {pk: player for pk, _, player in entries}
    rows = {
        row.key: row
        for row in (
            _Row(*values)
            for values in Pairing.objects.filter(event=event).values_list(*_ROW_FIELDS)
        )
    }
    results = {k: r.winner_id for k, r in rows.items() if r.result in Pairing.RECORDED}
    while True:
        states = brackets.resolve(bracket, entrants, results, absent)
        # A result stands only between the players it was played by: a changed result
        # upstream (an override, a re-run) voids every result downstream that it moved.
        moved = [
            key
            for key in results
            if rows[key].entries != (_slot(states[key].a), _slot(states[key].b))
        ]
        if not moved:
            break
        for key in moved:
            pairing = Pairing.objects.get(pk=rows[key].pk)
            _void(pairing, "an earlier result changed", now)
            pairing.save()
            rows[key].result, rows[key].winner_id = pairing.result, None
            del results[key]
    playing = [r.match_id for r in rows.values() if r.match_id is not None]
    live = set(
        Match.objects.filter(pk__in=playing, status__in=IN_PROGRESS).values_list("pk", flat=True)
    )
    for key, state in states.items():
        row = rows[key]
        if _in_sync(row, state, live):
            continue
        pairing = Pairing.objects.get(pk=row.pk)
        _sync_node(event, pairing, state, players, live, now)
        row.status, row.match_id = pairing.status, pairing.match_id
    _update_rounds(event, rows.values(), now)
    if brackets.is_complete(states):
        winner = brackets.champion(bracket, states)
        _finish(event, now, champion=players[winner] if isinstance(winner, int) else None)


def _in_sync(row: _Row, state: brackets.NodeState, live: set[int]) -> bool:
    """Whether a pairing row already says what the bracket says (nothing to write)."""
    if row.entries != (_slot(state.a), _slot(state.b)):
        return False
    Status = brackets.Status
    derived = row.result in (Pairing.Result.BYE, Pairing.Result.WALKOVER)
    if state.status == Status.WAITING:
        return row.status == Pairing.Status.WAITING and row.winner_id is None and not derived
    if state.status == Status.READY:
        return (
            row.status == Pairing.Status.PLAYING
            and row.match_id in live
            and row.winner_id is None
            and not derived
        )
    if state.status == Status.DECIDED:
        return row.status == Pairing.Status.FINISHED
    if state.status in (Status.WALKOVER, Status.EMPTY):
        return (
            row.status == Pairing.Status.BYE
            and row.result == Pairing.Result.BYE
            and row.winner_id == _slot(state.winner)
        )
    return row.status == Pairing.Status.SKIPPED and row.winner_id is None


def _slot(value: brackets.Slot) -> int | None:
    return value if isinstance(value, int) else None


def _sync_node(
    event: Event,
    pairing: Pairing,
    state: brackets.NodeState,
    players: dict[int, int],
    live: set[int],
    now: datetime,
) -> None:
    """Make a pairing row say what the bracket says, repairing what a changed result broke.

    ``live`` holds the ids of the event's matches that are scheduled or in play.
    """
    before = _row(pairing)
    a, b = _slot(state.a), _slot(state.b)
    moved = (pairing.entry_a_id, pairing.entry_b_id) != (a, b)
    if pairing.result in Pairing.RECORDED and (moved or state.stale):
        _void(pairing, "an earlier result changed", now)
    if moved and pairing.match_id is not None:
        _drop_match(pairing, "the players of this match changed", now)
    pairing.entry_a_id, pairing.entry_b_id = a, b
    Status = brackets.Status
    if state.status in (Status.WAITING, Status.READY):
        if pairing.result in (Pairing.Result.BYE, Pairing.Result.WALKOVER):
            pairing.result = Pairing.Result.NONE
        pairing.winner_id = None
        pairing.status = Pairing.Status.WAITING
        if state.status == Status.READY:
            if pairing.match_id not in live:
                if pairing.match_id is not None:
                    _drop_match(pairing, "replaced", now)
                _pairing_start(event, pairing, players, now)
            pairing.status = Pairing.Status.PLAYING
    elif state.status == Status.DECIDED:
        pairing.status = Pairing.Status.FINISHED
    elif state.status in (Status.WALKOVER, Status.EMPTY):
        pairing.status = Pairing.Status.BYE
        pairing.result = Pairing.Result.BYE
        pairing.winner_id = _slot(state.winner)
        pairing.decided_at = pairing.decided_at or now
    elif state.status == Status.SKIPPED:
        pairing.status = Pairing.Status.SKIPPED
        pairing.winner_id = None
    if _row(pairing) != before:
        pairing.save()


def _row(pairing: Pairing) -> tuple[Any, ...]:
    return (
        pairing.entry_a_id,
        pairing.entry_b_id,
        pairing.status,
        pairing.result,
        pairing.winner_id,
        pairing.match_id,
        len(pairing.history),
    )


def _void(pairing: Pairing, why: str, now: datetime) -> None:
    """Forget a pairing's recorded result (kept in its history)."""
    pairing.history = [
        *pairing.history,
        {
            "at": now.isoformat(),
            "voided": pairing.result,
            "winner": pairing.winner_id,
            "match": pairing.match_id,
            "why": why,
        },
    ]
    pairing.result = Pairing.Result.NONE
    pairing.winner_id = None
    pairing.games_a = pairing.games_b = pairing.margin_a = 0
    pairing.decided_at = None


def _drop_match(pairing: Pairing, why: str, now: datetime) -> None:
    """Detach the pairing's match, cancelling it if it has not finished."""
    match = pairing.match
    assert match is not None
    if match.status in IN_PROGRESS:
        play.match_cancel(match=match, reason=f"tournament: {why}"[:300])
    pairing.history = [
        *pairing.history,
        {"at": now.isoformat(), "dropped_match": match.pk, "why": why},
    ]
    pairing.match = None
    pairing.ready_a_at = pairing.ready_b_at = None


def _pairing_start(
    event: Event, pairing: Pairing, players: dict[int, int] | None, now: datetime
) -> None:
    """Create the pairing's match: bots play at once, humans get a grace period to show up.

    ``players`` maps entry ids to player ids (None: read them from the pairing's entries).
    """
    if players is not None:
        ids = (players[pairing.entry_a_id], players[pairing.entry_b_id])
    else:
        ids = (pairing.entry_a.player_id, pairing.entry_b.player_id)
    found = Player.objects.in_bulk(list(ids))
    player_a, player_b = found[ids[0]], found[ids[1]]
    bots = player_a.is_bot and player_b.is_bot
    match = play.match_create(
        player_a=player_a,
        player_b=player_b,
        rules=match_rules(event),
        time_control=time_control(event),
        source=Match.Source.TOURNAMENT,
        start=bots,
    )
    if not bots:
        match.start_deadline = now + event.grace
        match.save(update_fields=["start_deadline"])
    pairing.match = match
    pairing.ready_a_at = pairing.ready_b_at = None
    pairing.status = Pairing.Status.PLAYING
    if not bots:
        match_players_tell(pairing=pairing, match=match)  # their match is waiting for them


def _update_rounds(event: Event, pairings: Iterable[Any], now: datetime) -> None:
    """Round statuses from their pairings; ``round.started`` when a round's first match starts.

    ``pairings`` are Pairing rows or anything with their ``round_id``, ``status``, ``match_id``.
    """
    by_round: dict[int, list[Any]] = {}
    for p in pairings:
        by_round.setdefault(p.round_id, []).append(p)
    for rnd in Round.objects.filter(event=event, pk__in=list(by_round)):
        rows = by_round[rnd.pk]
        settled = all(p.status in Pairing.SETTLED for p in rows)
        played = any(p.match_id is not None for p in rows)
        status = rnd.status
        if settled:
            status = Round.Status.FINISHED
        elif played:
            status = Round.Status.RUNNING
        if status == rnd.status:
            continue
        if rnd.started_at is None and (played or status == Round.Status.RUNNING):
            rnd.started_at = now
            webhooks.emit(event, "round.started", lambda rnd=rnd: _round_json(rnd))
        rnd.status = status
        if status == Round.Status.FINISHED:
            rnd.finished_at = now
        rnd.save(update_fields=["status", "started_at", "finished_at"])


def _advance_rounds(event: Event, now: datetime) -> None:
    """Swiss and round robin: pair the next round when the current one is complete."""
    # A pairing without its match (a re-run) gets a new one.
    restart = Pairing.objects.filter(
        event=event,
        status=Pairing.Status.WAITING,
        entry_a__isnull=False,
        entry_b__isnull=False,
    ).select_related("entry_a", "entry_b")
    for p in restart:
        _pairing_start(event, p, None, now)
        p.save()
    # Only the rounds not finished yet can change (a Swiss of 1,024 has 5,120 pairings).
    open_rounds = list(
        Pairing.objects.filter(event=event).exclude(round__status=Round.Status.FINISHED)
    )
    _update_rounds(event, open_rounds, now)
    if Pairing.objects.filter(event=event).exclude(status__in=Pairing.SETTLED).exists():
        return
    while True:
        number = event.rounds.count() + 1
        assert event.rounds_planned is not None
        if number > event.rounds_planned:
            _finish(event, now)
            return
        created = _pair_round(event, number, now)
        if any(p.status not in Pairing.SETTLED for p in created):
            return


def _swiss_players(event: Event) -> list[swiss.SwissPlayer]:
    """Active entries with their match points, opponents and byes so far."""
    entries = list(event.entries.filter(status__in=Entry.ACTIVE, seed__isnull=False))
    score: dict[int, float] = {e.pk: 0.0 for e in entries}
    opponents: dict[int, set[int]] = {e.pk: set() for e in entries}
    byes: set[int] = set()
    settled = Pairing.objects.filter(event=event, status__in=Pairing.SETTLED).values_list(
        "entry_a_id", "entry_b_id", "winner_id"
    )
    for a, b, winner in settled:
        if winner in score:
            score[winner] += 1
        if b is None and a is not None:
            byes.add(a)
        elif a and b:
            if a in opponents:
                opponents[a].add(b)
            if b in opponents:
                opponents[b].add(a)
    return [
        swiss.SwissPlayer(e.pk, score[e.pk], e.seed or 0, frozenset(opponents[e.pk]), e.pk in byes)
        for e in entries
    ]


def _pair_round(event: Event, number: int, now: datetime) -> list[Pairing]:
    """Create round ``number`` of a Swiss or round robin and start its matches."""
    rnd = Round.objects.create(event=event, number=number, name=f"Round {number}")
    tables: list[tuple[int | None, int | None]] = []
    prefix = "S" if event.format == Format.SWISS else "R"
    if event.format == Format.SWISS:
        result = swiss.pair(_swiss_players(event))
        tables = list(result.pairs)
        if result.bye is not None:
            tables.append((result.bye, None))
    else:
        by_seed = {e.seed: e.pk for e in event.entries.filter(seed__isnull=False, late=False)}
        assert event.entrants_count is not None
        schedule = round_robin.berger(
            event.entrants_count,
            double=event.double_round_robin,
            swap_last_rounds=event.formats_version is not None,
        )
        tables = [
            (by_seed.get(a) if a else None, by_seed.get(b) if b else None)
            for a, b in schedule[number - 1]
        ]
    entries = {e.pk: e for e in event.entries.all()}
    players = {pk: e.player_id for pk, e in entries.items()}
    created = []
    for table, (a, b) in enumerate(tables, start=1):
        pairing = Pairing(event=event, round=rnd, key=f"{prefix}{number}.{table}", table=table)
        present = [x for x in (a, b) if x is not None and entries[x].is_active]
        pairing.entry_a_id, pairing.entry_b_id = a, b
        if a is None or b is None:
            # A bye: a point in a Swiss, nothing in a round robin (everyone has one).
            pairing.entry_a_id, pairing.entry_b_id = (a or b), None
            pairing.status = Pairing.Status.BYE
            pairing.result = Pairing.Result.BYE
            pairing.winner_id = (a or b) if event.format == Format.SWISS else None
            pairing.decided_at = now
        elif len(present) < 2:
            # A round robin keeps a withdrawn player's tables: the opponent wins by walkover.
            pairing.status = Pairing.Status.FINISHED
            pairing.result = Pairing.Result.WALKOVER
            pairing.winner_id = present[0] if present else None
            pairing.decided_at = now
        else:
            _pairing_start(event, pairing, players, now)
        pairing.save()
        created.append(pairing)
    _update_rounds(event, created, now)
    return created


def _finish(event: Event, now: datetime, *, champion: int | None = None) -> None:
    """Final standings, the champion, ``event.finished``."""
    from tournaments.selectors import standings_for_event

    rows = standings_for_event(event=event, with_ratings=False)
    ranks = {row["entry"]: row["rank"] for row in rows}
    entries = list(event.entries.filter(pk__in=list(ranks)))
    for entry in entries:
        entry.final_rank = ranks[entry.pk]
    Entry.objects.bulk_update(entries, ["final_rank"])
    Round.objects.filter(event=event).exclude(status=Round.Status.FINISHED).update(
        status=Round.Status.FINISHED, finished_at=now
    )
    if champion is None and rows and not event.is_elimination:
        champion = rows[0]["player"]["id"]
    event.status = Event.Status.FINISHED
    event.finished_at = now
    event.champion_id = champion
    event.save(update_fields=["status", "finished_at", "champion"])
    _log(event, "finish", None, champion=champion)
    webhooks.emit(
        event,
        "event.finished",
        {"champion": champion and _player_json(champion), "standings": rows[:16]},
    )


# --- results --------------------------------------------------------------------------------


_RESULT_OF = {
    Match.EndReason.NO_SHOW: Pairing.Result.NO_SHOW,
    Match.EndReason.FORFEIT: Pairing.Result.FORFEIT,
    Match.EndReason.ADMIN: Pairing.Result.OVERRIDE,
}


def pairing_record(*, match: Match) -> Pairing | None:
    """Record a finished tournament match on its pairing and advance the event.

    The ``match_finished`` receiver: runs inside the transaction that finished the match
    (its row is locked). Idempotent: a pairing that already has this match's result is left
    alone, so a redelivered task or a second call never advances the event twice.
    """
    if match.source != Match.Source.TOURNAMENT or match.status != Match.Status.FINISHED:
        return None
    found = Pairing.objects.filter(match_id=match.pk).values_list("pk", "event_id").first()
    if found is None:
        return None  # not ours, or a match its pairing has since dropped
    pairing_id, event_id = found
    event = _lock_event(event_id)
    pairing = (
        Pairing.objects.select_for_update(of=("self",))
        .select_related("entry_a", "entry_b")
        .get(pk=pairing_id)
    )
    if pairing.match_id != match.pk or pairing.result in Pairing.RECORDED:
        return pairing
    if event.status != Event.Status.RUNNING:
        return pairing
    now = timezone.now()
    assert pairing.entry_a is not None and pairing.entry_b is not None
    a_is_player_a = pairing.entry_a.player_id == match.player_a_id
    won_a, won_b = match.games_won_a, match.games_won_b
    pairing.games_a, pairing.games_b = (won_a, won_b) if a_is_player_a else (won_b, won_a)
    pairing.margin_a = match.margin_a if a_is_player_a else -match.margin_a
    pairing.winner = (
        pairing.entry_a if match.winner_id == pairing.entry_a.player_id else pairing.entry_b
    )
    pairing.result = _RESULT_OF.get(match.end_reason, Pairing.Result.PLAYED)
    pairing.status = Pairing.Status.FINISHED
    pairing.decided_at = now
    pairing.save()
    _announce_result(event, pairing, match)
    _advance(event, now)
    event_changed(event)
    if not match.is_bot_match:
        match_players_tell(pairing=pairing, match=match)
    return pairing


def _announce_result(
    event: Event, pairing: Pairing, match: Match | None, *, override: bool = False
) -> None:
    webhooks.emit(event, "match.finished", lambda: _pairing_json(pairing, override=override))
    if event.rated and match is not None:
        rated_match_finished.send(
            sender=Event, event=event, pairing=pairing, match=match, override=override
        )


def pairing_override(
    *, pairing: Pairing, winner: Player, reason: str, by: User | None = None
) -> Pairing:
    """An organiser decides a pairing (audited: who, when, why); the bracket is repaired.

    A match still in play is ended as decided by an organiser. In a bracket every match
    downstream that the change affects is replaced (cancelled, or its result voided) and
    played again with the right players; in a Swiss or round robin the standings change.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("give a reason for the override", code="reason_required")
    with transaction.atomic():
        _lock_live_matches(pairing.event_id)
        event = _lock_event(pairing.event_id)
        pairing = (
            Pairing.objects.select_for_update(of=("self",))
            .select_related("entry_a", "entry_b", "match", "winner")
            .get(pk=pairing.pk)
        )
        if event.status != Event.Status.RUNNING:
            raise Conflict(f"the event is {event.status}", code="event_not_running")
        if pairing.entry_a is None or pairing.entry_b is None:
            raise Conflict("this pairing has no match between two players", code="no_match")
        players = {
            pairing.entry_a.player_id: pairing.entry_a,
            pairing.entry_b.player_id: pairing.entry_b,
        }
        if winner.pk not in players:
            raise TournamentError(f"{winner.name} did not play in this match", code="not_in_match")
        entry = players[winner.pk]
        loser = pairing.entry_b if entry == pairing.entry_a else pairing.entry_a
        previous = pairing.winner_id
        now = timezone.now()
        match = pairing.match
        if match is not None and match.status in IN_PROGRESS:
            ended = play.match_forfeit(
                match=match,
                loser=Player.objects.get(pk=loser.player_id),
                reason=f"decided by an organiser: {reason}"[:300],
                end_reason=Match.EndReason.ADMIN,
            )
            pairing_record(match=ended)
            pairing.refresh_from_db()
        else:
            if pairing.result in Pairing.RECORDED and pairing.winner_id == entry.pk:
                raise Conflict(f"{winner.name} already won this match", code="no_change")
            pairing.winner = entry
            pairing.result = Pairing.Result.OVERRIDE
            pairing.status = Pairing.Status.FINISHED
            pairing.decided_at = now
            pairing.save()
            _announce_result(event, pairing, match, override=True)
        _log(
            event,
            "override_result",
            by,
            reason,
            pairing=pairing,
            previous_winner=previous,
            winner=entry.pk,
            match=match.pk if match else None,
        )
        _advance(event, now)
        event_changed(event)
    return pairing


def pairing_rerun(*, pairing: Pairing, by: User | None = None) -> Pairing:
    """Play a failed bot match again (a new match, a new seed); downstream is repaired.

    Failed: a bot failed (the match ended with ``bot_failure``), or the match was cancelled
    or never finished. A match decided by its games is not re-run (override it instead).
    """
    with transaction.atomic():
        _lock_live_matches(pairing.event_id)
        event = _lock_event(pairing.event_id)
        pairing = (
            Pairing.objects.select_for_update(of=("self",))
            .select_related("match")
            .get(pk=pairing.pk)
        )
        if event.status != Event.Status.RUNNING:
            raise Conflict(f"the event is {event.status}", code="event_not_running")
        match = pairing.match
        if match is None:
            raise Conflict("this pairing has no match to re-run", code="no_match")
        if not match.is_bot_match:
            raise Conflict("only a bot match is re-run", code="not_bots")
        failed = match.end_reason == Match.EndReason.BOT_FAILURE or match.status in (
            *IN_PROGRESS,
            Match.Status.CANCELLED,
        )
        if not failed:
            raise Conflict(
                "this match did not fail; override its result instead", code="not_failed"
            )
        now = timezone.now()
        if pairing.result in Pairing.RECORDED:
            _void(pairing, "re-run", now)
        _drop_match(pairing, "re-run", now)
        pairing.status = Pairing.Status.WAITING
        pairing.save()
        _log(event, "rerun", by, pairing=pairing, match=match.pk)
        _advance(event, now)
        event_changed(event)
        pairing.refresh_from_db()
    return pairing


# --- showing up -----------------------------------------------------------------------------


def match_ready(*, match: Match, player: Player, now: datetime | None = None) -> Pairing:
    """A player shows up for their tournament match; when every human has, it starts.

    After the grace period it is too late: the no-show is settled (and committed) first, then
    the call is refused with 409.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(of=("self",))
            .select_related("player_a", "player_b")
            .get(pk=match.pk)
        )
        found = Pairing.objects.filter(match=match).values_list("event_id", flat=True).first()
        if found is None:
            raise TournamentError("this is not a tournament match", code="not_found", status=404)
        side = match.index_of(player.pk)
        if side is None:
            raise TournamentError(
                "you are not a player of this match", code="not_a_player", status=403
            )
        event = _lock_event(found)
        pairing = Pairing.objects.select_for_update(of=("self",)).get(match=match)
        settled = False
        if match.status == Match.Status.SCHEDULED:
            if match.start_deadline is not None and now >= match.start_deadline:
                settled = _no_show_settle(event, pairing, match, now)
            else:
                field = "ready_a_at" if pairing.entry_a.player_id == player.pk else "ready_b_at"
                if getattr(pairing, field) is None:
                    setattr(pairing, field, now)
                    pairing.save(update_fields=[field])
                _start_if_ready(pairing, match, now)
                event_changed(event)  # who is here; the match in play once both are
                match_players_tell(pairing=pairing, match=match)
    if settled:
        raise Conflict("the grace period is over: the match was forfeited", code="too_late")
    if match.status not in IN_PROGRESS:
        raise Conflict(f"the match is {match.status}", code="match_over")
    return pairing


def _humans_missing(pairing: Pairing, match: Match) -> list[Player]:
    """The human players of the match who have not shown up."""
    ready = {
        pairing.entry_a.player_id: pairing.ready_a_at,
        pairing.entry_b.player_id: pairing.ready_b_at,
    }
    return [p for p in (match.player_a, match.player_b) if not p.is_bot and ready[p.pk] is None]


def _start_if_ready(pairing: Pairing, match: Match, now: datetime) -> bool:
    if _humans_missing(pairing, match):
        return False
    play.match_start(match=match, now=now)
    return True


def _no_show_settle(event: Event, pairing: Pairing, match: Match, now: datetime) -> bool:
    """With match, event and pairing locked, past the deadline: whoever did not show forfeits.

    If neither player showed up the match is cancelled and both lose (nobody advances).
    """
    missing = _humans_missing(pairing, match)
    if not missing:
        return _start_if_ready(pairing, match, now)
    if len(missing) == 2:
        play.match_cancel(match=match, reason="neither player showed up")
        pairing.result = Pairing.Result.DOUBLE_NO_SHOW
        pairing.winner = None
        pairing.status = Pairing.Status.FINISHED
        pairing.decided_at = now
        pairing.save()
        _announce_result(event, pairing, None)
        _advance(event, now)
        event_changed(event)
        match_players_tell(pairing=pairing, match=match)
        return True
    ended = play.match_forfeit(
        match=match,
        loser=missing[0],
        reason="did not show up within the grace period",
        end_reason=Match.EndReason.NO_SHOW,
    )
    pairing_record(match=ended)
    return True


def no_shows_sweep(*, now: datetime | None = None, limit: int = 200) -> int:
    """Forfeit every tournament match whose grace period is over (beat runs this)."""
    now = now or timezone.now()
    due = list(
        Match.objects.filter(
            source=Match.Source.TOURNAMENT,
            status=Match.Status.SCHEDULED,
            start_deadline__lte=now,
        )
        .order_by("start_deadline")
        .values_list("pk", flat=True)[:limit]
    )
    settled = 0
    for match_id in due:
        with transaction.atomic():
            match = (
                Match.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("player_a", "player_b")
                .filter(pk=match_id, status=Match.Status.SCHEDULED)
                .first()
            )
            if match is None:
                continue  # taken by a player showing up right now, or settled already
            event_id = (
                Pairing.objects.filter(match=match).values_list("event_id", flat=True).first()
            )
            if event_id is None:
                continue
            event = _lock_event(event_id)
            pairing = (
                Pairing.objects.select_for_update(of=("self",))
                .select_related("entry_a", "entry_b")
                .get(match=match)
            )
            if _no_show_settle(event, pairing, match, now):
                settled += 1
    return settled


def events_reconcile() -> int:
    """Record results a failed receiver missed (games logs such a failure and goes on)."""
    missed = list(
        Pairing.objects.filter(
            event__status=Event.Status.RUNNING,
            status=Pairing.Status.PLAYING,
            match__status=Match.Status.FINISHED,
        ).values_list("match_id", flat=True)[:200]
    )
    recorded = 0
    for match_id in missed:
        with transaction.atomic():
            match = Match.objects.select_for_update().get(pk=match_id)
            if pairing_record(match=match) is not None:
                recorded += 1
    return recorded


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The periodic pass: no-shows, then results a receiver missed."""
    return {"no_shows": no_shows_sweep(now=now), "reconciled": events_reconcile()}


# --- JSON for webhooks ------------------------------------------------------------------------


def _player_json(player_id: int) -> dict[str, Any]:
    player = Player.objects.get(pk=player_id)
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def _entry_json(entry: Entry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {"entry": entry.pk, "seed": entry.seed, "player": _player_json(entry.player_id)}


def _pairing_json(pairing: Pairing, *, override: bool = False) -> dict[str, Any]:
    return {
        "round": pairing.round.number,
        "key": pairing.key,
        "table": pairing.table,
        "match": pairing.match_id,
        "a": _entry_json(pairing.entry_a),
        "b": _entry_json(pairing.entry_b),
        "winner": pairing.winner_id,
        "result": pairing.result,
        "games": [pairing.games_a, pairing.games_b],
        "margin_a": pairing.margin_a,
        "override": override,
    }


def _round_json(rnd: Round) -> dict[str, Any]:
    return {
        "round": rnd.number,
        "name": rnd.name,
        "pairings": [
            {
                "key": p.key,
                "table": p.table,
                "match": p.match_id,
                "a": p.entry_a_id,
                "b": p.entry_b_id,
                "status": p.status,
            }
            for p in Pairing.objects.filter(round=rnd).order_by("table")
        ],
    }


__all__ = [
    "Conflict",
    "TournamentError",
    "bots_add",
    "bracket_of",
    "entry_add",
    "entry_check_in",
    "entry_register",
    "entry_reinstate",
    "entry_withdraw",
    "event_cancel",
    "event_close_registration",
    "event_create",
    "event_open_registration",
    "event_seed",
    "event_start",
    "event_validate",
    "events_reconcile",
    "match_ready",
    "match_rules",
    "no_shows_sweep",
    "pairing_override",
    "pairing_record",
    "pairing_rerun",
    "registration_open",
    "sweep",
    "time_control",
]
