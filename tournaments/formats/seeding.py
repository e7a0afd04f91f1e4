"""Elimination seeding that keeps players of one stable out of each other's first match.

In an elimination bracket of size ``S`` seed ``s`` meets seed ``S + 1 - s`` in the first round
(:func:`~tournaments.formats.bracket.seed_positions`). In a rated event two players of one
stable (a person and the bots they own) must not meet there, so where the seeding pairs two of
them the lower-seeded one swaps places with the nearest seed that resolves it without pairing
another two of one stable, as an organiser separating players of one club in a draw would.
Later rounds are not rearranged: who meets whom there depends on the results.

>>> keep_apart([1, None, None, 1])  # seeds 1 and 4 meet; seed 4 swaps with seed 3
[0, 1, 3, 2]
>>> keep_apart([1, 1])  # two entrants of one stable: no seeding keeps them apart
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.formats.bracket import bracket_size


def first_round_opponent(seed: int, entrants: int) -> int | None:
    """The seed that ``seed`` meets in the first round, or None for a bye."""
    other = bracket_size(entrants) + 1 - seed
    return other if other <= entrants else None


def keep_apart(stables: Sequence[int | None]) -> list[int] | None:
    """A seed order in which no first-round match pairs two entrants of one stable.

    ``stables[i]`` is the stable of the entrant seeded ``i + 1`` (None: of no stable). Returns
    the entrants' indices in their new seed order (unchanged when nothing clashes), moving
    only seeds that clash, each to the nearest place that works (a lower seed first on a tie);
    None when no such swap is left (say a field of a person and their own bot only).
    """
    n = len(stables)
    order = list(range(n))
    if n < 2:
        return order

    def clash(seed: int) -> bool:
        other = first_round_opponent(seed, n)
        if other is None:
            return False
        a, b = stables[order[seed - 1]], stables[order[other - 1]]
        return a is not None and a == b

    for seed in range(1, n + 1):
        low = first_round_opponent(seed, n)
        if low is None or low < seed or not clash(seed):
            continue
        places = sorted(
            (u for u in range(1, n + 1) if u not in (seed, low)),
            key=lambda u: (abs(u - low), -u),
        )
        for place in places:
            order[low - 1], order[place - 1] = order[place - 1], order[low - 1]
            if not clash(seed) and not clash(place):
                break
            order[low - 1], order[place - 1] = order[place - 1], order[low - 1]
        else:
            return None
    return order


__all__ = ["first_round_opponent", "keep_apart"]
