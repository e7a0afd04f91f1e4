"""Deals for engine tests: one game to 100, played some way in by the house expert."""

from __future__ import annotations

from games.engine.bots.expert import ExpertBot
from games.engine.deal import Deal
from games.engine.rules import RuleSet
from games.engine.views import view_for

RULES = RuleSet(target=100, best_of=1)


def played(seed: int, decisions: int) -> Deal:
    """A deal the expert played against itself for ``decisions`` actions (still live)."""
    deal = Deal.new(seed, seed & 1, RULES)
    bot = ExpertBot(seed)
    for _ in range(decisions):
        trial = deal.copy()
        trial.apply(bot.choose(view_for(trial, trial.to_act)))
        if trial.is_over:
            break
        deal = trial
    assert not deal.is_over
    return deal
