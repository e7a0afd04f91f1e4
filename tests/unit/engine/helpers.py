"""Small helpers for writing engine tests in card notation."""

from __future__ import annotations

import random

from games.engine.actions import Action
from games.engine.cards import card_index, mask_of, parse_cards
from games.engine.deal import Deal
from games.engine.rules import STANDARD, RuleSet


def M(text: str) -> int:
    """A mask from card notation: M("AS 2S 3S")."""
    return mask_of(parse_cards(text))


def C(text: str) -> int:
    """One card index: C("TS")."""
    return card_index(text)


def A(text: str) -> Action:
    """An action from its text form: A("discard TS")."""
    return Action.parse(text)


def arranged(
    seat0: str,
    seat1: str,
    upcard: str,
    stock: str = "",
    dealer: int = 0,
    rules: RuleSet = STANDARD,
) -> Deal:
    """A deal set up by hand, in card notation."""
    return Deal.arranged(
        (parse_cards(seat0), parse_cards(seat1)),
        C(upcard),
        parse_cards(stock),
        dealer=dealer,
        rules=rules,
    )


def choose(legal: list[Action], rng: random.Random, ending_bias: float = 0.9) -> Action:
    """A random legal action; a knock or gin, when offered, with probability ``ending_bias``."""
    endings = [a for a in legal if a.kind.value in ("knock", "gin", "big_gin")]
    if endings and rng.random() < ending_bias:
        return rng.choice(endings)
    return rng.choice(legal)


def play_randomly(deal: Deal, rng: random.Random, ending_bias: float = 0.9) -> Deal:
    """Play a deal to its end with :func:`choose`."""
    while not deal.is_over:
        deal.apply(choose(deal.legal_actions(), rng, ending_bias))
    return deal
