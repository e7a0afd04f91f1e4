"""What one player (or a spectator) may see of a deal.

A :class:`PlayerView` is built from the deal but holds only what its viewer may know:
their own hand, the discard pile, the stock's size (never its order), the cards the
opponent is known to hold because they were picked up from the discard pile, and the
public history of the deal.  The opponent's other cards appear only once the deal is over.
Bots receive views, never deals, so they cannot peek.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import BY_CODE, DRAW_DISCARD, GINS, KNOCKS, TAKE_UPCARD, Action, ActionKind
from .cards import card_name, cards_of
from .deal import Deal, Outcome, Phase
from .melds import arrange
from .rules import RuleSet


@dataclass(frozen=True, slots=True)
class PublicAction:
    """One ply as its viewer saw it: stock draws never show their card."""

    seat: int
    kind: ActionKind
    card: int | None  # the card when the viewer may know it


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One viewer's knowledge of a deal.  ``seat`` is None for a spectator."""

    seat: int | None
    rules: RuleSet
    dealer: int
    phase: Phase
    to_act: int | None  # None once the deal is over
    ply: int
    upcard: int  # the first upcard (public: it sets Oklahoma's knock limit)
    knock_limit: int
    multiplier: int
    hand: int  # the viewer's own cards (0 for a spectator)
    discards: tuple[int, ...]  # bottom first; the last is the top of the pile
    stock_size: int
    hand_sizes: tuple[int, int]
    known: tuple[int, int]  # per seat: cards known to be held (picked up from the pile)
    forbidden_discard: int | None  # the viewer's card that may not be discarded this turn
    legal_actions: tuple[Action, ...]  # empty unless it is the viewer's turn
    history: tuple[PublicAction, ...]
    outcome: Outcome | None
    revealed: tuple[int, int] | None  # both hands, once the deal is over

    @property
    def opponent(self) -> int | None:
        return None if self.seat is None else 1 - self.seat

    @property
    def opponent_known(self) -> int:
        """Cards the opponent is known to hold (0 for a spectator)."""
        return 0 if self.seat is None else self.known[1 - self.seat]

    @property
    def top_discard(self) -> int | None:
        return self.discards[-1] if self.discards else None

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_act

    def to_json(self) -> dict[str, Any]:
        """The view as JSON-ready data (card names, melds of the own hand grouped)."""

        def names(mask: int) -> list[str]:
            return [card_name(c) for c in cards_of(mask)]

        own = arrange(self.hand) if self.seat is not None else None
        data: dict[str, Any] = {
            "seat": self.seat,
            "dealer": self.dealer,
            "phase": self.phase.name.lower(),
            "to_act": self.to_act,
            "ply": self.ply,
            "upcard": card_name(self.upcard),
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "hand": names(self.hand) if self.seat is not None else None,
            "melds": own.meld_names() if own else None,
            "deadwood": own.deadwood_names() if own else None,
            "deadwood_points": own.points if own else None,
            "discard_pile": [card_name(c) for c in self.discards],
            "stock_size": self.stock_size,
            "hand_sizes": list(self.hand_sizes),
            "known": [names(self.known[0]), names(self.known[1])],
            "forbidden_discard": (
                None if self.forbidden_discard is None else card_name(self.forbidden_discard)
            ),
            "legal_actions": [a.to_json() for a in self.legal_actions],
            "history": [
                {
                    "seat": p.seat,
                    "type": p.kind.value,
                    "card": None if p.card is None else card_name(p.card),
                }
                for p in self.history
            ],
            "outcome": self.outcome.to_json() if self.outcome else None,
            "revealed": [names(h) for h in self.revealed] if self.revealed else None,
        }
        return data


def _public(seat: int, action: Action, viewer: int | None, over: bool) -> PublicAction:
    kind = action.kind
    card = action.card
    if kind is ActionKind.DRAW_STOCK:
        card = None
    elif (kind is ActionKind.KNOCK or kind is ActionKind.GIN) and not over and viewer != seat:
        card = None  # the knock card goes face down (the deal ends with it, so this is moot)
    return PublicAction(seat, kind, card)


