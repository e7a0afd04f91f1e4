"""Glicko-2 as pure functions (ratings/glicko2.py): Glickman's worked example, the properties."""

import dataclasses
import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings import glicko2
from ratings.elo import MatchResult, Scoring
from ratings.glicko2 import (
    GlickoConfig,
    GlickoSide,
    Rating,
    deviation_after_absence,
    expected_score,
    rate_match,
    rate_period,
)

DEFAULT = GlickoConfig()

ratings_ = st.floats(min_value=500, max_value=3000, allow_nan=False)
deviations = st.floats(min_value=30, max_value=350, allow_nan=False)
volatilities = st.floats(min_value=0.03, max_value=0.12, allow_nan=False)
idle = st.floats(min_value=0, max_value=400, allow_nan=False)
sides = st.builds(
    GlickoSide,
    rating=ratings_,
    deviation=deviations,
    volatility=volatilities,
    is_bot=st.booleans(),
    idle_days=idle,
)
results = st.builds(
    MatchResult,
    winner=st.sampled_from([0, 1]),
    games_won=st.tuples(st.integers(0, 3), st.integers(0, 3)),
)
configs = st.builds(
    GlickoConfig,
    tau=st.sampled_from([0.3, 0.5, 1.2]),
    period_days=st.sampled_from([1.0, 7.0, 30.0]),
    scoring=st.sampled_from([Scoring.MATCH, Scoring.GAMES]),
    human_bot_factor=st.sampled_from([1.0, 0.5]),
)


def test_the_module_examples_hold():
    assert doctest.testmod(glicko2).failed == 0


# --- Glickman's worked example ---------------------------------------------------------------


