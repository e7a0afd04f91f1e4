"""Hands played with real cards: entered from the score pad, scored by the book, refused
with a code naming the rule, and a table match that logs, replays and restores.

Alice is player 0 and Bob player 1 of every match here.
"""

import doctest
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import deal as deal_module
from games.engine import game as game_module
from games.engine import match as match_module
from games.engine import table as table_module
from games.engine.deal import Termination
from games.engine.errors import EngineError, EntryError
from games.engine.game import Game
from games.engine.match import Match
from games.engine.rules import HOLLYWOOD, OKLAHOMA, STANDARD, STRAIGHT, NextDealer
from games.engine.table import ENTRY_RULES, MAX_DEADWOOD, EnteredHand, HandKind

from .helpers import A, C, arranged, choose

ALICE, BOB = 0, 1


def knock(knocker: int, mine: int, theirs: int, upcard: str | None = None) -> EnteredHand:
    counts = [0, 0]
    counts[knocker], counts[1 - knocker] = mine, theirs
    return EnteredHand(HandKind.KNOCK, knocker, (counts[0], counts[1]), _card(upcard))


def gin(knocker: int, theirs: int, upcard: str | None = None, big: bool = False) -> EnteredHand:
    counts: list[int | None] = [None, None]
    counts[1 - knocker] = theirs
    kind = HandKind.BIG_GIN if big else HandKind.GIN
    return EnteredHand(kind, knocker, (counts[0], counts[1]), _card(upcard))


def _card(name: str | None) -> int | None:
    return None if name is None else C(name)


DRAWN = EnteredHand(HandKind.DRAWN, None, (None, None))


def scored(hand: EnteredHand, rules=STANDARD):
    out = hand.score(rules)
    return out.termination, out.winner, out.points


def test_the_engines_module_examples_hold():
    for module in (table_module, deal_module, game_module, match_module):
        assert doctest.testmod(module).failed == 0, module.__name__


# --- scoring by the book ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (knock(ALICE, 4, 30), (Termination.KNOCK, ALICE, 26)),
        (knock(BOB, 10, 11), (Termination.KNOCK, BOB, 1)),
        (knock(ALICE, 8, 3), (Termination.UNDERCUT, BOB, 5 + 25)),
        (knock(ALICE, 7, 7), (Termination.UNDERCUT, BOB, 0 + 25)),  # a tie is an undercut
        (knock(BOB, 0, 19), (Termination.GIN, BOB, 19 + 25)),  # no deadwood: gin
        (gin(ALICE, 40), (Termination.GIN, ALICE, 40 + 25)),
        (gin(ALICE, 0), (Termination.GIN, ALICE, 25)),
        (gin(BOB, 98, big=True), (Termination.BIG_GIN, BOB, 98 + 31)),
        (DRAWN, (Termination.DRAW, None, 0)),
    ],
)
def test_an_entered_hand_scores_by_the_rule_books_table(hand, expected):
    assert scored(hand) == expected


def test_the_bonuses_are_the_rules_options():
    rules = STANDARD.replace(gin_bonus=20, big_gin_bonus=50, undercut_bonus=10)
    assert scored(gin(ALICE, 5), rules)[2] == 25
    assert scored(gin(ALICE, 5, big=True), rules)[2] == 55
    assert scored(knock(ALICE, 9, 2), rules)[2] == 17


def test_gin_takes_the_knockers_deadwood_as_zero():
    assert gin(BOB, 12).deadwood == (12, 0)
    assert EnteredHand(HandKind.GIN, ALICE, (0, 12)) == gin(ALICE, 12)


def test_an_entered_hand_scores_like_the_same_hand_played_online():
    """The big gin, knock and undercut of test_deal, played online and then entered."""
    knocker = "AS 2S 3S 4H 5H 6H KD KC KS 9C"
    online = [
        (arranged("QC QD 2C 4C 6D TD 3D 9S 5S JC", knocker.replace("9C", "7H"), "8H"), "big_gin"),
        (arranged("7H 8H QC QH JD 3C 5C 5D 9D TS", knocker, "2D"), "knock 9C"),
        (arranged("7H 8H 9H QC QD QS AC 2C 3C 2H", knocker, "2D"), "knock 9C"),
    ]
    for deal, action in online:
        deal.apply(A("take_upcard"))
        deal.apply(A(action))
        out = deal.outcome
        kind = HandKind.BIG_GIN if out.termination is Termination.BIG_GIN else HandKind.KNOCK
        counts = [0, 0]
        counts[out.knocker], counts[1 - out.knocker] = out.knocker_points, out.defender_points
        entered = EnteredHand(kind, out.knocker, (counts[0], counts[1])).score(STANDARD)
        assert (entered.termination, entered.winner, entered.points) == (
            out.termination,
            out.winner,
            out.points,
        )


