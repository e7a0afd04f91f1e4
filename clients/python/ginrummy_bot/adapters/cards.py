"""Card names of the service (``"TS"``, ``"AC"``: rank then suit) and the peers' numbers.

Both peers number a card ``rank + 13 * suit`` with the ranks ``A 2 … T J Q K``; they differ in
the order of the suits: OpenSpiel's is ``s c d h`` (``GinRummyUtils.card_strings_to_card_ints``
spells ``"Ts"``), RLCard's is ``S H D C`` (``rlcard.games.gin_rummy.utils.utils.get_card``).
No import of either package: the mapping is tested where neither is installed.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
OPENSPIEL_SUITS = "SCDH"
RLCARD_SUITS = "SHDC"
#: Every card name of the service, in its own order (suits C D H S).
DECK = tuple(rank + suit for suit in "CDHS" for rank in RANKS)


def _number(name: str, suits: str) -> int:
    if len(name) != 2 or name[0] not in RANKS or name[1] not in suits:
        raise ValueError(f"not a card name: {name!r}")
    return RANKS.index(name[0]) + 13 * suits.index(name[1])


def _name(number: int, suits: str) -> str:
    if not 0 <= number < 52:
        raise ValueError(f"not a card number: {number!r}")
    return RANKS[number % 13] + suits[number // 13]


def to_openspiel(name: str) -> int:
    """OpenSpiel's card number of a service card name (``"AS"`` is 0, ``"AC"`` 13)."""
    return _number(name, OPENSPIEL_SUITS)


def from_openspiel(number: int) -> str:
    return _name(number, OPENSPIEL_SUITS)


def to_rlcard(name: str) -> int:
    """RLCard's card id of a service card name (``"AS"`` is 0, ``"AH"`` 13)."""
    return _number(name, RLCARD_SUITS)


def from_rlcard(number: int) -> str:
    return _name(number, RLCARD_SUITS)