def test_glickmans_worked_example():
    """A 1500/200/0.06 player beats 1400/30, loses to 1550/100 and 1700/300 (tau 0.5)."""
    player = Rating(1500, 200, 0.06)
    period = [
        (Rating(1400, 30, 0.06), 1.0),
        (Rating(1550, 100, 0.06), 0.0),
        (Rating(1700, 300, 0.06), 0.0),
    ]
    after = rate_period(player, period, tau=0.5)
    # The paper rounds its intermediate steps and prints 1464.06; exact arithmetic is 1464.05.
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.deviation == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_play_only_grows_the_deviation():
    after = rate_period(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500 and after.volatility == 0.06
    assert after.deviation == pytest.approx(((200 / 173.7178) ** 2 + 0.06**2) ** 0.5 * 173.7178)


def test_a_first_match_between_newcomers_moves_both_far():
    newcomer = GlickoSide(1500, 350, 0.06)
    a, b = rate_match(newcomer, newcomer, MatchResult(winner=0), DEFAULT)
    assert a.delta == -b.delta and a.delta > 150
    assert a.deviation_after < 350 and a.expected == b.expected == 0.5


def test_time_away_grows_the_deviation_up_to_a_newcomers():
    assert deviation_after_absence(60, 0.06, 0, DEFAULT) == 60
    week = deviation_after_absence(60, 0.06, 7, DEFAULT)
    year = deviation_after_absence(60, 0.06, 365, DEFAULT)
    assert 60 < week < year < 350
    assert deviation_after_absence(60, 0.06, 100_000, DEFAULT) == 350


def test_a_player_back_from_months_away_moves_more():
    regular = GlickoSide(1700, 60, 0.06)
    returning = dataclasses.replace(regular, idle_days=180)
    opponent = GlickoSide(1700, 60, 0.06)
    win = MatchResult(winner=0)
    assert rate_match(returning, opponent, win, DEFAULT)[0].delta > (
        rate_match(regular, opponent, win, DEFAULT)[0].delta
    )
    assert rate_match(returning, opponent, win, DEFAULT)[0].deviation_before > 60


def test_margin_scoring_is_refused():
    with pytest.raises(ValueError, match="margin"):
        GlickoConfig(scoring=Scoring.MARGIN)


def test_a_human_against_a_bot_moves_by_the_damping_factor():
    config = GlickoConfig(human_bot_factor=0.5)
    human, bot = GlickoSide(1500, 200, 0.06), GlickoSide(1500, 200, 0.06, is_bot=True)
    damped = rate_match(human, bot, MatchResult(winner=0), config)[0]
    full = rate_match(human, bot, MatchResult(winner=0), DEFAULT)[0]
    assert damped.delta == pytest.approx(full.delta / 2)


def test_the_floor_holds_a_loss():
    config = GlickoConfig(floor=1400)
    low = GlickoSide(1410, 300, 0.06)
    update = rate_match(low, GlickoSide(1410, 300, 0.06), MatchResult(winner=1), config)[0]
    assert update.after == 1400 and update.delta == -10


# --- properties ------------------------------------------------------------------------------


@given(a=ratings_, da=deviations, b=ratings_, db=deviations)
def test_expected_scores_sum_to_one(a, da, b, db):
    assert expected_score(a, da, b, db) + expected_score(b, db, a, da) == pytest.approx(1)


@given(side=sides, opponent=sides, result=results, config=configs)
def test_a_match_leaves_the_deviation_below_a_period_without_play(side, opponent, result, config):
    update = rate_match(side, opponent, result, config)[0]
    unplayed = (update.deviation_before**2 + (update.volatility_after * glicko2.SCALE) ** 2) ** 0.5
    assert update.deviation_after < unplayed
    assert update.deviation_before >= min(side.deviation, config.deviation)


@given(
    side=sides,
    gap=st.floats(-300, 300),
    result=results,
    config=configs,
)
def test_play_against_a_near_rating_shrinks_the_deviation(side, gap, result, config):
    # Each match is a rating period, which adds the volatility once: a deviation near that
    # floor (about 60 at volatility 0.06) has nothing to lose; an uncertain one shrinks.
    side = dataclasses.replace(
        side, deviation=max(side.deviation, 100), volatility=min(side.volatility, 0.06), idle_days=0
    )
    opponent = GlickoSide(side.rating + gap, 60, 0.06)
    update = rate_match(side, opponent, result, config)[0]
    assert update.deviation_after < update.deviation_before


@given(
    deviation=deviations,
    volatility=volatilities,
    days=st.floats(0, 1000),
    more=st.floats(0.01, 1000),
)
def test_the_deviation_grows_with_absence(deviation, volatility, days, more):
    sooner = deviation_after_absence(deviation, volatility, days, DEFAULT)
    later = deviation_after_absence(deviation, volatility, days + more, DEFAULT)
    assert sooner <= later <= DEFAULT.deviation
    assert later > sooner or later == DEFAULT.deviation


@given(side=sides, result=results, config=configs)
def test_equal_players_move_by_exact_opposites(side, result, config):
    same = dataclasses.replace(side, is_bot=False)
    a, b = rate_match(same, same, result, config)
    if config.floor is None:
        assert a.delta == pytest.approx(-b.delta, abs=1e-9)
        assert a.deviation_after == pytest.approx(b.deviation_after)
        assert a.volatility_after == pytest.approx(b.volatility_after)


@given(a=sides, b=sides, result=results, config=configs)
def test_swapping_the_sides_swaps_the_updates(a, b, result, config):
    forward = rate_match(a, b, result, config)
    mirrored = MatchResult(winner=1 - result.winner, games_won=result.games_won[::-1])
    backward = rate_match(b, a, mirrored, config)
    assert forward[0].after == pytest.approx(backward[1].after)
    assert forward[1].after == pytest.approx(backward[0].after)


@given(a=sides, b=sides, config=configs)
def test_a_win_never_moves_down_and_a_loss_never_up(a, b, config):
    won = rate_match(a, b, MatchResult(winner=0), config)[0]
    lost = rate_match(a, b, MatchResult(winner=1), config)[0]
    assert won.delta >= 0 >= lost.delta
