"""The master bot's search: more samples for a close call between the expert's choice and
the best other candidate."""

from __future__ import annotations

from games.engine.bots.master import MasterBot
from games.engine.views import view_for
from tests.deals import played


def test_a_close_call_plays_the_expert_choice_and_the_best_other_on_more_samples():
    # Every call is close (any lead counts, no lead is ever enough): the first searched
    # view where another candidate leads the expert's choice gets the extra samples.
    options = dict(samples=4, extra_samples=6, margin=-1e9, extend_z=-1e9, z=1e9, time_cap=30)
    for seed in range(40):
        deal = played(seed, 11)
        view = view_for(deal, deal.to_act)
        bot = MasterBot(3, **options)
        action = bot.choose(view)
        report = bot.report
        assert action in view.legal_actions
        if not report.searched:
            continue
        best = max(range(len(report.values)), key=lambda i: report.values[i])
        if report.candidates[best] == report.expert_choice:
            assert report.extra_samples == 0
            continue
        assert report.extra_samples == 6
        assert report.rollouts == 4 * len(report.candidates) + 2 * 6
        assert action == report.expert_choice  # z is out of reach
        again = MasterBot(3, **options)
        assert again.choose(view) == action and again.report.rollouts == report.rollouts
        return
    raise AssertionError("no searched view with another candidate ahead")


def test_no_extra_samples_when_the_lead_is_clear_or_there_is_none():
    deal = played(5, 13)
    view = view_for(deal, deal.to_act)
    never = MasterBot(3, samples=4, extra_samples=0, time_cap=30)
    never.choose(view)
    assert never.report.extra_samples == 0
    assert never.report.rollouts == 4 * len(never.report.candidates)