# --- variants ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upcard", "limit", "factor"),
    [("7C", 7, 1), ("7S", 7, 2), ("QH", 10, 1), ("2S", 2, 2), ("AD", 0, 1)],
)
def test_oklahoma_the_upcard_sets_the_knock_limit_and_a_spade_doubles(upcard, limit, factor):
    if limit:
        out = knock(ALICE, limit, 40, upcard).score(OKLAHOMA)
        assert (out.points, out.multiplier) == ((40 - limit) * factor, factor)
    with pytest.raises(EntryError) as refused:
        knock(ALICE, limit + 1, 40, upcard).score(OKLAHOMA)
    assert refused.value.rule == "knock_limit"
    assert str(refused.value) == (
        f"deadwood {limit + 1} is over the knock limit of {limit} set by the upcard {upcard}"
    )
    assert gin(BOB, 10, upcard).score(OKLAHOMA).points == (10 + 25) * factor


def test_oklahoma_ace_upcard_a_knock_with_no_deadwood_is_gin():
    assert scored(knock(BOB, 0, 30, "AS"), OKLAHOMA) == (Termination.GIN, BOB, (30 + 25) * 2)


def test_other_rules_keep_the_upcard_but_score_nothing_by_it():
    hand = knock(ALICE, 9, 20, "AS")
    assert scored(hand) == (Termination.KNOCK, ALICE, 11)
    assert hand.to_json()["upcard"] == "AS"
    with pytest.raises(EntryError) as refused:
        knock(ALICE, 11, 20, "KS").score(STANDARD)
    assert str(refused.value) == "deadwood 11 is over the knock limit of 10"


def test_straight_gin_refuses_a_knock_but_scores_one_with_no_deadwood_as_gin():
    with pytest.raises(EntryError) as refused:
        knock(ALICE, 1, 20).score(STRAIGHT)
    assert refused.value.rule == "straight_gin_no_knock"
    assert scored(knock(ALICE, 0, 20), STRAIGHT) == (Termination.GIN, ALICE, 45)


# --- refusals ------------------------------------------------------------------------------


def _entered(rules, hand_or_json, setup=None):
    """Build (from JSON when given a dict) and enter a hand into a fresh match."""
    match = Match(3, rules)
    if setup is not None:
        setup(match)
    before = match.snapshot()
    try:
        hand = (
            EnteredHand.from_json(hand_or_json)
            if isinstance(hand_or_json, dict | list | str)
            else hand_or_json()
        )
        match.enter(hand)
    finally:
        assert match.snapshot() == before, "a refused hand changes nothing"


def _finish(match: Match) -> None:
    while not match.is_over:
        match.enter(gin(ALICE, 98, big=True))


def _start_online(match: Match) -> None:
    match.apply(match.legal_actions()[0])


