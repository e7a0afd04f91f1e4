"""Contenders for ``bench/engine.py``: our engine and the two peers, each behind one shape.

Every contender module exposes ``load() -> Contender`` which raises ``Unavailable`` (with a
one-line reason) when its package or engine is not importable. A :class:`Contender` offers
up to three kinds of work, each optional:

* ``deal_kinds``: name -> ``play(seed, count=False)`` that plays one random-vs-random deal
  to its end and returns its number of player actions (``count=True`` asks for it where
  counting is not free, outside timing);
* ``prepare_10(hands)`` / ``run_10(prepared)``: 10-card minimum deadwood, ``run_10`` returns
  the list of deadwood counts (so the harness can check the contenders agree);
* ``prepare_11(hands)`` / ``run_11(prepared)``: exact 11-card best discard, returns the list of
  the kept ten's deadwood counts;
* ``extra_11``: name -> (prepare, run) for informational 11-card paths (not exact, no target);
* ``memory_states(n, actions, hold=True)``: builds and returns ``n`` deal states, each
  advanced by up to ``actions`` player actions (``None``: played to the end; negative:
  stopped that many actions before the end, e.g. -1 is the last live state, the largest);
  ``hold=False`` drops each state at once (a pass that only learns the deals' lengths).

Hands arrive as lists of two-character names in the rule book's notation (``TS``, ``AC``);
each contender converts them to its own representation in ``prepare_*``, outside timing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Hand = list[str]

RANKS = "A23456789TJQK"
SUITS = "CDHS"
#: The neutral deck the harness draws hands from, in the rule book's notation.
DECK = tuple(r + s for s in SUITS for r in RANKS)


class Unavailable(Exception):
    """A contender cannot run here; the message says why, in one line."""


@dataclass
class Contender:
    name: str
    version: str
    deal_kinds: dict[str, Callable[..., int]] = field(default_factory=dict)
    prepare_10: Callable[[list[Hand]], Any] | None = None
    run_10: Callable[[Any], list[int]] | None = None
    prepare_11: Callable[[list[Hand]], Any] | None = None
    run_11: Callable[[Any], list[int]] | None = None
    extra_11: dict[str, tuple[Callable[[list[Hand]], Any], Callable[[Any], list[int]]]] = field(
        default_factory=dict
    )
    memory_states: Callable[..., list[Any]] | None = None
    memory_method: str = "tracemalloc"
    notes: list[str] = field(default_factory=list)
