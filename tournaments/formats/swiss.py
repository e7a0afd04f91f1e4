"""Swiss pairing, optimal by score groups, Dutch style within them.

Players are ranked by match points, then by their pairing number (the seed); a **score group**
is the players on the same match points. Among all pairings of a round, the one chosen is the
best by these criteria, each one deciding only between pairings equal on the ones before:

1. the fewest rematches (none whenever a rematch-free pairing exists);
2. with an odd field, the **bye** to the lowest-ranked player who has not had one (everyone has
   had one: the lowest-ranked player), that is to the lowest score group that has such a player;
3. the fewest pairs whose players are not in the same score group;
4. the smallest sum of the score differences of the pairs;
5. Dutch order: within a score group of ``g`` the top half meets the bottom half (1 v g/2+1,
   2 v g/2+2, ...), a player who floats down is the lowest of their group and meets the top of
   the group below, as far as the criteria above allow.

Two ways reach that pairing:

- **up to** :data:`EXACT_LIMIT` **players**, a maximum-weight perfect matching (networkx, the
  blossom algorithm) over every pair, whose integer weights encode the five criteria
  lexicographically: each criterion's unit outweighs the largest possible sum of the ones below;
- **larger fields**, by the structure of the problem: without rematch constraints, the fewest
  cross-group pairs is half the number of score groups of odd size (each such group must send
  exactly one player out, an even one none), and since score differences lie on a line the
  smallest sum pairs those odd groups in order, first with second, third with fourth. That
  bound is met whenever each odd group has a floater (lowest first) such that the rest of the
  group pairs without rematches, and their opponents likewise from the top of the other group.
  Reaching the bound proves the pairing optimal (``optimal`` is true). When the history makes
  the bound unreachable, a search in Dutch order finds a rematch-free pairing (``optimal``
  false), and when none exists a maximum matching pairs the fewest rematches.

**Players kept apart.** Two players of one ``stable`` (a person and the bots they own, in a
rated event) never meet: that is not a criterion but a rule. When a round cannot pair everyone
without breaking it, the fewest players sit the round out (``unpaired``: no match, no point)
and the rest are paired by the criteria above.

Everything is plain data: :class:`SwissPlayer` in, :class:`SwissPairing` out.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import networkx as nx

from tournaments.formats.matching import max_matching

#: Fields up to this size are paired by a maximum-weight matching over every pair (fast here:
#: about 0.15 s at 64 players; the blossom algorithm grows with the cube of the field).
EXACT_LIMIT = 64
#: Candidate checks of a Dutch search before a maximum matching decides instead.
DEFAULT_BUDGET = 50_000


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """A player to pair: match points so far, pairing number (lower ranks higher), history."""

    id: int
    score: float = 0.0
    rank: int = 0
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False
    #: Players of one stable never meet (None: the player is kept apart from nobody).
    stable: int | None = None


@dataclass(frozen=True, slots=True)
class SwissPairing:
    """A round: pairs (higher-ranked player first, best table first), the bye, rematch count.

    ``optimal`` is true when the pairing is proven the best by the module's criteria.
    ``unpaired``: players who sit the round out because every pairing of the round would
    have put two players of one stable together (in ranking order).
    """

    pairs: tuple[tuple[int, int], ...]
    bye: int | None
    rematches: int = 0
    optimal: bool = True
    unpaired: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PairingQuality:
    """What criteria 1-4 measure: rematches, the bye's place, cross-group pairs, differences."""

    rematches: int
    bye_rank: int
    cross_group: int
    score_difference: float


def default_rounds(players: int) -> int:
    """ceil(log2(N)) rounds, at least one: enough to leave one player unbeaten."""
    return max(1, math.ceil(math.log2(max(players, 1))))


