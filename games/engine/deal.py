"""One deal (a hand of Gin Rummy) as a state machine.

Long on purpose: the deal's states, each state's legal actions and the transitions between
them are one state machine, read together.

A deal is its seed, its dealer, its rule set and the ordered actions applied to it:
:meth:`Deal.replay` rebuilds any state from those.  Seats are 0 and 1.

>>> deal = Deal.new(seed=7, dealer=0)
>>> deal.to_act, deal.phase.name, [str(a) for a in deal.legal_actions()]
(1, 'OFFER_NONDEALER', ['take_upcard', 'pass'])
>>> deal.apply(Action.pass_()); deal.apply(Action.pass_())
>>> deal.to_act, [str(a) for a in deal.legal_actions()]
(1, ['draw_stock'])
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import (
    BIG_GIN,
    BY_CODE,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    GINS,
    KNOCKS,
    MELDS_CODE,
    PASS,
    TAKE_UPCARD,
    Action,
    ActionKind,
)
from .cards import BIT, card_name, cards_of
from .errors import (
    DealOverError,
    IllegalActionError,
    InvalidMeldsError,
    NotYourTurnError,
)
from .melds import (
    Arrangement,
    Defence,
    LayOff,
    arrange,
    best_discard,
    defend,
    discard_deadwoods,
    knocker_arrangement,
    meld_points_check,
    min_deadwood,
)
from .rules import STANDARD, RuleSet


class Phase(enum.IntEnum):
    """Where a deal stands; ``to_act`` says whose move it is."""

    OFFER_NONDEALER = 0  # the non-dealer may take the upcard or pass
    OFFER_DEALER = 1  # the non-dealer passed: the dealer may take it or pass
    FIRST_DRAW = 2  # both passed: the non-dealer draws from the stock
    DRAW = 3  # draw from the stock or the discard pile
    DISCARD = 4  # discard, knock, gin or big gin
    FIFTIETH_OFFER = 5  # fiftieth_card: take the last discard, or pass (a draw)
    FIFTIETH_DECIDE = 6  # fiftieth_card: knock or gin with any card, or pass (a draw)
    OVER = 7


class Termination(enum.StrEnum):
    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a deal ended.  ``winner`` is the seat that scores ``points`` (None on a draw).

    For knocks: the knocker's melds and deadwood, the defender's melds, lay-offs and
    deadwood after them; for gin the defender lays off nothing.
    """

    termination: Termination
    winner: int | None
    points: int
    knocker: int | None = None
    knock_card: int | None = None
    knocker_melds: tuple[int, ...] = ()
    knocker_deadwood: int = 0
    knocker_points: int = 0
    defender_melds: tuple[int, ...] = ()
    defender_deadwood: int = 0
    defender_points: int = 0
    layoffs: tuple[LayOff, ...] = ()
    multiplier: int = 1

    def to_json(self) -> dict[str, Any]:
        def names(mask: int) -> list[str]:
            return [card_name(c) for c in cards_of(mask)]

        return {
            "termination": self.termination.value,
            "winner": self.winner,
            "points": self.points,
            "knocker": self.knocker,
            "knock_card": None if self.knock_card is None else card_name(self.knock_card),
            "knocker_melds": [names(m) for m in self.knocker_melds],
            "knocker_deadwood": names(self.knocker_deadwood),
            "knocker_points": self.knocker_points,
            "defender_melds": [names(m) for m in self.defender_melds],
            "defender_deadwood": names(self.defender_deadwood),
            "defender_points": self.defender_points,
            "layoffs": [
                {"card": card_name(lo.card), "onto": names(lo.onto)} for lo in self.layoffs
            ],
            "multiplier": self.multiplier,
        }


DRAWN = Outcome(Termination.DRAW, None, 0)


