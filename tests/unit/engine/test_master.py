"""The master bot: its sampler of the hidden cards, legal play, blindness to hidden state,
determinism and the time cap."""

from __future__ import annotations

import itertools
import math
import random
import types
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.actions import Action, ActionKind
from games.engine.bots import BOTS, make_bot, master
from games.engine.bots.master import (
    TIME_CAP_ENV,
    MasterBot,
    RolloutPolicy,
    rollout,
    sample_deal,
    unseen,
)
from games.engine.bots.runner import play_match
from games.engine.cards import BIT, FULL_DECK, cards_of
from games.engine.deal import Deal
from games.engine.match import Match
from games.engine.rules import RuleSet
from games.engine.views import PlayerView, view_for
from tests.unit.engine.helpers import choose

SHORT = RuleSet(target=40, best_of=1)
RULE_VARIANTS = {
    "standard": SHORT,
    "oklahoma": SHORT.replace(oklahoma=True),
    "straight": SHORT.replace(straight=True),
    "fiftieth_card": SHORT.replace(fiftieth_card=True),
    "discard_drawn_upcard": SHORT.replace(allow_discard_of_drawn_upcard=True),
}


def position(seed: int, plies: int, rules: RuleSet = SHORT, bias: float = 0.1) -> Deal:
    """A deal after up to ``plies`` random actions (fewer if it would end), still live."""
    rng = random.Random(seed)
    deal = Deal.new(seed, seed & 1, rules)
    for _ in range(plies):
        action = choose(deal.legal_actions(), rng, ending_bias=bias)
        if action.kind in (ActionKind.KNOCK, ActionKind.GIN, ActionKind.BIG_GIN):
            break
        trial = deal.copy()
        trial.apply(action)
        if trial.is_over:
            break
        deal = trial
    assert not deal.is_over
    return deal


def pile_of(view: PlayerView) -> int:
    out = 0
    for card in view.discards:
        out |= BIT[card]
    return out


def scrambled(deal: Deal, seat: int, seed: int) -> Deal:
    """The same deal with the cards ``seat`` has not seen dealt differently: the unseen cards
    swap places in the deck, and the same actions are replayed on it."""
    view = view_for(deal, seat)
    mask, _ = unseen(view)
    deck = deal.initial_deck()
    places = [i for i, card in enumerate(deck) if mask >> card & 1]
    cards = [deck[i] for i in places]
    random.Random(seed).shuffle(cards)
    for i, card in zip(places, cards, strict=True):
        deck[i] = card
    other = Deal.from_deck(deck, deal.dealer, deal.rules)
    return other.play(deal.actions)


# --- the sampler ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 60),
    variant=st.sampled_from(sorted(RULE_VARIANTS)),
    weighted=st.booleans(),
)
def test_the_sampler_never_deals_a_card_the_seat_has_seen_elsewhere(seed, plies, variant, weighted):
    deal = position(seed, plies, RULE_VARIANTS[variant])
    seat = deal.to_act
    view = view_for(deal, seat)
    mask, hidden = unseen(view)
    weights = [random.Random(seed).random() + 0.01 for _ in range(52)] if weighted else None
    rng = random.Random(seed)
    for _ in range(5):
        sample = sample_deal(view, rng, weights)
        opponent = sample.hands[1 - seat]
        stock = 0
        for card in sample.stock:
            stock |= BIT[card]
        assert sample.hands[seat] == view.hand
        assert bytes(sample.discards) == bytes(view.discards)
        assert opponent & view.known[1 - seat] == view.known[1 - seat]
        dealt = opponent & ~view.known[1 - seat]
        assert dealt.bit_count() == hidden
        assert dealt & ~mask == 0 and stock & ~mask == 0  # nothing seen is dealt
        assert dealt | stock == mask and dealt & stock == 0
        assert len(sample.stock) == view.stock_size
        # The seat cannot tell the sample from the real deal, and may play on in it.
        assert view_for(sample, seat) == view
        assert sample.legal_actions() == deal.legal_actions()


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability ~0.001 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_the_sampler_deals_every_unseen_card_with_the_right_frequency():
    deal = position(11, 23)
    seat = deal.to_act
    view = view_for(deal, seat)
    mask, hidden = unseen(view)
    cards = cards_of(mask)
    n, k = len(cards), hidden
    assert n > 20 and 0 < k < n
    rng = random.Random(5)
    draws = 6000
    held: Counter[int] = Counter()
    top: Counter[int] = Counter()
    for _ in range(draws):
        sample = sample_deal(view, rng)
        for card in cards_of(sample.hands[1 - seat] & mask):
            held[card] += 1
        top[sample.stock[-1]] += 1
    assert set(held) <= set(cards) and set(top) <= set(cards)
    # In the opponent's hand: each unseen card with chance k/n.  The counts of a draw of k
    # of n are negatively correlated; scaled by p(1-p) n/(n-1) the statistic is chi-square
    # with n-1 degrees of freedom.
    p = k / n
    scale = draws * p * (1 - p) * n / (n - 1)
    statistic = sum((held[c] - draws * p) ** 2 for c in cards) / scale
    assert statistic < _chi_square_critical(n - 1), statistic
    # On top of the stock (the next card drawn): each unseen card with chance 1/n.
    expected = draws / n
    statistic = sum((top[c] - expected) ** 2 / expected for c in cards)
    assert statistic < _chi_square_critical(n - 1), statistic