REFUSALS = [
    ("invalid_entry", STANDARD, ["knock"]),
    ("invalid_entry", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [1, 2], "x": 1}),
    ("invalid_entry", STANDARD, {"knocker": 0, "deadwood": [1, 2]}),
    ("invalid_entry", STANDARD, {"kind": "undercut", "knocker": 0, "deadwood": [1, 2]}),
    ("invalid_entry", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [1, 2, 3]}),
    ("invalid_entry", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": 12}),
    ("invalid_entry", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": ["3", 20]}),
    ("invalid_entry", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [True, 20]}),
    ("invalid_card", STANDARD, {"kind": "gin", "knocker": 0, "deadwood": [0, 9], "upcard": "ZZ"}),
    ("invalid_card", STANDARD, {"kind": "gin", "knocker": 0, "deadwood": [0, 9], "upcard": 7}),
    ("invalid_card", STANDARD, lambda: EnteredHand(HandKind.GIN, 0, (0, 9), upcard=52)),
    ("knocker_required", STANDARD, {"kind": "knock", "deadwood": [3, 20]}),
    ("knocker_required", STANDARD, {"kind": "gin", "knocker": 2, "deadwood": [3, 20]}),
    ("knocker_required", STANDARD, {"kind": "big_gin", "knocker": "0", "deadwood": [3, 20]}),
    ("knocker_required", STANDARD, {"kind": "gin", "knocker": True, "deadwood": [0, 20]}),
    ("drawn_hand_no_score", STANDARD, {"kind": "drawn", "knocker": 0}),
    ("drawn_hand_no_score", STANDARD, {"kind": "drawn", "deadwood": [0, 0]}),
    ("deadwood_missing", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [None, 20]}),
    ("deadwood_missing", STANDARD, {"kind": "knock", "knocker": 1, "deadwood": [None, 2]}),
    ("deadwood_missing", STANDARD, {"kind": "gin", "knocker": 1, "deadwood": [None, 0]}),
    ("deadwood_missing", STANDARD, {"kind": "big_gin", "knocker": 0}),
    ("deadwood_range", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [5, 99]}),
    ("deadwood_range", STANDARD, {"kind": "knock", "knocker": 0, "deadwood": [-1, 20]}),
    ("gin_with_deadwood", STANDARD, {"kind": "gin", "knocker": 0, "deadwood": [4, 20]}),
    ("gin_with_deadwood", STANDARD, {"kind": "big_gin", "knocker": 1, "deadwood": [20, 1]}),
    ("upcard_required", OKLAHOMA, {"kind": "gin", "knocker": 0, "deadwood": [0, 20]}),
    ("straight_gin_no_knock", STRAIGHT, {"kind": "knock", "knocker": 0, "deadwood": [3, 20]}),
    ("knock_limit", STANDARD, {"kind": "knock", "knocker": 1, "deadwood": [20, 11]}),
    ("knock_limit", OKLAHOMA, {"kind": "knock", "knocker": 0, "deadwood": [4, 20], "upcard": "3H"}),
    ("duplicate_deals_at_table", STANDARD.replace(duplicate_deals=True), {"kind": "drawn"}),
    ("deal_in_progress", STANDARD, {"kind": "drawn"}, _start_online),
    ("match_over", STANDARD.replace(best_of=1), {"kind": "drawn"}, _finish),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[f"{c[0]}-{i}" for i, c in enumerate(REFUSALS)])
def test_a_hand_the_rules_refuse_names_the_rule_and_changes_nothing(case):
    rule, rules, hand, *setup = case
    with pytest.raises(EntryError) as refused:
        _entered(rules, hand, *setup)
    assert refused.value.rule == rule
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, EngineError)


def test_every_refusal_code_is_listed_and_tested():
    tested = {case[0] for case in REFUSALS} | {"game_over"}
    assert tested == set(ENTRY_RULES)


def test_a_game_refuses_a_hand_once_it_is_over():
    game = Game(1, ALICE, STANDARD.replace(target=50))
    game.enter(gin(BOB, 98, big=True))
    with pytest.raises(EntryError) as refused:
        game.enter(DRAWN)
    assert refused.value.rule == "game_over"


# --- JSON ----------------------------------------------------------------------------------

counts = st.one_of(st.none(), st.integers(0, MAX_DEADWOOD))


@st.composite
def entered_hands(draw):
    kind = draw(st.sampled_from(HandKind))
    upcard = draw(st.one_of(st.none(), st.integers(0, 51)))
    if kind is HandKind.DRAWN:
        return EnteredHand(kind, None, (None, None), upcard)
    knocker = draw(st.integers(0, 1))
    deadwood = [draw(st.integers(0, MAX_DEADWOOD)), draw(st.integers(0, MAX_DEADWOOD))]
    if kind is not HandKind.KNOCK:
        deadwood[knocker] = draw(st.sampled_from([0, None]))
    return EnteredHand(kind, knocker, (deadwood[0], deadwood[1]), upcard)


@given(entered_hands())
def test_an_entered_hand_round_trips_through_json(hand):
    data = json.loads(json.dumps(hand.to_json()))
    assert EnteredHand.from_json(data) == hand
    assert set(data) == {"kind", "knocker", "deadwood", "upcard"}


@given(
    st.dictionaries(
        st.sampled_from(["kind", "knocker", "deadwood", "upcard"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-5, 120),
            st.sampled_from(["knock", "gin", "big_gin", "drawn", "QS", "10h", "x"]),
            st.lists(st.one_of(st.none(), st.integers(-2, 100), st.text(max_size=2)), max_size=3),
        ),
    )
)
def test_any_json_is_an_entered_hand_or_refused_with_a_listed_code(data):
    try:
        hand = EnteredHand.from_json(data)
    except EntryError as error:
        assert error.rule in ENTRY_RULES
    else:
        assert EnteredHand.from_json(hand.to_json()) == hand


