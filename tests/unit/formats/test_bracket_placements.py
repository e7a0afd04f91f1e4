"""How many rounds a bracket has, and how its players are ranked while it is played: a walk
over every field of 2 to 64, single and double elimination, with and without a third-place
match or a bracket reset."""

from __future__ import annotations

import math
import random

import pytest

from tests.unit.formats.helpers import play_out, random_winner
from tournaments.formats import double_elim, single_elim
from tournaments.formats.bracket import (
    Bracket,
    Status,
    champion,
    placements,
    ready,
    resolve,
    rounds_count,
)

SIZES = range(2, 65)


def brackets(n: int) -> list[Bracket]:
    return [
        single_elim.build(n),
        single_elim.build(n, third_place=True),
        double_elim.build(n),
        double_elim.build(n, reset=False),
    ]


def test_an_eight_player_single_elimination_has_three_rounds():
    assert rounds_count(single_elim.build(8)) == 3
    # The third-place match is played beside the final: no fourth round.
    assert rounds_count(single_elim.build(8, third_place=True)) == 3
    assert len(single_elim.build(8, third_place=True).rounds) == 4  # the columns drawn


def test_an_eight_player_double_elimination_has_six_rounds_and_the_reset():
    # W1, W2/L1, L2, W3/L3, L4, the grand final, then its reset if it is needed.
    assert rounds_count(double_elim.build(8, reset=False)) == 6
    assert rounds_count(double_elim.build(8)) == 7


@pytest.mark.parametrize("n", SIZES)
def test_the_round_count_is_the_longest_road_through_the_bracket(n):
    """Nobody ever plays more matches than the rounds counted, and someone can play them
    all: a player of a first-round match who wins every match (single elimination), or
    loses one winners-bracket match and wins every other (double elimination)."""
    k = math.ceil(math.log2(n))
    single, third, double, no_reset = brackets(n)
    assert rounds_count(single) == rounds_count(third) == k
    if n == 2**k or n > 2 ** (k - 1) + 1:  # a full field, or more than one match in round 1
        assert rounds_count(no_reset) == 2 * k
        assert rounds_count(double) == 2 * k + 1
    for bracket in (single, third, double, no_reset):
        longest = max(
            matches_played(play_out(bracket, list(range(1, n + 1)), chooser, rng)[1])[player]
            for player, chooser, rng in roads(bracket)
        )
        assert longest == rounds_count(bracket), (bracket.format, bracket.options)
        for seed in range(2):
            _, states, _ = play_out(
                bracket, list(range(1, n + 1)), random_winner, random.Random(seed)
            )
            assert max(matches_played(states).values()) <= rounds_count(bracket)


def test_a_double_elimination_of_five_has_six_rounds_with_the_reset():
    # Seeds 2 and 3 meet in the first round beside 4 and 5 (their opponents are byes); the
    # losers bracket's first round has no match; the loser of 4 v 5 starts in its second.
    assert rounds_count(double_elim.build(5)) == 6
    assert rounds_count(double_elim.build(5, reset=False)) == 5
    assert rounds_count(double_elim.build(9)) == 8


def roads(bracket: Bracket):
    """The long roads to try: each of the two lowest seeds (who play in the first round),
    losing no match, or only their j-th."""
    n = bracket.entrants
    for player in (n, n - 1) if n > 2 else (n,):
        for j in range(0, bracket.size.bit_length() + 1):
            yield player, loses_only(player, j), random.Random(j)


def loses_only(player: int, j: int):
    """A chooser: ``player`` loses their ``j``-th match (none if 0) and wins every other."""
    seen = [0]

    def choose(state, rng):
        if player not in state.players:
            return rng.choice(state.players)
        seen[0] += 1
        return next(p for p in state.players if p != player) if seen[0] == j else player

    return choose


def matches_played(states) -> dict[int, int]:
    played: dict[int, int] = {}
    for state in states.values():
        if state.status == Status.DECIDED:
            for player in state.players:
                played[player] = played.get(player, 0) + 1
    return played


