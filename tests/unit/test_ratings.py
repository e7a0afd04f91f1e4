"""Elo as pure functions (ratings/elo.py): the K schedule, scoring options, properties."""

import dataclasses
import doctest
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings import elo as ratings
from ratings.elo import (
    MatchResult,
    RatingConfig,
    Scoring,
    Side,
    expected_score,
    k_factor,
    margin_multiplier,
    match_score,
    rate_match,
)

DEFAULT = RatingConfig()

rating_values = st.floats(min_value=100, max_value=3500, allow_nan=False)
played = st.integers(min_value=0, max_value=500)
sides = st.builds(Side, rating=rating_values, matches_played=played, is_bot=st.booleans())
results = st.builds(
    MatchResult,
    winner=st.sampled_from([0, 1]),
    games_won=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    margin_a=st.integers(-2000, 2000),
)
configs = st.builds(
    RatingConfig,
    scoring=st.sampled_from(list(Scoring)),
    human_bot_factor=st.sampled_from([1.0, 0.5, 0.25]),
)


def mirrored(result: MatchResult) -> MatchResult:
    return MatchResult(
        winner=1 - result.winner,
        games_won=(result.games_won[1], result.games_won[0]),
        margin_a=-result.margin_a,
    )


def test_the_module_examples_hold():
    assert doctest.testmod(ratings).failed == 0


# --- the defaults --------------------------------------------------------------------------


def test_everyone_starts_at_1500():
    assert DEFAULT.initial == ratings.INITIAL_RATING == 1500


def test_four_hundred_points_make_ten_to_one_odds():
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1500) == 0.5


@pytest.mark.parametrize(
    ("rating", "played", "k"),
    [
        (1500, 0, 40),
        (1500, 29, 40),  # provisional: the first 30 rated matches
        (2600, 29, 40),  # provisional even at the top
        (1500, 30, 20),
        (2399.9, 200, 20),
        (2400, 30, 10),  # from 2400
        (2700, 500, 10),
    ],
)
def test_the_k_schedule(rating, played, k):
    assert k_factor(rating, played, DEFAULT) == k


def test_a_new_player_beating_an_equal_gains_twenty():
    a, b = rate_match(Side(1500), Side(1500), MatchResult(winner=0), DEFAULT)
    assert (a.after, b.after) == (1520, 1480)
    assert (a.k, a.expected, a.score) == (40, 0.5, 1.0)


def test_established_players_move_half_as_fast():
    a, b = rate_match(Side(1500, 40), Side(1500, 40), MatchResult(winner=1), DEFAULT)
    assert (a.delta, b.delta) == (-10, 10)


def test_an_upset_moves_ratings_more_than_the_expected_result():
    upset, _ = rate_match(Side(1300, 50), Side(1700, 50), MatchResult(winner=0), DEFAULT)
    expected, _ = rate_match(Side(1700, 50), Side(1300, 50), MatchResult(winner=0), DEFAULT)
    assert upset.delta == pytest.approx(20 * 10 / 11)
    assert expected.delta == pytest.approx(20 / 11)


def test_different_k_factors_give_unequal_changes():
    newcomer, veteran = rate_match(Side(1500, 0), Side(1500, 100), MatchResult(winner=0), DEFAULT)
    assert (newcomer.delta, veteran.delta) == (20, -10)


# --- options -------------------------------------------------------------------------------


def test_by_default_a_match_scores_one_or_zero_whatever_the_games():
    close = MatchResult(winner=0, games_won=(3, 2))
    assert match_score(close, DEFAULT) == 1.0
    assert match_score(MatchResult(winner=1, games_won=(2, 3)), DEFAULT) == 0.0


def test_scoring_by_games_won_in_the_best_of_five():
    by_games = RatingConfig(scoring=Scoring.GAMES)
    assert match_score(MatchResult(winner=0, games_won=(3, 1)), by_games) == 0.75
    assert match_score(MatchResult(winner=1, games_won=(2, 3)), by_games) == 0.4
    # A forfeit before any game was completed still counts as a win.
    assert match_score(MatchResult(winner=1, games_won=(0, 0)), by_games) == 0.0
    a, b = rate_match(Side(1500), Side(1500), MatchResult(0, (3, 2)), by_games)
    assert (a.delta, b.delta) == pytest.approx((4, -4))


def test_margin_weighting_grows_k_with_the_margin_up_to_a_cap():
    by_margin = RatingConfig(scoring=Scoring.MARGIN)
    assert margin_multiplier(0, by_margin) == 1.0
    assert 1.0 < margin_multiplier(100, by_margin) < margin_multiplier(400, by_margin) < 2.0
    assert margin_multiplier(100_000, by_margin) == 2.0
    assert margin_multiplier(400, DEFAULT) == 1.0  # off unless the pool asks for it
    small, _ = rate_match(Side(1500), Side(1500), MatchResult(0, (3, 0), 50), by_margin)
    large, _ = rate_match(Side(1500), Side(1500), MatchResult(0, (3, 0), 900), by_margin)
    assert 20 < small.delta < large.delta <= 40