def test_the_upcard_is_written_as_a_card_name_and_read_in_any_notation():
    hand = EnteredHand.from_json({"kind": "gin", "knocker": 1, "deadwood": [7, 0], "upcard": "10h"})
    assert hand.upcard == C("TH")
    assert hand.to_json() == {"kind": "gin", "knocker": 1, "deadwood": [7, 0], "upcard": "TH"}


# --- a table match -------------------------------------------------------------------------


def test_who_deals_next_alternates_and_a_drawn_hand_is_dealt_again():
    match = Match(5, STANDARD)
    first = match.next_dealer
    assert first == match.cut_dealer
    record = match.enter(DRAWN)
    assert record.dealer == first and record.outcome.termination is Termination.DRAW
    assert match.next_dealer == first
    match.enter(knock(ALICE, 3, 20))
    assert match.next_dealer == 1 - first


def test_option_the_loser_of_the_hand_deals_next():
    match = Match(5, STANDARD.replace(next_dealer=NextDealer.LOSER))
    match.enter(knock(ALICE, 3, 20))
    assert match.next_dealer == BOB
    match.enter(knock(ALICE, 9, 2))  # Bob undercuts
    assert match.next_dealer == ALICE


def test_a_table_match_is_won_by_its_entered_hands_with_the_games_bonuses():
    match = Match(8, STANDARD.replace(target=100, best_of=3))
    match.enter(knock(ALICE, 2, 40))
    for _ in range(3):
        match.enter(gin(BOB, 20))  # 45 each: Bob reaches 135 on the third
    result = match.results[0]
    assert (result.winner, result.hand_points, result.hands_won) == (BOB, (38, 135), (1, 3))
    assert result.final == (38 + 25, 135 + 100 + 75)
    assert match.game_index == 1 and not match.is_over


def test_hollywood_a_players_nth_entered_win_scores_into_the_first_n_games():
    match = Match(2, HOLLYWOOD.replace(target=200))
    for _ in range(3):
        match.enter(gin(ALICE, 30))  # 55 into the first one, two, then three games
    match.enter(knock(BOB, 2, 12))
    columns = [col.scores for col in match.game.columns]
    assert columns == [[165, 10], [110, 0], [55, 0]]


def test_a_table_match_logs_its_entered_hands_and_replays_to_the_same_match():
    match = Match(13, STANDARD.replace(target=100))
    hands = [knock(ALICE, 5, 30), DRAWN, gin(BOB, 44, "KS"), knock(BOB, 10, 10)]
    while not match.is_over:
        match.enter(hands[len(match.game.deals) % len(hands)])
    log = json.loads(json.dumps(match.log_json()))
    first = log["games"][0]["deals"][0]
    assert first["hand"] == hands[0].to_json() and "actions" not in first
    assert first["outcome"]["termination"] == "knock" and first["outcome"]["points"] == 25
    again = Match.replay(log)
    assert again.log_json() == log
    assert again.winner == match.winner and again.margins == match.margins


def test_a_match_may_enter_hands_after_deals_played_online_and_replays():
    match = Match(17, STANDARD.replace(target=60, best_of=1))
    rng = random.Random(17)
    while not match.game.deals:
        match.apply(choose(match.legal_actions(), rng))
    while not match.is_over:
        match.enter(gin(ALICE, 10))
    log = json.loads(json.dumps(match.log_json()))
    assert Match.replay(log).log_json() == log


def test_a_table_match_restored_from_a_snapshot_goes_on_like_the_original():
    rules = HOLLYWOOD.replace(target=100)
    original = Match(23, rules)
    hands = [knock(ALICE, 5, 30), DRAWN, gin(BOB, 44), knock(BOB, 10, 4), gin(ALICE, 3, big=True)]
    step = 0
    while not original.is_over:
        restored = Match.from_snapshot(json.loads(json.dumps(original.snapshot())))
        assert restored.snapshot() == original.snapshot()
        assert restored.next_dealer == original.next_dealer
        hand = hands[step % len(hands)]
        assert restored.enter(hand).outcome == original.enter(hand).outcome
        assert restored.snapshot() == original.snapshot()
        step += 1
    assert restored.is_over and restored.winner == original.winner
