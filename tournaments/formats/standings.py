"""Standings: match points and tiebreaks, a total order.

A match is won or lost (Gin Rummy matches have no draws): a win is one match point. A bye is
worth ``bye_points`` (1 in a Swiss, 0 in a round robin, where everyone has the same number).
The order is: the elimination stage reached (elimination formats only), match points, then the
event's tiebreaks in its chosen order, then the seed and the player id, so no two players ever
share a rank. Tiebreaks (higher is better for each):

- ``direct_encounter``: match points won against the other players still tied at that point;
- ``buchholz``: the sum of the opponents' match points;
- ``median_buchholz``: the same without the best and the worst opponent (with three or more);
- ``sonneborn_berger``: the sum of the match points of the opponents beaten;
- ``games_won``: games won in all matches;
- ``margin``: the total point margin over all games played.
"""

from __future__ import annotations

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
#: How unplayed rounds count in the opponents' tiebreaks (``tiebreak_unplayed``).
FIDE_UNPLAYED = "fide"
PLAIN_UNPLAYED = "plain"
UNPLAYED_MODES: tuple[str, ...] = (FIDE_UNPLAYED, PLAIN_UNPLAYED)

#: After match points: Buchholz, Sonneborn-Berger, games won, total margin.
DEFAULT_TIEBREAKS: tuple[str, ...] = (BUCHHOLZ, SONNEBORN_BERGER, GAMES_WON, MARGIN)


@dataclass(frozen=True, slots=True)
class Result:
    """One decided pairing: ``a`` against ``b`` (``b`` None: a bye for ``a``).

    ``winner`` is None when nobody won (both forfeited). Games and margin are from ``a``'s side.
    """

    a: int
    b: int | None
    winner: int | None
    games_a: int = 0
    games_b: int = 0
    margin_a: int = 0


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
) -> list[Row]:
    """Every entrant ranked 1..N; ``stages`` (elimination) ranks by the stage reached first."""
    validate_tiebreaks(tiebreaks)
    rows = {e.id: Row(player=e.id, seed=e.seed) for e in entrants}
    if len(rows) != len(entrants):
        raise ValueError("an entrant is listed twice")
    decided = list(results)
    for r in decided:
        row_a = rows[r.a]
        if r.b is None:
            row_a.byes += 1
            row_a.match_points += bye_points
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
            if r.winner == row.player:
                row.wins += 1
                row.match_points += 1
                row.beaten.append(other)
            else:
                row.losses += 1
    for row in rows.values():
        scores = sorted(rows[o].match_points for o in row.opponents)
        row.buchholz = sum(scores)
        row.median_buchholz = sum(scores[1:-1]) if len(scores) >= 3 else sum(scores)
        row.sonneborn_berger = sum(rows[o].match_points for o in row.beaten)
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


def _direct_encounter(
    rows: dict[int, Row], keys: dict[int, list[float]], results: list[Result]
) -> None:
    groups: dict[tuple[float, ...], set[int]] = defaultdict(set)
    for p in rows:
        groups[tuple(keys[p])].add(p)
    group_of = {p: frozenset(members) for members in groups.values() for p in members}
    points: dict[int, float] = dict.fromkeys(rows, 0.0)
    for r in results:
        if r.b is None or r.winner is None:
            continue
        if r.b in group_of[r.a]:
            points[r.winner] += 1
    for p, row in rows.items():
        row.direct_encounter = points[p]
        keys[p].append(points[p])


__all__ = [
    "BUCHHOLZ",
    "DEFAULT_TIEBREAKS",
    "DIRECT_ENCOUNTER",
    "GAMES_WON",
    "MARGIN",
    "MEDIAN_BUCHHOLZ",
    "SONNEBORN_BERGER",
    "TIEBREAKS",
    "Entrant",
    "Result",
    "Row",
    "standings",
    "validate_tiebreaks",
]
