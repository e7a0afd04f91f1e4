"""Cards and card sets: notation, values, round-tripping reprs."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.cards import (
    CARD_POINTS,
    Card,
    CardSet,
    card_index,
    card_name,
    cards_of,
    format_cards,
    mask_of,
    parse_cards,
    points_of,
)
from games.engine.errors import InvalidCardError


@pytest.mark.parametrize("text", ["TS", "10S", "ts", "10s", " Ts "])
def test_ten_of_spades_parses_in_every_accepted_form(text):
    assert card_name(card_index(text)) == "TS"


@pytest.mark.parametrize("text", ["ZZ", "1S", "11S", "T", "", "AX", "SA", "0S"])
def test_malformed_cards_are_refused_with_the_text_named(text):
    with pytest.raises(InvalidCardError, match="unknown card"):
        card_index(text)


def test_point_values_follow_the_book():
    assert [CARD_POINTS[card_index(r + "H")] for r in "A23456789TJQK"] == [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10,
    ]  # fmt: skip


def test_card_value_type_round_trips_through_its_repr():
    card = Card.parse("qd")
    assert repr(card) == "Card('QD')"
    assert eval(repr(card)) == card
    assert (card.rank, card.suit, card.points, card.symbol) == (11, 1, 10, "Q♦")
    assert Card.parse("10h").symbol == "10♥"


def test_card_index_out_of_range_is_refused():
    with pytest.raises(InvalidCardError):
        Card(52)


def test_duplicate_cards_in_a_hand_are_refused():
    with pytest.raises(InvalidCardError, match="duplicate card AS"):
        parse_cards("AS 2S as")


def test_cardset_operations_and_repr():
    hand = CardSet.parse("KH AS 2S 3S")
    assert str(hand) == "KH AS 2S 3S"
    assert eval(repr(hand)) == hand
    assert len(hand) == 4 and hand.points == 16
    assert Card.parse("2S") in hand and Card.parse("2H") not in hand
    assert hand - CardSet.parse("KH") == CardSet.parse("AS 2S 3S")
    assert (hand | CardSet.parse("4S")).names() == ["KH", "AS", "2S", "3S", "4S"]
    assert hand & CardSet.parse("AS KC") == CardSet.parse("AS")


@given(st.sets(st.integers(0, 51)))
def test_masks_and_card_lists_round_trip(cards):
    mask = mask_of(cards)
    assert cards_of(mask) == sorted(cards)
    assert parse_cards(format_cards(sorted(cards))) == sorted(cards)
    assert points_of(mask) == sum(CARD_POINTS[c] for c in cards)
