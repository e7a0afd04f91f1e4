"""Golden files: recorded deals and matches replay to the same outcomes and scores.

The files were written by ``golden/record.py``; a change that alters them is a change of
the rules as played, and must be deliberate.
"""

import json
from pathlib import Path

import pytest

from games.engine.cards import card_name
from games.engine.deal import Deal
from games.engine.match import Match

GOLDEN = Path(__file__).parent / "golden"
DEALS = json.loads((GOLDEN / "deals.json").read_text())
MATCHES = json.loads((GOLDEN / "matches.json").read_text())


@pytest.mark.parametrize("record", DEALS, ids=[d["name"] for d in DEALS])
def test_recorded_deal_replays_to_the_same_outcome(record):
    deal = Deal.from_log_json(record)
    assert deal.is_over
    assert deal.outcome.to_json() == record["outcome"]
    assert deal.log_json()["actions"] == record["actions"]


@pytest.mark.parametrize("record", MATCHES, ids=[m["name"] for m in MATCHES])
def test_recorded_match_replays_to_the_same_scores(record):
    match = Match.replay(record)
    replayed = match.log_json()
    assert replayed["results"] == record["results"]
    assert replayed["games"] == record["games"]
    assert (replayed["winner"], replayed["games_won"]) == (record["winner"], record["games_won"])


def test_the_golden_files_cover_every_way_a_deal_ends():
    kinds = {d["outcome"]["termination"] for d in DEALS}
    assert kinds == {"draw", "knock", "gin", "big_gin", "undercut"}


def test_the_golden_files_hold_a_hand_scored_double_under_a_spade_upcard():
    doubled = [
        (record, deal)
        for record in DEALS
        if (deal := Deal.from_log_json(record)).multiplier == 2 and record["outcome"]["points"]
    ]
    assert doubled
    for record, deal in doubled:
        assert record["rules"]["oklahoma"] and card_name(deal.upcard)[1] == "S"
        assert record["outcome"]["points"] % 2 == 0
