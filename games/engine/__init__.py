"""A pure-Python Gin Rummy engine: cards, melds, deals, games and matches.

No Django, no I/O.  Cards are small ints, hands 52-bit masks; every shuffle comes from a
recorded seed, so a deal, a game or a match is its seed plus its action log; a match played
with real cards is its ordered entered hands (:mod:`.table`), scored by the same code.
"""

from .actions import Action, ActionKind
from .cards import Card, CardSet, card_index, card_name, parse_cards
from .deal import Deal, Outcome, Phase, Termination, hand_outcome, hand_points
from .errors import (
    DealOverError,
    EngineError,
    EntryError,
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    InvalidMeldsError,
    NotYourTurnError,
)
from .rules import HOLLYWOOD, OKLAHOMA, STANDARD, STRAIGHT, RuleSet
from .table import ENTRY_RULES, EnteredHand, HandKind

__all__ = [
    "ENTRY_RULES",
    "HOLLYWOOD",
    "OKLAHOMA",
    "STANDARD",
    "STRAIGHT",
    "Action",
    "ActionKind",
    "Card",
    "CardSet",
    "Deal",
    "DealOverError",
    "EngineError",
    "EnteredHand",
    "EntryError",
    "HandKind",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "InvalidMeldsError",
    "NotYourTurnError",
    "Outcome",
    "Phase",
    "RuleSet",
    "Termination",
    "card_index",
    "card_name",
    "hand_outcome",
    "hand_points",
    "parse_cards",
]
