"""The arena: duplicate deals, confidence intervals, determinism and bad input."""

from __future__ import annotations

import io
import json

import pytest

from games.engine import arena
from games.engine.actions import Action
from games.engine.arena import ArenaConfig, run_arena, wilson
from games.engine.bots import BOTS, Bot, make_bot, register
from games.engine.bots.runner import play_match
from games.engine.game import derive_seed
from games.engine.match import Match
from games.engine.rules import RuleSet
from games.engine.views import PlayerView

#: Quick games: a few hands each.
QUICK = RuleSet(target=60)


class CheatingDiscarder(Bot):
    """Throws a card it does not hold once the hand is under way: an illegal action."""

    name = "test-arena-illegal"

    def choose(self, view: PlayerView) -> Action:
        if len(view.history) > 8:
            missing = next(c for c in range(52) if not view.hand >> c & 1)
            return Action.discard(missing)
        return view.legal_actions[0]


class Crasher(Bot):
    name = "test-arena-raising"

    def choose(self, view: PlayerView) -> Action:
        raise ZeroDivisionError("division by zero in the bot")


@pytest.fixture
def broken_bots():
    register(CheatingDiscarder)
    register(Crasher)
    yield
    del BOTS[CheatingDiscarder.name]
    del BOTS[Crasher.name]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = arena.main(argv, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_wilson_interval_matches_the_textbook_values():
    lo, hi = wilson(60, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.5020, 0.6906)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_every_deal_is_played_twice_with_the_seats_swapped():
    config = ArenaConfig(a="greedy", b="expert", rules=QUICK)
    match = Match(derive_seed(config.seed, "arena", 0), config.unit_rules())

    play_match(match, (make_bot("greedy", 1), make_bot("expert", 2)))

    deals = match.games[0].deals
    assert len(deals) % 2 == 0
    for first, second in zip(deals[::2], deals[1::2], strict=True):
        assert first.seed == second.seed and first.dealer == second.dealer
        assert (first.swap, second.swap) == (0, 1)
    assert arena.play_unit(config, index=0).hands % 2 == 0


def test_the_table_shows_rates_intervals_points_and_speed():
    status, out, err = run(["--a", "greedy", "--b", "random", "--games", "6", "--jobs", "1"])

    assert status == 0, err
    assert "greedy (A) vs random (B), 6 single games to 250" in out
    assert "duplicate deals, seed 1" in out
    for label in (
        "games won [95% CI]",
        "hands won [95% CI]",
        "mean points per hand",
        "decisions per second",
        "median decision time",
    ):
        assert label in out
    assert "matches won" not in out


def test_match_format_plays_best_of_five_and_reports_matches_and_games():
    config = ArenaConfig(a="expert", b="random", games=2, format="match", rules=QUICK, jobs=1)
    result = run_arena(config)

    assert result.sides[0].units_won == 2
    assert result.sides[0].games_won == 6  # three games won in each match
    table = arena.format_table(result)
    assert "2 best-of-5 matches to 60" in table and "matches won [95% CI]" in table


def test_json_summary_carries_the_same_numbers():
    status, out, _ = run(
        ["--a", "greedy", "--b", "random", "--games", "4", "--json", "--jobs", "1"]
    )

    data = json.loads(out)
    assert status == 0
    assert data["games"] == 4 and data["sides"][0]["bot"] == "greedy"
    assert data["sides"][0]["games_won"] + data["sides"][1]["games_won"] == 4
    lo, hi = data["sides"][0]["game_win_ci95"]
    assert 0 <= lo <= data["sides"][0]["unit_win_rate"] <= hi <= 1


def test_same_seed_same_result_whatever_the_number_of_jobs():
    config = ArenaConfig(a="expert", b="greedy", games=18, seed=5, rules=QUICK, jobs=1)
    one = run_arena(config)
    again = run_arena(config)
    two = run_arena(ArenaConfig(a="expert", b="greedy", games=18, seed=5, rules=QUICK, jobs=2))

    assert one.stats() == again.stats() == two.stats()
    other = run_arena(ArenaConfig(a="expert", b="greedy", games=18, seed=6, rules=QUICK, jobs=1))
    assert other.stats() != one.stats()


def test_each_bot_sits_in_both_seats():
    result = run_arena(ArenaConfig(a="greedy", b="random", games=4, rules=QUICK, jobs=1))

    assert [u.index for u in result.units] == [0, 1, 2, 3]
    assert result.sides[0].games_won == 4
    assert all(len(u.times[0]) and len(u.times[1]) for u in result.units)


def test_unknown_bot_is_refused_before_playing():
    status, out, err = run(["--a", "grandmaster", "--b", "greedy", "--games", "2"])

    assert status == 2 and out == ""
    assert "unknown bot 'grandmaster'" in err and "expert" in err and "greedy" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--a", "greedy", "--b", "random", "--games", "0"],
        ["--a", "greedy", "--b", "random", "--format", "league"],
        ["--a", "greedy", "--b", "random", "--rules", "klondike"],
        ["--a", "greedy"],
    ],
)
def test_bad_arguments_exit_with_status_two(argv, capsys):
    status, out, err = run(argv)

    assert status == 2 and out == ""
    assert err or capsys.readouterr().err


@pytest.mark.usefixtures("broken_bots")
@pytest.mark.parametrize(
    ("bot", "says"),
    [
        ("test-arena-illegal", "chose an illegal action discard"),
        ("test-arena-raising", "raised ZeroDivisionError: division by zero in the bot"),
    ],
)
def test_a_broken_bot_forfeits_and_the_arena_says_why(bot, says):
    status, out, err = run(["--a", "greedy", "--b", bot, "--games", "3", "--jobs", "1"])

    assert status == 1
    assert "forfeits (bot failed)" in out
    assert f"forfeit in unit 0 by {bot}: bot '{bot}' {says}" in out
    assert f"{bot} forfeited" in err
    result = run_arena(ArenaConfig(a="greedy", b=bot, games=3, jobs=1))
    assert result.sides[1].forfeits == 3 and result.sides[0].units_won == 3
    assert [index for index, _, _ in result.failures] == [0, 1, 2]
