"""Single elimination: standard seeding, byes to the top seeds, an optional third-place match.

The field is placed in a bracket of the next power of two, ``S``, in the standard order
(:func:`~tournaments.formats.bracket.seed_positions`): seed ``s`` meets seed ``S + 1 - s`` in
the first round and, if the better seed always wins, the top seeds meet as late as possible
(1 and 2 in the final, 1 v 4 and 2 v 3 in the semifinals). The seeds above the field are byes,
so the ``S - N`` top seeds advance from the first round without playing.

Match keys: ``R<round>.<n>`` (``R1.1`` is the first match of the first round) and ``3P`` for the
third-place match between the losers of the semifinals.
"""

from __future__ import annotations

from tournaments.formats import SINGLE_ELIM
from tournaments.formats.bracket import (
    Bracket,
    Feed,
    Node,
    RoundSpec,
    bracket_size,
    link,
    seed_positions,
)


def round_name(round_number: int, rounds: int) -> str:
    """Final, Semifinals, Quarterfinals, else "Round of N" (or "Round 1" for small fields)."""
    left = rounds - round_number
    if left == 0:
        return "Final"
    if left == 1:
        return "Semifinals"
    if left == 2:
        return "Quarterfinals"
    return f"Round of {2 ** (left + 1)}"


def build(entrants: int, *, third_place: bool = False) -> Bracket:
    """The bracket of a single-elimination event of ``entrants`` players.

    ``third_place`` adds a match between the semifinal losers (when there are semifinals).
    """
    size = bracket_size(entrants)
    rounds = size.bit_length() - 1
    order = seed_positions(size)
    nodes: list[Node] = []
    specs: list[RoundSpec] = []
    third = third_place and rounds >= 2
    for r in range(1, rounds + 1):
        count = size >> r
        keys = []
        for i in range(1, count + 1):
            if r == 1:
                feeds = (Feed.of_seed(order[2 * i - 2]), Feed.of_seed(order[2 * i - 1]))
            else:
                feeds = (Feed.winner(f"R{r - 1}.{2 * i - 1}"), Feed.winner(f"R{r - 1}.{2 * i}"))
            key = f"R{r}.{i}"
            keys.append(key)
            # Stages: 2, 4, ... so that the third-place match (one below the final) fits in.
            nodes.append(Node(key, round=len(specs), stage=2 * r, feeds=feeds))
        if r == rounds and third:
            nodes.append(
                Node(
                    "3P",
                    round=len(specs) + 1,
                    stage=2 * rounds - 1,
                    feeds=(Feed.loser(f"R{r - 1}.1"), Feed.loser(f"R{r - 1}.2")),
                )
            )
        specs.append(RoundSpec(round_name(r, rounds), tuple(keys)))
    if third:
        specs.append(RoundSpec("Third place", ("3P",)))
    final = f"R{rounds}.1"
    # Order of play: the third-place match before the final, both after the semifinals.
    ordered = sorted(nodes, key=lambda n: n.stage)
    return Bracket(
        format=SINGLE_ELIM,
        entrants=entrants,
        size=size,
        nodes=link(ordered),
        rounds=tuple(specs),
        finals=(final,),
        options={"third_place": third},
    )


__all__ = ["build", "round_name"]