def hand_points(
    rules: RuleSet, ending: Termination, knocker_points: int, defender_points: int
) -> tuple[Termination, int]:
    """How a hand that a player ended scores: its termination and the winner's points.

    The one place the rule book's table for scoring a hand lives: a deal played online
    and a hand entered from a score pad (:mod:`games.engine.table`) are both scored here.
    ``ending`` is what the player did (KNOCK, GIN or BIG_GIN); the counts are the
    knocker's deadwood and the defender's (after lay-offs for a knock). A knock with no
    deadwood is gin; a knock the defender ties or beats is an undercut, won by the
    defender. The points are before any Oklahoma multiplier.

    >>> hand_points(STANDARD, Termination.KNOCK, 4, 20)
    (<Termination.KNOCK: 'knock'>, 16)
    >>> hand_points(STANDARD, Termination.KNOCK, 7, 7)
    (<Termination.UNDERCUT: 'undercut'>, 25)
    >>> hand_points(STANDARD, Termination.KNOCK, 0, 12)
    (<Termination.GIN: 'gin'>, 37)
    >>> hand_points(STANDARD, Termination.BIG_GIN, 0, 12)
    (<Termination.BIG_GIN: 'big_gin'>, 43)
    """
    if ending is Termination.BIG_GIN:
        return Termination.BIG_GIN, defender_points + rules.big_gin_bonus
    if ending is not Termination.KNOCK and ending is not Termination.GIN:
        raise ValueError(f"a hand is ended by a knock, gin or big gin, not {ending.value!r}")
    if knocker_points == 0:
        return Termination.GIN, defender_points + rules.gin_bonus
    if ending is Termination.GIN:
        raise ValueError("gin has no deadwood")
    if knocker_points < defender_points:
        return Termination.KNOCK, defender_points - knocker_points
    return Termination.UNDERCUT, knocker_points - defender_points + rules.undercut_bonus


def hand_outcome(
    rules: RuleSet,
    ending: Termination,
    knocker: int,
    knocker_points: int,
    defender_points: int,
    multiplier: int = 1,
    *,
    knock_card: int | None = None,
    knocker_melds: tuple[int, ...] = (),
    knocker_deadwood: int = 0,
    defender_melds: tuple[int, ...] = (),
    defender_deadwood: int = 0,
    layoffs: tuple[LayOff, ...] = (),
) -> Outcome:
    """The :class:`Outcome` of a hand ended by seat ``knocker``, scored by :func:`hand_points`.

    The winner is the knocker, or the defender on an undercut; ``multiplier`` (Oklahoma's
    spade upcard) multiplies the points. The cards (melds, deadwood masks, lay-offs) are
    only known for a deal played online; a hand entered from a score pad leaves them empty.

    >>> out = hand_outcome(STANDARD, Termination.KNOCK, 1, 9, 5, multiplier=2)
    >>> out.termination.value, out.winner, out.points, out.knocker
    ('undercut', 0, 58, 1)
    """
    termination, points = hand_points(rules, ending, knocker_points, defender_points)
    return Outcome(
        termination=termination,
        winner=1 - knocker if termination is Termination.UNDERCUT else knocker,
        points=points * multiplier,
        knocker=knocker,
        knock_card=knock_card,
        knocker_melds=knocker_melds,
        knocker_deadwood=knocker_deadwood,
        knocker_points=knocker_points,
        defender_melds=defender_melds,
        defender_deadwood=defender_deadwood,
        defender_points=defender_points,
        layoffs=layoffs,
        multiplier=multiplier,
    )


_NO_CARD = -1

#: For each byte of a hand (the cards ``8 * k`` to ``8 * k + 7``) and each value of that
#: byte: the discards of the cards it holds, lowest first.
_BYTE_DISCARDS = tuple(
    tuple(tuple(DISCARDS[c] for c in cards_of(value << 8 * k) if c < 52) for value in range(256))
    for k in range(7)
)


#: ``(i, bits)`` for each step of a shuffle of 52: swap position ``i`` with a position
#: below ``i + 1`` drawn from ``bits`` random bits (rejecting draws past ``i``).
_SHUFFLE_STEPS: tuple[tuple[int, int], ...] = tuple(
    (i, (i + 1).bit_length()) for i in range(51, 0, -1)
)