def ranking(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """Players in pairing order: most match points first, then pairing number, then id."""
    return sorted(players, key=lambda p: (-p.score, p.rank, p.id))


def quality(players: Sequence[SwissPlayer], pairing: SwissPairing) -> PairingQuality:
    """Measure ``pairing`` of ``players`` by criteria 1-4 (lower is better, in that order).

    ``bye_rank`` counts the players ranked below the bye who could have had it instead.
    """
    by_id = {p.id: p for p in players}
    rematches = sum(1 for a, b in pairing.pairs if b in by_id[a].opponents)
    cross = sum(1 for a, b in pairing.pairs if by_id[a].score != by_id[b].score)
    difference = sum(abs(by_id[a].score - by_id[b].score) for a, b in pairing.pairs)
    bye_rank = 0
    if pairing.bye is not None:
        order = ranking(players)
        everyone_had_one = all(p.had_bye for p in order)
        place = next(i for i, p in enumerate(order) if p.id == pairing.bye)
        bye_rank = sum(1 for p in order[place + 1 :] if everyone_had_one or not p.had_bye)
        if by_id[pairing.bye].had_bye and not everyone_had_one:
            bye_rank += len(order)  # a second bye while someone has had none: worst of all
    return PairingQuality(rematches, bye_rank, cross, difference)


def pair(players: Sequence[SwissPlayer], *, exact_limit: int = EXACT_LIMIT) -> SwissPairing:
    """Pair one round of ``players`` (every one of them is paired, gets the bye, or sits out
    because only a player of their own stable is left for them).

    Fields of up to ``exact_limit`` players are paired by the weighted matching, larger ones by
    score groups (see the module's docstring); both give the same pairing quality.
    """
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice")
    order = ranking(players)
    if not order:
        return SwissPairing((), None)
    if len(order) <= exact_limit:
        return _pair_exact(order)
    return _keep_stables_apart(order)


def _apart(a: SwissPlayer, b: SwissPlayer) -> bool:
    """Whether ``a`` and ``b`` must not meet (one stable)."""
    return a.stable is not None and a.stable == b.stable


def _keep_stables_apart(order: list[SwissPlayer]) -> SwissPairing:
    """A large field: pair as if players of one stable had met already (the search avoids
    rematches whenever it can), then take out any pair of one stable that was left."""
    stables: dict[int, set[int]] = {}
    for p in order:
        if p.stable is not None:
            stables.setdefault(p.stable, set()).add(p.id)
    if all(len(members) < 2 for members in stables.values()):
        return _pair_by_groups(order)
    shown = [
        dataclasses.replace(p, opponents=p.opponents | (stables[p.stable] - {p.id}))
        if p.stable is not None
        else p
        for p in order
    ]
    found = _pair_by_groups(shown)
    by_id = {p.id: p for p in order}
    kept = tuple((a, b) for a, b in found.pairs if not _apart(by_id[a], by_id[b]))
    left = {x for pair_ in found.pairs if pair_ not in kept for x in pair_}
    return SwissPairing(
        kept,
        found.bye,
        sum(1 for a, b in kept if b in by_id[a].opponents),
        found.optimal and not left,
        tuple(p.id for p in order if p.id in left),
    )


# --- small fields: one maximum-weight matching -------------------------------------------------


def _half_points(score: float) -> int:
    return round(score * 2)


def _groups(order: Sequence[SwissPlayer]) -> list[list[SwissPlayer]]:
    """Score groups in ranking order (``order`` is ranked)."""
    return [list(group) for _, group in itertools.groupby(order, key=lambda p: p.score)]


def _pair_exact(order: list[SwissPlayer]) -> SwissPairing:
    """The maximum-weight perfect matching whose weights rank pairings by the five criteria."""
    n = len(order)
    position: dict[int, tuple[int, int, int]] = {}  # id -> (group, place in group, group size)
    for g, group in enumerate(_groups(order)):
        for place, p in enumerate(group):
            position[p.id] = (g, place, len(group))
    points = [_half_points(p.score) for p in order]
    # Every per-pair term of a criterion is below `unit`, and there are at most n/2 + 1 pairs,
    # so a unit of a criterion outweighs any sum of the criteria after it.
    unit = (max(n, max(points) - min(points)) + 2) * (n + 2)

    def cost(rematch: int, bye: int, cross: int, difference: int, dutch: int) -> int:
        return (((rematch * unit + bye) * unit + cross) * unit + difference) * unit + dutch

    top = cost(1, n, 1, unit - 1, unit - 1) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, j in itertools.combinations(range(n), 2):
        a, b = order[i], order[j]
        if _apart(a, b):
            continue  # never a pair: left out, they sit the round out if nobody else is left
        ga, pa, size_a = position[a.id]
        gb, pb, _ = position[b.id]
        # Within a group: top half against bottom half; else a floats down from the bottom
        # of a's group to the top of b's.
        dutch = abs(pb - pa - size_a // 2) if ga == gb else (size_a - 1 - pa) + pb
        graph.add_edge(
            i,
            j,
            weight=top
            - cost(int(b.id in a.opponents), 0, int(ga != gb), abs(points[i] - points[j]), dutch),
        )
    if n % 2:
        everyone_had_one = all(p.had_bye for p in order)
        below = 0  # eligible players ranked below: what the bye to this one costs
        for i in range(n - 1, -1, -1):
            if everyone_had_one or not order[i].had_bye:
                graph.add_edge(n, i, weight=top - cost(0, below, 0, 0, 0))
                below += 1
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    bye = None
    pairs = []
    for i, j in mate:
        if n in (i, j):
            bye = order[min(i, j)].id
            continue
        pairs.append((min(i, j), max(i, j)))
    pairs.sort()
    rematches = sum(1 for i, j in pairs if order[j].id in order[i].opponents)
    seated = {i for pair_ in pairs for i in pair_}
    unpaired = tuple(p.id for i, p in enumerate(order) if i not in seated and p.id != bye)
    return SwissPairing(
        tuple((order[i].id, order[j].id) for i, j in pairs), bye, rematches, unpaired=unpaired
    )


# --- large fields: the score-group bound -------------------------------------------------------


def _pair_by_groups(order: list[SwissPlayer]) -> SwissPairing:
    bye = None
    rest = order
    if len(order) % 2:
        eligible = [p for p in reversed(order) if not p.had_bye] or list(reversed(order))
        bye = eligible[0]
        rest = [p for p in order if p.id != bye.id]
    pairs = _meet_bound(rest)
    if pairs is not None:
        return SwissPairing(tuple(pairs), bye.id if bye else None, 0, optimal=True)
    return _pair_dutch_search(order)


def _meet_bound(order: list[SwissPlayer]) -> list[tuple[int, int]] | None:
    """A rematch-free pairing with one floater per odd group, odd groups paired in order."""
    groups = _groups(order)
    odd = [g for g, group in enumerate(groups) if len(group) % 2]
    inside: dict[int, list[tuple[int, int]]] = {}
    cross: list[tuple[int, int]] = []
    for upper, lower in zip(odd[::2], odd[1::2], strict=True):
        found = _floaters(groups[upper], groups[lower])
        if found is None:
            return None
        (a, pairs_a), (b, pairs_b) = found
        cross.append((a.id, b.id))
        inside[upper], inside[lower] = pairs_a, pairs_b
    for g, group in enumerate(groups):
        if g not in inside:
            pairs = _pair_group(group)
            if pairs is None:
                return None
            inside[g] = pairs
    rank = {p.id: i for i, p in enumerate(order)}
    every = cross + [pair_ for pairs in inside.values() for pair_ in pairs]
    return sorted(every, key=lambda ab: rank[ab[0]])


#: A player who can leave their score group, and the pairs of the players they leave behind.
_Leaver = tuple[SwissPlayer, list[tuple[int, int]]]


def _floaters(upper: list[SwissPlayer], lower: list[SwissPlayer]) -> tuple[_Leaver, _Leaver] | None:
    """The floater of ``upper`` (lowest first) and its opponent in ``lower`` (highest first)."""
    up = _leavers(lower, iter(range(len(lower))))
    seen_up: list[tuple[SwissPlayer, list[tuple[int, int]]]] = []
    for a, pairs_a in _leavers(upper, reversed(range(len(upper)))):
        for b, pairs_b in itertools.chain(seen_up, _grow(up, seen_up)):
            if b.id not in a.opponents:
                return (a, pairs_a), (b, pairs_b)
    return None


def _grow(source: Iterator[_Leaver], seen: list[_Leaver]) -> Iterator[_Leaver]:
    """Take from ``source`` lazily, keeping what was taken in ``seen`` for the next pass."""
    for item in source:
        seen.append(item)
        yield item


def _leavers(group: list[SwissPlayer], places: Iterator[int]) -> Iterator[_Leaver]:
    """Players who can leave ``group``, in the order of ``places``, with the rest's pairs."""
    for place in places:
        pairs = _pair_group(group[:place] + group[place + 1 :])
        if pairs is not None:
            yield group[place], pairs


def _pair_group(group: list[SwissPlayer]) -> list[tuple[int, int]] | None:
    """A score group paired within itself without a rematch, in Dutch order; None if impossible."""
    return _pair_without_rematches(group, DEFAULT_BUDGET)


def _pair_dutch_search(order: list[SwissPlayer]) -> SwissPairing:
    """No proof of optimality: the first rematch-free completion in Dutch order (or fewest)."""
    if len(order) % 2 == 0:
        return _pair_field(order, None)
    eligible = [p for p in reversed(order) if not p.had_bye] or list(reversed(order))
    for candidate in eligible:
        rest = [p for p in order if p.id != candidate.id]
        pairs = _pair_without_rematches(rest, DEFAULT_BUDGET)
        if pairs is not None:
            return SwissPairing(tuple(pairs), candidate.id, 0, optimal=False)
    rest = [p for p in order if p.id != eligible[0].id]
    return _pair_field(rest, eligible[0].id)


def _pair_field(order: list[SwissPlayer], bye: int | None) -> SwissPairing:
    pairs = _pair_without_rematches(order, DEFAULT_BUDGET)
    if pairs is not None:
        return SwissPairing(tuple(pairs), bye, 0, optimal=False)
    pairs, rematches = _pair_fewest_rematches(order)
    return SwissPairing(tuple(pairs), bye, rematches, optimal=False)


class _BudgetSpent(Exception):
    pass


def _pair_without_rematches(order: list[SwissPlayer], budget: int) -> list[tuple[int, int]] | None:
    """Pairs in Dutch preference with no rematch, or None if no such pairing exists."""
    if not order:
        return []
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


__all__ = [
    "DEFAULT_BUDGET",
    "EXACT_LIMIT",
    "PairingQuality",
    "SwissPairing",
    "SwissPlayer",
    "default_rounds",
    "pair",
    "quality",
    "ranking",
]
