"""Matchmaking: a pass pairs a ladder's waiting players and creates their matches; they start
once it commits.

Atomic matchmaking: one pass per ladder at a time (the ladder row is locked with SKIP LOCKED:
a second pass finds it taken and leaves the work to the first). The pass then locks the queue
entries it chose, in id order, and deletes them in the transaction that creates the matches;
an entry that left meanwhile (or that a second pass, past a switched-off ladder lock, paired
first) is gone and its pair is dropped. A player has at most one entry: nobody can be paired
twice.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player, stable_of
from common.enqueue import task_on_commit
from games import services as games_services
from games.matchmaking import Seeker, pair
from games.models import IN_PROGRESS, Match, seed_commitment
from ladders.bulk import bulk_insert, delete_ids, fetch_rows, gc_paused, lock_ids
from ladders.live import pairing_tell
from ladders.models import Ladder, LadderMatch, QueueEntry
from ladders.pools import window_policy
from ladders.services.base import Conflict
from ratings.glicko2 import deviation_after_absence

_unfinished = Match.objects.filter(status__in=IN_PROGRESS).values("pk")
#: Matches handed to one start task.
START_CHUNK = 200
#: Matches one matchmaker pass writes at most; a pass that found more runs again at once.
MAX_MATCHES_PER_PASS = 500


@dataclass(frozen=True)
class PassResult:
    """What one matchmaker pass did."""

    waiting: int  # entries looked at
    busy: int  # of those, players already playing (left waiting)
    matches: list[int]  # ids of the matches created
    found: int = 0  # pairs found (more than written when a burst exceeds the cap)
    dropped: int = 0  # pairs given up: a player left, was paired by another pass, or began a match
    timings: dict[str, float] = field(default_factory=dict)  # ms by phase, for benchmarks

    @property
    def paired(self) -> int:
        return 2 * len(self.matches)


def matchmaker_pass(
    *, ladder_id: int, now: datetime | None = None, lock: bool = True
) -> PassResult:
    """Pair the waiting players of one ladder and create their matches.

    Players already playing a match (any source) stay in the queue for a later pass. The
    matches are created waiting to start and started by tasks once this commits (and by the
    sweep if such a task is lost). ``lock=False`` skips the ladder lock (the tests use it to
    show the entry locks alone never pair a player twice).
    """
    now = now or timezone.now()
    clock = _Stopwatch()
    with transaction.atomic():
        ladders = Ladder.objects.filter(pk=ladder_id, kind=Ladder.Kind.LADDER)
        if lock:
            # One pass per ladder at a time; a pass that finds the ladder taken has nothing
            # to do: the running one sees the same queue. NO KEY UPDATE, not UPDATE: the
            # foreign-key checks of rows pointing at the ladder (a join's queue entry, the
            # links of the matches) take KEY SHARE, which it does not block.
            ladders = ladders.select_for_update(skip_locked=True, no_key=True)
        ladder = ladders.first()
        if ladder is None:
            return PassResult(0, 0, [])
        # Each waiting player, with whether they are busy: a match of theirs (any source)
        # waiting to start or in play. Two index probes a player, whatever else is played.
        with gc_paused():
            rows = fetch_rows(queue_rows(ladder_id=ladder.pk, now=now))
            if len(rows) < 2:
                return PassResult(len(rows), 0, [])
            clock.lap("read")
            spread = _uncertainty(ladder, now)
            seekers = [
                Seeker(
                    row[0],
                    row[1],
                    row[3],
                    (now - row[2]).total_seconds(),
                    row[4],
                    row[5],
                    spread(*row[8:11]),
                    stable_of(row[1], row[11], row[12]),
                    row[13],
                    row[14] is not None,  # marked as assisted: bots only
                )
                for row in rows
                if not (row[6] or row[7])  # busy: a match of theirs waits or is in play
            ]
            pairs = pair(seekers, window_policy(ladder))
            clock.lap("pair")
        found = len(pairs)
        more = found > MAX_MATCHES_PER_PASS
        if more:
            # A burst: write the longest-waiting pairs now and run again once this commits,
            # so one transaction stays short (and its matches start sooner).
            pairs.sort(key=lambda p: -max(p[0].waited, p[1].waited))
            pairs = pairs[:MAX_MATCHES_PER_PASS]
        match_ids: list[int] = []
        dropped = 0
        if pairs:
            # Lock the chosen entries in id order (two passes cannot deadlock; a second one
            # waits here) and keep the pairs whose two entries are still there: a player may
            # have left, or another pass may have paired them, since the queue was read.
            present = lock_ids(QueueEntry, [s.key for p in pairs for s in p])
            kept = [(a, b) for a, b in pairs if a.key in present and b.key in present]
            # Then their players, as a challenge that starts a match does, and look again:
            # a match of theirs committed since the read (a challenge accepted, a bot
            # challenged) keeps them waiting here.
            players = [s.player for p in kept for s in p]
            lock_ids(Player, players, no_key=True)
            busy = _busy_players(players)
            kept = [(a, b) for a, b in kept if a.player not in busy and b.player not in busy]
            dropped = len(pairs) - len(kept)
            pairs = kept
            claimed = [s.key for p in pairs for s in p]
            deleted = delete_ids(QueueEntry, claimed)
            if deleted != len(claimed):  # cannot happen: the entries are locked
                raise RuntimeError(f"claimed {len(claimed)} queue entries, deleted {deleted}")
            clock.lap("claim")
            match_ids = _ladder_matches_create(ladder, pairs, now) if pairs else []
            clock.lap("write")
        for start in range(0, len(match_ids), START_CHUNK):
            task_on_commit("ladders.start_matches", match_ids[start : start + START_CHUNK])
        if more:
            task_on_commit("ladders.matchmake", ladder.pk)
    clock.lap("commit")
    return PassResult(len(rows), len(rows) - len(seekers), match_ids, found, dropped, clock.laps)


def _uncertainty(ladder: Ladder, now: datetime):
    """How much wider a seeker's window is for an uncertain rating (Glicko-2 pools only).

    The deviation as of now (grown by the time away) above the provisional threshold, times
    the ladder's ``window_deviation_factor``: a newcomer at 350 with the defaults accepts gaps
    240 points wider, a settled player none. Elo ratings carry no deviation: nothing widens.
    """
    config = ladder.glicko_config if ladder.is_glicko else None
    factor, threshold = ladder.window_deviation_factor, ladder.provisional_deviation

    def spread(deviation: float | None, volatility: float | None, active: datetime | None) -> float:
        if config is None or deviation is None or volatility is None or not factor:
            return 0.0
        if active is not None:
            days = (now - active).total_seconds() / 86400
            deviation = deviation_after_absence(deviation, volatility, days, config)
        return factor * max(0.0, deviation - threshold)

    return spread


class _Stopwatch:
    """Milliseconds spent in each phase of a pass (the benchmark prints them)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = (now - self._last) * 1000
        self._last = now


