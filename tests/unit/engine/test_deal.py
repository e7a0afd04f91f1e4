"""A deal by the rule book: dealing, the upcard offer, turns, endings and their scores.

Seat 0 deals in these hand-made deals, so seat 1 (the non-dealer) acts first.
"""

import random

import pytest

from games.engine.actions import Action
from games.engine.cards import card_name, cards_of
from games.engine.deal import Deal, Phase, Termination, shuffled_deck
from games.engine.errors import (
    DealOverError,
    IllegalActionError,
    InvalidMeldsError,
    NotYourTurnError,
)
from games.engine.rules import OKLAHOMA, STANDARD, STRAIGHT

from .helpers import A, C, M, arranged

KNOCKER = "AS 2S 3S 4H 5H 6H KD KC KS 9C"  # deadwood 9C: one low card from a knock


def snapshot(deal: Deal):
    return (
        deal.phase,
        deal.to_act,
        deal.ply,
        list(deal.hands),
        list(deal.stock),
        list(deal.discards),
        list(deal.known),
        deal.taken,
        deal.log,
        deal.outcome,
    )


def refused(deal: Deal, action: Action, error=IllegalActionError, seat=None) -> IllegalActionError:
    """Apply an action that must be refused; check that nothing changed."""
    before = snapshot(deal)
    with pytest.raises(error) as caught:
        deal.apply(action, seat=seat)
    assert snapshot(deal) == before
    return caught.value


def names(actions):
    return [str(a) for a in actions]


# --- dealing and the first turn ----------------------------------------------------------


def test_cards_are_dealt_one_at_a_time_non_dealer_first():
    deck = list(range(52))
    deal = Deal.from_deck(deck, dealer=0)
    assert cards_of(deal.hands[1]) == list(range(0, 20, 2))
    assert cards_of(deal.hands[0]) == list(range(1, 20, 2))
    assert deal.upcard == 20 and list(deal.discards) == [20]
    assert deal.stock_size == 31 and deal.stock[-1] == 21  # the 22nd card is the top


def test_the_seed_decides_the_deck_and_every_deal_can_be_redealt():
    a, b = Deal.new(99, 1), Deal.new(99, 1)
    assert a.hands == b.hands and a.stock == b.stock and a.upcard == b.upcard
    assert Deal.new(100, 1).hands != a.hands


def test_upcard_offer_goes_to_the_non_dealer_then_the_dealer_then_the_stock():
    deal = Deal.new(5, dealer=0)
    assert (deal.phase, deal.to_act) == (Phase.OFFER_NONDEALER, 1)
    assert names(deal.legal_actions()) == ["take_upcard", "pass"]
    refused(deal, A("draw_stock"))
    deal.apply(A("pass"))
    assert (deal.phase, deal.to_act) == (Phase.OFFER_DEALER, 0)
    deal.apply(A("pass"))
    assert (deal.phase, deal.to_act) == (Phase.FIRST_DRAW, 1)
    assert names(deal.legal_actions()) == ["draw_stock"]
    error = refused(deal, A("draw_discard"))
    assert error.rule == "wrong_phase"
    deal.apply(A("draw_stock"))
    assert (deal.phase, deal.to_act) == (Phase.DISCARD, 1)


def test_non_dealer_takes_the_upcard_discards_and_the_dealer_plays_next():
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER, "9H")
    deal.apply(A("take_upcard"))
    assert deal.hands[1] >> C("9H") & 1 and list(deal.discards) == []
    assert deal.known[1] == M("9H"), "a card taken from the pile is known to the opponent"
    deal.apply(A("discard 9C"))
    assert (deal.phase, deal.to_act) == (Phase.DRAW, 0)
    assert names(deal.legal_actions()) == ["draw_stock", "draw_discard"]


def test_dealer_may_take_the_upcard_after_the_non_dealer_passes():
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER, "9H")
    deal.apply(A("pass"))
    deal.apply(A("take_upcard"), seat=0)
    deal.apply(A("discard QC"), seat=0)
    assert (deal.phase, deal.to_act) == (Phase.DRAW, 1)