def shuffled_deck(seed: int) -> list[int]:
    """The 52 cards in the order the seed shuffles them (Python's Mersenne Twister).

    The same order as ``random.Random(seed).shuffle`` of the 52 cards: the same draws of
    ``getrandbits`` for the same Fisher-Yates swaps, without a method call a swap.
    """
    deck = list(range(52))
    getrandbits = random.Random(seed).getrandbits
    for i, bits in _SHUFFLE_STEPS:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class Deal:
    """The state of one deal.  Build with :meth:`new` or :meth:`replay`.

    Public state: ``phase``, ``to_act``, ``ply`` (actions applied so far), ``dealer``,
    ``discards`` (bottom first), ``knock_limit``, ``outcome`` (None until over).  Hands
    and the stock are here too, since the engine knows everything: give players
    :func:`games.engine.views.view_for` instead.
    """

    __slots__ = (
        "_deck",
        "_history",
        "_legal",
        "_log",
        "_melds_knock",
        "_seats",
        "dealer",
        "discards",
        "hands",
        "knock_limit",
        "known",
        "multiplier",
        "outcome",
        "phase",
        "ply",
        "rules",
        "seed",
        "stock",
        "taken",
        "to_act",
        "upcard",
    )

    rules: RuleSet
    seed: int | None
    dealer: int
    hands: list[int]
    stock: bytearray  # card bytes, the top of the stock last
    discards: bytearray  # card bytes, the top of the pile last
    known: list[int]
    phase: Phase
    to_act: int
    ply: int
    taken: int
    upcard: int
    knock_limit: int
    multiplier: int
    outcome: Outcome | None
    _log: bytearray  # one action code a ply (see Action.code)
    _melds_knock: Action | None  # a knock declaring melds: it ends the deal, so one at most
    _seats: int
    _legal: list[Action] | None
    _deck: tuple[int, ...] | None
    #: The public history as :func:`games.engine.views.view_for` last built it, kept so the
    #: next view only adds the plies since (immutable, so a copy may share it).
    _history: Any

    @classmethod
    def new(cls, seed: int, dealer: int, rules: RuleSet = STANDARD) -> Deal:
        """Shuffle from ``seed`` and deal: ten cards each, one at a time, non-dealer first."""
        return cls.from_deck(shuffled_deck(seed), dealer, rules, seed=seed)

    @classmethod
    def from_deck(
        cls, deck: Sequence[int], dealer: int, rules: RuleSet = STANDARD, seed: int | None = None
    ) -> Deal:
        """Deal from a deck in a given order (the first card goes to the non-dealer).

        Cards 0, 2, .., 18 go to the non-dealer and 1, 3, .., 19 to the dealer; card 20 is
        the upcard and the rest is the stock, its top first.
        """
        if dealer not in (0, 1):
            raise ValueError("dealer must be seat 0 or 1")
        if sorted(deck) != list(range(52)):
            raise ValueError("a deck holds each of the 52 cards once")
        self = cls.__new__(cls)
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        first, second = 0, 0
        for i in range(0, 20, 2):
            first |= BIT[deck[i]]
            second |= BIT[deck[i + 1]]
        self.hands = [second, first] if dealer == 0 else [first, second]
        self.upcard = deck[20]
        # Bytes, not lists: a server holds many live deals, and this keeps one under 2 KB.
        self.discards = bytearray((deck[20],))
        self.stock = bytearray(deck[:20:-1])  # the top of the stock is the end
        self.known = [0, 0]
        self.phase = Phase.OFFER_NONDEALER
        self.to_act = 1 - dealer
        self.ply = 0
        self.taken = _NO_CARD
        self.knock_limit = rules.knock_limit_for(self.upcard)
        self.multiplier = rules.multiplier_for(self.upcard)
        self.outcome = None
        self._log = bytearray()
        self._melds_knock = None
        self._seats = 0
        self._legal = None
        # A seeded deal can always re-shuffle its deck; only a hand-set one keeps it.
        self._deck = None if seed is not None else tuple(deck)
        self._history = None
        return self

    @classmethod
    def arranged(
        cls,
        hands: tuple[Iterable[int], Iterable[int]],
        upcard: int,
        stock: Sequence[int] = (),
        dealer: int = 0,
        rules: RuleSet = STANDARD,
    ) -> Deal:
        """A deal set up by hand (for tests, puzzles and teaching).

        ``hands`` are the ten cards of seats 0 and 1, ``stock`` the top cards of the stock
        in drawing order; the remaining cards fill the stock below them.
        """
        nondealer = list(hands[1 - dealer])
        dealt = list(hands[dealer])
        if len(nondealer) != 10 or len(dealt) != 10:
            raise ValueError("each hand has ten cards")
        deck: list[int] = []
        for a, b in zip(nondealer, dealt, strict=True):
            deck += [a, b]
        deck.append(upcard)
        deck += list(stock)
        used = set(deck)
        deck += [c for c in range(52) if c not in used]
        return cls.from_deck(deck, dealer, rules)

    @classmethod
    def replay(
        cls,
        seed: int,
        dealer: int,
        actions: Iterable[Action | str | tuple[int, Action | str]],
        rules: RuleSet = STANDARD,
    ) -> Deal:
        """Rebuild a deal from its seed, dealer and actions (objects, text, or (seat, action)).

        A seat given with an action is checked against the seat to act.
        """
        return cls.new(seed, dealer, rules).play(actions)

    def play(self, actions: Iterable[Action | str | tuple[int, Action | str]]) -> Deal:
        """Apply actions in order (objects, text, or (seat, action) pairs); returns self."""
        deal = self
        for item in actions:
            seat = None
            if isinstance(item, tuple):
                seat, item = item
            action = Action.parse(item) if isinstance(item, str) else item
            deal.apply(action, seat=seat)
        return deal

    # --- reading -----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions applied so far, in order."""
        return tuple(self._action_at(code) for code in self._log)

    def _action_at(self, code: int) -> Action:
        if code == MELDS_CODE:
            assert self._melds_knock is not None
            return self._melds_knock
        return BY_CODE[code]

    def seat_of_ply(self, ply: int) -> int:
        """The seat that made the ``ply``-th action."""
        return self._seats >> ply & 1

    @property
    def log(self) -> list[tuple[int, Action]]:
        """The actions applied so far, each with the seat that acted."""
        return [(self._seats >> i & 1, self._action_at(c)) for i, c in enumerate(self._log)]

    def log_json(self) -> dict[str, Any]:
        """Compact JSON of everything that defines the deal.

        A deal set up by hand (no seed) records its deck instead.
        """
        extra = {} if self.seed is not None else {"deck": self.initial_deck()}
        return {
            **extra,
            "seed": self.seed,
            "dealer": self.dealer,
            "rules": self.rules.to_dict(),
            "actions": [[seat, str(a)] for seat, a in self.log],
        }

    @classmethod
    def from_log_json(cls, data: dict[str, Any]) -> Deal:
        """Inverse of :meth:`log_json`: replays the logged actions."""
        rules = RuleSet.from_dict(data["rules"]) if "rules" in data else STANDARD
        actions = [(int(seat), str(text)) for seat, text in data["actions"]]
        if data.get("seed") is None:
            deal = cls.from_deck([int(c) for c in data["deck"]], int(data["dealer"]), rules)
            return deal.play(actions)
        return cls.replay(int(data["seed"]), int(data["dealer"]), actions, rules)

    def initial_deck(self) -> list[int]:
        """The deck order this deal was dealt from."""
        if self.seed is not None:
            return shuffled_deck(self.seed)
        assert self._deck is not None
        return list(self._deck)

    @property
    def forbidden_discard(self) -> int | None:
        """The card that may not be discarded this turn (taken from the discard pile)."""
        return None if self.taken == _NO_CARD else self.taken

    def legal_actions(self) -> list[Action]:
        """Every action the seat to act may take now (empty once the deal is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> list[Action]:
        phase = self.phase
        if phase is Phase.DISCARD:
            hand = self.hands[self.to_act]
            taken = self.taken
            out: list[Action] = []
            rest = hand
            for by_value in _BYTE_DISCARDS:
                if not rest:
                    break
                if rest & 255:
                    out += by_value[rest & 255]
                rest >>= 8
            if taken != _NO_CARD and hand >> taken & 1:
                forbidden = DISCARDS[taken]
                out = [a for a in out if a is not forbidden]
            out.extend(self._ending_actions(hand, taken))
            return out
        if phase is Phase.DRAW:
            return [DRAW_STOCK, DRAW_DISCARD] if self.discards else [DRAW_STOCK]
        if phase is Phase.OFFER_NONDEALER or phase is Phase.OFFER_DEALER:
            return [TAKE_UPCARD, PASS]
        if phase is Phase.FIRST_DRAW:
            return [DRAW_STOCK]
        if phase is Phase.FIFTIETH_OFFER:
            return [DRAW_DISCARD, PASS]
        if phase is Phase.FIFTIETH_DECIDE:
            return [*self._ending_actions(self.hands[self.to_act], _NO_CARD), PASS]
        return []

    def _ending_actions(self, hand: int, taken: int) -> list[Action]:
        """Knocks, gins and big gin open to an eleven-card hand."""
        limit = self.knock_limit if self.rules.may_knock else 0
        card, best = best_discard(hand)
        if card is not None and best > limit:
            return []
        out = []
        for c, deadwood in discard_deadwoods(hand):
            if c == taken:
                continue
            if deadwood == 0:
                out.append(GINS[c])
            elif deadwood <= limit:
                out.append(KNOCKS[c])
        if card is None:
            out.append(BIG_GIN)
        return out

    # --- acting ------------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for the seat to act (``seat``, if given, must be that seat).

        Raises a subclass of IllegalActionError naming the rule, and changes nothing, if
        the action is not allowed now.
        """
        phase = self.phase
        if phase is Phase.OVER:
            raise DealOverError("the deal is over")
        actor = self.to_act
        if seat is not None and seat != actor:
            raise NotYourTurnError(f"it is seat {actor}'s turn, not seat {seat}'s")
        kind = action.kind
        if phase is Phase.DRAW:
            if kind is ActionKind.DRAW_STOCK:
                self._draw_stock(actor)
            elif kind is ActionKind.DRAW_DISCARD:
                self._draw_discard(actor)
            else:
                raise self._wrong_phase(action, "draw from the stock or the discard pile")
        elif phase is Phase.DISCARD:
            if kind is ActionKind.DISCARD:
                self._discard(actor, action)
            elif kind is ActionKind.KNOCK or kind is ActionKind.GIN:
                self._knock(actor, action, self.taken)
            elif kind is ActionKind.BIG_GIN:
                self._big_gin(actor)
            else:
                raise self._wrong_phase(action, "discard, knock, gin or big gin")
        elif phase is Phase.OFFER_NONDEALER or phase is Phase.OFFER_DEALER:
            if kind is ActionKind.TAKE_UPCARD:
                self._draw_discard(actor)
            elif kind is ActionKind.PASS:
                if phase is Phase.OFFER_NONDEALER:
                    self.phase = Phase.OFFER_DEALER
                else:
                    self.phase = Phase.FIRST_DRAW
                self.to_act = 1 - actor
            else:
                raise self._wrong_phase(action, "take the upcard or pass")
        elif phase is Phase.FIRST_DRAW:
            if kind is not ActionKind.DRAW_STOCK:
                raise self._wrong_phase(action, "draw from the stock (both passed the upcard)")
            self._draw_stock(actor)
        elif phase is Phase.FIFTIETH_OFFER:
            if kind is ActionKind.DRAW_DISCARD:
                self._draw_discard(actor)
                self.phase = Phase.FIFTIETH_DECIDE
            elif kind is ActionKind.PASS:
                self._end(DRAWN)
            else:
                raise self._wrong_phase(action, "take the last discard or pass")
        elif phase is Phase.FIFTIETH_DECIDE:
            if kind is ActionKind.KNOCK or kind is ActionKind.GIN:
                self._knock(actor, action, _NO_CARD)
            elif kind is ActionKind.BIG_GIN:
                self._big_gin(actor)
            elif kind is ActionKind.PASS:
                self._end(DRAWN)
            else:
                raise self._wrong_phase(action, "knock, go gin or pass")
        code = action.code
        if code == MELDS_CODE:
            self._melds_knock = action
        self._log.append(code)
        if actor:
            self._seats |= 1 << self.ply
        self.ply += 1
        self._legal = None

    def _wrong_phase(self, action: Action, expected: str) -> IllegalActionError:
        rule = "upcard_offer" if self.phase < Phase.FIRST_DRAW else "wrong_phase"
        return IllegalActionError(
            f"'{action.kind.value}' is not allowed now: {expected}", rule=rule
        )

    def _draw_stock(self, actor: int) -> None:
        self.hands[actor] |= BIT[self.stock.pop()]
        self.taken = _NO_CARD
        self.phase = Phase.DISCARD

    def _draw_discard(self, actor: int) -> None:
        card = self.discards.pop()
        self.hands[actor] |= BIT[card]
        self.known[actor] |= BIT[card]
        self.taken = _NO_CARD if self.rules.allow_discard_of_drawn_upcard else card
        self.phase = Phase.DISCARD

    def _check_card(self, actor: int, action: Action, taken: int) -> int:
        card = action.card
        if card is None or not 0 <= card < 52:
            raise IllegalActionError(f"'{action.kind.value}' needs a card", rule="card_required")
        if not self.hands[actor] >> card & 1:
            raise IllegalActionError(
                f"{card_name(card)} is not in your hand", rule="card_not_in_hand"
            )
        if card == taken:
            raise IllegalActionError(
                f"{card_name(card)} was just taken from the discard pile and may not be "
                "discarded this turn",
                rule="discard_of_taken_card",
            )
        return card

    def _discard(self, actor: int, action: Action) -> None:
        card = self._check_card(actor, action, self.taken)
        self.hands[actor] ^= BIT[card]
        self.known[actor] &= ~BIT[card]
        self.discards.append(card)
        self.taken = _NO_CARD
        if len(self.stock) <= 2:
            if self.rules.fiftieth_card:
                self.phase = Phase.FIFTIETH_OFFER
                self.to_act = 1 - actor
            else:
                self._end(DRAWN)
        else:
            self.phase = Phase.DRAW
            self.to_act = 1 - actor

    def _knock(self, actor: int, action: Action, taken: int) -> None:
        card = self._check_card(actor, action, taken)
        rest = self.hands[actor] ^ BIT[card]
        limit = self.knock_limit if self.rules.may_knock else 0
        gin_only = action.kind is ActionKind.GIN
        if action.melds is not None:
            points = meld_points_check(action.melds, rest)
            if points is None:
                raise InvalidMeldsError(
                    "the declared melds are not disjoint melds of your hand "
                    f"without {card_name(card)}"
                )
            arrangement = Arrangement(action.melds, rest & ~_union(action.melds), points)
        else:
            points = min_deadwood(rest)
            arrangement = None
        if gin_only and points:
            raise IllegalActionError(
                f"gin needs all ten cards melded; {points} points of deadwood are left",
                rule="gin_needs_no_deadwood",
            )
        if points > limit:
            if not self.rules.may_knock:
                raise IllegalActionError(
                    "no knocking in straight gin: only gin or big gin ends the hand",
                    rule="straight_gin_no_knock",
                )
            raise IllegalActionError(
                f"deadwood {points} is over the knock limit of {self.knock_limit}",
                rule="knock_limit",
            )
        defender = 1 - actor
        self.hands[actor] = rest
        self.discards.append(card)
        self.taken = _NO_CARD
        def_hand = self.hands[defender]
        if points == 0:
            # Gin: the defender lays off nothing.
            arrangement = arrangement or arrange(rest)
            defence = _no_layoffs(def_hand)
        elif arrangement is None:
            arrangement, defence = knocker_arrangement(rest, def_hand)
        else:
            defence = defend(def_hand, arrangement.melds)
        self._end(self._scored(Termination.KNOCK, actor, card, arrangement, defence))

    def _big_gin(self, actor: int) -> None:
        hand = self.hands[actor]
        arrangement = arrange(hand)
        if arrangement.points or hand.bit_count() != 11:
            raise IllegalActionError(
                "big gin needs all eleven cards melded", rule="big_gin_needs_eleven_melded"
            )
        defence = _no_layoffs(self.hands[1 - actor])
        self._end(self._scored(Termination.BIG_GIN, actor, None, arrangement, defence))

    def _scored(
        self,
        ending: Termination,
        knocker: int,
        card: int | None,
        arrangement: Arrangement,
        defence: Defence,
    ) -> Outcome:
        return hand_outcome(
            self.rules,
            ending,
            knocker,
            arrangement.points,
            defence.points,
            self.multiplier,
            knock_card=card,
            knocker_melds=arrangement.melds,
            knocker_deadwood=arrangement.deadwood,
            defender_melds=defence.melds,
            defender_deadwood=defence.deadwood,
            layoffs=defence.layoffs,
        )

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.phase = Phase.OVER
        self.taken = _NO_CARD

    # --- copying -----------------------------------------------------------------------

    def copy(self) -> Deal:
        """An independent copy (for bots that look ahead)."""
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = list(self.hands)
        other.stock = bytearray(self.stock)
        other.discards = bytearray(self.discards)
        other.known = list(self.known)
        other._log = bytearray(self._log)
        return other


def _union(melds: Sequence[int]) -> int:
    out = 0
    for m in melds:
        out |= m
    return out


def _no_layoffs(hand: int) -> Defence:
    arr = arrange(hand)
    return Defence(arr.melds, (), arr.deadwood, arr.points)


__all__ = [
    "DRAWN",
    "Deal",
    "Outcome",
    "Phase",
    "Termination",
    "hand_outcome",
    "hand_points",
    "shuffled_deck",
]
