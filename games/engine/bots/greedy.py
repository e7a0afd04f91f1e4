"""The greedy bot: keep the deadwood minimal, knock as soon as the rules allow.

It takes the upcard (first-turn offer) or the top of the discard pile only when that
lowers its deadwood, always throws the highest card among those that leave the least
deadwood, and ends the hand the moment it may: big gin, then gin, then a knock.  It
looks at nothing but its own hand and the top discard, so it is the baseline the expert
must beat.
"""

from __future__ import annotations

from operator import attrgetter

from ..actions import Action, ActionKind
from ..cards import BIT, CARD_POINTS
from ..melds import best_discard, discard_deadwoods, min_deadwood
from ..views import PlayerView
from . import Bot, register


def deadwood_after_taking(hand: int, card: int, forbidden: bool = True) -> int:
    """Least deadwood of ten cards after adding ``card`` to ``hand`` and throwing one.

    With ``forbidden`` the taken card itself may not be thrown (the default rule).
    """
    eleven = hand | BIT[card]
    thrown, least = best_discard(eleven)
    if not forbidden or (thrown is not None and thrown != card):
        # The least over every discard; with the taken card forbidden it is still the
        # least when another card reaches it.
        return least
    best = 1_000_000
    for c, deadwood in discard_deadwoods(eleven):
        if c != card and deadwood < best:
            best = deadwood
    return best


def _lowers(hand: int, card: int) -> bool:
    """Whether taking ``card`` and throwing the best other card lowers the deadwood.

    Throwing the taken card back leaves ``hand`` as it was, so the least deadwood over
    every discard is below the hand's own exactly when a discard other than the taken
    card gets there: the forbidden rule does not change the answer.
    """
    return best_discard(hand | BIT[card])[1] < min_deadwood(hand)


def greedy_discard(hand: int, forbidden: int | None) -> int:
    """The card to throw from eleven: least deadwood left, then the highest card."""
    card, _ = best_discard(hand)
    if card is not None and card != forbidden:
        return card
    best: tuple[int, int, int] | None = None
    for c, deadwood in discard_deadwoods(hand):
        if c == forbidden:
            continue
        key = (deadwood, -CARD_POINTS[c], -c)
        if best is None or key < best:
            best = key
    assert best is not None
    return -best[2]


@register
class GreedyBot(Bot):
    """Least deadwood now, no memory, knocks as soon as it may."""

    name = "greedy"
    description = "minimal deadwood, takes a discard only if it lowers it, knocks at once"

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal_actions
        kinds = set(map(_KIND, legal))
        hand = view.hand
        if ActionKind.TAKE_UPCARD in kinds or (
            ActionKind.DRAW_DISCARD in kinds and view.top_discard is not None
        ):
            top = view.top_discard
            assert top is not None
            if ActionKind.PASS in kinds and ActionKind.TAKE_UPCARD not in kinds:
                # The fiftieth-card offer: take it only if it ends the hand.
                if best_discard(hand | BIT[top])[1] <= _limit(view):
                    return Action.draw_discard()
                return Action.pass_()
            lowers = _lowers(hand, top)
            if ActionKind.TAKE_UPCARD in kinds:
                return Action.take_upcard() if lowers else Action.pass_()
            return Action.draw_discard() if lowers else Action.draw_stock()
        if ActionKind.DRAW_STOCK in kinds:
            return Action.draw_stock()
        if ActionKind.BIG_GIN in kinds:
            return Action.big_gin()
        if ActionKind.GIN in kinds or ActionKind.KNOCK in kinds:
            ending = [a for a in legal if a.kind is ActionKind.GIN or a.kind is ActionKind.KNOCK]
            # Throw the card that leaves the least deadwood (gin before any knock).
            return min(ending, key=lambda a: _ending_key(hand, a))
        if ActionKind.DISCARD in kinds:
            return Action.discard(greedy_discard(hand, view.forbidden_discard))
        return legal[0]  # only "pass" is left (the fiftieth-card decision)


_KIND = attrgetter("kind")


def _limit(view: PlayerView) -> int:
    return view.knock_limit if view.rules.may_knock else 0


def _ending_key(hand: int, action: Action) -> tuple[int, int, int]:
    assert action.card is not None
    card = action.card
    return (min_deadwood(hand ^ BIT[card]), -CARD_POINTS[card], -card)


__all__ = ["GreedyBot", "deadwood_after_taking", "greedy_discard"]
