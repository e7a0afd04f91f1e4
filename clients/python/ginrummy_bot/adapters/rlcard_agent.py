"""An RLCard gin rummy agent as an external bot (its novice rule agent by default).

Run it (with ``rlcard`` installed beside this client)::

    ginrummy-bot --token "$BOT_TOKEN" --bot ginrummy_bot.adapters.rlcard_agent:RLCardNovice

Any agent with RLCard's ``eval_step(state) -> (action_id, info)`` plays: pass it to
:class:`RLCardBot`. The state is the one RLCard's ``gin-rummy`` environment gives an agent,
built from the service's view of the game (:func:`rlcard_state`): ``obs``, five planes of 52
cards (the hand, the top of the discard pile, the rest of the pile, the opponent's known
cards, the unseen cards) and ``legal_actions``, RLCard's action ids for the view's legal
actions: 2 draw from the stock (also the first turn's pass), 3 take the top of the pile (or
the upcard), 5 gin, 6 + card discard, 58 + card knock.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ginrummy_bot.adapters.cards import DECK, from_rlcard, to_rlcard
from ginrummy_bot.bot import Bot

DRAW_CARD, PICK_UP_DISCARD, GIN, DISCARD, KNOCK = 2, 3, 5, 6, 58


def action_id(action: dict[str, Any]) -> int:
    """RLCard's action id of one of the service's legal actions."""
    kind = action["type"]
    if kind in ("draw_stock", "pass"):
        return DRAW_CARD
    if kind in ("draw_discard", "take_upcard"):
        return PICK_UP_DISCARD
    if kind in ("gin", "big_gin"):
        return GIN
    if kind == "discard":
        return DISCARD + to_rlcard(action["card"])
    if kind == "knock":
        return KNOCK + to_rlcard(action["card"])
    raise ValueError(f"no RLCard action for {action}")


def legal_by_id(view: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The view's legal actions by RLCard's action id (several gins are one id: the first)."""
    by_id: dict[int, dict[str, Any]] = {}
    for action in view["legal_actions"]:
        by_id.setdefault(action_id(action), action)
    return by_id


def planes(view: dict[str, Any]) -> list[list[int]]:
    """RLCard's five observation planes of the view (each a list of 52 zeros and ones)."""
    deal = view["deal"]
    pile = list(deal["discard_pile"])
    hand = set(view["hand"])
    known = set(view["opponent"]["known_cards"])
    top = pile[-1:] if pile else []
    dead = set(pile[:-1])
    unknown = [c for c in DECK if c not in hand and c not in set(pile) and c not in known]
    rows = [hand, set(top), dead, known, set(unknown)]
    out = []
    for row in rows:
        plane = [0] * 52
        for card in row:
            plane[to_rlcard(card)] = 1
        out.append(plane)
    return out


def rlcard_state(view: dict[str, Any]) -> dict[str, Any]:
    """The state RLCard's environment would hand its agent (``obs`` as a NumPy array)."""
    import numpy as np  # RLCard's own dependency

    obs = np.array(planes(view))
    legal = OrderedDict((aid, None) for aid in legal_by_id(view))
    return {
        "obs": obs,
        "raw_obs": obs,
        "legal_actions": legal,
        "raw_legal_actions": list(legal),
    }


def to_service_action(view: dict[str, Any], rlcard_action: int) -> dict[str, Any]:
    """The view's legal action for an RLCard action id (ValueError for one not legal)."""
    by_id = legal_by_id(view)
    if rlcard_action not in by_id:
        raise ValueError(f"RLCard action {rlcard_action} is not among {sorted(by_id)}")
    action = by_id[rlcard_action]
    if rlcard_action == GIN:  # RLCard's gin names no card: big gin if offered, else a gin
        return next((a for a in view["legal_actions"] if a["type"] == "big_gin"), action)
    return action


class RLCardBot(Bot):
    """Plays ``agent`` (anything with RLCard's ``eval_step``) through the API."""

    name = "rlcard"

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        chosen, _ = self.agent.eval_step(rlcard_state(view))
        return to_service_action(view, int(chosen))


class RLCardNovice(RLCardBot):
    """RLCard's ``GinRummyNoviceRuleAgent``: gin or knock when it can, else the discard that
    leaves the least deadwood; a random draw (NumPy's generator, seeded by ``seed``)."""

    name = "rlcard-novice"

    def __init__(self, seed: int | None = 0) -> None:
        import numpy as np
        from rlcard.models.gin_rummy_rule_models import GinRummyNoviceRuleAgent

        if seed is not None:
            np.random.seed(seed)
        super().__init__(GinRummyNoviceRuleAgent())


__all__ = ["RLCardBot", "RLCardNovice", "from_rlcard", "rlcard_state", "to_service_action"]
