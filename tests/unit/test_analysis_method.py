"""The analysis method (games.engine.analysis): decisions found, values, losses, marks, seeds."""

import random

import pytest

from games.engine import analysis
from games.engine.actions import DISCARDS, Action, ActionKind
from games.engine.bots import make_bot
from games.engine.bots.runner import play_match
from games.engine.deal import Deal
from games.engine.match import Match
from games.engine.melds import min_deadwood
from games.engine.rules import RuleSet
from games.engine.views import view_for

SHORT = RuleSet(target=25, best_of=1)


def played(seed: int, a: str = "expert", b: str = "greedy", rules: RuleSet = SHORT) -> dict:
    match = Match(seed, rules)
    assert play_match(match, (make_bot(a, seed), make_bot(b, seed + 1))) is None
    return match.log_json()


def test_every_turn_with_a_choice_is_a_decision_and_no_other():
    log = played(11)
    found = list(analysis.decisions(log))
    # Counted independently: replay the log and count the turns with two legal actions or more.
    replay = Match(int(log["seed"]), RuleSet.from_dict(log["rules"]))
    expected = []
    for game in log["games"]:
        for deal in game["deals"]:
            for text in deal["actions"]:
                live = replay.game
                if len(live.deal.legal_actions()) > 1:
                    expected.append((live.deal.ply, live.to_act_player, text))
                replay.apply(Action.parse(text))
    assert [(d.ply, d.player, str(d.taken)) for d in found] == expected
    assert found and all(d.view.seat == d.seat and d.view.to_act == d.seat for d in found)
    assert all(len(d.view.legal_actions) > 1 for d in found)


@pytest.mark.parametrize(
    ("loss", "mark"),
    [
        (0.0, None),
        (2.99, None),
        (3.0, "inaccuracy"),
        (5.99, "inaccuracy"),
        (6.0, "mistake"),
        (11.99, "mistake"),
        (12.0, "blunder"),
        (80.0, "blunder"),
    ],
)
def test_a_loss_earns_its_mark_by_the_documented_thresholds(loss, mark):
    assert analysis.mark_of(loss) == mark


def test_the_same_seed_gives_the_same_analysis_and_steps_add_up_to_one_run():
    log = played(12)
    whole = analysis.analyse_log(log, seed=5, samples=3)
    assert analysis.analyse_log(log, seed=5, samples=3) == whole
    rows, start = [], 0
    while True:  # one decision a step: every step's rows together are one run's
        more, total = analysis.analyse_some(log, 5, 3, start=start, budget=0.0)
        if not more:
            break
        assert len(more) == 1
        rows += more
        start += 1
    assert total == whole["decisions"] == len(rows)
    assert analysis.assemble(log, rows, 5, 3) == whole
    other = analysis.analyse_log(log, seed=6, samples=3)
    assert [r["values"] for g in other["games"] for d in g["deals"] for r in d["decisions"]] != [
        r["values"] for g in whole["games"] for d in g["deals"] for r in d["decisions"]
    ]


def test_the_rows_are_grouped_by_game_and_deal_and_summed_per_player():
    log = played(13)
    result = analysis.analyse_log(log, seed=1, samples=2)
    rows = [r for g in result["games"] for d in g["deals"] for r in d["decisions"]]
    assert len(rows) == result["decisions"]
    for g, game in enumerate(result["games"]):
        assert len(game["deals"]) == len(log["games"][g]["deals"])
        for d, deal in enumerate(game["deals"]):
            assert all((r["game"], r["deal"]) == (g, d) for r in deal["decisions"])
    for player, figures in enumerate(result["players"]):
        mine = [r for r in rows if r["player"] == player]
        assert figures["decisions"] == len(mine)
        marked = sum(1 for r in mine if r["mark"])
        assert figures["inaccuracies"] + figures["mistakes"] + figures["blunders"] == marked
        assert figures["accuracy"] == round(100 * (len(mine) - marked) / len(mine), 1)
        assert figures["average_loss"] == round(sum(r["loss"] for r in mine) / len(mine), 2)
    for row in rows:
        assert row["best_value"] == max(row["values"].values()) and row["loss"] >= 0
        assert row["value"] == row["values"][row["taken"]]
        if row["taken"] == row["best"]:
            assert row["loss"] == 0 and row["mark"] is None