def test_the_weighted_sampler_favours_the_heavier_cards():
    deal = position(11, 23)
    seat = deal.to_act
    view = view_for(deal, seat)
    mask, _ = unseen(view)
    cards = cards_of(mask)
    heavy = set(cards[::2])
    weights = [5.0 if c in heavy else 1.0 for c in range(52)]
    rng = random.Random(3)
    held: Counter[int] = Counter()
    for _ in range(1500):
        for card in cards_of(sample_deal(view, rng, weights).hands[1 - seat] & mask):
            held[card] += 1
    light_mean = sum(held[c] for c in cards if c not in heavy) / (len(cards) - len(heavy))
    heavy_mean = sum(held[c] for c in heavy) / len(heavy)
    assert heavy_mean > 2 * light_mean


def test_a_sample_plays_on_to_the_end_of_the_deal():
    deal = position(4, 17)
    view = view_for(deal, deal.to_act)
    sample = sample_deal(view, random.Random(1))
    points = rollout(sample, view.seat or 0, RolloutPolicy())
    assert sample.is_over and sample.outcome is not None
    assert abs(points) == (sample.outcome.points if sample.outcome.winner is not None else 0)


# --- the bot -------------------------------------------------------------------------------


def test_the_master_is_a_registered_strategy():
    assert "master" in BOTS
    bot = make_bot("master", seed=3)
    assert type(bot) is MasterBot


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 70),
    variant=st.sampled_from(sorted(RULE_VARIANTS)),
)
def test_the_master_never_makes_an_illegal_move(seed, plies, variant):
    deal = position(seed, plies, RULE_VARIANTS[variant], bias=0.02)
    view = view_for(deal, deal.to_act)
    bot = MasterBot(seed, samples=3)
    action = bot.choose(view)
    assert action in view.legal_actions
    deal.apply(action)  # the engine agrees
    if bot.report.searched:
        assert all(a in view.legal_actions for a in bot.report.candidates)


@pytest.mark.parametrize("variant", ["standard", "oklahoma", "straight", "fiftieth_card"])
def test_the_master_plays_a_whole_game_without_a_forfeit(variant):
    rules = RULE_VARIANTS[variant]
    match = Match(17, rules)
    assert play_match(match, (MasterBot(1, samples=2), make_bot("expert", 2))) is None
    assert match.is_over and match.winner is not None


@pytest.mark.parametrize("seed", [3, 8, 21, 40])
def test_the_master_never_reads_hidden_state(seed):
    deal = position(seed, 14 + seed % 9)
    seat = deal.to_act
    other = scrambled(deal, seat, seed)
    # The hidden cards differ; what the seat sees does not.
    assert (other.hands[1 - seat], bytes(other.stock)) != (deal.hands[1 - seat], bytes(deal.stock))
    view, same = view_for(deal, seat), view_for(other, seat)
    assert view == same
    first, second = MasterBot(seed, samples=8), MasterBot(seed, samples=8)
    assert first.choose(view) == second.choose(same)
    assert first.report.values == second.report.values
    assert first.report.candidates == second.report.candidates


