"""Cards as small ints, hands as 52-bit masks.

A card is an int ``suit * 13 + rank`` with ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` as 0..12
and suits ``C D H S`` as 0..3, so the thirteen cards of one suit sit side by side in a
mask and a suit's cards are ``(mask >> 13 * suit) & 0x1FFF``.  The hot paths of the engine
work on plain ints; :class:`Card` and :class:`CardSet` are the small typed values the
rest of the code and the API speak.

>>> Card.parse("10s")
Card('TS')
>>> str(CardSet.parse("ks 2s as qh"))
'QH AS 2S KS'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from .errors import InvalidCardError

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
FULL_DECK: Final = (1 << 52) - 1
SUIT_MASK: Final = 0x1FFF

#: Point value of each rank: ace 1, two to nine face value, ten and court cards 10.
RANK_POINTS: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
#: Point value of each card index 0..51.
CARD_POINTS: Final = RANK_POINTS * 4
#: Single-bit mask of each card index.
BIT: Final = tuple(1 << c for c in range(52))

_NAMES: Final = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_BY_NAME: dict[str, int] = {name: c for c, name in enumerate(_NAMES)}
for _c in range(52):
    if _NAMES[_c][0] == "T":
        _BY_NAME["10" + _NAMES[_c][1]] = _c


def card_index(text: str) -> int:
    """Parse one card (``TS``, ``10s``, ``ts``) to its index, or raise InvalidCardError."""
    try:
        return _BY_NAME[text.strip().upper()]
    except (KeyError, AttributeError):
        message = f"unknown card {text!r}: expected rank then suit, e.g. 'TS'"
        raise InvalidCardError(message) from None


def card_name(card: int) -> str:
    """The two-character name of a card index."""
    return _NAMES[card]


def rank_of(card: int) -> int:
    """Rank 0 (ace) .. 12 (king)."""
    return card % 13


def suit_of(card: int) -> int:
    """Suit 0 (clubs) .. 3 (spades)."""
    return card // 13


def mask_of(cards: Iterable[int]) -> int:
    """The mask holding the given card indexes (duplicates collapse)."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


#: For each byte of a mask (the cards ``8 * k`` to ``8 * k + 7``) and each value of that
#: byte: the cards it holds, lowest first.
_BYTE_CARDS: Final = tuple(
    tuple(tuple(8 * k + b for b in range(8) if value >> b & 1) for value in range(256))
    for k in range(7)
)


def cards_of(mask: int) -> list[int]:
    """Card indexes in a mask, lowest first (clubs ace .. spades king)."""
    out: list[int] = []
    for by_value in _BYTE_CARDS:
        if not mask:
            break
        if mask & 255:
            out += by_value[mask & 255]
        mask >>= 8
    return out


def points_of(mask: int) -> int:
    """Sum of the point values of the cards in a mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_POINTS[low.bit_length() - 1]
        mask ^= low
    return total


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse space-separated cards (or an iterable of card strings) to indexes.

    Raises InvalidCardError for an unknown or repeated card.
    """
    parts = text.split() if isinstance(text, str) else list(text)
    out: list[int] = []
    seen = 0
    for part in parts:
        if not isinstance(part, str):
            raise InvalidCardError(f"unknown card {part!r}: expected a string such as 'TS'")
        c = card_index(part)
        if seen >> c & 1:
            raise InvalidCardError(f"duplicate card {_NAMES[c]}")
        seen |= 1 << c
        out.append(c)
    return out


def format_cards(cards: Iterable[int]) -> str:
    """Cards as space-separated two-character names, in the order given."""
    return " ".join(_NAMES[c] for c in cards)


class Card(int):
    """One card: an int 0..51 with a readable name.

    >>> Card.parse("ah"), Card.parse("AH").points, Card(12), Card("TS")
    (Card('AH'), 1, Card('KC'), Card('TS'))
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            return _CARDS[card_index(value)]
        if not 0 <= value < 52:
            raise InvalidCardError(f"card index {value} out of range 0..51")
        return _CARDS[value] if len(_CARDS) == 52 else super().__new__(cls, value)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``TS``, ``10s`` or ``ts``."""
        return _CARDS[card_index(text)]

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def suit(self) -> int:
        return int(self) // 13

    @property
    def points(self) -> int:
        return CARD_POINTS[self]

    @property
    def symbol(self) -> str:
        """Rank and suit symbol, e.g. ``7♥`` (ten written ``10``)."""
        rank = "10" if self.rank == 9 else RANKS[self.rank]
        return rank + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{_NAMES[self]}')"


_CARDS: list[Card] = []
_CARDS.extend(Card(i) for i in range(52))


class CardSet:
    """An immutable set of cards over a 52-bit mask (built from a mask or from text).

    >>> hand = CardSet.parse("AS 2S 3S KH")
    >>> len(hand), Card.parse("2S") in hand, hand.points
    (4, True, 16)
    >>> hand - CardSet.parse("KH")
    CardSet('AS 2S 3S')
    """

    __slots__ = ("mask",)

    def __init__(self, mask: int | str = 0) -> None:
        if isinstance(mask, str):
            mask = mask_of(parse_cards(mask))
        if not 0 <= mask <= FULL_DECK:
            raise InvalidCardError("card mask out of range")
        self.mask = mask

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Parse space-separated cards; repeated or unknown cards raise InvalidCardError."""
        return cls(mask_of(parse_cards(text)))

    @classmethod
    def of(cls, cards: Iterable[int]) -> CardSet:
        return cls(mask_of(cards))

    def __iter__(self) -> Iterator[Card]:
        return (_CARDS[c] for c in cards_of(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 52 and bool(self.mask >> card & 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __bool__(self) -> bool:
        return bool(self.mask)

    @property
    def points(self) -> int:
        return points_of(self.mask)

    def names(self) -> list[str]:
        return [_NAMES[c] for c in cards_of(self.mask)]

    def __str__(self) -> str:
        return " ".join(self.names())

    def __repr__(self) -> str:
        return f"CardSet('{self}')"
