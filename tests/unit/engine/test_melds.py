"""Melds and deadwood: exact minimum, best discard, big gin, lay-offs."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import BIT, CARD_POINTS, card_name, cards_of, points_of
from games.engine.melds import (
    ALL_MELDS,
    arrange,
    best_discard,
    defend,
    discard_deadwoods,
    is_meld,
    is_set,
    knocker_arrangement,
    meld_points_check,
    min_arrangements,
    min_deadwood,
)

from .helpers import M

# --- a brute-force reference, written independently of the tables ---------------------


def brute_melds(mask):
    """Every meld inside the hand, found by trying every 3+ card subset of each rank/suit."""
    cards = cards_of(mask)
    found = []
    for size in range(3, len(cards) + 1):
        for combo in itertools.combinations(cards, size):
            ranks = {c % 13 for c in combo}
            suits = {c // 13 for c in combo}
            if len(ranks) == 1 and size <= 4:
                found.append(sum(BIT[c] for c in combo))
            elif len(suits) == 1:
                rs = sorted(c % 13 for c in combo)
                if rs == list(range(rs[0], rs[0] + size)):
                    found.append(sum(BIT[c] for c in combo))
    return found


def brute_min_deadwood(mask):
    melds = brute_melds(mask)
    best = sum(CARD_POINTS[c] for c in cards_of(mask))

    def walk(start, used):
        nonlocal best
        best = min(best, sum(CARD_POINTS[c] for c in cards_of(mask & ~used)))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                walk(i + 1, used | melds[i])

    walk(0, 0)
    return best


@st.composite
def meldy_hands(draw, size):
    """Hands that are rich in melds: a few runs and sets, topped up at random."""
    cards = set()
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            suit, start = draw(st.integers(0, 3)), draw(st.integers(0, 10))
            length = draw(st.integers(3, min(5, 13 - start)))
            cards |= {13 * suit + r for r in range(start, start + length)}
        else:
            rank = draw(st.integers(0, 12))
            suits = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
            cards |= {13 * s + rank for s in suits}
    cards = set(list(cards)[:size])
    rest = [c for c in range(52) if c not in cards]
    extra = draw(st.permutations(rest))
    cards |= set(extra[: size - len(cards)])
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


# --- tables ------------------------------------------------------------------------------


def test_the_table_holds_every_set_and_run():
    sets = [m for m in ALL_MELDS if is_set(m)]
    assert len(sets) == 13 * 5  # four sets of three and one of four per rank
    assert len(ALL_MELDS) - len(sets) == 4 * 66  # runs of 3..13 in each suit
    assert is_meld(M("AS 2S 3S")) and is_meld(M("QH JH TH 9H"))
    assert not is_meld(M("QS KS AS")), "aces are low: Q-K-A is not a run"
    assert not is_meld(M("KS AS 2S")), "runs never wrap"
    assert not is_meld(M("AS 2S 3H"))
    assert not is_meld(M("AS AH"))


@pytest.mark.parametrize(
    ("hand", "points"),
    [
        ("AS 2S 3S 4H 5H 6H KD KC KS 9C", 9),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", 0),
        ("7C 7D 7H 7S 8S 9S 2C 3D 4H 5S", 14),  # 7S belongs where it helps most
        ("KC KD KH QC QD QH JC JD JH TC", 0),  # three runs beat three sets
        ("AC 2D 3H 4S 5C 6D 7H 8S 9C TD", 55),
        ("5H 6H 7H 7C 7D 8H 9H 2S 3S 4S", 14),  # 7H in the run leaves 7C 7D
    ],
)
def test_min_deadwood_of_hand_made_hands(hand, points):
    assert min_deadwood(M(hand)) == points
    assert brute_min_deadwood(M(hand)) == points


def test_a_card_goes_where_it_helps_most():
    # 7S can make 7C 7D 7S or 7S 8S 9S; the run leaves 7C 7D (14), the set leaves 8S 9S (17).
    arr = arrange(M("7C 7D 7S 8S 9S AH 2H 3H 4H KD"))
    assert arr.points == 24
    assert arr.deadwood_names() == ["7C", "7D", "KD"]


@settings(max_examples=400, deadline=None)
@given(meldy_hands(10))
def test_min_deadwood_of_ten_cards_is_exact(mask):
    assert min_deadwood(mask) == brute_min_deadwood(mask)
    arr = arrange(mask)
    assert arr.points == min_deadwood(mask)
    assert meld_points_check(arr.melds, mask) == arr.points
    assert arr.deadwood == mask & ~sum(arr.melds)


@settings(max_examples=250, deadline=None)
@given(meldy_hands(11))
def test_best_discard_of_eleven_cards_is_exact(mask):
    card, points = best_discard(mask)
    reference = min(brute_min_deadwood(mask & ~BIT[c]) for c in cards_of(mask))
    if card is None:
        assert brute_min_deadwood(mask) == 0, "big gin only when all eleven meld"
        assert points == 0
    else:
        assert brute_min_deadwood(mask) > 0
        assert points == reference
        assert min_deadwood(mask & ~BIT[card]) == points
    assert sorted(discard_deadwoods(mask)) == sorted(
        (c, brute_min_deadwood(mask & ~BIT[c])) for c in cards_of(mask)
    )


@settings(max_examples=250, deadline=None)
@given(meldy_hands(10))
def test_best_discard_of_ten_cards_is_the_best_nine(mask):
    # The expert bot asks it for the best nine of ten cards.
    card, points = best_discard(mask)
    reference = min(brute_min_deadwood(mask & ~BIT[c]) for c in cards_of(mask))
    assert points == reference
    if card is None:
        assert brute_min_deadwood(mask) == 0
    else:
        assert min_deadwood(mask & ~BIT[card]) == points


def test_best_discard_is_exact_where_a_heuristic_refuses_a_legal_knock():
    card, points = best_discard(M("3C 3D 6D 4C 4H 5C 5H 6H 6C AH 5D"))
    assert points == 9
    assert min_deadwood(M("3C 3D 6D 4C 4H 5C 5H 6H 6C AH 5D") & ~BIT[card]) == 9


def test_big_gin_is_eleven_melded_cards():
    assert best_discard(M("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS")) == (None, 0)
    assert best_discard(M("KC KD KH KS QC QD QH QS JC JD JH")) == (None, 0)
    card, points = best_discard(M("AS 2S 3S 4S 5S 6S 7S 8S 9S TS KH"))
    assert (card_name(card), points) == ("KH", 0)


def test_equal_discards_throw_the_highest_card():
    card, _ = best_discard(M("AS 2S 3S 4H 5H 6H 7C 8C 9C KD QD"))
    assert card_name(card) == "KD"


# --- lay-offs -----------------------------------------------------------------------------


def test_defender_lays_off_a_chain_onto_a_run():
    defence = defend(M("7H 8H 3H 2C 9D TD JD QD 5S KC"), (M("4H 5H 6H"),))
    laid = [card_name(lo.card) for lo in defence.layoffs]
    assert laid == ["3H", "7H", "8H"]  # both ends, nearest the meld first
    assert defence.points == 2 + 5 + 10
    assert defence.melds == (M("9D TD JD QD"),)


def test_defender_lays_off_the_fourth_card_of_a_set():
    defence = defend(M("KH 2C 3C 9D TD JD 5S 6S 8H AC"), (M("KC KD KS"), M("4H 5H 6H")))
    assert [card_name(lo.card) for lo in defence.layoffs] == ["KH"]
    assert defence.melds == (M("AC 2C 3C"), M("9D TD JD"))
    assert defence.points == 5 + 6 + 8


def test_no_lay_off_onto_a_set_of_four():
    defence = defend(M("2C 3C 9D TD JD 5S 6S 8H AC 4C"), (M("KC KD KS KH"),))
    assert defence.layoffs == ()


def test_defender_weighs_own_meld_against_lay_offs():
    # Laying off 7H 8H onto 4-5-6H strands 7C 7D (14); the set 7H 7C 7D strands 8H (8).
    defence = defend(M("7H 7C 7D 8H 2S 3S 9C TC 5D KD"), (M("4H 5H 6H"),))
    assert defence.layoffs == ()
    assert defence.melds == (M("7C 7D 7H"),)
    assert defence.points == 8 + 2 + 3 + 9 + 10 + 5 + 10
    assert points_of(defence.deadwood) == defence.points


@settings(max_examples=150, deadline=None)
@given(st.permutations(range(52)))
def test_defence_is_never_worse_than_the_defenders_own_best(deck):
    knocker, defender = sum(BIT[c] for c in deck[:10]), sum(BIT[c] for c in deck[10:20])
    for arr in min_arrangements(knocker)[:3]:
        defence = defend(defender, arr.melds)
        assert defence.points <= min_deadwood(defender)
        laid = sum(BIT[lo.card] for lo in defence.layoffs)
        assert not laid & knocker
        assert defence.deadwood | laid | sum(defence.melds) == defender


def test_knocker_melds_leave_the_defender_least_to_lay_off():
    # 7H can sit in the set of sevens or at the top of 4-5-6H: the same deadwood (AC 2D 3S)
    # either way, but the run 4H-7H would take the defender's 8H. The engine shows the set.
    knocker = M("7C 7D 7S 7H 4H 5H 6H AC 2D 3S")
    defender = M("8H 9C TC JC 2S 4S 6S 8S QD KD")
    assert len(min_arrangements(knocker)) == 2
    arr, defence = knocker_arrangement(knocker, defender)
    assert arr.points == 6
    assert M("7C 7D 7S 7H") in arr.melds
    assert defence.layoffs == ()
    worse = defend(defender, (M("7C 7D 7S"), M("4H 5H 6H 7H")))
    assert [card_name(lo.card) for lo in worse.layoffs] == ["8H"]
    assert worse.points == defence.points - 8
