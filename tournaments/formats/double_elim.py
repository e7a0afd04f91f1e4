"""Double elimination: a winners bracket, a losers bracket, a grand final and its reset.

The winners bracket is a single-elimination bracket (standard seeding, byes to the top seeds).
Its losers drop into the losers bracket, where a second loss ends a player's event:

- losers round 1 pairs the losers of winners round 1;
- even losers rounds (2, 4, ...) take the survivors against the losers dropping from the next
  winners round (in reversed order every other time, so early rematches are rare);
- odd losers rounds (3, 5, ...) pair the survivors among themselves;
- the grand final is the winners-bracket champion (slot a) against the losers-bracket champion
  (slot b). With ``reset`` (the default), if the losers-bracket champion wins it, both have lost
  once and the grand final is played again (``GF2``, the grand final's ``winner_to`` and
  ``loser_to``; they are followed only if the losers-bracket champion wins).

Byes from the first round go on as byes into the losers bracket, where a player facing one
advances without playing. With two entrants there is no losers bracket: the loser of the only
winners match goes straight to the grand final.

Match keys: ``W<round>.<n>``, ``L<round>.<n>``, ``GF`` and ``GF2``.
"""

from __future__ import annotations

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


def build(entrants: int, *, reset: bool = True) -> Bracket:
    """The bracket of a double-elimination event of ``entrants`` players."""
    size = bracket_size(entrants)
    k = size.bit_length() - 1  # winners rounds
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
    for j in range(1, k):
        count = size >> (j + 1)
        specs = []
        odd = 2 * j - 1
        for i in range(1, count + 1):
            if j == 1:
                a, b = Feed.loser(f"W1.{2 * i - 1}"), Feed.loser(f"W1.{2 * i}")
            else:
                a = Feed.winner(f"L{odd - 1}.{2 * i - 1}")
                b = Feed.winner(f"L{odd - 1}.{2 * i}")
            specs.append((f"L{odd}.{i}", a, b))
        add_round(2 * j, 1, f"Losers round {odd}", specs)
        specs = []
        for i in range(1, count + 1):
            drop = count + 1 - i if j % 2 == 1 else i
            specs.append(
                (f"L{odd + 1}.{i}", Feed.loser(f"W{j + 1}.{drop}"), Feed.winner(f"L{odd}.{i}"))
            )
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


__all__ = ["build"]
