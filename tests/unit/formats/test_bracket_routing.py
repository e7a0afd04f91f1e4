"""Bracket routing: every match's winner_to and loser_to name where that player plays next."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.formats.helpers import play_out
from tournaments.formats import double_elim, single_elim
from tournaments.formats.bracket import Status


def sometimes_both_lose(state, rng):
    return None if rng.random() < 0.05 else rng.choice(state.players)


def check_routing(bracket, states):
    """For each player of each settled match: the target, or no match at all if none."""
    keys = list(bracket.nodes)
    for index, key in enumerate(keys):
        state, node = states[key], bracket.nodes[key]
        if state.status not in (Status.DECIDED, Status.WALKOVER):
            continue
        for player, target in ((state.winner, node.winner_to), (state.loser, node.loser_to)):
            if not isinstance(player, int):
                continue
            later = [k for k in keys[index + 1 :] if player in states[k].players]
            if target is None or states[target[0]].status == Status.SKIPPED:
                # Out of the event, placed, or the reset that was not needed: no more matches.
                assert target is None or bracket.nodes[target[0]].reset
                assert later == [], (key, player, later)
                continue
            there = states[target[0]]
            assert (there.a, there.b)[target[1]] == player, (key, player, target)
            assert later[0] == target[0], (key, player, later)


@settings(max_examples=120, deadline=None)
@given(
    st.integers(min_value=2, max_value=40),
    st.sampled_from(["single", "single3", "double", "double_no_reset"]),
    st.integers(min_value=0, max_value=2**32),
)
def test_every_pairing_of_random_brackets_routes_its_players_truly(n, kind, seed):
    bracket = {
        "single": lambda: single_elim.build(n),
        "single3": lambda: single_elim.build(n, third_place=True),
        "double": lambda: double_elim.build(n),
        "double_no_reset": lambda: double_elim.build(n, reset=False),
    }[kind]()
    rng = random.Random(seed)
    absent = frozenset(p for p in range(1, n + 1) if rng.random() < 0.05)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), sometimes_both_lose, rng, absent)
    check_routing(bracket, states)


@pytest.mark.parametrize("losers_bracket_champion_wins", [True, False])
def test_the_grand_final_with_a_reset_sends_both_players_to_gf2(losers_bracket_champion_wins):
    bracket = double_elim.build(4)
    assert bracket.nodes["GF"].winner_to == ("GF2", 1)
    assert bracket.nodes["GF"].loser_to == ("GF2", 0)
    assert double_elim.build(4, reset=False).nodes["GF"].loser_to is None

    def choose(state, rng):
        if state.key == "GF":
            return state.b if losers_bracket_champion_wins else state.a
        return min(state.players)

    _, states, _ = play_out(bracket, [1, 2, 3, 4], choose)
    check_routing(bracket, states)
    reset = states["GF2"]
    assert (reset.status == Status.SKIPPED) != losers_bracket_champion_wins
