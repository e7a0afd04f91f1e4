"""Arena: a time-boxed event where every free player is paired at once (no Django, no I/O).

An arena runs for a fixed time. Whoever is free (entered, not paused, not playing) is paired
as soon as there is another free player, preferring the closest standing, never with the
opponent of their last match; once the time is up no match starts, and the matches still in
play count when they end. The pairing is the ladder's matchmaker
(:func:`games.matchmaking.pair`, itself pure) with the rank in the standings as the rating
and an unbounded window: the closest ranks go first, and nobody free waits for a closer
opponent to come back. The matchmaker allows a rematch as a last resort; an arena never
does, so those pairs wait for the next pass.

Scoring, as lichess's arena: a match won is 2 points, lost 0; after two wins in a row every
further win scores double (4) until a loss (the streak, "on fire"); a player who went
berserk (halved their own clock) and won gets one point more.

>>> [s for s in match_points([Outcome(True), Outcome(True), Outcome(True), Outcome(False)])]
[2, 2, 4, 0]
>>> match_points([Outcome(True, berserk=True), Outcome(True), Outcome(True, berserk=True)])
[3, 2, 5]
>>> pair([Waiting(3, rank=3, last_opponent=4), Waiting(4, rank=4, last_opponent=3)],
...      seconds_left=60)
[]
>>> waiting = [Waiting(1, rank=1), Waiting(2, rank=2), Waiting(3, rank=3, last_opponent=4),
...            Waiting(4, rank=4, last_opponent=3)]
>>> sorted(tuple(sorted(p)) for p in pair(waiting, seconds_left=60))
[(1, 3), (2, 4)]
>>> pair(waiting, seconds_left=0)
[]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.matchmaking import Seeker, WindowPolicy
from games.matchmaking import pair as matchmaker_pair

__all__ = [
    "BERSERK_BONUS",
    "LOSS_POINTS",
    "POLICY",
    "STREAK_WINS",
    "WIN_POINTS",
    "ArenaRow",
    "Outcome",
    "Waiting",
    "match_points",
    "pair",
    "score",
    "standings",
]

WIN_POINTS = 2
LOSS_POINTS = 0
#: Wins in a row after which every further win scores double, until a loss.
STREAK_WINS = 2
#: The extra point of a win after going berserk.
BERSERK_BONUS = 1

#: The matchmaker's window in ranks: unbounded, so every free player is paired at once with
#: the closest free rank (closest first, as the matchmaker always orders its pairs).
POLICY = WindowPolicy(initial=math.inf, step=0.0, step_seconds=1.0, maximum=None)


@dataclass(frozen=True)
class Outcome:
    """One finished match of a player: won or not, and whether they had gone berserk."""

    won: bool
    berserk: bool = False


def match_points(outcomes: Iterable[Outcome]) -> list[int]:
    """The points each match scored, in the order played (the streak carries across them)."""
    points: list[int] = []
    streak = 0
    for outcome in outcomes:
        if outcome.won:
            value = WIN_POINTS * (2 if streak >= STREAK_WINS else 1)
            if outcome.berserk:
                value += BERSERK_BONUS
            streak += 1
        else:
            value = LOSS_POINTS
            streak = 0
        points.append(value)
    return points


@dataclass(frozen=True)
class ArenaScore:
    """A player's arena score: points, the matches' points in order, and the streak now."""

    points: int
    sheet: tuple[int, ...]
    played: int
    wins: int
    losses: int
    #: Wins in a row up to now (0 after a loss).
    streak: int
    berserk_wins: int

    @property
    def on_fire(self) -> bool:
        """Whether the next win scores double."""
        return self.streak >= STREAK_WINS


def score(outcomes: Sequence[Outcome]) -> ArenaScore:
    """The score of one player's matches, in the order they finished."""
    sheet = match_points(outcomes)
    streak = 0
    for outcome in reversed(outcomes):
        if not outcome.won:
            break
        streak += 1
    wins = sum(1 for o in outcomes if o.won)
    return ArenaScore(
        points=sum(sheet),
        sheet=tuple(sheet),
        played=len(outcomes),
        wins=wins,
        losses=len(outcomes) - wins,
        streak=streak,
        berserk_wins=sum(1 for o in outcomes if o.won and o.berserk),
    )


@dataclass(frozen=True)
class ArenaRow:
    """One line of the standings: a distinct rank, the player and their score."""

    rank: int
    player: int
    seed: int
    score: ArenaScore


def standings(
    entrants: Iterable[tuple[int, int]], outcomes: Mapping[int, Sequence[Outcome]]
) -> list[ArenaRow]:
    """Rank ``entrants`` (player, seed) by points, then wins, then seed; ranks are distinct.

    ``outcomes`` holds each player's finished matches in the order they finished; a player
    without any has scored nothing.
    """
    scored = [(player, seed, score(outcomes.get(player, ()))) for player, seed in entrants]
    scored.sort(key=lambda row: (-row[2].points, -row[2].wins, row[1], row[0]))
    return [
        ArenaRow(rank, player, seed, s) for rank, (player, seed, s) in enumerate(scored, start=1)
    ]


@dataclass(frozen=True)
class Waiting:
    """A free player: not paused, not playing. ``rank`` is their place in the standings now;
    ``free_seconds`` how long they have been free; ``last_opponent`` whom they last played."""

    player: int
    rank: int
    free_seconds: float = 0.0
    last_opponent: int | None = None
    is_bot: bool = False
    #: Who stands behind the player (see :attr:`games.matchmaking.Seeker.stable`): two free
    #: players of one stable are never paired. None: no such constraint.
    stable: int | None = None


def _rematch(a: Seeker, b: Seeker) -> bool:
    return a.last_opponent == b.player or b.last_opponent == a.player


def pair(
    waiting: Iterable[Waiting], *, seconds_left: float, policy: WindowPolicy = POLICY
) -> list[tuple[int, int]]:
    """The matches to start now among free players: closest ranks first, no rematch.

    Nothing once the arena's time is up (``seconds_left`` <= 0). Each player appears in at
    most one pair; two players whose last match was against each other are never paired
    (they wait for someone else to be free), nor two of one stable (they wait for anyone
    else). Players are listed once each: a repeated id is
    a caller's error (ValueError).
    """
    if seconds_left <= 0:
        return []
    seekers = [
        Seeker(
            w.player,
            w.player,
            float(w.rank),
            w.free_seconds,
            w.last_opponent,
            w.is_bot,
            stable=w.stable,
        )
        for w in waiting
    ]
    if len({s.player for s in seekers}) != len(seekers):
        raise ValueError("a player is listed twice among the waiting")
    pairs = matchmaker_pair(seekers, policy)
    return [(a.player, b.player) for a, b in pairs if not _rematch(a, b)]
