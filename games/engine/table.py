"""Hands played with real cards, entered from a paper score pad.

At a table nobody deals from a seed: the players write down how each hand ended, and the
engine scores it with the same code it scores online deals with (:func:`.deal.hand_points`)
and closes it through the same game sequencing (:meth:`.game.Game.enter`): Hollywood
columns, targets, bonuses and who deals next all come out as for a deal played online.
A table match is its rules, its seed (for the cut and the first dealer of each game)
and its ordered entered hands.

An :class:`EnteredHand` says who ended the hand (a *player* of the match, 0 or 1), how,
and each player's deadwood count: after lay-offs for a knock; for gin and big gin only
the defender's counts (nobody lays off), the knocker's is 0.

- A knock whose knocker has no deadwood scores as gin, as it does online.
- Oklahoma rules need the deal's first upcard: it sets the knock limit and, a spade,
  the multiplier. Under other rules the upcard may be given (a pad may note it) and
  is kept with the hand, but scores nothing. A drawn hand needs no upcard.
- A refusal is an :class:`EntryError` whose ``rule`` is one of :data:`ENTRY_RULES`.

>>> from .rules import OKLAHOMA, STANDARD
>>> hand = EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 31))
>>> out = hand.score(STANDARD)
>>> out.termination.value, out.winner, out.points
('knock', 0, 25)
>>> EnteredHand.from_json(hand.to_json()) == hand
True
>>> oklahoma = EnteredHand(HandKind.GIN, knocker=1, deadwood=(12, None), upcard=card_index("4S"))
>>> out = oklahoma.score(OKLAHOMA)
>>> out.termination.value, out.winner, out.points, out.multiplier
('gin', 1, 74, 2)
>>> knock = EnteredHand(HandKind.KNOCK, knocker=1, deadwood=(20, 6), upcard=card_index("4S"))
>>> try:
...     knock.score(OKLAHOMA)
... except EntryError as error:
...     print(error.rule, "-", error)
knock_limit - deadwood 6 is over the knock limit of 4 set by the upcard 4S
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .cards import card_index, card_name
from .deal import DRAWN, Outcome, Termination, hand_outcome
from .errors import EntryError, InvalidCardError
from .rules import RuleSet

#: The most deadwood ten cards can hold after the best arrangement of melds.
MAX_DEADWOOD = 98

#: Every ``rule`` an :class:`EntryError` can name.
ENTRY_RULES: tuple[str, ...] = (
    "invalid_entry",  # not an entered hand: unknown key or kind, a value of the wrong type
    "invalid_card",  # the upcard is not a card
    "knocker_required",  # a knock, gin or big gin needs its knocker, player 0 or 1
    "drawn_hand_no_score",  # a drawn hand has no knocker and no deadwood counts
    "deadwood_missing",  # a count the kind needs is absent
    "deadwood_range",  # a count outside 0-98
    "gin_with_deadwood",  # gin or big gin with the knocker's deadwood above 0
    "upcard_required",  # Oklahoma scores a hand by its first upcard
    "straight_gin_no_knock",  # a knock with deadwood in straight gin
    "knock_limit",  # the knocker's deadwood is over the knock limit
    "duplicate_deals_at_table",  # duplicate deals need the engine's shuffle
    "deal_in_progress",  # the deal in play already has actions played online
    "game_over",  # a hand after the game is decided
    "match_over",  # a hand after the match is decided
)


class HandKind(enum.StrEnum):
    """How a hand played with real cards ended."""

    KNOCK = "knock"  # a knock (an undercut too: the engine works out who won)
    GIN = "gin"
    BIG_GIN = "big_gin"
    DRAWN = "drawn"  # the stock ran down to two cards: nobody scores


_ENDINGS = {
    HandKind.KNOCK: Termination.KNOCK,
    HandKind.GIN: Termination.GIN,
    HandKind.BIG_GIN: Termination.BIG_GIN,
}

_JSON_KEYS = frozenset({"kind", "knocker", "deadwood", "upcard"})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class EnteredHand:
    """One hand played with real cards, as written on the score pad.

    ``knocker`` is the player (0 or 1 of the match) who knocked or went gin, None for a
    drawn hand. ``deadwood`` is each player's count, indexed by player: after lay-offs
    for a knock; for gin and big gin the knocker's may be left None and is stored as 0.
    ``upcard`` is the card int of the deal's first upcard (needed by Oklahoma rules).

    A hand that is not well formed is refused when it is built, with an
    :class:`EntryError`; one the rules refuse is refused by :meth:`score`.

    >>> EnteredHand(HandKind.BIG_GIN, knocker=1, deadwood=(40, None))
    EnteredHand(kind=<HandKind.BIG_GIN: 'big_gin'>, knocker=1, deadwood=(40, 0), upcard=None)
    >>> EnteredHand(HandKind.KNOCK, knocker=None, deadwood=(3, 20))
    Traceback (most recent call last):
    ...
    games.engine.errors.EntryError: a knock needs its knocker: player 0 or 1
    """

    kind: HandKind
    knocker: int | None
    deadwood: tuple[int | None, int | None]
    upcard: int | None = None

    def __post_init__(self) -> None:
        kind = _kind(self.kind)
        object.__setattr__(self, "kind", kind)
        if not isinstance(self.deadwood, tuple) or len(self.deadwood) != 2:
            raise EntryError("deadwood is a pair of counts, one per player", rule="invalid_entry")
        for count in self.deadwood:
            if count is None:
                continue
            if not _is_int(count):
                message = f"a deadwood count is a number, not {count!r}"
                raise EntryError(message, rule="invalid_entry")
            if not 0 <= count <= MAX_DEADWOOD:
                raise EntryError(
                    f"a deadwood count is between 0 and {MAX_DEADWOOD}, not {count}",
                    rule="deadwood_range",
                )
        if self.upcard is not None and not (_is_int(self.upcard) and 0 <= self.upcard < 52):
            raise EntryError(f"the upcard {self.upcard!r} is not a card", rule="invalid_card")
        if kind is HandKind.DRAWN:
            if self.knocker is not None or self.deadwood != (None, None):
                raise EntryError(
                    "a drawn hand has no knocker and no deadwood counts",
                    rule="drawn_hand_no_score",
                )
            return
        knocker = self.knocker
        if not (_is_int(knocker) and knocker in (0, 1)):
            what = kind.value.replace("_", " ")
            raise EntryError(f"a {what} needs its knocker: player 0 or 1", rule="knocker_required")
        assert knocker is not None
        defender = 1 - knocker
        if self.deadwood[defender] is None:
            raise EntryError(
                f"the deadwood count of the defender (player {defender}) is missing",
                rule="deadwood_missing",
            )
        if kind is HandKind.KNOCK:
            if self.deadwood[knocker] is None:
                raise EntryError(
                    f"the deadwood count of the knocker (player {knocker}) is missing",
                    rule="deadwood_missing",
                )
            return
        if self.deadwood[knocker]:
            raise EntryError(
                f"{'gin' if kind is HandKind.GIN else 'big gin'} leaves no deadwood, "
                f"but the knocker's count is {self.deadwood[knocker]}",
                rule="gin_with_deadwood",
            )
        counts = [0, 0]
        counts[defender] = self.deadwood[defender] or 0
        object.__setattr__(self, "deadwood", (counts[0], counts[1]))

    # --- scoring -----------------------------------------------------------------------

    def score(self, rules: RuleSet) -> Outcome:
        """The hand's :class:`Outcome` under ``rules``, seats being the match's players.

        Refuses with an :class:`EntryError` a hand the rules do not allow (``knock_limit``,
        ``straight_gin_no_knock``, ``upcard_required``). The outcome is built by
        :func:`.deal.hand_outcome`, as for a deal played online, without the cards.

        >>> from .rules import STANDARD
        >>> EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(9, 4)).score(STANDARD).points
        30
        """
        if self.kind is HandKind.DRAWN:
            return DRAWN
        if rules.oklahoma and self.upcard is None:
            raise EntryError(
                "Oklahoma rules score a hand by its first upcard: give the upcard",
                rule="upcard_required",
            )
        upcard = self.upcard
        limit = rules.knock_limit if upcard is None else rules.knock_limit_for(upcard)
        multiplier = 1 if upcard is None else rules.multiplier_for(upcard)
        knocker = self.knocker
        assert knocker is not None
        mine, theirs = self.deadwood[knocker], self.deadwood[1 - knocker]
        assert mine is not None and theirs is not None
        if self.kind is HandKind.KNOCK and mine > 0:
            if not rules.may_knock:
                raise EntryError(
                    "no knocking in straight gin: only gin or big gin ends the hand",
                    rule="straight_gin_no_knock",
                )
            if mine > limit:
                by = ""
                if rules.oklahoma and upcard is not None:
                    by = f" set by the upcard {card_name(upcard)}"
                raise EntryError(
                    f"deadwood {mine} is over the knock limit of {limit}{by}",
                    rule="knock_limit",
                )
        return hand_outcome(rules, _ENDINGS[self.kind], knocker, mine, theirs, multiplier)

    # --- JSON --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: ``{"kind", "knocker", "deadwood": [a, b], "upcard": "QS" or null}``.

        >>> EnteredHand(HandKind.KNOCK, 1, (30, 8), upcard=card_index("QS")).to_json()
        {'kind': 'knock', 'knocker': 1, 'deadwood': [30, 8], 'upcard': 'QS'}
        """
        return {
            "kind": self.kind.value,
            "knocker": self.knocker,
            "deadwood": list(self.deadwood),
            "upcard": None if self.upcard is None else card_name(self.upcard),
        }

    @classmethod
    def from_json(cls, data: Any) -> EnteredHand:
        """Inverse of :meth:`to_json`; refuses a bad shape with an :class:`EntryError`.

        ``knocker``, ``deadwood`` and ``upcard`` may be left out (a drawn hand needs
        only its kind); unknown keys are refused. The upcard is a card name (``"10s"``
        and lower case are read too).

        >>> EnteredHand.from_json({"kind": "drawn"}).deadwood
        (None, None)
        >>> EnteredHand.from_json({"kind": "knock", "knocker": 0, "deadwood": [5, 120]})
        Traceback (most recent call last):
        ...
        games.engine.errors.EntryError: a deadwood count is between 0 and 98, not 120
        """
        if not isinstance(data, dict):
            raise EntryError("an entered hand is an object", rule="invalid_entry")
        unknown = sorted(str(key) for key in data if key not in _JSON_KEYS)
        if unknown:
            raise EntryError(f"unknown key {unknown[0]!r} in an entered hand", rule="invalid_entry")
        kind = data.get("kind")
        if kind is None:
            raise EntryError("an entered hand needs its kind", rule="invalid_entry")
        knocker = data.get("knocker")
        if knocker is not None and not _is_int(knocker):
            raise EntryError(
                f"the knocker is player 0 or 1, not {knocker!r}", rule="knocker_required"
            )
        deadwood = data.get("deadwood", [None, None])
        if not isinstance(deadwood, list | tuple) or len(deadwood) != 2:
            raise EntryError("deadwood is a pair of counts, one per player", rule="invalid_entry")
        upcard = data.get("upcard")
        card = None
        if upcard is not None:
            if not isinstance(upcard, str):
                raise EntryError(
                    f"the upcard is a card name like 'QS', not {upcard!r}", rule="invalid_card"
                )
            try:
                card = card_index(upcard)
            except InvalidCardError as error:
                raise EntryError(str(error), rule="invalid_card") from None
        return cls(_kind(kind), knocker, (deadwood[0], deadwood[1]), card)


def _kind(value: object) -> HandKind:
    if isinstance(value, str) and value in _KINDS:
        return HandKind(value)
    known = ", ".join(_KINDS)
    raise EntryError(f"unknown hand kind {value!r}; known: {known}", rule="invalid_entry")


_KINDS = tuple(kind.value for kind in HandKind)

__all__ = ["ENTRY_RULES", "MAX_DEADWOOD", "EnteredHand", "EntryError", "HandKind"]
