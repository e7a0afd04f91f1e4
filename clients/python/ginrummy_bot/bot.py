"""What a bot author writes: :meth:`Bot.choose` picks an action for a view."""

from __future__ import annotations

import random
from typing import Any

View = dict[str, Any]
Action = dict[str, Any]


class Bot:
    """A strategy. The runner calls :meth:`choose` whenever it is the bot's turn.

    ``view`` is the bot's own view of the game, exactly as ``GET /api/games/{id}`` answers
    it: ``hand``, ``deal`` (the upcard, the discard pile, the stock's size), ``opponent``
    (what is known of their hand), ``scores``, ``clocks`` and ``legal_actions``, a list of
    ``{"type", "card"?, "melds"?}``. Return one of them (a knock may name its melds; without
    them the server lays the best ones).
    """

    #: How this bot is called in the logs.
    name = "bot"

    def choose(self, view: View) -> Action:
        raise NotImplementedError

    def game_begin(self, full: dict[str, Any]) -> None:
        """Called with each ``game_full`` line (the match: players, ``rules``, time control)."""

    def accept(self, challenge: dict[str, Any]) -> bool:
        """Whether to accept a challenge (``challenger``, ``best_of``, ``time_control``)."""
        return True

    def game_over(self, view: View) -> None:
        """Called with the last view of each game (``status`` finished): learn, or log."""


class FirstLegalBot(Bot):
    """Always the first legal action: the simplest bot that plays a whole match."""

    name = "first-legal"

    def choose(self, view: View) -> Action:
        return view["legal_actions"][0]


class RandomBot(Bot):
    """A legal action at random (knocks and gin included when they are legal)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    def choose(self, view: View) -> Action:
        return self.random.choice(view["legal_actions"])
