"""Single elimination: standard seeding, byes to the top seeds, consistent brackets (hypothesis)."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.formats.helpers import better_seed_wins, play_out
from tournaments.formats import single_elim
from tournaments.formats.bracket import (
    BYE,
    PENDING,
    Status,
    champion,
    is_complete,
    resolve,
    seed_positions,
    stages,
)

fields = st.integers(min_value=2, max_value=70)

seeds = st.integers(min_value=0, max_value=2**32).map(random.Random)


def test_seed_positions_put_the_top_seeds_far_apart():
    assert seed_positions(2) == [1, 2]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_sixteen_players_first_round_is_one_v_sixteen_two_v_fifteen():
    bracket = single_elim.build(16)
    states = resolve(bracket, list(range(1, 17)), {})
    first = {tuple(sorted(states[k].players)) for k in bracket.rounds[0].keys}
    assert first == {(s, 17 - s) for s in range(1, 9)}
    assert [r.name for r in bracket.rounds] == [
        "Round of 16",
        "Quarterfinals",
        "Semifinals",
        "Final",
    ]


@given(fields)
def test_every_seed_is_placed_once_and_byes_go_to_the_top_seeds(n):
    bracket = single_elim.build(n)
    states = resolve(bracket, list(range(1, n + 1)), {})
    first_round = [states[k] for k in bracket.rounds[0].keys]
    placed = [p for s in first_round for p in s.players]
    assert sorted(placed) == list(range(1, n + 1))
    with_bye = sorted(s.winner for s in first_round if s.status == Status.WALKOVER)
    assert with_bye == list(range(1, bracket.size - n + 1))
    assert all(s.status != Status.EMPTY for s in first_round)


@given(fields, st.booleans())
def test_every_winner_goes_to_exactly_one_place_and_losers_leave(n, third_place):
    bracket = single_elim.build(n, third_place=third_place)
    fed = Counter()
    for node in bracket.nodes.values():
        for feed in node.feeds:
            if feed.kind != "seed":
                fed[(feed.kind, feed.key)] += 1
                # Order of play: what feeds a match comes before it.
                assert list(bracket.nodes).index(feed.key) < list(bracket.nodes).index(node.key)
    for key, node in bracket.nodes.items():
        if key in bracket.finals or key == "3P":
            assert node.winner_to is None
        else:
            assert fed[("winner", key)] == 1 and node.winner_to is not None
        # Losers leave, except the semifinal losers who meet in the third-place match.
        assert fed[("loser", key)] == (node.loser_to is not None)
        if node.loser_to is not None:
            assert node.loser_to[0] == "3P"


@given(fields, st.booleans(), seeds)
def test_random_results_give_one_champion_after_n_minus_one_matches(n, third_place, rng):
    bracket = single_elim.build(n, third_place=third_place)
    entrants = list(range(1, n + 1))
    _results, states, played = play_out(bracket, entrants, rng=rng)
    assert is_complete(states)
    winner = champion(bracket, states)
    assert isinstance(winner, int)
    losses = Counter(states[k].loser for k in played if k != "3P")
    # Everyone but the champion lost exactly once (the third-place match aside).
    assert set(losses) == set(entrants) - {winner} and set(losses.values()) == {1}
    third_played = third_place and n >= 4
    assert len(played) == n - 1 + third_played
    if third_played:
        assert states["3P"].status == Status.DECIDED


@given(fields, st.booleans(), seeds)
def test_nobody_plays_twice_in_a_round(n, third_place, rng):
    bracket = single_elim.build(n, third_place=third_place)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng)
    for spec in bracket.rounds:
        players = [p for k in spec.keys for p in states[k].players]
        assert len(players) == len(set(players))


@given(fields)
def test_when_the_better_seed_always_wins_the_top_seeds_meet_last(n):
    bracket = single_elim.build(n)
    _, states, _played = play_out(bracket, list(range(1, n + 1)), choose=better_seed_wins)
    final = states[bracket.finals[0]]
    assert sorted(final.players) == [1, 2] and final.winner == 1
    for number, spec in enumerate(bracket.rounds, start=1):
        # Round r pairs seed s with seed (size / 2^(r-1)) + 1 - s.
        total = (bracket.size >> (number - 1)) + 1
        for key in spec.keys:
            if states[key].status == Status.DECIDED:
                assert sum(states[key].players) == total
    if n >= 4:
        semis = {tuple(sorted(states[k].players)) for k in bracket.rounds[-2].keys}
        assert semis == {(1, 4), (2, 3)}


@given(fields, seeds)
def test_placements_rank_champion_runner_up_and_third_place(n, rng):
    bracket = single_elim.build(n, third_place=True)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng)
    reached = stages(bracket, states)
    final = states[bracket.finals[0]]
    top = sorted(reached, key=lambda p: reached[p], reverse=True)
    assert top[0] == final.winner and top[1] == final.loser
    if n >= 4:
        assert top[2] == states["3P"].winner and top[3] == states["3P"].loser


def test_three_players_the_top_seed_has_a_bye_and_third_place_is_a_walkover():
    bracket = single_elim.build(3, third_place=True)
    _results, states, played = play_out(bracket, [1, 2, 3], choose=better_seed_wins)
    assert states["R1.1"].status == Status.WALKOVER and states["R1.1"].winner == 1
    assert states["3P"].status == Status.WALKOVER and states["3P"].winner == 3
    assert played == ["R1.2", "R2.1"] or sorted(played) == ["R1.2", "R2.1"]


def test_a_double_forfeit_passes_a_bye_to_the_next_round():
    bracket = single_elim.build(4)
    states = resolve(bracket, [1, 2, 3, 4], {"R1.1": None})
    assert states["R1.1"].winner is BYE
    assert states["R2.1"].a is BYE and states["R2.1"].b is PENDING
    states = resolve(bracket, [1, 2, 3, 4], {"R1.1": None, "R1.2": 2})
    assert states["R2.1"].status == Status.WALKOVER and champion(bracket, states) == 2


def test_an_overridden_result_makes_the_downstream_result_stale():
    bracket = single_elim.build(4)
    results = {"R1.1": 1, "R1.2": 2, "R2.1": 1}
    states = resolve(bracket, [1, 2, 3, 4], {**results, "R1.1": 4})
    assert states["R2.1"].players == (4, 2) and states["R2.1"].status == Status.READY
    assert states["R2.1"].stale


@given(st.integers(min_value=2, max_value=40), seeds, st.data())
def test_absent_players_never_get_a_new_match_and_the_event_still_ends(n, rng, data):
    bracket = single_elim.build(n, third_place=True)
    gone = frozenset(data.draw(st.sets(st.integers(1, n), max_size=n - 1)))
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng, absent=gone)
    assert is_complete(states)
    for state in states.values():
        if state.status == Status.DECIDED:
            assert not set(state.players) & gone
    assert champion(bracket, states) not in gone


def test_a_bracket_needs_two_entrants_and_the_right_field():
    with pytest.raises(ValueError):
        single_elim.build(1)
    with pytest.raises(ValueError):
        resolve(single_elim.build(4), [1, 2, 3], {})


@settings(max_examples=5)
@given(seeds)
def test_two_hundred_fifty_six_players_take_eight_rounds(rng):
    bracket = single_elim.build(256)
    _, _states, played = play_out(bracket, list(range(1, 257)), rng=random.Random(rng.random()))
    assert len(bracket.rounds) == 8 and len(played) == 255
