"""Arena events: the start, the pairing passes, pausing and rejoining, berserk.

An arena runs from its start for ``arena_minutes``; the rules are pure, in
:mod:`tournaments.formats.arena`. Its matches are pairings of one round ("Arena"), keyed
``A1``, ``A2``, ... in the order they start; a table number is reused once its match is over.

A pass (:func:`arena_pass`) pairs every free entrant at once: active, not paused, with no
match of this event in play. It runs at the start, on commit after every result (queued by
:mod:`tournaments.services.advancing`), when someone rejoins, and every second from the sweep
(:func:`arenas_sweep`, Celery beat or the embedded sweeper), which also finishes an arena
whose time is up once no match of it is in play. Matches start at once: bots go to the
workers, people are told on their own socket where their table is and their clocks run.

Locking: a pass takes the event row, skipping it if it is locked: one pass per arena at a
time, and a pass that finds the event taken leaves the work to the transaction holding it
(a result queues a pass on its commit) or to the next sweep a second later. It creates
matches but locks none, so it keeps the lock order of :mod:`tournaments.services.base`
(matches, then the event).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from games import services as play
from games.models import IN_PROGRESS, Match
from tournaments import webhooks
from tournaments.formats import arena as rules
from tournaments.live import event_changed, match_players_tell
from tournaments.models import Entry, Event, Format, Pairing, Round
from tournaments.selectors import arena_table
from tournaments.services.advancing import advance, arena_pair_soon
from tournaments.services.base import (
    Conflict,
    TournamentError,
    User,
    event_is,
    lock_event,
    log_action,
)
from tournaments.services.events import match_rules, time_control
from tournaments.services.payloads import round_json

logger = logging.getLogger(__name__)

#: How long an arena runs when its organiser did not say.
DEFAULT_MINUTES = 60.0
ROUND_NAME = "Arena"


def arena_duration(event: Event) -> timedelta:
    """How long the arena runs."""
    minutes = event.arena_minutes if event.arena_minutes is not None else DEFAULT_MINUTES
    return timedelta(minutes=minutes)


def arena_begin(event: Event, now: datetime) -> None:
    """With the event locked and just set running: the clock, the round, the first pass."""
    event.ends_at = now + arena_duration(event)
    event.save(update_fields=["ends_at"])
    rnd = Round.objects.create(
        event=event, number=1, name=ROUND_NAME, status=Round.Status.RUNNING, started_at=now
    )
    _pair(event, now)
    # The arena's one round starts with its first matches (the rest follow one by one).
    webhooks.emit(event, "round.started", lambda: round_json(rnd))


@dataclass(frozen=True)
class PassResult:
    """What one pass did: players free, matches started, ms spent by phase."""

    free: int = 0
    matches: list[int] = field(default_factory=list)
    finished: bool = False
    timings: dict[str, float] = field(default_factory=dict)


def arena_pass(*, event_id: int, now: datetime | None = None) -> PassResult:
    """Pair whoever is free in one arena now (a task and the sweep run this; idempotent).

    Past the end no match starts; the arena finishes once none of its matches is in play.
    """
    with transaction.atomic():
        event = (
            Event.objects.select_for_update(skip_locked=True)
            .filter(pk=event_id, format=Format.ARENA)
            .first()
        )
        if event is None or event.status != Event.Status.RUNNING:
            return PassResult()
        now = now or timezone.now()  # read under the lock: the pass starts now
        if arena_over(event, now):
            advance(event, now)  # finishes it once no match is in play
            finished = event.status == Event.Status.FINISHED
            if finished:
                event_changed(event)
            return PassResult(finished=finished)
        return _pair(event, now)


def arena_over(event: Event, now: datetime) -> bool:
    """Whether the arena's time is up (no match starts any more)."""
    return event.ends_at is not None and now >= event.ends_at


_stats_lock = threading.Lock()
_stats = {"passes": 0, "ms": 0.0, "max_ms": 0.0}


def pass_stats() -> dict[str, float]:
    """The pairing passes run in this process so far: how many, their total and longest ms."""
    with _stats_lock:
        return dict(_stats)


def _pair(event: Event, now: datetime) -> PassResult:
    """With the event locked: start a match for every pair of free players the rules give."""
    result = _pair_timed(event, now)
    ms = sum(result.timings.values())
    with _stats_lock:
        _stats["passes"] += 1
        _stats["ms"] += ms
        _stats["max_ms"] = max(_stats["max_ms"], ms)
    return result


