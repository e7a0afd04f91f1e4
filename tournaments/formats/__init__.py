"""Pairing systems as plain functions over plain data: no Django, no I/O, fully typed.

Players are plain ints (the service passes entry ids, the tests pass seeds), listed in seed
order where order matters. Four formats:

- :mod:`~tournaments.formats.single_elim` and :mod:`~tournaments.formats.double_elim` build a
  :class:`~tournaments.formats.bracket.Bracket` (a graph of matches whose slots are fed by a
  seed, or by the winner or loser of an earlier match), and
  :func:`~tournaments.formats.bracket.resolve` works out every match from the results so far;
- :mod:`~tournaments.formats.round_robin`: Berger tables, single or double;
- :mod:`~tournaments.formats.swiss`: Dutch-style pairing within score groups, no rematch while
  one can be avoided, at most one bye per player;
- :mod:`~tournaments.formats.standings`: match points and the configurable tiebreaks, a total
  order;
- :mod:`~tournaments.formats.arena`: a time-boxed event where free players are paired at once
  by standing, with streak scoring and berserk;
- :mod:`~tournaments.formats.two_stage`: groups (round robin or Swiss), snake-seeded, then a
  cross-seeded single- or double-elimination playoff of the top of each group.
"""

from __future__ import annotations

SINGLE_ELIM = "single_elim"
DOUBLE_ELIM = "double_elim"
ROUND_ROBIN = "round_robin"
SWISS = "swiss"
ARENA = "arena"
TWO_STAGE = "two_stage"

FORMATS: tuple[str, ...] = (SINGLE_ELIM, DOUBLE_ELIM, ROUND_ROBIN, SWISS, ARENA, TWO_STAGE)

#: The version of the bracket and schedule rules an event starts with. 2: the measured
#: losers-bracket drop-in orders and the double round robin's swapped rounds; events started
#: before (version None) keep the classic drop-in order and the unswapped double cycle. 3: the
#: drop-in orders chosen per number of entrants on the exact expected rematches; events
#: started with version 2 keep its orders.
FORMATS_VERSION = 3
ELIMINATION: frozenset[str] = frozenset({SINGLE_ELIM, DOUBLE_ELIM})

__all__ = [
    "ARENA",
    "DOUBLE_ELIM",
    "ELIMINATION",
    "FORMATS",
    "FORMATS_VERSION",
    "ROUND_ROBIN",
    "SINGLE_ELIM",
    "SWISS",
    "TWO_STAGE",
]
