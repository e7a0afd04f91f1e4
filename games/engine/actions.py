"""Actions: one vocabulary for the engine, logs, API, bots and pages.

>>> Action.parse("discard ts")
Action.parse('discard TS')
>>> str(Action.parse("knock 9C [AS 2S 3S] [KH KD KC]"))
'knock 9C [KC KD KH] [AS 2S 3S]'
>>> Action.from_json({"type": "draw_stock"}) is Action.parse("draw_stock")
True
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

from .cards import card_index, card_name, cards_of, mask_of, parse_cards
from .errors import InvalidActionError, InvalidCardError


class ActionKind(enum.StrEnum):
    TAKE_UPCARD = "take_upcard"
    PASS = "pass"
    DRAW_STOCK = "draw_stock"
    DRAW_DISCARD = "draw_discard"
    DISCARD = "discard"
    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"


_KIND_BASE = {
    ActionKind.TAKE_UPCARD: 0,
    ActionKind.PASS: 1,
    ActionKind.DRAW_STOCK: 2,
    ActionKind.DRAW_DISCARD: 3,
    ActionKind.BIG_GIN: 4,
    ActionKind.DISCARD: 5,
    ActionKind.KNOCK: 5 + 52,
    ActionKind.GIN: 5 + 104,
}
#: The log code of a knock that declares its melds (the action itself is kept aside).
MELDS_CODE = 255

#: Kinds that name a card; knock may also carry melds.
CARD_KINDS = frozenset({ActionKind.DISCARD, ActionKind.KNOCK, ActionKind.GIN})


@dataclass(frozen=True, slots=True)
class Action:
    """One action. ``card`` for discard, knock and gin; ``melds`` (masks) optionally for knock.

    Build them with the constructors (``Action.discard(card)``), which share one object per
    action so a deal's log costs a pointer a ply.
    """

    kind: ActionKind
    card: int | None = None
    melds: tuple[int, ...] | None = None
    #: A byte that names the action in a deal's log (MELDS_CODE for a knock with melds).
    code: int = field(init=False, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if self.melds is not None:
            code = MELDS_CODE
        else:
            code = _KIND_BASE[self.kind] + (0 if self.card is None else self.card)
        object.__setattr__(self, "code", code)

    # --- shared constructors -----------------------------------------------------------

    @staticmethod
    def take_upcard() -> Action:
        return TAKE_UPCARD

    @staticmethod
    def pass_() -> Action:
        return PASS

    @staticmethod
    def draw_stock() -> Action:
        return DRAW_STOCK

    @staticmethod
    def draw_discard() -> Action:
        return DRAW_DISCARD

    @staticmethod
    def big_gin() -> Action:
        return BIG_GIN

    @staticmethod
    def discard(card: int) -> Action:
        return DISCARDS[card]

    @staticmethod
    def gin(card: int) -> Action:
        return GINS[card]

    @staticmethod
    def knock(card: int, melds: tuple[int, ...] | None = None) -> Action:
        """A knock putting ``card`` face down, with the melds to show or None (engine picks)."""
        if melds is None:
            return KNOCKS[card]
        return Action(ActionKind.KNOCK, card, tuple(sorted(melds)))

    # --- text and JSON -----------------------------------------------------------------

    def __str__(self) -> str:
        parts = [self.kind.value]
        if self.card is not None:
            parts.append(card_name(self.card))
        if self.melds is not None:
            for meld in self.melds:
                parts.append("[" + " ".join(card_name(c) for c in cards_of(meld)) + "]")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Action.parse('{self}')"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form: ``draw_stock``, ``discard TS``, ``knock 9C [AS 2S 3S]``."""
        if not isinstance(text, str):
            raise InvalidActionError("an action must be text such as 'discard TS'")
        head, _, tail = text.strip().partition(" ")
        melds = None
        card = None
        tail = tail.strip()
        if "[" in tail:
            card_text, _, meld_text = tail.partition("[")
            groups = re.findall(r"\[([^\]]*)\]", "[" + meld_text)
            melds = [g.split() for g in groups]
            tail = card_text.strip()
        if tail:
            card = tail
        return cls.from_parts(head, card, melds)

    @classmethod
    def from_parts(
        cls, kind: str, card: str | None = None, melds: list[list[str]] | None = None
    ) -> Action:
        """Build from a kind name, a card name and meld card names (API and JSON input)."""
        try:
            kind_enum = ActionKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in ActionKind)
            raise InvalidActionError(f"unknown action {kind!r}; known: {known}") from None
        if kind_enum in CARD_KINDS:
            if card is None or card == "":
                raise InvalidActionError(f"'{kind_enum.value}' needs a card")
            index = card_index(card)
        elif card not in (None, ""):
            raise InvalidActionError(f"'{kind_enum.value}' takes no card")
        if melds is not None:
            if kind_enum is not ActionKind.KNOCK:
                raise InvalidActionError("only a knock declares melds")
            if not isinstance(melds, list) or not all(isinstance(m, list) for m in melds):
                raise InvalidActionError("melds must be a list of lists of cards")
            return cls.knock(index, tuple(mask_of(parse_cards(meld)) for meld in melds))
        if kind_enum in CARD_KINDS:
            return _BY_KIND_CARD[kind_enum][index]
        return _SIMPLE[kind_enum]

    def to_json(self) -> dict[str, Any]:
        """``{"type": ..., "card"?: "TS", "melds"?: [["AS","2S","3S"], ...]}``."""
        out: dict[str, Any] = {"type": self.kind.value}
        if self.card is not None:
            out["card"] = card_name(self.card)
        if self.melds is not None:
            out["melds"] = [[card_name(c) for c in cards_of(m)] for m in self.melds]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        """Inverse of :meth:`to_json`; raises InvalidActionError / InvalidCardError."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise InvalidActionError("an action needs a 'type'")
        card = data.get("card")
        if card is not None and not isinstance(card, str):
            raise InvalidCardError(f"unknown card {card!r}: expected a string such as 'TS'")
        return cls.from_parts(data["type"], card, data.get("melds"))


TAKE_UPCARD = Action(ActionKind.TAKE_UPCARD)
PASS = Action(ActionKind.PASS)
DRAW_STOCK = Action(ActionKind.DRAW_STOCK)
DRAW_DISCARD = Action(ActionKind.DRAW_DISCARD)
BIG_GIN = Action(ActionKind.BIG_GIN)
DISCARDS = tuple(Action(ActionKind.DISCARD, c) for c in range(52))
KNOCKS = tuple(Action(ActionKind.KNOCK, c) for c in range(52))
GINS = tuple(Action(ActionKind.GIN, c) for c in range(52))

_SIMPLE = {a.kind: a for a in (TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN)}
#: The shared action of each log code below MELDS_CODE.
BY_CODE: tuple[Action, ...] = tuple(
    sorted([*_SIMPLE.values(), *DISCARDS, *KNOCKS, *GINS], key=lambda a: a.code)
)
assert [a.code for a in BY_CODE] == list(range(len(BY_CODE)))
_BY_KIND_CARD = {ActionKind.DISCARD: DISCARDS, ActionKind.KNOCK: KNOCKS, ActionKind.GIN: GINS}
