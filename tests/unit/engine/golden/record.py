"""Record the golden deals and matches: ``python -m tests.unit.engine.golden.record``.

Run it only when a rule change is meant to change recorded outcomes; the files it writes
are the reference the replay tests hold the engine to.
"""

import json
import random
from pathlib import Path

from games.engine.bots import make_bot
from games.engine.deal import Deal
from games.engine.match import Match
from games.engine.rules import PRESETS, STANDARD
from games.engine.views import view_for

HERE = Path(__file__).parent

RULES = {
    **PRESETS,
    "fiftieth": STANDARD.replace(name="fiftieth", fiftieth_card=True),
    "duplicate": STANDARD.replace(name="duplicate", duplicate_deals=True),
}


def choose(legal, rng):
    endings = [a for a in legal if a.kind.value in ("knock", "gin", "big_gin")]
    return rng.choice(endings) if endings and rng.random() < 0.8 else rng.choice(legal)


def record_deals():
    deals = []
    rng = random.Random(1)
    for name, rules in RULES.items():
        found = set()  # the first deal of each way a deal can end, per rule set
        for seed in range(1, 300):
            deal = Deal.new(seed * 7919, seed % 2, rules)
            while not deal.is_over:
                deal.apply(choose(deal.legal_actions(), rng))
            kind = deal.outcome.termination.value
            if kind in found:
                continue
            found.add(kind)
            deals.append(
                {
                    "name": f"{name}-{kind}-{seed}",
                    **deal.log_json(),
                    "outcome": deal.outcome.to_json(),
                }
            )
    deals.extend(bot_deals())
    (HERE / "deals.json").write_text(json.dumps(deals, indent=1) + "\n")


#: Endings random play almost never reaches: (rules, termination, multiplier of a scored
#: hand). Oklahoma's multiplier 2 is a hand scored double under a spade upcard.
BOT_WANTED = (
    ("standard", "undercut", 1),
    ("standard", "big_gin", 1),
    ("oklahoma", "knock", 2),
)


def bot_deals():
    """The first deal of each wanted ending, played by the greedy bot against the expert."""
    out = []
    for name, kind, multiplier in BOT_WANTED:
        for seed in range(1, 3000):
            bots = (make_bot("greedy", seed), make_bot("expert", seed))
            deal = Deal.new(seed * 7919, seed % 2, RULES[name])
            while not deal.is_over:
                deal.apply(bots[deal.to_act].choose(view_for(deal, deal.to_act)))
            outcome = deal.outcome
            if (
                outcome.termination.value == kind
                and outcome.points
                and (deal.multiplier == multiplier)
            ):
                suffix = "-spade-doubled" if multiplier == 2 else ""
                out.append(
                    {
                        "name": f"{name}-{kind}{suffix}-{seed}",
                        **deal.log_json(),
                        "outcome": outcome.to_json(),
                    }
                )
                break
        else:
            raise AssertionError(f"no {name} {kind} deal found")
    return out


def record_matches():
    matches = []
    for name in ("standard", "hollywood", "duplicate"):
        rng = random.Random(name)
        match = Match(2026, RULES[name].replace(target=50, best_of=3))
        while not match.is_over:
            match.apply(choose(match.legal_actions(), rng))
        matches.append({"name": name, **match.log_json()})
    (HERE / "matches.json").write_text(json.dumps(matches) + "\n")


if __name__ == "__main__":
    record_deals()
    record_matches()