def ginning_view(seed_from: int = 0):
    """A view where the seat to act may go gin (found by playing greedy deals)."""
    for seed in range(seed_from, seed_from + 400):
        deal = Deal.new(seed, 0, RuleSet())
        bot = make_bot("greedy", seed)
        while not deal.is_over:
            seat = deal.to_act
            view = view_for(deal, seat)
            gins = [a for a in view.legal_actions if a.kind is ActionKind.GIN]
            big = any(a.kind is ActionKind.BIG_GIN for a in view.legal_actions)
            if gins and not big:
                return view, gins[0]
            deal.apply(bot.choose(view))
    raise AssertionError("no deal offered a gin")


def test_going_gin_is_the_best_and_breaking_the_hand_instead_is_a_blunder():
    view, gin = ginning_view()

    def judged(taken):
        decision = analysis.Decision(
            game=0, deal=0, ply=view.ply, player=view.seat, seat=view.seat, view=view, taken=taken
        )
        return analysis.analyse_decision(decision, seed=3, samples=8)

    best = judged(gin)
    assert best["best"] == str(gin) and best["loss"] == 0 and best["mark"] is None
    # Throwing the card that leaves the most deadwood breaks a meld of a gin hand: the gin's
    # bonus and the opponent's deadwood are given up for a hand far from knocking.
    worst = max(
        (a for a in view.legal_actions if a.kind is ActionKind.DISCARD),
        key=lambda a: min_deadwood(view.hand ^ (1 << a.card)),
    )
    row = judged(worst)
    assert row["best"] == str(gin) and row["taken"] == str(worst)
    assert row["loss"] >= 12 and row["mark"] == "blunder"
    # Keeping the gin hand and discarding its spare card is close to the gin: not a blunder.
    kept = judged(DISCARDS[gin.card])
    assert kept["loss"] < row["loss"] and kept["mark"] != "blunder"


def test_the_analysis_reads_the_view_only_never_the_hidden_cards():
    """Two deals that differ only in cards the seat cannot see give the same figures."""
    deal = Deal.new(77, 1, RuleSet())
    bot = make_bot("greedy", 1)
    for _ in range(6):
        deal.apply(bot.choose(view_for(deal, deal.to_act)))
    seat = deal.to_act
    opponent = 1 - seat
    other = deal.copy()
    hidden = [
        c
        for c in range(52)
        if other.hands[opponent] >> c & 1 and not other.known[opponent] >> c & 1
    ]
    out, swap_in = random.Random(1).choice(hidden), other.stock[0]
    other.hands[opponent] = other.hands[opponent] & ~(1 << out) | (1 << swap_in)
    other.stock[0] = out
    views = view_for(deal, seat), view_for(other, seat)
    assert views[0] == views[1] and deal.hands[opponent] != other.hands[opponent]
    rows = [
        analysis.analyse_decision(
            analysis.Decision(
                game=0, deal=0, ply=v.ply, player=seat, seat=seat, view=v, taken=v.legal_actions[0]
            ),
            seed=4,
            samples=4,
        )
        for v in views
    ]
    assert rows[0] == rows[1]


def test_samples_must_be_positive():
    with pytest.raises(ValueError, match="samples"):
        analysis.analyse_some(played(15), seed=1, samples=0)


def test_agreement_with_the_house_expert_is_counted_per_player():
    """In expert v greedy, every decision of player 0 is the expert's own choice."""
    result = analysis.analyse_log(played(16, "expert", "greedy"), seed=2, samples=1)
    expert, greedy = result["players"]
    assert expert["expert_agreement"] == 100.0
    assert greedy["expert_agreement"] < 100.0
    rows = [r for g in result["games"] for d in g["deals"] for r in d["decisions"]]
    mine = [r for r in rows if r["player"] == 1]
    agreed = sum(1 for r in mine if r["taken"] == r["expert"])
    assert greedy["expert_agreement"] == round(100 * agreed / len(mine), 1)
    best = sum(1 for r in mine if r["loss"] == 0 and r["taken"] == r["best"])
    assert greedy["best_agreement"] == round(100 * best / len(mine), 1)
