"""Standings: match points, the tiebreaks in the event's order, always a total order."""

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    Entrant,
    Result,
    standings,
    validate_tiebreaks,
)


@st.composite
def events(draw):
    """A field of players and random decided pairings between them (byes included)."""
    n = draw(st.integers(min_value=2, max_value=16))
    entrants = [
        Entrant(p, seed) for seed, p in enumerate(draw(st.permutations(range(1, n + 1))), 1)
    ]
    results = []
    for _ in range(draw(st.integers(min_value=0, max_value=3 * n))):
        a = draw(st.integers(1, n))
        if draw(st.integers(0, 9)) == 0:
            results.append(Result(a, None, a))
            continue
        b = draw(st.integers(1, n).filter(lambda x, a=a: x != a))
        winner = draw(st.sampled_from([a, b, None]))
        games_a, games_b = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        results.append(Result(a, b, winner, games_a, games_b, draw(st.integers(-500, 500))))
    tiebreaks = draw(st.permutations(TIEBREAKS))[: draw(st.integers(0, len(TIEBREAKS)))]
    return entrants, results, tiebreaks


@given(events())
def test_standings_are_a_total_order(event):
    entrants, results, tiebreaks = event
    rows = standings(entrants, results, tiebreaks=tiebreaks)
    assert [r.rank for r in rows] == list(range(1, len(entrants) + 1))
    assert sorted(r.player for r in rows) == sorted(e.id for e in entrants)


@given(events(), st.randoms(use_true_random=False))
def test_standings_do_not_depend_on_the_order_results_are_listed(event, rng):
    entrants, results, tiebreaks = event
    shuffled = results[:]
    rng.shuffle(shuffled)
    first = [r.player for r in standings(entrants, results, tiebreaks=tiebreaks)]
    assert first == [r.player for r in standings(entrants, shuffled, tiebreaks=tiebreaks)]


@given(events())
def test_match_points_never_rise_down_the_table_and_add_up(event):
    entrants, results, tiebreaks = event
    rows = standings(entrants, results, tiebreaks=tiebreaks, bye_points=1)
    points = [r.match_points for r in rows]
    assert points == sorted(points, reverse=True)
    assert sum(points) == sum(1 for r in results if r.winner is not None)


@given(events())
def test_each_tiebreak_orders_players_tied_on_everything_before_it(event):
    entrants, results, tiebreaks = event
    rows = standings(entrants, results, tiebreaks=tiebreaks)
    for upper, lower in itertools.pairwise(rows):
        for name in ("match_points", *tiebreaks):
            if getattr(upper, name) != getattr(lower, name):
                assert getattr(upper, name) > getattr(lower, name)
                break
        else:
            assert upper.seed < lower.seed


def test_buchholz_sonneborn_berger_and_median_buchholz_by_hand():
    entrants = [Entrant(p, p) for p in range(1, 6)]
    results = [
        Result(1, 2, 1, 3, 1, 200),
        Result(1, 3, 1, 3, 0, 300),
        Result(1, 4, 4, 2, 3, -50),
        Result(2, 3, 2, 3, 2, 20),
        Result(4, 5, 4, 3, 0, 250),
    ]
    rows = {r.player: r for r in standings(entrants, results)}
    # Match points: 1:2, 2:1, 3:0, 4:2, 5:0.
    assert rows[1].match_points == 2 and rows[4].match_points == 2
    assert rows[1].buchholz == 1 + 0 + 2 and rows[4].buchholz == 2 + 0
    assert rows[1].median_buchholz == 1  # best (2) and worst (0) opponents cut
    assert rows[1].sonneborn_berger == 1 + 0 and rows[4].sonneborn_berger == 2 + 0
    assert rows[1].games_won == 8 and rows[1].margin == 450
    assert [r.player for r in standings(entrants, results)][:2] == [1, 4]


def test_direct_encounter_in_a_three_way_cycle_leaves_it_to_the_seeds():
    entrants = [Entrant(p, p) for p in range(1, 4)]
    # 2 beat 1, 1 beat 3, 3 beat 2: one win each, and one win each among the three.
    results = [Result(1, 2, 2), Result(1, 3, 1), Result(3, 2, 3)]
    rows = standings(entrants, results, tiebreaks=["direct_encounter"])
    assert all(r.match_points == 1 for r in rows)  # a three-way tie, 1 each
    assert [r.player for r in rows] == [1, 2, 3]  # direct encounter 1 each: seeds decide


def test_direct_encounter_between_two_tied_players():
    entrants = [Entrant(p, p) for p in range(1, 5)]
    results = [Result(1, 2, 2), Result(1, 3, 1), Result(2, 4, 4), Result(3, 4, 4)]
    rows = standings(entrants, results, tiebreaks=["direct_encounter"])
    assert [r.player for r in rows] == [4, 2, 1, 3]
    assert rows[1].direct_encounter == 1 and rows[2].direct_encounter == 0


def test_elimination_stages_rank_before_match_points():
    entrants = [Entrant(p, p) for p in range(1, 4)]
    results = [Result(2, 3, 2), Result(1, 2, 1)]
    rows = standings(entrants, results, stages={1: (4, 1), 2: (4, 0), 3: (2, 0)})
    assert [r.player for r in rows] == [1, 2, 3]


def test_a_round_robin_bye_can_be_worth_nothing():
    rows = standings([Entrant(1, 1), Entrant(2, 2)], [Result(2, None, 2)], bye_points=0)
    assert rows[1].match_points == 0 and rows[1].byes == 1


def test_unknown_or_repeated_tiebreaks_are_refused():
    assert validate_tiebreaks(DEFAULT_TIEBREAKS) == DEFAULT_TIEBREAKS
    with pytest.raises(ValueError, match="unknown tiebreak 'coin_toss'"):
        validate_tiebreaks(["buchholz", "coin_toss"])
    with pytest.raises(ValueError, match="listed twice"):
        validate_tiebreaks(["buchholz", "buchholz"])


def test_standings_of_a_large_field_are_quick():
    rng = random.Random(1)
    entrants = [Entrant(p, p) for p in range(1, 1025)]
    results = [Result(a, a + 1, rng.choice((a, a + 1)), 3, 1, 100) for a in range(1, 1024, 2)]
    assert len(standings(entrants, results, tiebreaks=TIEBREAKS)) == 1024
