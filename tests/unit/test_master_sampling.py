"""The master bot's opponent model: the sampled opponent hands (the best of several draws,
more as the deal goes on, charged for contradicting the opponent's past choices) and the
opponent's own rollout policy."""

from __future__ import annotations

import random
import statistics

import pytest

from games.engine.bots.expert import ExpertBot, read_history
from games.engine.bots.master import (
    MasterBot,
    RolloutPolicy,
    fit_events,
    misfits,
    rollout,
    sample_deals,
    unseen,
)
from games.engine.cards import BIT
from games.engine.melds import min_deadwood
from games.engine.views import PlayerView, view_for
from tests.deals import played


def card_mask(cards: list[int]) -> int:
    out = 0
    for card in cards:
        out |= BIT[card]
    return out


def pile_of(view: PlayerView) -> int:
    return card_mask(list(view.discards))


@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("picks", [1, 5])
@pytest.mark.parametrize("seed", [3, 11, 29])
def test_sampled_deals_keep_what_the_seat_has_seen(seed, picks, weighted):
    deal = played(seed, 17)
    seat = deal.to_act
    view = view_for(deal, seat)
    mask, hidden = unseen(view)
    known = view.known[1 - seat]
    weights = None
    if weighted:
        weights = [1.0 + (card % 7) for card in range(52)]
    events = fit_events(view)
    deals = sample_deals(
        view,
        random.Random(seed),
        6,
        weights=weights,
        picks=picks,
        events=events,
        fit_cost=3.0,
    )
    assert len(deals) == 6
    for sample in deals:
        assert sample.hands[seat] == view.hand
        other = sample.hands[1 - seat]
        assert other & known == known
        assert (other & ~known) & ~mask == 0
        assert (other & ~known).bit_count() == hidden
        assert card_mask(list(sample.stock)) == mask & ~other
        assert list(sample.discards) == list(view.discards)
        assert (sample.ply, sample.to_act, sample.phase) == (deal.ply, deal.to_act, deal.phase)
        assert sample.legal_actions() == deal.legal_actions()
        assert pile_of(view) & other == 0


def test_more_picks_deal_the_opponent_better_hands():
    deal = played(5, 21)
    seat = deal.to_act
    view = view_for(deal, seat)

    def mean_deadwood(picks: int) -> float:
        deals = sample_deals(view, random.Random(1), 60, picks=picks)
        return statistics.fmean(min_deadwood(d.hands[1 - seat]) for d in deals)

    one, six, twenty = mean_deadwood(1), mean_deadwood(6), mean_deadwood(20)
    assert one > six > twenty


def test_the_picks_grow_with_the_opponents_draws_up_to_the_cap():
    bot = MasterBot(0, opponent_picks=20, picks_per_draw=3)
    assert [bot._picks(draws) for draws in (0, 1, 2, 6, 7, 30)] == [1, 4, 7, 19, 20, 20]
    assert MasterBot(0, opponent_picks=0)._picks(9) == 1


@pytest.mark.parametrize("seed", [2, 8, 13, 21])
def test_the_fit_events_are_the_opponents_throws_and_passes(seed):
    deal = played(seed, 25)
    seat = deal.to_act
    view = view_for(deal, seat)
    thrown, declined, picked, _, _ = read_history(view)
    events = fit_events(view)
    cards = card_mask([card for card, _, _ in events])
    assert cards == thrown | declined
    for _, gone, back in events:
        assert gone & ~picked == 0
        assert back & ~thrown == 0
    # The first choice's "gone" is every card the opponent took from the pile after it.
    if events:
        first_gone = events[0][1]
        assert first_gone & picked == first_gone


def test_a_hand_contradicts_a_throw_it_would_have_melded():
    # 5 of the first suit thrown while holding the 5s of the second and third suits.
    five, other_five, third_five = 4, 13 + 4, 26 + 4
    hand = BIT[other_five] | BIT[third_five] | BIT[40] | BIT[50]
    assert misfits(hand, [(five, 0, 0)]) == 1
    # Had it taken one of those 5s from the pile after the throw, it did not hold it then.
    assert misfits(hand, [(five, BIT[other_five], 0)]) == 0
    # A card it threw after the choice was in its hand then.
    assert misfits(BIT[other_five], [(five, 0, BIT[third_five])]) == 1
    assert misfits(hand, []) == 0


def test_an_opponent_policy_of_its_own_plays_legal_deals_to_their_end():
    quick = RolloutPolicy(knock_early_turns=99)
    for seed in range(6):
        deal = played(seed, 9)
        seat = deal.to_act
        points = rollout(deal.copy(), seat, RolloutPolicy(), quick)
        assert isinstance(points, int)


def test_the_master_with_its_opponent_model_is_deterministic_and_legal():
    deal = played(7, 31)
    view = view_for(deal, deal.to_act)
    options = dict(
        samples=6,
        opponent_picks=12,
        picks_per_draw=3,
        fit_cost=2.0,
        opponent_policy=RolloutPolicy(knock_early_turns=99),
        time_cap=30,
    )
    first, second = MasterBot(4, **options), MasterBot(4, **options)
    action = first.choose(view)
    assert action in view.legal_actions
    assert action == second.choose(view)
    assert first.report.values == second.report.values


def test_the_opponents_default_rollouts_knock_as_soon_as_they_may():
    assert MasterBot(0).opponent_policy.knock_at_once
    assert not MasterBot(0).policy.knock_at_once
    deal = played(4, 40)  # late enough for the seat's own timing to ask for less
    at_once = RolloutPolicy(knock_at_once=True)
    assert all(at_once.knocks(deal, seat, 10) for seat in (0, 1))
    assert not RolloutPolicy().knocks(deal, deal.to_act, 10) or len(deal.stock) <= 6


def test_the_report_says_when_the_expert_was_overruled():
    deal = played(9, 19)
    view = view_for(deal, deal.to_act)
    bot = MasterBot(2, samples=8, time_cap=30)
    action = bot.choose(view)
    report = bot.report
    assert report.expert_choice == ExpertBot.choose(bot, view)
    assert report.overruled == (action != report.expert_choice)
