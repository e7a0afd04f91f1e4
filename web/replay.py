"""Frames of a finished deal for the replay page, re-dealt from the log by the engine.

The replay API publishes seeds and action texts, not cards: the cards follow from the seed.
The page steps through frames that the engine computes here, one per action, with both
hands shown (a finished match hides nothing).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext_lazy

from games.engine.actions import Action
from games.engine.cards import card_name, cards_of
from games.engine.deal import Deal
from games.engine.melds import arrange
from games.engine.rules import RuleSet
from games.selectors import outcome_by_player


def _hand(mask: int) -> dict[str, Any]:
    arranged = arrange(mask)
    return {
        "melds": arranged.meld_names(),
        "deadwood": arranged.deadwood_names(),
        "deadwood_points": arranged.points,
        "count": mask.bit_count(),
    }


def _frame(deal: Deal, swap: int, *, actor: int | None, text: str | None) -> dict[str, Any]:
    """The table after one action, player-indexed (player = seat ^ swap)."""
    by_player = [0 ^ swap, 1 ^ swap]
    return {
        "ply": deal.ply,
        "actor": actor,
        "action": text,
        "phase": deal.phase.name.lower(),
        "to_act": None if deal.is_over else deal.to_act ^ swap,
        "hands": [_hand(deal.hands[seat]) for seat in by_player],
        "known": [[card_name(c) for c in cards_of(deal.known[seat])] for seat in by_player],
        "discard_pile": [card_name(c) for c in deal.discards],
        "stock_size": deal.stock_size,
    }


def deal_frames(*, rules: dict[str, Any], deal: dict[str, Any]) -> dict[str, Any]:
    """Every frame of one deal of a match log (``games.selectors.match_log``).

    Returns ``{"dealer", "frames", "outcome"}``, player-indexed (0 is the match's player A).
    """
    swap = deal["swap"]
    state = Deal.new(deal["seed"], deal["dealer"], RuleSet.from_dict(rules))
    frames = [_frame(state, swap, actor=None, text=None)]
    for text in deal["actions"]:
        actor = state.to_act ^ swap
        state.apply(Action.parse(text))
        frames.append(_frame(state, swap, actor=actor, text=text))
    return {
        "dealer": deal["dealer"] ^ swap,
        "frames": frames,
        "outcome": outcome_by_player(deal["outcome"], swap),
    }


#: How the deal index names each ending (after the winner's name, with the points).
RESULT_WORDS = {
    "knock": pgettext_lazy("deal result", "knock"),
    "undercut": pgettext_lazy("deal result", "undercut"),
    "gin": pgettext_lazy("deal result", "gin"),
    "big_gin": pgettext_lazy("deal result", "big gin"),
    "draw": pgettext_lazy("deal result", "drawn deal"),
}


def deal_index(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of a match log with a one-line summary of each deal, for navigation."""
    games = []
    for number, game in enumerate(log["games"]):
        deals = []
        for index, deal in enumerate(game["deals"]):
            outcome = outcome_by_player(deal["outcome"], deal["swap"])
            deals.append(
                {
                    "number": index,
                    "termination": outcome["termination"] if outcome else "abandoned",
                    "result": RESULT_WORDS.get(outcome["termination"], "") if outcome else "",
                    "winner": outcome["winner"] if outcome else None,
                    "points": outcome["points"] if outcome else 0,
                    "moves": len(deal["actions"]),
                }
            )
        games.append({"number": number, "deals": deals, "forfeit": game["forfeit"]})
    return games


def next_deal(index: list[dict[str, Any]], game_no: int, deal_no: int) -> dict[str, int] | None:
    """The deal after ``game_no``/``deal_no`` in :func:`deal_index` order (the next game's
    first deal after a game's last), or None after the match's last deal."""
    if deal_no + 1 < len(index[game_no]["deals"]):
        return {"game": game_no, "deal": deal_no + 1}
    for later in index[game_no + 1 :]:
        if later["deals"]:
            return {"game": later["number"], "deal": 0}
    return None
