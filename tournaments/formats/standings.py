"""Standings: match points and tiebreaks, a total order.

A match is won or lost (Gin Rummy matches have no draws): a win is one match point. A bye is
worth ``bye_points`` (1 in a Swiss, 0 in a round robin, where everyone has the same number).
The order is: the elimination stage reached (elimination formats only), match points, then the
event's tiebreaks in its chosen order, then the seed and the player id, so no two players ever
share a rank. Tiebreaks (higher is better for each):

- ``direct_encounter``: match points won against the other players still tied at that point,
  only when every two of them have met (else it decides nothing and shows empty);
- ``buchholz``: the sum of the opponents' match points;
- ``median_buchholz``: the same without the best and the worst opponent (with three or more);
- ``sonneborn_berger``: the sum of the match points of the opponents beaten;
- ``games_won``: games won in all matches;
- ``margin``: the total point margin over all games played.

**Unplayed rounds** (``unplayed``). With ``"fide"`` (the default, FIDE's tie-break regulations
C.07 of 2023, article 16), each round a player did not play over the board, a bye, a win or
loss by forfeit (a no-show, a walkover), a round missed after withdrawing or before a late
entry, counts in that player's Buchholz, median Buchholz and Sonneborn-Berger as a game
against a **dummy opponent** whose score is the player's own: a forfeit's opponent is left
out of them. The dummy counts as beaten (for Sonneborn-Berger) when the round scored a point
(a bye, a forfeit win). Two more rules:

- a player's score as it counts in the opponents' Buchholz and Sonneborn-Berger gives half a
  point (a draw) for each round the player missed **after withdrawing** (``withdrawn``: no
  later round played, won by forfeit or byed), not nothing; every other round counts what
  it scored (a forfeit loss nothing, a bye or a forfeit win its point);
- a player's own **voluntarily unplayed rounds** (a forfeit loss, a round missed) are cut
  before any other round where a tiebreak cuts its least significant values: median
  Buchholz cuts the lowest of them (if any) instead of the lowest opponent, then the highest.

With ``"plain"``, the sums are over the opponents named in the results, forfeits included,
byes and missed rounds count for nothing, and scores are used as they are.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

DIRECT_ENCOUNTER = "direct_encounter"
BUCHHOLZ = "buchholz"
MEDIAN_BUCHHOLZ = "median_buchholz"
SONNEBORN_BERGER = "sonneborn_berger"
GAMES_WON = "games_won"
MARGIN = "margin"

TIEBREAKS: tuple[str, ...] = (
    DIRECT_ENCOUNTER,
    BUCHHOLZ,
    MEDIAN_BUCHHOLZ,
    SONNEBORN_BERGER,
    GAMES_WON,
    MARGIN,
)
#: How a player's unplayed rounds count in their tiebreaks (``tiebreak_unplayed``).
FIDE_UNPLAYED = "fide"
PLAIN_UNPLAYED = "plain"
UNPLAYED_MODES: tuple[str, ...] = (FIDE_UNPLAYED, PLAIN_UNPLAYED)

#: After match points: Buchholz, Sonneborn-Berger, games won, total margin.
DEFAULT_TIEBREAKS: tuple[str, ...] = (BUCHHOLZ, SONNEBORN_BERGER, GAMES_WON, MARGIN)


@dataclass(frozen=True, slots=True)
class Result:
    """One decided pairing: ``a`` against ``b`` (``b`` None: a bye for ``a``).

    ``winner`` is None when nobody won (both forfeited). Games and margin are from ``a``'s side.
    ``unplayed`` marks a result by forfeit (a no-show, a walkover): no game was played.
    """

    a: int
    b: int | None
    winner: int | None
    games_a: int = 0
    games_b: int = 0
    margin_a: int = 0
    unplayed: bool = False


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in the standings, with the seed that breaks the last ties."""

    id: int
    seed: int