def test_the_card_taken_from_the_pile_may_not_be_discarded_the_same_turn():
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER, "9H")
    deal.apply(A("take_upcard"))
    error = refused(deal, A("discard 9H"))
    assert error.rule == "discard_of_taken_card"
    assert "discard 9H" not in names(deal.legal_actions())
    deal.apply(A("discard 9C"))
    deal.apply(A("draw_discard"))
    assert refused(deal, A("discard 9C")).rule == "discard_of_taken_card"


def test_option_allows_discarding_the_taken_card():
    rules = STANDARD.replace(allow_discard_of_drawn_upcard=True)
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER, "9H", rules=rules)
    deal.apply(A("take_upcard"))
    assert "discard 9H" in names(deal.legal_actions())
    deal.apply(A("discard 9H"))
    assert list(deal.discards) == [C("9H")]


def test_a_card_not_in_hand_and_acting_out_of_turn_are_refused():
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER, "9H")
    refused(deal, A("pass"), NotYourTurnError, seat=0)
    deal.apply(A("take_upcard"))
    assert refused(deal, A("discard QC")).rule == "card_not_in_hand"
    assert refused(deal, A("draw_stock")).rule == "wrong_phase"


# --- ending a hand -------------------------------------------------------------------------

DEFENDER = "7H 8H QC QH JD 3C 5C 5D 9D TS"  # 7H 8H lay off on 4-5-6H; 62 left