def _pair_timed(event: Event, now: datetime) -> PassResult:
    started = time.perf_counter()
    laps: dict[str, float] = {}
    table = arena_table(event=event)
    busy_elsewhere = _busy_elsewhere(
        [row.player_id for row in table if row.free], exclude_event=event
    )
    waiting = [
        rules.Waiting(
            row.entry,
            row.rank,
            (now - row.free_since).total_seconds() if row.free_since else 0.0,
            row.last_opponent,
            row.is_bot,
            # In a rated arena a person never meets their own bot, nor two bots of one owner.
            row.stable if event.rated else None,
        )
        for row in table
        if row.free and row.player_id not in busy_elsewhere
    ]
    laps["read"] = (time.perf_counter() - started) * 1000
    assert event.ends_at is not None
    pairs = rules.pair(waiting, seconds_left=(event.ends_at - now).total_seconds())
    laps["pair"] = (time.perf_counter() - started) * 1000 - laps["read"]
    if not pairs:
        return PassResult(free=len(waiting), timings=laps)
    players = {row.entry: row.player_id for row in table}
    found = Player.objects.in_bulk(list(players.values()))
    rnd = Round.objects.get(event=event, number=1)
    count = Pairing.objects.filter(event=event).count()
    in_use = set(
        Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING).values_list(
            "table", flat=True
        )
    )
    tables = (n for n in range(1, 2**15) if n not in in_use)
    rules_dict = match_rules(event)
    clock = time_control(event)
    created = []
    for number, (a, b) in enumerate(pairs, start=count + 1):
        # A slow pass must not start a match after the end: the clock is read again before
        # each match (the time the pass took counts, and so does any wait for the event's
        # lock before it began, which ``now`` does not see).
        if max(now + timedelta(seconds=time.perf_counter() - started), timezone.now()) >= (
            event.ends_at
        ):
            break
        player_a, player_b = found[players[a]], found[players[b]]
        bots = player_a.is_bot and player_b.is_bot
        match = play.match_create(
            player_a=player_a,
            player_b=player_b,
            rules=rules_dict,
            time_control=None if bots else clock,
            source=Match.Source.TOURNAMENT,
            start=True,
        )
        pairing = Pairing(
            event=event,
            round=rnd,
            key=f"A{number}",
            table=next(tables),
            entry_a_id=a,
            entry_b_id=b,
            status=Pairing.Status.PLAYING,
            match=match,
        )
        created.append(pairing)
    if not created:
        return PassResult(free=len(waiting), timings=laps)
    Pairing.objects.bulk_create(created)
    for pairing in created:
        assert pairing.match is not None
        if not pairing.match.is_bot_match:
            match_players_tell(pairing=pairing, match=pairing.match)  # the table to open
    event_changed(event)
    laps["write"] = (time.perf_counter() - started) * 1000 - laps["read"] - laps["pair"]
    return PassResult(len(waiting), [p.match_id for p in created], timings=laps)


def _busy_elsewhere(player_ids: list[int], *, exclude_event: Event) -> set[int]:
    """Those of these players with a match of another source or event waiting or in play."""
    if not player_ids:
        return set()
    ours = Pairing.objects.filter(event=exclude_event, match__isnull=False).values("match_id")
    busy = (
        Match.objects.filter(status__in=IN_PROGRESS)
        .filter(Q(player_a_id__in=player_ids) | Q(player_b_id__in=player_ids))
        .exclude(pk__in=ours)
        .values_list("player_a_id", "player_b_id")
    )
    return {p for pair in busy for p in pair} & set(player_ids)


def arenas_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Every second (beat, or the embedded sweeper): a pass over every running arena.

    Each pass reads the clock under its own event's lock (unless ``now`` fixes it), so a pass
    that waited behind others cannot start a match after its arena's end.
    """
    paired = finished = 0
    running = Event.objects.filter(status=Event.Status.RUNNING, format=Format.ARENA).values_list(
        "pk", flat=True
    )
    for event_id in list(running):
        result = arena_pass(event_id=event_id, now=now)
        paired += 2 * len(result.matches)
        finished += result.finished
    return {"paired": paired, "finished": finished}


# --- what players do --------------------------------------------------------------------------


def _running_arena_entry(event: Event, player: Player) -> tuple[Event, Entry]:
    event = lock_event(event.pk)
    if not event.is_arena:
        raise Conflict(_("this event is not an arena"), code="not_arena")
    if event.status != Event.Status.RUNNING:
        raise Conflict(event_is(event.status), code="event_not_running")
    entry = Entry.objects.filter(event=event, player=player).first()
    if entry is None or not entry.is_active:
        raise Conflict(_("you are not playing in this arena"), code="not_entered")
    return event, entry


def arena_pause(*, event: Event, player: Player, by: User | None = None) -> Entry:
    """The player takes a break: not paired again until they rejoin (a match in play goes on)."""
    with transaction.atomic():
        event, entry = _running_arena_entry(event, player)
        if entry.paused_at is None:
            entry.paused_at = timezone.now()
            entry.save(update_fields=["paused_at"])
            log_action(event, "arena_pause", by, entry=entry)
            event_changed(event)
    return entry


def arena_rejoin(*, event: Event, player: Player, by: User | None = None) -> Entry:
    """The player is back: paired at the next pass (queued now), if the arena still runs."""
    with transaction.atomic():
        event, entry = _running_arena_entry(event, player)
        if arena_over(event, timezone.now()):
            raise Conflict(_("the arena's time is up"), code="arena_over")
        if entry.paused_at is not None:
            entry.paused_at = None
            entry.save(update_fields=["paused_at"])
            log_action(event, "arena_rejoin", by, entry=entry)
            event_changed(event)
        arena_pair_soon(event)
    return entry


def arena_berserk(*, match: Match, player: Player) -> Match:
    """The player halves their own clock in their arena match, for a point more if they win.

    Before their first move of the match only (games.services.match_berserk keeps that rule
    and the clocks); refused in an arena that does not allow berserk, or outside an arena.
    """
    with transaction.atomic():
        # The match first, then the event (the lock order).
        match = Match.objects.select_for_update(of=("self",)).get(pk=match.pk)
        pairing = Pairing.objects.filter(match=match).select_related("event").first()
        if pairing is None or not pairing.event.is_arena:
            raise Conflict(_("berserk is for arena matches"), code="not_arena")
        if not pairing.event.berserk:
            raise Conflict(_("this arena does not allow berserk"), code="berserk_not_allowed")
        if match.index_of(player.pk) is None:
            raise TournamentError(
                _("you are not a player of this match"), code="not_a_player", status=403
            )
        match = play.match_berserk(match=match, player=player)
        event_changed(pairing.event)
    return match


__all__ = [
    "DEFAULT_MINUTES",
    "PassResult",
    "arena_begin",
    "arena_berserk",
    "arena_duration",
    "arena_over",
    "arena_pass",
    "arena_pause",
    "arena_rejoin",
    "arenas_sweep",
    "pass_stats",
]