@dataclass(slots=True)
class Row:
    """One line of the standings."""

    player: int
    seed: int
    rank: int = 0
    match_points: float = 0.0
    played: int = 0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    games_won: int = 0
    games_lost: int = 0
    margin: int = 0
    buchholz: float = 0.0
    median_buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    direct_encounter: float | None = None
    stage: tuple[int, int] | None = None
    opponents: list[int] = field(default_factory=list)
    beaten: list[int] = field(default_factory=list)
    #: Rounds not played over the board: (opponent in the results or None, points scored).
    unplayed: list[tuple[int | None, float]] = field(default_factory=list)


def validate_tiebreaks(names: Iterable[str]) -> tuple[str, ...]:
    """The names as a tuple; ValueError naming an unknown or repeated tiebreak."""
    seen: list[str] = []
    for name in names:
        if name not in TIEBREAKS:
            raise ValueError(f"unknown tiebreak {name!r}; known: {', '.join(TIEBREAKS)}")
        if name in seen:
            raise ValueError(f"tiebreak {name!r} is listed twice")
        seen.append(name)
    return tuple(seen)


def standings(
    entrants: Sequence[Entrant],
    results: Iterable[Result],
    *,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    bye_points: float = 1.0,
    stages: Mapping[int, tuple[int, int]] | None = None,
    unplayed: str = FIDE_UNPLAYED,
    missed: Mapping[int, int] | None = None,
    withdrawn: Mapping[int, int] | None = None,
) -> list[Row]:
    """Every entrant ranked 1..N; ``stages`` (elimination) ranks by the stage reached first.

    ``unplayed`` is ``"fide"`` or ``"plain"`` (see the module); ``missed`` counts, for each
    player, the rounds played without them (withdrawn, or entered late): with ``"fide"``
    those are unplayed rounds too. ``withdrawn`` counts, for each player, how many of those
    came after the last round they were there for (after withdrawing): with ``"fide"`` they
    count as draws in the player's score as their opponents' tiebreaks use it.
    """
    validate_tiebreaks(tiebreaks)
    if unplayed not in UNPLAYED_MODES:
        raise ValueError(f"unknown tiebreak_unplayed {unplayed!r}; known: fide, plain")
    rows = {e.id: Row(player=e.id, seed=e.seed) for e in entrants}
    if len(rows) != len(entrants):
        raise ValueError("an entrant is listed twice")
    decided = list(results)
    for r in decided:
        row_a = rows[r.a]
        if r.b is None:
            row_a.byes += 1
            row_a.match_points += bye_points
            row_a.unplayed.append((None, bye_points))
            continue
        row_b = rows[r.b]
        for row, other, games_for, games_against, margin in (
            (row_a, r.b, r.games_a, r.games_b, r.margin_a),
            (row_b, r.a, r.games_b, r.games_a, -r.margin_a),
        ):
            row.played += 1
            row.opponents.append(other)
            row.games_won += games_for
            row.games_lost += games_against
            row.margin += margin
            won = r.winner == row.player
            if won:
                row.wins += 1
                row.match_points += 1
                row.beaten.append(other)
            else:
                row.losses += 1
            if r.unplayed:
                row.unplayed.append((other, 1.0 if won else 0.0))
    missed, withdrawn = missed or {}, withdrawn or {}
    for p, count in withdrawn.items():
        if not 0 <= count <= missed.get(p, 0):
            raise ValueError(
                f"player {p}: {count} rounds after withdrawing, but not as many missed"
            )
    # A player's score as the opponents' tiebreaks count it (FIDE: draws after withdrawing).
    counted = {p: row.match_points + 0.5 * withdrawn.get(p, 0) for p, row in rows.items()}
    for row in rows.values():
        if unplayed == FIDE_UNPLAYED:
            _fide_sums(row, counted, missed.get(row.player, 0))
        else:
            _plain_sums(row, rows)
        if stages is not None:
            row.stage = stages.get(row.player, (-1, 0))

    # Sort keys, best first; direct encounter depends on who is still tied before it.
    keys: dict[int, list[float]] = {p: [] for p in rows}
    if stages is not None:
        for p, row in rows.items():
            assert row.stage is not None
            keys[p] += [row.stage[0], row.stage[1]]
    for p, row in rows.items():
        keys[p].append(row.match_points)
    for name in tiebreaks:
        if name == DIRECT_ENCOUNTER:
            _direct_encounter(rows, keys, decided)
            continue
        for p, row in rows.items():
            keys[p].append(float(getattr(row, name)))
    ordered = sorted(
        rows.values(), key=lambda row: ([-k for k in keys[row.player]], row.seed, row.player)
    )
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
    return ordered


