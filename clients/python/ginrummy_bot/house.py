"""The service's own strategies (``random``, ``greedy``, ``expert``) as external bots.

They need the service's rules engine (``games.engine``: no dependencies, no Django) on the
path, so run them from a checkout of the service::

    PYTHONPATH=. ginrummy-bot --token "$BOT_TOKEN" --bot ginrummy_bot.house:Expert

:func:`engine_view` rebuilds the engine's view of the deal from the API's view of the game
(the same knowledge, player-indexed), so a house strategy decides over the API exactly as it
does in the server.
"""

from __future__ import annotations

from typing import Any

from games.engine.actions import Action, ActionKind
from games.engine.bots import make_bot
from games.engine.cards import card_index, mask_of
from games.engine.deal import Phase
from games.engine.rules import RuleSet
from games.engine.views import PlayerView, PublicAction
from ginrummy_bot.bot import Bot


def _mask(names: list[str]) -> int:
    return mask_of(card_index(name) for name in names)


def _card(name: str | None) -> int | None:
    return None if name is None else card_index(name)


def engine_view(view: dict[str, Any], rules: RuleSet) -> PlayerView:
    """The engine's :class:`PlayerView` of the deal in ``view`` (the API's view of a game).

    The API's view is indexed by player; the seats of the engine are taken to be the same
    indices, which changes nothing a strategy can see.
    """
    deal = view["deal"]
    history = tuple(
        PublicAction(step["player"], ActionKind(step["type"]), _card(step["card"]))
        for step in deal["history"]
    )
    return PlayerView(
        seat=view["you"],
        rules=rules,
        dealer=deal["dealer"],
        phase=Phase[deal["phase"].upper()],
        to_act=view["to_act"],
        ply=len(history),
        upcard=card_index(deal["upcard"]),
        knock_limit=deal["knock_limit"],
        multiplier=deal["multiplier"],
        hand=_mask(view["hand"]),
        discards=tuple(card_index(c) for c in deal["discard_pile"]),
        stock_size=deal["stock_size"],
        hand_sizes=tuple(deal["hand_sizes"]),
        known=(_mask(deal["known"][0]), _mask(deal["known"][1])),
        forbidden_discard=_card(view.get("forbidden_discard")),
        legal_actions=tuple(Action.from_json(a) for a in view["legal_actions"]),
        history=history,
        outcome=None,
        revealed=None,
    )


class HouseBot(Bot):
    """A house strategy playing through the API; ``strategy`` names it."""

    strategy = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.engine_bot = make_bot(self.strategy, seed)
        self.name = self.strategy
        self.rules: dict[int, RuleSet] = {}

    def game_begin(self, full: dict[str, Any]) -> None:
        self.rules[full["game"]] = RuleSet.from_dict(full["match"]["rules"])

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        rules = self.rules.get(view["id"]) or RuleSet.from_dict({"preset": "standard"})
        return self.engine_bot.choose(engine_view(view, rules)).to_json()


class Random(HouseBot):
    strategy = "random"


class Greedy(HouseBot):
    strategy = "greedy"


class Expert(HouseBot):
    strategy = "expert"