def test_human_bot_changes_can_be_halved():
    halved = RatingConfig(human_bot_factor=0.5)
    human, bot = rate_match(Side(1500), Side(1500, is_bot=True), MatchResult(0), halved)
    assert (human.delta, bot.delta) == (10, -10)
    # Two humans, or two bots, are not damped.
    a, b = rate_match(Side(1500, is_bot=True), Side(1500, is_bot=True), MatchResult(0), halved)
    assert (a.delta, b.delta) == (20, -20)


def test_a_floor_holds_a_losing_rating_up():
    floored = RatingConfig(floor=1000)
    _, loser = rate_match(Side(1010), Side(1010), MatchResult(winner=0), floored)
    assert loser.after == 1000 and loser.delta == -10
    _, under = rate_match(Side(1500), Side(990), MatchResult(winner=0), floored)
    assert under.after == 990 and under.delta == 0, "already under a raised floor: no loss"
    winner, _ = rate_match(Side(1000), Side(1500), MatchResult(winner=0), floored)
    assert winner.after > 1000


@pytest.mark.parametrize(
    "changes",
    [
        {"k_provisional": 0},
        {"provisional_matches": -1},
        {"human_bot_factor": 0},
        {"human_bot_factor": 1.5},
        {"margin_scale": 0},
        {"margin_cap": 0.5},
        {"floor": 2000},
    ],
)
def test_nonsense_settings_are_refused(changes):
    with pytest.raises(ValueError):
        RatingConfig(**changes)


@pytest.mark.parametrize(
    "result", [{"winner": 2}, {"winner": 0, "games_won": (-1, 3)}], ids=["winner", "games"]
)
def test_nonsense_results_are_refused(result):
    with pytest.raises(ValueError):
        MatchResult(**result)


# --- properties ----------------------------------------------------------------------------


@given(a=rating_values, b=rating_values)
def test_expected_scores_sum_to_one(a, b):
    assert expected_score(a, b) + expected_score(b, a) == pytest.approx(1.0, abs=1e-12)
    assert 0.0 < expected_score(a, b) < 1.0


@given(a=rating_values, b=rating_values, c=rating_values)
def test_a_higher_rating_expects_more(a, b, c):
    low, high = sorted((a, b))
    assert expected_score(low, c) <= expected_score(high, c)


@given(a=sides, b=sides, result=results, config=configs)
def test_two_players_with_the_same_k_gain_and_lose_the_same_amount(a, b, result, config):
    b = dataclasses.replace(b, rating=a.rating, matches_played=a.matches_played)
    # Any two sides with equal K will do; equal rating and history guarantee it.
    ua, ub = rate_match(a, b, result, config)
    assert ua.k == ub.k
    assert ua.delta == -ub.delta


@given(a=sides, b=sides, result=results, config=configs)
def test_equal_k_keeps_the_pool_zero_sum(a, b, result, config):
    ua, ub = rate_match(a, b, result, config)
    if ua.k == ub.k:
        assert ua.delta == -ub.delta
        assert ua.after + ub.after == pytest.approx(a.rating + b.rating)


@given(a=sides, b=sides, result=results, config=configs)
def test_updates_are_symmetric(a, b, result, config):
    ua, ub = rate_match(a, b, result, config)
    vb, va = rate_match(b, a, mirrored(result), config)
    assert ua.delta == pytest.approx(va.delta, abs=1e-9)
    assert ub.delta == pytest.approx(vb.delta, abs=1e-9)


@given(a=sides, b=sides, config=configs)
def test_updates_are_monotone_in_the_result(a, b, config):
    # From a heavy loss to a clean sweep, A's change never falls and B's never rises.
    ladder = [
        MatchResult(1, (0, 3)),
        MatchResult(1, (1, 3)),
        MatchResult(1, (2, 3)),
        MatchResult(0, (3, 2)),
        MatchResult(0, (3, 1)),
        MatchResult(0, (3, 0)),
    ]
    updates = [rate_match(a, b, r, config) for r in ladder]
    for (a1, b1), (a2, b2) in itertools.pairwise(updates):
        assert a1.delta <= a2.delta
        assert b1.delta >= b2.delta
    assert updates[0][0].delta <= 0 <= updates[-1][0].delta


@given(a=sides, b=sides, result=results)
def test_winning_never_costs_and_losing_never_pays(a, b, result):
    ua, ub = rate_match(a, b, result, DEFAULT)
    winner, loser = (ua, ub) if result.winner == 0 else (ub, ua)
    assert winner.delta >= 0 >= loser.delta


@given(a=sides, b=sides, result=results, floor=st.floats(100, 1500))
def test_no_loss_takes_a_rating_under_the_floor(a, b, result, floor):
    config = RatingConfig(floor=floor)
    for side, update in zip((a, b), rate_match(a, b, result, config), strict=True):
        assert update.after >= min(side.rating, floor)
        assert update.after == update.before + update.delta or update.after == floor