def _busy_players(player_ids: list[int]) -> set[int]:
    """Those of these players with a match waiting to start or in play.

    Two index probes a player, as in :func:`queue_rows` (an ``IN`` list over the unfinished
    matches would compare every one of them with every id).
    """
    return set(
        Player.objects.filter(pk__in=player_ids)  # at most 2 x MAX_MATCHES_PER_PASS ids
        .filter(
            Exists(_unfinished.filter(player_a=OuterRef("pk")))
            | Exists(_unfinished.filter(player_b=OuterRef("pk")))
        )
        .values_list("pk", flat=True)
    )


def queue_rows(*, ladder_id: int, now: datetime) -> QuerySet[QueueEntry]:
    """What a pass reads: each waiting player's entry, player, join time, rating, last
    opponent, bot flag, whether a match of theirs (any source) is waiting to start or in play,
    (for Glicko-2's wider windows) deviation, volatility and last rated match, (for their
    stable, :func:`accounts.models.stable_of`) kind and owner, whom they avoid, and whether
    they were marked as assisted (paired with bots only)."""
    return (
        QueueEntry.objects.filter(ladder_id=ladder_id, available_at__lte=now)
        .annotate(
            busy_a=Exists(_unfinished.filter(player_a=OuterRef("player"))),
            busy_b=Exists(_unfinished.filter(player_b=OuterRef("player"))),
        )
        .order_by()
        .values_list(
            "pk",
            "player_id",
            "joined_at",
            "membership__rating",
            "membership__last_opponent_id",
            "membership__is_bot",
            "busy_a",
            "busy_b",
            "membership__deviation",
            "membership__volatility",
            "membership__last_active",
            "player__kind",
            "player__owner_id",
            "avoid_id",
            "player__assisted_at",
        )
    )