def test_the_same_seed_and_view_give_the_same_decision_and_values():
    view = view_for(position(5, 21), position(5, 21).to_act)
    a, b = MasterBot(9, samples=6), MasterBot(9, samples=6)
    assert a.choose(view) == b.choose(view) and a.report.values == b.report.values
    assert a.choose(view) == a.choose(view)  # a pure function of the seed and the view


def test_the_master_searches_the_candidates_and_keeps_the_expert_choice_among_them():
    deal = position(2, 20)
    while deal.phase.name != "DISCARD":
        deal.apply(RolloutPolicy().choose(deal))
    view = view_for(deal, deal.to_act)
    bot = MasterBot(1, samples=4)
    bot.choose(view)
    report = bot.report
    expert = make_bot("expert").choose(view)
    assert report.searched and report.samples == 4
    assert expert in report.candidates and len(report.candidates) >= 2
    assert report.rollouts == 4 * len(report.candidates) + 2 * report.extra_samples
    assert len(report.values) == len(report.candidates)


def test_the_time_cap_holds(monkeypatch):
    deal = position(2, 20)
    while deal.phase.name != "DISCARD":
        deal.apply(RolloutPolicy().choose(deal))
    view = view_for(deal, deal.to_act)
    cap, step = 0.05, 0.001
    # The bot's clock moves a millisecond each time it is read (a real rollout takes a few):
    # the cap is tested as the bot counts it, whatever else runs on the machine.
    ticks = itertools.count()
    monkeypatch.setattr(
        master, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks) * step)
    )
    bot = MasterBot(1, samples=100_000, time_cap=cap)
    action = bot.choose(view)
    assert action in view.legal_actions
    assert bot.report.capped and bot.report.samples < 100_000
    # The cap is checked after every rollout: the bot stops at the first reading past it.
    assert bot.report.rollouts <= cap / step + 2, bot.report.rollouts
    assert bot.report.seconds <= cap + 3 * step, bot.report.seconds


def test_the_time_cap_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(TIME_CAP_ENV, "250")
    assert MasterBot(1).time_cap == 0.25
    monkeypatch.setenv(TIME_CAP_ENV, "not a number")
    assert MasterBot(1).time_cap == 1.0
    monkeypatch.delenv(TIME_CAP_ENV)
    assert MasterBot(1).time_cap == 1.0
    assert MasterBot(1, time_cap=0.1).time_cap == 0.1


def test_a_single_legal_action_and_gin_are_played_without_a_search():
    deal = Deal.new(3, 0)
    deal.apply(Action.pass_())
    deal.apply(Action.pass_())
    bot = MasterBot(1)
    assert bot.choose(view_for(deal, deal.to_act)) == Action.draw_stock()
    assert not bot.report.searched


def test_unseen_is_everything_but_the_hand_the_pile_and_the_known_cards():
    deal = position(6, 19)
    seat = deal.to_act
    view = view_for(deal, seat)
    mask, hidden = unseen(view)
    seen = view.hand | pile_of(view) | view.known[1 - seat]
    assert mask == FULL_DECK & ~seen
    assert hidden == deal.hands[1 - seat].bit_count() - view.known[1 - seat].bit_count()
    assert mask.bit_count() == hidden + len(deal.stock)


def test_the_searched_decisions_can_be_chosen():
    deal = position(2, 20)
    while deal.phase.name != "DRAW":
        deal.apply(RolloutPolicy().choose(deal))
    view = view_for(deal, deal.to_act)
    drawing = MasterBot(1, samples=2)
    drawing.choose(view)
    assert drawing.report.searched
    knocks_only = MasterBot(1, samples=2, search="knocks")
    assert knocks_only.choose(view) == make_bot("expert").choose(view)
    assert not knocks_only.report.searched
    assert (knocks_only.search_draws, knocks_only.search_discards) == (False, False)


def test_picking_the_opponents_best_of_several_samples_stays_legal_and_deterministic():
    deal = position(7, 31)
    view = view_for(deal, deal.to_act)
    first, second = (
        MasterBot(4, samples=4, opponent_picks=5),
        MasterBot(4, samples=4, opponent_picks=5),
    )
    action = first.choose(view)
    assert action in view.legal_actions
    assert action == second.choose(view) and first.report.values == second.report.values
