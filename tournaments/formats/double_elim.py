"""Double elimination: a winners bracket, a losers bracket, a grand final and its reset.

The winners bracket is a single-elimination bracket (standard seeding, byes to the top seeds).
Its losers drop into the losers bracket, where a second loss ends a player's event:

- losers round 1 pairs the losers of winners round 1, two by two in their **drop-in order**;
- even losers rounds (2, 4, ...) take the survivors against the losers dropping from the next
  winners round, placed in that round's drop-in order;
- odd losers rounds (3, 5, ...) pair the survivors among themselves;
- the grand final is the winners-bracket champion (slot a) against the losers-bracket champion
  (slot b). With ``reset`` (the default), if the losers-bracket champion wins it, both have lost
  once and the grand final is played again (``GF2``, the grand final's ``winner_to`` and
  ``loser_to``; they are followed only if the losers-bracket champion wins).

**Drop-in orders** (:data:`ORDERINGS`: natural, reverse, half shift, reverse half shift, pair
flip) decide how early two players who met in the winners bracket can meet again in the
losers bracket. :data:`DROP_ORDERS` gives one per winners round for every number of entrants
from 4 to 256, chosen by measurement for each number of entrants (``make bench-tournaments``,
:func:`rematch_profile`): when every match is a coin toss, the fewest losers-bracket rematches
expected (worked out exactly, not sampled) and the latest round in which one can happen,
never worse on either than the order used before
(:func:`classic_orders`) or the losers-bracket seeding methods published on TL.net that
brackets-manager uses by default (:data:`TLNET_ORDERS`). An event keeps the orders of the
formats version it started with (:func:`drop_orders`).

Byes from the first round go on as byes into the losers bracket, where a player facing one
advances without playing. With two entrants there is no losers bracket: the loser of the only
winners match goes straight to the grand final.

Match keys: ``W<round>.<n>``, ``L<round>.<n>``, ``GF`` and ``GF2``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tournaments.formats import DOUBLE_ELIM, FORMATS_VERSION
from tournaments.formats.bracket import (
    Bracket,
    Feed,
    Node,
    RoundSpec,
    bracket_size,
    link,
    seed_positions,
)
from tournaments.formats.drop_orders import DROP_ORDERS
from tournaments.formats.drop_orders_v2 import DROP_ORDERS_V2

_T = TypeVar("_T")


def _natural(items: list[_T]) -> list[_T]:
    return list(items)


def _reverse(items: list[_T]) -> list[_T]:
    return items[::-1]


def _half_shift(items: list[_T]) -> list[_T]:
    half = len(items) // 2
    return items[half:] + items[:half]


def _reverse_half_shift(items: list[_T]) -> list[_T]:
    half = len(items) // 2
    return items[:half][::-1] + items[half:][::-1]


def _pair_flip(items: list[_T]) -> list[_T]:
    out = list(items)
    for i in range(0, len(out) - 1, 2):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


#: The drop-in orders: how the losers of a winners round are placed in the losers bracket.
ORDERINGS: dict[str, Callable[[list[str]], list[str]]] = {
    "natural": _natural,
    "reverse": _reverse,
    "half_shift": _half_shift,
    "reverse_half_shift": _reverse_half_shift,
    "pair_flip": _pair_flip,
}


def classic_orders(rounds: int) -> tuple[str, ...]:
    """The order used before the measured table: natural, then reverse and natural in turn."""
    return tuple("reverse" if r % 2 else "natural" for r in range(rounds))


#: brackets-manager's default losers-bracket orders (the TL.net seeding methods), by bracket
#: size; published up to 128 entrants, 256 continues 128's pair flips.
TLNET_ORDERS: dict[int, tuple[str, ...]] = {
    4: ("natural", "reverse"),
    8: ("natural", "reverse", "natural"),
    16: ("natural", "reverse_half_shift", "reverse", "natural"),
    32: ("natural", "reverse", "half_shift", "natural", "natural"),
    64: ("natural", "reverse", "half_shift", "reverse", "natural", "natural"),
    128: ("natural", "reverse", "half_shift", "pair_flip", "pair_flip", "pair_flip", "natural"),
    256: (
        "natural",
        "reverse",
        "half_shift",
        "pair_flip",
        "pair_flip",
        "pair_flip",
        "pair_flip",
        "natural",
    ),
}


def drop_orders(entrants: int, *, version: int | None = FORMATS_VERSION) -> tuple[str, ...]:
    """The drop-in order of each winners round for ``entrants`` players under the formats
    ``version`` an event started with: the measured table (version 2 its own), the classic
    order before (None)."""
    size = bracket_size(entrants)
    rounds = size.bit_length() - 1
    if version is None:
        return classic_orders(rounds)
    table = DROP_ORDERS_V2 if version <= 2 else DROP_ORDERS
    return table.get(entrants, classic_orders(rounds))


def build(entrants: int, *, reset: bool = True, orders: Sequence[str] | None = None) -> Bracket:
    """The bracket of a double-elimination event of ``entrants`` players.

    ``orders`` names the drop-in order of each winners round (default: :func:`drop_orders`).
    """
    size = bracket_size(entrants)
    k = size.bit_length() - 1  # winners rounds
    orders = tuple(orders) if orders is not None else drop_orders(entrants)
    if len(orders) != k or any(name not in ORDERINGS for name in orders):
        raise ValueError(f"a bracket of {size} needs {k} drop-in orders from {list(ORDERINGS)}")
    order = seed_positions(size)
    # (stage, section order, round number, keys) per round; nodes collected alongside.
    rounds: list[tuple[int, int, str, list[str]]] = []
    nodes: list[Node] = []

    def add_round(stage: int, section: int, name: str, specs: list[tuple[str, Feed, Feed]]) -> None:
        rounds.append((stage, section, name, [key for key, _, _ in specs]))
        for key, a, b in specs:
            nodes.append(Node(key, round=-1, stage=stage, feeds=(a, b)))

    # Winners bracket: round 1 at stage 1, round j+1 at stage 2j.
    for r in range(1, k + 1):
        count = size >> r
        specs = []
        for i in range(1, count + 1):
            if r == 1:
                a, b = Feed.of_seed(order[2 * i - 2]), Feed.of_seed(order[2 * i - 1])
            else:
                a, b = Feed.winner(f"W{r - 1}.{2 * i - 1}"), Feed.winner(f"W{r - 1}.{2 * i}")
            specs.append((f"W{r}.{i}", a, b))
        add_round(1 if r == 1 else 2 * (r - 1), 0, f"Winners round {r}", specs)

    # Losers bracket: 2(k-1) rounds. L(2j-1) at stage 2j, L(2j) at stage 2j+1.
    def dropping(r: int) -> list[str]:
        """The matches of winners round ``r`` whose losers drop, in that round's order."""
        return ORDERINGS[orders[r - 1]]([f"W{r}.{i}" for i in range(1, (size >> r) + 1)])

    for j in range(1, k):
        count = size >> (j + 1)
        specs = []
        odd = 2 * j - 1
        first = dropping(1) if j == 1 else []
        for i in range(1, count + 1):
            if j == 1:
                a, b = Feed.loser(first[2 * i - 2]), Feed.loser(first[2 * i - 1])
            else:
                a = Feed.winner(f"L{odd - 1}.{2 * i - 1}")
                b = Feed.winner(f"L{odd - 1}.{2 * i}")
            specs.append((f"L{odd}.{i}", a, b))
        add_round(2 * j, 1, f"Losers round {odd}", specs)
        specs = []
        drops = dropping(j + 1)
        for i in range(1, count + 1):
            specs.append((f"L{odd + 1}.{i}", Feed.loser(drops[i - 1]), Feed.winner(f"L{odd}.{i}")))
        add_round(2 * j + 1, 1, f"Losers round {odd + 1}", specs)

    lb_champion = Feed.winner(f"L{2 * k - 2}.1") if k > 1 else Feed.loser("W1.1")
    add_round(2 * k, 2, "Grand final", [("GF", Feed.winner(f"W{k}.1"), lb_champion)])
    if reset:
        # Fed by the grand final itself; resolve() gives it the grand final's two players.
        rounds.append((2 * k + 1, 3, "Grand final reset", ["GF2"]))
        nodes.append(
            Node("GF2", round=-1, stage=2 * k + 1, feeds=(Feed.loser("GF"), Feed.winner("GF")))
        )

    rounds.sort(key=lambda spec: (spec[0], spec[1]))
    index = {key: number for number, spec in enumerate(rounds) for key in spec[3]}
    placed = [
        Node(n.key, round=index[n.key], stage=n.stage, feeds=n.feeds, reset=n.key == "GF2")
        for n in nodes
    ]
    placed.sort(key=lambda n: (n.stage, index[n.key]))
    # With a reset, the grand final's winner_to/loser_to name GF2 (b and a): where both play
    # next when the losers-bracket champion wins it; otherwise the event is over.
    linked = link(placed)
    return Bracket(
        format=DOUBLE_ELIM,
        entrants=entrants,
        size=size,
        nodes=linked,
        rounds=tuple(RoundSpec(name, tuple(keys)) for _, _, name, keys in rounds),
        finals=("GF2", "GF") if reset else ("GF",),
        options={"reset": reset},
    )