def _ladder_matches_create(
    ladder: Ladder, pairs: list[tuple[Seeker, Seeker]], now: datetime
) -> list[int]:
    """Create the matches of one pass in bulk, waiting to start, each linked to the ladder.

    What ``games.services.match_create(start=False)`` does for one match, for thousands at
    once: the same validated rule set, a secret seed and its public commitment.
    """
    rules = games_services.rules_build(
        ladder.rules or None, best_of=ladder.best_of, target=ladder.target
    )
    template = Match(
        player_a_id=None,
        player_b_id=None,
        source=Match.Source.LADDER,
        rules=rules.to_dict(),
        best_of=rules.best_of,
        target=rules.target,
        seed=0,
        seed_commitment="",
        status=Match.Status.SCHEDULED,
    )
    time_control = ladder.time_control()
    if time_control is not None:
        template.base_seconds = time_control.base_seconds
        template.increment_seconds = time_control.increment_seconds
        template.turn_limit_seconds = time_control.turn_limit_seconds
        template.timeout_policy = time_control.timeout_policy
    rows = []
    for a, b in pairs:
        # Player A is whoever waited longer (who deals first comes from the seed anyway).
        first, second = (a, b) if a.waited >= b.waited else (b, a)
        seed = secrets.randbits(63)
        rows.append((first.player, second.player, seed, seed_commitment(seed)))
    match_ids = bulk_insert(
        template, varying=("player_a_id", "player_b_id", "seed", "seed_commitment"), rows=rows
    )
    bulk_insert(
        LadderMatch(ladder=ladder, created_at=now),
        varying=("match_id",),
        rows=[(match_id,) for match_id in match_ids],
    )
    return match_ids


def ladder_match_start(*, match_id: int) -> bool:
    """Start a ladder match waiting to start (a bot match goes to a worker). True if it did."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(of=("self",))  # the match row, not its players'
            .select_related("player_a", "player_b")
            .filter(pk=match_id)
            .first()
        )
        if match is None or match.status != Match.Status.SCHEDULED:
            return False  # started already (a redelivered task) or cancelled
        games_services.match_start(match=match)
        link = LadderMatch.objects.filter(match=match).select_related("ladder").first()
        if link is not None:
            pairing_tell(match=match, ladder=link.ladder)  # the table to open, on commit
        return True


def ladder_match_create(
    *, ladder: Ladder, player_a: Player, player_b: Player, seed: int | None = None
) -> Match:
    """One ladder match between two given players, created waiting to start.

    For the calibration command and staff; players from the queue are paired by
    :func:`matchmaker_pass`. Conflict ``same_stable`` for a person and a bot they own, or two
    bots of one owner: they never meet in rated play.
    """
    if player_a.stable_id is not None and player_a.stable_id == player_b.stable_id:
        raise Conflict(
            _(
                "%(first)s and %(second)s are a person and their own bot, or two bots of one "
                "owner: they do not meet in rated play"
            )
            % {"first": player_a.name, "second": player_b.name},
            code="same_stable",
        )
    with transaction.atomic():
        match = games_services.match_create(
            player_a=player_a,
            player_b=player_b,
            rules=ladder.rules or None,
            best_of=ladder.best_of,
            target=ladder.target,
            time_control=ladder.time_control(),
            source=Match.Source.LADDER,
            start=False,
            seed=seed,
        )
        LadderMatch.objects.create(match=match, ladder=ladder)
    return match