def _plain_sums(row: Row, rows: dict[int, Row]) -> None:
    """Buchholz and Sonneborn-Berger over the opponents named in the results."""
    scores = sorted(rows[o].match_points for o in row.opponents)
    row.buchholz = sum(scores)
    row.median_buchholz = sum(scores[1:-1]) if len(scores) >= 3 else sum(scores)
    row.sonneborn_berger = sum(rows[o].match_points for o in row.beaten)


def _fide_sums(row: Row, counted: dict[int, float], missed: int) -> None:
    """FIDE C.07 (2023), article 16: unplayed rounds against a dummy with the row's own score,
    opponents at their counted score, voluntarily unplayed rounds cut first."""
    own = row.match_points
    forfeited = [other for other, _ in row.unplayed if other is not None]
    played = list(row.opponents)
    for other in forfeited:
        played.remove(other)
    beaten = list(row.beaten)
    for other, points in row.unplayed:
        if other is not None and points:
            beaten.remove(other)
    # (value, voluntarily unplayed): the opponents played, then a dummy per unplayed round; a
    # forfeit loss and a missed round are voluntary, a bye and a forfeit win are not.
    values = [(counted[o], False) for o in played]
    values += [(own, other is not None and not points) for other, points in row.unplayed]
    values += [(own, True)] * missed
    dummy_wins = sum(1 for _, points in row.unplayed if points)
    row.buchholz = sum(value for value, _ in values)
    row.median_buchholz = _median(values)
    row.sonneborn_berger = sum(counted[o] for o in beaten) + own * dummy_wins


def _median(values: list[tuple[float, bool]]) -> float:
    """The sum without the least significant value and the most (with three or more): the
    least is the lowest voluntarily unplayed round when there is one (FIDE C.07 16.5)."""
    if len(values) < 3:
        return sum(value for value, _ in values)
    voluntary = [value for value, is_voluntary in values if is_voluntary]
    lowest = min(voluntary) if voluntary else min(value for value, _ in values)
    rest = [value for value, _ in values]
    rest.remove(lowest)
    rest.remove(max(rest))
    return sum(rest)


def _direct_encounter(
    rows: dict[int, Row], keys: dict[int, list[float]], results: list[Result]
) -> None:
    """Points among the players still tied, for a group only if every two of them have met."""
    groups: dict[tuple[float, ...], set[int]] = defaultdict(set)
    for p in rows:
        groups[tuple(keys[p])].add(p)
    group_of = {p: frozenset(members) for members in groups.values() for p in members}
    points: dict[int, float] = dict.fromkeys(rows, 0.0)
    met: set[frozenset[int]] = set()
    for r in results:
        if r.b is None or r.b not in group_of[r.a]:
            continue
        met.add(frozenset((r.a, r.b)))
        if r.winner is not None:
            points[r.winner] += 1
    complete = {
        members: all(frozenset(pair) in met for pair in itertools.combinations(members, 2))
        for members in set(group_of.values())
    }
    for p, row in rows.items():
        applies = complete[group_of[p]] and len(group_of[p]) > 1
        row.direct_encounter = points[p] if applies else None
        keys[p].append(points[p] if applies else 0.0)


__all__ = [
    "BUCHHOLZ",
    "DEFAULT_TIEBREAKS",
    "DIRECT_ENCOUNTER",
    "FIDE_UNPLAYED",
    "GAMES_WON",
    "MARGIN",
    "MEDIAN_BUCHHOLZ",
    "PLAIN_UNPLAYED",
    "SONNEBORN_BERGER",
    "TIEBREAKS",
    "UNPLAYED_MODES",
    "Entrant",
    "Result",
    "Row",
    "standings",
    "validate_tiebreaks",
]