def test_knock_scores_the_difference_after_lay_offs():
    deal = arranged(DEFENDER, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    assert "knock 9C" in names(deal.legal_actions())
    deal.apply(A("knock 9C"))
    out = deal.outcome
    assert deal.is_over and deal.legal_actions() == []
    assert out.termination is Termination.KNOCK and out.winner == 1 and out.knocker == 1
    assert out.knocker_points == 2 and card_name(out.knock_card) == "9C"
    assert [card_name(lo.card) for lo in out.layoffs] == ["7H", "8H"]
    assert out.defender_points == 62
    assert out.points == 60


@pytest.mark.parametrize(
    ("defender", "points"),
    [
        ("7H 8H 9H QC QD QS AC 2C 3C AD", 1 + 25),  # defender lower: difference + 25
        ("7H 8H 9H QC QD QS AC 2C 3C 2H", 0 + 25),  # equal counts: the defender wins too
    ],
)
def test_undercut_gives_the_defender_the_difference_and_the_bonus(defender, points):
    deal = arranged(defender, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    deal.apply(A("knock 9C"))
    out = deal.outcome
    assert out.termination is Termination.UNDERCUT
    assert (out.winner, out.knocker) == (0, 1)
    assert out.points == points


def test_gin_scores_defender_deadwood_plus_bonus_and_allows_no_lay_offs():
    deal = arranged("8H 9H 3H QC QD JH 2C 4C 6D TD", KNOCKER, "7H")
    deal.apply(A("take_upcard"))
    legal = names(deal.legal_actions())
    assert "gin 9C" in legal and "knock 9C" not in legal
    deal.apply(A("gin 9C"))
    out = deal.outcome
    assert out.termination is Termination.GIN and out.winner == 1
    assert out.layoffs == (), "8H 9H would fit 4H-7H, but nobody lays off after gin"
    assert out.defender_points == 72
    assert out.points == 72 + 25


def test_knocking_with_no_deadwood_is_gin():
    deal = arranged("8H 9H 3H QC QD JH 2C 4C 6D TD", KNOCKER, "7H")
    deal.apply(A("take_upcard"))
    deal.apply(A("knock 9C"))
    assert deal.outcome.termination is Termination.GIN


def test_big_gin_lays_down_all_eleven_for_the_big_bonus():
    deal = arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", KNOCKER.replace("9C", "7H"), "8H")
    deal.apply(A("take_upcard"))
    assert "big_gin" in names(deal.legal_actions())
    deal.apply(A("big_gin"))
    out = deal.outcome
    assert out.termination is Termination.BIG_GIN and out.winner == 1
    assert out.knock_card is None and out.knocker_points == 0
    assert out.points == 69 + 31


def test_big_gin_needs_eleven_melded_cards():
    deal = arranged(DEFENDER, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    assert refused(deal, A("big_gin")).rule == "big_gin_needs_eleven_melded"
    assert refused(deal, A("gin 9C")).rule == "gin_needs_no_deadwood"


def test_knocking_over_the_limit_is_refused_naming_the_limit():
    deal = arranged(DEFENDER, "AS 2S 3S 4H 5H 6H KD KC 9C 8C", "QS", stock="2D")
    deal.apply(A("pass"))
    deal.apply(A("pass"))
    deal.apply(A("draw_stock"))
    assert not any(a.kind.value == "knock" for a in deal.legal_actions())
    error = refused(deal, A("knock KD"))
    assert error.rule == "knock_limit" and "deadwood 29 is over the knock limit of 10" in str(error)


def test_declared_melds_are_used_and_checked():
    deal = arranged(DEFENDER, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    assert isinstance(refused(deal, A("knock 9C [AS 2S 3S 4H]")), InvalidMeldsError)
    assert isinstance(refused(deal, A("knock 9C [4H 5H 6H 7H]")), InvalidMeldsError)
    assert isinstance(refused(deal, A("knock 9C [AS 2S 3S] [AS 2S 3S]")), InvalidMeldsError)
    assert refused(deal, A("knock 9C [AS 2S 3S] [4H 5H 6H]")).rule == "knock_limit"
    deal.apply(A("knock 9C [KC KD KS] [4H 5H 6H] [AS 2S 3S]"))
    assert set(deal.outcome.knocker_melds) == {M("KC KD KS"), M("4H 5H 6H"), M("AS 2S 3S")}
    assert deal.outcome.points == 60


def test_acting_after_the_deal_ended_is_refused():
    deal = arranged(DEFENDER, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    deal.apply(A("knock 9C"))
    refused(deal, A("draw_stock"), DealOverError)


# --- drawn hands -----------------------------------------------------------------------------


def play_out_the_stock(deal: Deal) -> None:
    """Both pass the upcard, then each draws from the stock and throws the card drawn."""
    deal.apply(A("pass"))
    deal.apply(A("pass"))
    while deal.phase is not Phase.OVER and deal.phase < Phase.FIFTIETH_OFFER:
        drawn = deal.stock[-1]
        deal.apply(A("draw_stock"))
        deal.apply(Action.discard(drawn))


def test_the_hand_is_drawn_when_a_discard_leaves_two_cards_in_the_stock():
    deal = arranged(DEFENDER, KNOCKER, "QS")
    play_out_the_stock(deal)
    assert deal.outcome.termination is Termination.DRAW
    assert deal.outcome.winner is None and deal.outcome.points == 0
    assert deal.stock_size == 2


def test_fiftieth_card_offers_the_last_discard_and_allows_knocking_with_it():
    rules = STANDARD.replace(fiftieth_card=True)
    deal = arranged(
        "7H 8H 9H QC QD QS 2C 3C 4C 9S", "KC KD 2D 4D 6S 8S TC JH 3H 5H", "AD", rules=rules
    )
    play_out_the_stock(deal)
    assert (deal.phase, deal.to_act) == (Phase.FIFTIETH_OFFER, 0)
    assert names(deal.legal_actions()) == ["draw_discard", "pass"]
    last = deal.discards[-1]
    deal.apply(A("draw_discard"))
    assert deal.phase is Phase.FIFTIETH_DECIDE
    legal = names(deal.legal_actions())
    assert f"knock {card_name(last)}" in legal and legal[-1] == "pass"
    assert not any(a.startswith("discard") for a in legal)
    deal.apply(Action.knock(last))
    assert deal.outcome.termination in (Termination.KNOCK, Termination.UNDERCUT)
    assert deal.outcome.knocker == 0 and deal.outcome.knocker_points == 9


def test_fiftieth_card_declined_is_a_drawn_hand():
    rules = STANDARD.replace(fiftieth_card=True)
    deal = arranged(DEFENDER, KNOCKER, "QS", rules=rules)
    play_out_the_stock(deal)
    deal.apply(A("pass"))
    assert deal.outcome.termination is Termination.DRAW


# --- variants ----------------------------------------------------------------------------------


def test_oklahoma_upcard_sets_the_knock_limit_and_a_spade_doubles():
    deal = arranged(DEFENDER, KNOCKER, "7S", stock="2D", rules=OKLAHOMA)
    assert (deal.knock_limit, deal.multiplier) == (7, 2)
    deal.apply(A("pass"))
    deal.apply(A("pass"))
    deal.apply(A("draw_stock"))
    deal.apply(A("knock 9C"))
    assert deal.outcome.points == (62 - 2) * 2


#: The rule book's Oklahoma table, written out rather than asked of the
#: engine: the first upcard's rank sets the knock limit (ten and court cards 10, number cards
#: their value, an ace gin only), and only a spade doubles the hand's score.
OKLAHOMA_KNOCK_LIMIT = {
    "A": 0, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 10, "J": 10, "Q": 10, "K": 10,
}  # fmt: skip
OKLAHOMA_MULTIPLIER = {"C": 1, "D": 1, "H": 1, "S": 2}


@pytest.mark.parametrize("upcard", [r + s for s in "CDHS" for r in "A23456789TJQK"])
def test_oklahoma_every_upcard_sets_the_rule_books_knock_limit_and_multiplier(upcard):
    deck = [c for c in range(52) if c != C(upcard)]
    deck.insert(20, C(upcard))  # card 20 of the deck is the upcard
    deal = Deal.from_deck(deck, dealer=0, rules=OKLAHOMA)
    assert deal.upcard == C(upcard)
    assert deal.knock_limit == OKLAHOMA_KNOCK_LIMIT[upcard[0]]
    assert deal.multiplier == OKLAHOMA_MULTIPLIER[upcard[1]]
    standard = Deal.from_deck(deck, dealer=0, rules=STANDARD)
    assert (standard.knock_limit, standard.multiplier) == (10, 1)


@pytest.mark.parametrize("upcard", ["7C", "7D", "9H", "7S"])
def test_oklahoma_scores_a_knock_times_the_upcards_suit_multiplier(upcard):
    """The same knock under an upcard of each suit: 60 points, doubled for a spade only."""
    deal = arranged(DEFENDER, KNOCKER, upcard, stock="2D", rules=OKLAHOMA)
    deal.apply(A("pass"))
    deal.apply(A("pass"))
    deal.apply(A("draw_stock"))
    deal.apply(A("knock 9C"))
    assert deal.outcome.termination is Termination.KNOCK
    assert deal.outcome.points == (62 - 2) * OKLAHOMA_MULTIPLIER[upcard[1]]


def test_oklahoma_ace_upcard_allows_gin_only():
    deal = arranged(DEFENDER, KNOCKER, "AC", stock="2D", rules=OKLAHOMA)
    assert (deal.knock_limit, deal.multiplier) == (0, 1)
    deal.apply(A("pass"))
    deal.apply(A("pass"))
    deal.apply(A("draw_stock"))
    assert not any(a.startswith("knock") for a in names(deal.legal_actions()))
    assert refused(deal, A("knock 9C")).rule == "knock_limit"


def test_straight_gin_has_no_knocking():
    deal = arranged(DEFENDER, KNOCKER, "2D", rules=STRAIGHT)
    deal.apply(A("take_upcard"))
    assert not any(a.startswith("knock") for a in names(deal.legal_actions()))
    assert refused(deal, A("knock 9C")).rule == "straight_gin_no_knock"


def test_straight_gin_still_ends_with_gin():
    deal = arranged("8H 9H 3H QC QD JH 2C 4C 6D TD", KNOCKER, "7H", rules=STRAIGHT)
    deal.apply(A("take_upcard"))
    deal.apply(A("gin 9C"))
    assert deal.outcome.termination is Termination.GIN


# --- logs ------------------------------------------------------------------------------------


def test_the_log_replays_to_the_same_state_and_serialises_to_json():
    deal = arranged(DEFENDER, KNOCKER, "2D")
    deal.apply(A("take_upcard"))
    deal.apply(A("knock 9C"))
    again = Deal.from_log_json(deal.log_json())
    assert again.outcome == deal.outcome and again.log == deal.log
    seeded = Deal.new(3, 1)
    seeded.apply(A("pass"))
    seeded.apply(A("pass"))
    assert Deal.from_log_json(seeded.log_json()).hands == seeded.hands
    assert seeded.log_json()["actions"] == [[0, "pass"], [1, "pass"]]


def test_a_seed_shuffles_the_deck_as_pythons_random_does():
    for seed in [*range(200), 2**62 + 12345, 4084479675647724271]:
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        assert shuffled_deck(seed) == deck