def walk(bracket: Bracket, rng: random.Random):
    """Decide random matches, one at a time in a small field, a few at a time in a large
    one: yields the matches just decided, the states and the placements, after each."""
    entrants = list(range(1, bracket.entrants + 1))
    results: dict[str, int | None] = {}
    keys: list[str] = []
    while True:
        states = resolve(bracket, entrants, results)
        yield keys, states, placements(bracket, entrants, results)
        todo = ready(states)
        if not todo:
            return
        keys = rng.sample(todo, k=1 + len(todo) // 4 if bracket.entrants > 16 else 1)
        for key in keys:
            results[key] = rng.choice(states[key].players)


@pytest.mark.parametrize("n", SIZES)
def test_ranks_while_a_bracket_is_played(n):
    """Out players keep the rank they will end with, shared by everyone knocked out at the
    same stage; a player still in is never ranked below one who is out and went no
    further; the loser of a match that knocks them out ranks below its winner at once."""
    rng = random.Random(n)
    for bracket in brackets(n):
        steps = list(walk(bracket, rng))
        _, states, end = steps[-1]
        # At the end: 1 + the players who went further; the champion alone first.
        for place in end.values():
            assert not place.playing
            assert place.rank == 1 + sum(1 for p in end.values() if p.mark > place.mark)
        assert [p for p, place in end.items() if place.rank == 1] == [champion(bracket, states)]
        if bracket.options.get("third_place") or n == 2:
            assert sorted(place.rank for place in end.values())[:2] == [1, 2]
        for keys, states, now in steps:
            for player, place in now.items():
                if not place.playing:
                    assert place.rank == end[player].rank, (bracket.format, n, player)
                    continue
                assert place.rank <= end[player].rank
                # Never below a player who is out and went no further.
                out = [o.rank for o in now.values() if not o.playing and o.mark <= place.mark]
                assert all(place.rank <= rank for rank in out)
            # The matches just decided: a loser who is out ranks below the winner at once.
            for key in keys:
                state = states[key]
                if state.status != Status.DECIDED:
                    continue
                loser, winner = now[state.loser], now[state.winner]
                if not loser.playing and winner.mark > loser.mark:
                    assert winner.rank < loser.rank


def test_after_one_semifinal_its_loser_is_third_and_its_winner_still_first():
    bracket = single_elim.build(8)
    results = {"R1.1": 1, "R1.2": 4, "R1.3": 2, "R1.4": 3, "R2.1": 1}
    ranks = {p: place.rank for p, place in placements(bracket, range(1, 9), results).items()}
    assert ranks == {1: 1, 2: 1, 3: 1, 4: 3, 5: 5, 6: 5, 7: 5, 8: 5}
    reached = {p: place.key for p, place in placements(bracket, range(1, 9), results).items()}
    assert reached[1] == "R3.1"  # in the final already, its opponent not known yet
    assert reached[2] == reached[3] == "R2.2" and reached[4] == "R2.1"


def test_a_semifinal_loser_who_plays_for_third_place_ranks_third():
    # Only the finalist has gone further yet, but one of the other semifinal's two players
    # will: third is the best place still open to the loser.
    bracket = single_elim.build(8, third_place=True)
    results = {"R1.1": 1, "R1.2": 4, "R1.3": 2, "R1.4": 3, "R2.1": 1}
    placed = placements(bracket, range(1, 9), results)
    assert {p: place.rank for p, place in placed.items()} == {
        1: 1, 2: 1, 3: 1, 4: 3, 5: 5, 6: 5, 7: 5, 8: 5
    }  # fmt: skip
    assert placed[4].playing and placed[4].key == "3P"


def finish_with(bracket, entrants, results, favourite, rng):
    """Decide every match left, ``favourite`` winning each one they play."""
    results = dict(results)
    while todo := ready(states := resolve(bracket, entrants, results)):
        for key in todo:
            players = states[key].players
            results[key] = favourite if favourite in players else rng.choice(players)
    return results


@pytest.mark.parametrize("n", SIZES)
def test_a_player_still_in_can_finish_at_the_rank_shown(n):
    """The rank of a player still in is the best place open to them: winning every match
    left to them, they finish there, never higher nor lower."""
    rng = random.Random(1000 + n)
    for bracket in brackets(n):
        entrants = list(range(1, n + 1))
        results: dict[str, int | None] = {}
        for _, states, now in walk(bracket, rng):
            results = {k: s.winner for k, s in states.items() if s.status == Status.DECIDED}
            still_in = sorted(p for p, place in now.items() if place.playing)
            for player in rng.sample(still_in, k=min(2, len(still_in))):
                ended = finish_with(bracket, entrants, results, player, rng)
                end = placements(bracket, entrants, ended)[player]
                assert end.rank == now[player].rank, (bracket.format, n, player)
