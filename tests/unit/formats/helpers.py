"""Play a bracket out with chosen or random results: what the property tests run."""

from __future__ import annotations

import random
from collections.abc import Callable

from tournaments.formats.bracket import Bracket, NodeState, Status, resolve

#: Picks the winner of a ready match: (state, rng) -> a player id, or None for both losing.
Chooser = Callable[[NodeState, random.Random], int | None]


def random_winner(state: NodeState, rng: random.Random) -> int | None:
    return rng.choice(state.players)


def better_seed_wins(state: NodeState, rng: random.Random) -> int | None:
    return min(state.players)  # players are their seeds in these tests


def play_out(
    bracket: Bracket,
    entrants: list[int],
    choose: Chooser = random_winner,
    rng: random.Random | None = None,
    absent: frozenset[int] = frozenset(),
) -> tuple[dict[str, int | None], dict[str, NodeState], list[str]]:
    """Decide every ready match (in a random order), again and again until none is left.

    Returns the results, the final states, and the keys in the order they were played.
    """
    rng = rng or random.Random(0)
    results: dict[str, int | None] = {}
    played: list[str] = []
    for _ in range(10 * len(bracket.nodes) + 10):
        states = resolve(bracket, entrants, results, absent)
        ready = [key for key, s in states.items() if s.status == Status.READY]
        if not ready:
            return results, states, played
        rng.shuffle(ready)
        for key in ready:
            results[key] = choose(states[key], rng)
            played.append(key)
    raise AssertionError("the bracket never finished")
