"""Bots: strategies that choose an action from what one player may see.

A bot gets a :class:`~games.engine.views.PlayerView` (its own hand, the discard pile, the
public history; never the opponent's hidden cards or the stock) and returns one of the
view's legal actions.  Each bot owns a random generator seeded at construction, so the
same seed and the same views give the same choices.

Bots are registered by name; a bot player in the database names one:

>>> sorted(BOTS)[:1], type(make_bot("random", seed=1)).__name__
(['random'], 'RandomBot')
"""

from __future__ import annotations

import random
from typing import ClassVar

from ..actions import Action
from ..errors import EngineError
from ..views import PlayerView


class UnknownBotError(EngineError, LookupError):
    """No bot is registered under that name."""

    rule = "unknown_bot"


class Bot:
    """Base class: subclasses set ``name`` and implement :meth:`choose`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        """Return one of ``view.legal_actions``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


BOTS: dict[str, type[Bot]] = {}


def register(cls: type[Bot]) -> type[Bot]:
    """Class decorator: make a bot available by its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    BOTS[cls.name] = cls
    return cls


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot of the named strategy; UnknownBotError lists the known names."""
    try:
        cls = BOTS[name]
    except KeyError:
        known = ", ".join(sorted(BOTS))
        raise UnknownBotError(f"unknown bot {name!r}; known bots: {known}") from None
    return cls(seed)


@register
class RandomBot(Bot):
    """A uniformly random legal action."""

    name = "random"
    description = "plays a uniformly random legal action"

    def choose(self, view: PlayerView) -> Action:
        return self.rng.choice(view.legal_actions)


__all__ = ["BOTS", "Bot", "RandomBot", "UnknownBotError", "make_bot", "register"]

# The strategies register themselves on import; importing them here makes every name
# known wherever the package is imported.
from . import expert, greedy, master  # noqa: E402, F401
