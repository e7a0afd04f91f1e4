"""The Swiss pairing that tournaments.formats.swiss replaced, kept for bench/tournaments.py.

It stops at the first rematch-free completion in Dutch order; the benchmark pairs the same
states with both and compares pairs across score groups and score differences.

Swiss pairing, Dutch style: within score groups, top half against bottom half, no rematches.

Players are ranked by match points, then by their pairing number (the seed). Each round:

1. With an odd field, the **bye** goes to the lowest-ranked player who has not had one, as long
   as everyone else can then be paired without a rematch (else to the next one up).
2. The rest are paired from the top. In a score group of ``g`` players the top half meets the
   bottom half in order (1 v g/2+1, 2 v g/2+2, ...); a player whose Dutch opponent would be a
   rematch takes the next one down (transposition), then one from the top half (exchange); the
   odd one out floats down to the top of the next group.
3. The search backtracks, so **no rematch is paired while one can be avoided**: it finds a
   rematch-free pairing whenever one exists. A step budget bounds it; past the budget a maximum
   matching (Edmonds' blossom algorithm) decides, and when rematches cannot be avoided at all
   it pairs the fewest possible.

Everything is plain data: :class:`SwissPlayer` in, :class:`SwissPairing` out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tournaments.formats.matching import max_matching

#: Candidate checks before the ordered search gives way to the matching algorithm.
DEFAULT_BUDGET = 50_000


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """A player to pair: match points so far, pairing number (lower ranks higher), history."""

    id: int
    score: float = 0.0
    rank: int = 0
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False


@dataclass(frozen=True, slots=True)
class SwissPairing:
    """A round: pairs (higher-ranked player first, best table first), the bye, rematch count."""

    pairs: tuple[tuple[int, int], ...]
    bye: int | None
    rematches: int = 0


def default_rounds(players: int) -> int:
    """ceil(log2(N)) rounds, at least one: enough to leave one player unbeaten."""
    return max(1, math.ceil(math.log2(max(players, 1))))


def ranking(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """Players in pairing order: most match points first, then pairing number, then id."""
    return sorted(players, key=lambda p: (-p.score, p.rank, p.id))


def pair(players: Sequence[SwissPlayer], *, budget: int = DEFAULT_BUDGET) -> SwissPairing:
    """Pair one round of ``players`` (every one of them is paired or gets the bye)."""
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice")
    order = ranking(players)
    if not order:
        return SwissPairing((), None)
    if len(order) % 2 == 0:
        return _pair_field(order, None, budget)
    eligible = [p for p in reversed(order) if not p.had_bye] or list(reversed(order))
    for candidate in eligible:
        rest = [p for p in order if p.id != candidate.id]
        pairs = _pair_without_rematches(rest, budget)
        if pairs is not None:
            return SwissPairing(tuple(pairs), candidate.id, 0)
    # Every choice of bye leaves rematches: the lowest eligible player has it all the same.
    rest = [p for p in order if p.id != eligible[0].id]
    return _pair_field(rest, eligible[0].id, budget)


def _pair_field(order: list[SwissPlayer], bye: int | None, budget: int) -> SwissPairing:
    pairs = _pair_without_rematches(order, budget)
    if pairs is not None:
        return SwissPairing(tuple(pairs), bye, 0)
    pairs, rematches = _pair_fewest_rematches(order)
    return SwissPairing(tuple(pairs), bye, rematches)


class _BudgetSpent(Exception):
    pass


def _pair_without_rematches(order: list[SwissPlayer], budget: int) -> list[tuple[int, int]] | None:
    """Pairs in Dutch preference with no rematch, or None if no such pairing exists."""
    try:
        found = _search(order, budget)
    except _BudgetSpent:
        found = _by_matching(order)
    if found is None:
        return None
    return [(order[i].id, order[j].id) for i, j in found]


def _candidates(remaining: list[int], scores: list[float]) -> Iterator[int]:
    """Positions in ``remaining`` the top player should meet, best first (Dutch order)."""
    top_score = scores[remaining[0]]
    group = 1
    while group < len(remaining) and scores[remaining[group]] == top_score:
        group += 1
    if group == 1:  # a floater meets the top of the next group down
        return iter(range(1, len(remaining)))
    ideal = group // 2
    return itertools.chain(
        range(ideal, group), range(ideal - 1, 0, -1), range(group, len(remaining))
    )


def _search(order: list[SwissPlayer], budget: int) -> list[tuple[int, int]] | None:
    """Depth-first search over Dutch preferences; exhaustive, so None proves impossibility."""
    index = {p.id: i for i, p in enumerate(order)}
    scores = [p.score for p in order]
    played = [{index[o] for o in p.opponents if o in index} for p in order]
    start = list(range(len(order)))
    stack: list[tuple[list[int], Iterator[int]]] = [(start, _candidates(start, scores))]
    chosen: list[tuple[int, int]] = []
    steps = 0
    while stack:
        remaining, candidates = stack[-1]
        if not remaining:
            return chosen
        top = remaining[0]
        for position in candidates:
            steps += 1
            if steps > budget:
                raise _BudgetSpent
            other = remaining[position]
            if other in played[top]:
                continue
            rest = remaining[1:position] + remaining[position + 1 :]
            chosen.append((top, other))
            stack.append((rest, _candidates(rest, scores) if rest else iter(())))
            break
        else:
            stack.pop()
            if chosen:
                chosen.pop()
    return None


def _compatible(order: list[SwissPlayer]) -> list[list[int]]:
    index = {p.id: i for i, p in enumerate(order)}
    adjacency: list[list[int]] = []
    for i, p in enumerate(order):
        played = {index[o] for o in p.opponents if o in index}
        adjacency.append([j for j in range(len(order)) if j != i and j not in played])
    return adjacency


def _by_matching(order: list[SwissPlayer]) -> list[tuple[int, int]] | None:
    """A rematch-free pairing from a maximum matching, or None when none is perfect."""
    mate = max_matching(_compatible(order))
    if any(m == -1 for m in mate):
        return None
    return [(i, m) for i, m in enumerate(mate) if i < m]


def _pair_fewest_rematches(order: list[SwissPlayer]) -> tuple[list[tuple[int, int]], int]:
    """As few rematches as possible: a maximum rematch-free matching, the rest in order."""
    mate = max_matching(_compatible(order))
    pairs = [(i, m) for i, m in enumerate(mate) if m != -1 and i < m]
    left = [i for i, m in enumerate(mate) if m == -1]
    rematches = len(left) // 2
    pairs += [(left[k], left[k + 1]) for k in range(0, len(left), 2)]
    pairs.sort()
    return [(order[i].id, order[j].id) for i, j in pairs], rematches


__all__ = ["DEFAULT_BUDGET", "SwissPairing", "SwissPlayer", "default_rounds", "pair", "ranking"]