@dataclass(frozen=True, slots=True)
class RematchProfile:
    """Losers-bracket rematches when every match is a coin toss: the expected number a
    bracket (exact), and the earliest losers round in which one can happen (None: never)."""

    mean: float
    earliest: int | None

    def no_worse_than(self, other: RematchProfile) -> bool:
        """At most as many rematches expected, and none possible earlier."""
        later = other.earliest is None or self.earliest is None or self.earliest >= other.earliest
        return (
            self.mean <= other.mean + 1e-12
            and later
            and not (self.earliest is not None and other.earliest is None)
        )


#: A winners-bracket match as (round, number): whose loser a losers-bracket player is.
_Source = tuple[int, int]


def rematch_profile(entrants: int, orders: Sequence[str]) -> RematchProfile:
    """The expected losers-bracket rematches of a bracket whose every match is a coin toss.

    Two players can meet again in the losers bracket only if they met in the winners bracket,
    and then the one who dropped first lost to the other: a player who dropped from winners
    match (r, m) met the one who dropped from a later match (r', m') exactly when (r, m) lies
    under (r', m') and the later one won every match on the way from (r, m), which a coin
    toss each gives with probability 2^-(r' - r). Each losers-bracket slot holds the loser of
    a given winners match with a probability worked out node by node (a bye passes its
    opponent on), so the expectation is a sum over the losers-bracket matches, with no
    sampling noise.
    """
    bracket = build(entrants, reset=False, orders=orders)
    rounds = bracket.size.bit_length() - 1
    # For each node: its winner's and its loser's distribution over sources (None: a bye).
    # In the winners bracket only the loser's matters (the match itself, or a bye).
    winner: dict[str, dict[_Source, float] | None] = {}
    loser: dict[str, dict[_Source, float] | None] = {}
    real: dict[str, bool] = {}
    total, earliest = 0.0, None
    for key, node in bracket.nodes.items():
        if key == "GF":
            continue
        if key.startswith("W"):
            present = [f.seed <= entrants if f.kind == "seed" else real[f.key] for f in node.feeds]
            real[key] = any(present)
            if all(present):
                winners_round, number = (int(part) for part in key[1:].split("."))
                loser[key] = {(winners_round, number): 1.0}
            else:
                loser[key] = None
            continue
        a, b = (winner[f.key] if f.kind == "winner" else loser[f.key] for f in node.feeds)
        if a is None or b is None:
            winner[key] = a if b is None else b
            continue
        expected = _met(a, b, rounds) + _met(b, a, rounds)
        if expected > 0:
            total += expected
            losers_round = int(key[1:].split(".")[0])
            earliest = losers_round if earliest is None else min(earliest, losers_round)
        merged = {source: p / 2 for source, p in a.items()}
        for source, p in b.items():
            merged[source] = merged.get(source, 0.0) + p / 2
        winner[key] = merged
    return RematchProfile(total, earliest)


def _met(early: dict[_Source, float], late: dict[_Source, float], rounds: int) -> float:
    """The probability that the players of two slots met, over the pairs where the first
    dropped earlier: the later one is the loser of a match above the earlier one's."""
    total = 0.0
    for (r, m), p in early.items():
        for up in range(1, rounds - r + 1):
            q = late.get((r + up, ((m - 1) >> up) + 1))
            if q:
                total += p * q * 0.5**up
    return total


__all__ = [
    "ORDERINGS",
    "TLNET_ORDERS",
    "RematchProfile",
    "build",
    "classic_orders",
    "drop_orders",
    "rematch_profile",
]