_TAKE_UPCARD = TAKE_UPCARD.code
_DRAW_DISCARD = DRAW_DISCARD.code
#: Log codes from here on are knocks and gins (then a knock declaring melds).
_FIRST_KNOCK = min(KNOCKS[0].code, GINS[0].code)
#: The history's entries, shared: per seat, each log code below the knocks as every viewer
#: sees it, and per seat and taking code, the card taken from the pile.
_PUBLIC_BY_CODE = tuple(
    tuple(_public(s, BY_CODE[code], None, True) for code in range(_FIRST_KNOCK)) for s in (0, 1)
)
_TAKEN_PUBLIC = tuple(
    {
        code: tuple(PublicAction(s, BY_CODE[code].kind, card) for card in range(52))
        for code in (_TAKE_UPCARD, _DRAW_DISCARD)
    }
    for s in (0, 1)
)


def _history(deal: Deal, seat: int | None, over: bool) -> tuple[PublicAction, ...]:
    """The deal's public history as ``seat`` sees it.

    The discard pile is replayed to name the cards taken from it.  Every ply but a knock
    looks the same to every viewer, so the deal keeps what was built (with the pile at that
    point) and the next view only adds the plies since.  A knock ends the deal, so it is
    always last and is never kept.
    """
    log = deal._log
    end = len(log)
    cached = deal._history
    if cached is not None and cached[0] <= end:
        start, done, replayed = cached
        if start == end:
            return done
        pile = list(replayed)
    else:
        start, done, pile = 0, (), [deal.upcard]
    seats = deal._seats
    added = []
    keep = True
    for ply in range(start, end):
        s = seats >> ply & 1
        code = log[ply]
        if code in (_TAKE_UPCARD, _DRAW_DISCARD):
            added.append(_TAKEN_PUBLIC[s][code][pile.pop()])
        elif code < _FIRST_KNOCK:
            public = _PUBLIC_BY_CODE[s][code]
            if public.card is not None:
                pile.append(public.card)
            added.append(public)
        else:
            keep = False
            added.append(_public(s, deal._action_at(code), seat, over))
    history = done + tuple(added)
    if keep:
        deal._history = (end, history, bytes(pile))
    return history


def view_for(deal: Deal, seat: int | None) -> PlayerView:
    """The view of ``seat`` (0 or 1), or of a spectator when ``seat`` is None."""
    over = deal.phase is Phase.OVER
    if seat is not None and seat not in (0, 1):
        raise ValueError("seat must be 0, 1 or None")
    history = _history(deal, seat, over)
    my_turn = seat is not None and not over and deal.to_act == seat
    hands = deal.hands
    # The fields in their declared order (see _new_view).
    return _new_view(
        (
            seat,
            deal.rules,
            deal.dealer,
            deal.phase,
            None if over else deal.to_act,
            deal.ply,
            deal.upcard,
            deal.knock_limit,
            deal.multiplier,
            hands[seat] if seat is not None else 0,
            tuple(deal.discards),
            len(deal.stock),
            (hands[0].bit_count(), hands[1].bit_count()),
            (deal.known[0], deal.known[1]),
            deal.forbidden_discard if my_turn else None,
            tuple(deal.legal_actions()) if my_turn else (),
            history,
            deal.outcome,
            (hands[0], hands[1]) if over else None,
        )
    )


#: Each field's slot setter, in the declared order of the fields.
_VIEW_SETTERS = tuple(getattr(PlayerView, name).__set__ for name in PlayerView.__dataclass_fields__)


def _new_view(values: tuple[Any, ...]) -> PlayerView:
    """A view from its field values in order: what ``PlayerView(...)`` builds (it has no
    ``__post_init__``), without the keyword call and the frozen dataclass's guarded setting
    of each field, since a bot match builds one view a ply."""
    view = object.__new__(PlayerView)
    for set_field, value in zip(_VIEW_SETTERS, values, strict=True):
        set_field(view, value)
    return view


__all__ = ["PlayerView", "PublicAction", "view_for"]
