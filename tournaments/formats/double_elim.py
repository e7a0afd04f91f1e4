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
from 4 to 256, chosen by measurement (``make bench-tournaments``, :func:`rematch_profile`):
over many random result sets, the fewest losers-bracket rematches on average and the latest
round in which one can happen, never worse on either than the order used before
(:data:`CLASSIC_ORDERS`) or the losers-bracket seeding methods published on TL.net that
brackets-manager uses (:data:`TLNET_ORDERS`).

Byes from the first round go on as byes into the losers bracket, where a player facing one
advances without playing. With two entrants there is no losers bracket: the loser of the only
winners match goes straight to the grand final.

Match keys: ``W<round>.<n>``, ``L<round>.<n>``, ``GF`` and ``GF2``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tournaments.formats import DOUBLE_ELIM
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


def drop_orders(entrants: int) -> tuple[str, ...]:
    """The drop-in order of each winners round for ``entrants`` players (measured table)."""
    size = bracket_size(entrants)
    rounds = size.bit_length() - 1
    return DROP_ORDERS.get(entrants, classic_orders(rounds))


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
    """Losers-bracket rematches over random result sets: the mean a bracket, the earliest
    losers round one happened in (None: none did), and how many result sets were played."""

    mean: float
    earliest: int | None
    result_sets: int

    def no_worse_than(self, other: RematchProfile) -> bool:
        """At most as many rematches on average, and none earlier."""
        later = other.earliest is None or self.earliest is None or self.earliest >= other.earliest
        return (
            self.mean <= other.mean + 1e-12
            and later
            and not (self.earliest is not None and other.earliest is None)
        )


def rematch_profile(
    entrants: int, orders: Sequence[str], *, result_sets: int = 400, seed: int = 2026
) -> RematchProfile:
    """Play ``result_sets`` random result sets (every match a coin toss; the same tosses for
    every set of orders) and count the losers-bracket matches between two players who met."""
    bracket = build(entrants, reset=False, orders=orders)
    keys = [key for key in bracket.nodes if key != "GF"]
    index = {key: i for i, key in enumerate(keys)}
    # Each node as plain ints: its losers round (0 in the winners bracket) and two feeds, a
    # feed being (0, seed), (1, node) for a winner or (2, node) for a loser.
    compiled: list[tuple[int, int, int, int, int]] = []
    for key in keys:
        node = bracket.nodes[key]
        feeds = [
            (0, f.seed if f.seed <= entrants else 0)
            if f.kind == "seed"
            else (1 if f.kind == "winner" else 2, index[f.key])
            for f in node.feeds
        ]
        lb = int(key[1:].split(".")[0]) if key.startswith("L") else 0
        compiled.append((lb, *feeds[0], *feeds[1]))
    total, earliest = 0, None
    for number in range(result_sets):
        rng = random.Random(seed * 1_000_003 + number)
        out = [[0, 0] for _ in keys]  # winner, loser of each node
        met: set[tuple[int, int]] = set()
        for i, (lb, kind_a, ref_a, kind_b, ref_b) in enumerate(compiled):
            a = ref_a if kind_a == 0 else out[ref_a][kind_a - 1]
            b = ref_b if kind_b == 0 else out[ref_b][kind_b - 1]
            toss = rng.random() < 0.5
            if a and b:
                pair = (a, b) if a < b else (b, a)
                if lb and pair in met:
                    total += 1
                    earliest = lb if earliest is None else min(earliest, lb)
                met.add(pair)
                out[i] = [a, b] if toss else [b, a]
            else:  # a bye: the player goes on, a bye drops
                out[i] = [a or b, 0]
    return RematchProfile(total / result_sets, earliest, result_sets)


__all__ = [
    "ORDERINGS",
    "TLNET_ORDERS",
    "RematchProfile",
    "build",
    "classic_orders",
    "drop_orders",
    "rematch_profile",
]
