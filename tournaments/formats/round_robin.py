"""Round robin by Berger tables: everyone meets everyone, once or twice.

Players are numbered 1..N in seed order. With an odd field a dummy N+1 joins and whoever meets
it has the bye that round (everyone gets exactly one per cycle). The Berger tables are the
circle method as FIDE prints them: round 1 is 1-N, 2-(N-1), ...; each round the circle turns by
N/2 places, and the last player alternates colours. In a double round robin the first cycle
plays its last two rounds in the other order (as FIDE recommends) and the second cycle is the
Berger table again with the colours (player A and player B) swapped, so nobody has the same
seat three rounds in a row.

>>> berger(4)
[[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
"""

from __future__ import annotations

#: A table: (player A, player B); None on one side is a bye for the other.
Table = tuple[int | None, int | None]


def berger(
    players: int, *, double: bool = False, swap_last_rounds: bool = True
) -> list[list[Table]]:
    """Rounds of tables for ``players`` players numbered 1..players (at least 2).

    ``swap_last_rounds=False`` gives the double round robin of events started before the
    swap (the first cycle in Berger order).
    """
    if players < 2:
        raise ValueError("a round robin needs at least two players")
    n = players + players % 2
    dummy = n if players % 2 else None
    circle = list(range(1, n))
    half = n // 2
    rounds: list[list[Table]] = []
    for r in range(n - 1):
        first = (circle[0], n) if r % 2 == 0 else (n, circle[0])
        tables = [first] + [(circle[i], circle[n - 1 - i]) for i in range(1, half)]
        rounds.append([(None if a == dummy else a, None if b == dummy else b) for a, b in tables])
        circle = circle[half:] + circle[:half]
    if double:
        # FIDE's advice for a double round robin: the first cycle plays its last two rounds in
        # the other order, so nobody has the same seat three rounds running at the turn of
        # the cycles; the second cycle is the Berger table with the seats swapped.
        swap = swap_last_rounds and len(rounds) >= 2
        first = rounds[:-2] + rounds[:-3:-1] if swap else rounds
        rounds = first + [[(b, a) for a, b in tables] for tables in rounds]
    # A bye is shown last, after the tables that are played.
    return [sorted(tables, key=lambda t: t[0] is None or t[1] is None) for tables in rounds]


def rounds_count(players: int, *, double: bool = False) -> int:
    """How many rounds ``berger`` gives: N-1 for an even field, N for an odd one (x2 double)."""
    return (players + players % 2 - 1) * (2 if double else 1)


__all__ = ["Table", "berger", "rounds_count"]
