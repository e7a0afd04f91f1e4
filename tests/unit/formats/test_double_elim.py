"""Double elimination: winners and losers brackets, grand final and reset (hypothesis)."""

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from tests.unit.formats.helpers import better_seed_wins, play_out
from tournaments.formats import double_elim
from tournaments.formats.bracket import Status, champion, is_complete, resolve, stages

fields = st.integers(min_value=2, max_value=48)

seeds = st.integers(min_value=0, max_value=2**32).map(random.Random)


def test_eight_players_rounds_in_order_of_play():
    bracket = double_elim.build(8)
    assert [r.name for r in bracket.rounds] == [
        "Winners round 1",
        "Winners round 2",
        "Losers round 1",
        "Losers round 2",
        "Winners round 3",
        "Losers round 3",
        "Losers round 4",
        "Grand final",
        "Grand final reset",
    ]
    assert bracket.nodes["W3.1"].loser_to == ("L4.1", 0)
    assert bracket.nodes["L4.1"].winner_to == ("GF", 1)


@given(fields, st.booleans())
def test_winners_losers_drop_to_the_losers_bracket_and_losers_losers_leave(n, reset):
    bracket = double_elim.build(n, reset=reset)
    fed = Counter()
    for node in bracket.nodes.values():
        if node.reset:
            continue
        for feed in node.feeds:
            if feed.kind != "seed":
                fed[(feed.kind, feed.key)] += 1
    for key, node in bracket.nodes.items():
        if key == "GF" and reset:
            assert node.winner_to == ("GF2", 1) and node.loser_to == ("GF2", 0)
            continue
        if node.reset or key == "GF":
            assert node.winner_to is None and node.loser_to is None
            continue
        assert fed[("winner", key)] == 1 and node.winner_to is not None
        if key.startswith("W"):
            assert fed[("loser", key)] == 1
            assert node.loser_to[0].startswith("L") or (n == 2 and node.loser_to == ("GF", 1))
        else:
            assert fed[("loser", key)] == 0 and node.loser_to is None


@given(fields, seeds)
def test_everyone_but_the_champion_loses_twice(n, rng):
    bracket = double_elim.build(n)
    entrants = list(range(1, n + 1))
    _, states, played = play_out(bracket, entrants, rng=rng)
    assert is_complete(states)
    winner = champion(bracket, states)
    assert isinstance(winner, int)
    losses = Counter(states[k].loser for k in played)
    assert all(losses[p] == 2 for p in entrants if p != winner)
    assert losses[winner] <= 1
    # Every played match is one loss: 2(N-1) matches, plus one if the champion lost once.
    assert len(played) == 2 * (n - 1) + losses[winner]


@given(fields, seeds)
def test_the_reset_is_played_only_when_the_losers_bracket_champion_wins_the_final(n, rng):
    bracket = double_elim.build(n)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng)
    gf, gf2 = states["GF"], states["GF2"]
    if gf.winner == gf.b:
        assert gf2.status == Status.DECIDED and set(gf2.players) == set(gf.players)
    else:
        assert gf2.status == Status.SKIPPED and champion(bracket, states) == gf.winner


@given(fields, seeds)
def test_without_reset_the_grand_final_decides(n, rng):
    bracket = double_elim.build(n, reset=False)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng)
    assert "GF2" not in states and champion(bracket, states) == states["GF"].winner


@given(fields, seeds)
def test_nobody_plays_twice_in_a_round_nor_in_two_matches_at_once(n, rng):
    bracket = double_elim.build(n)
    entrants = list(range(1, n + 1))
    results: dict[str, int | None] = {}
    while True:
        states = resolve(bracket, entrants, results)
        ready = [k for k, s in states.items() if s.status == Status.READY]
        live = [p for k in ready for p in states[k].players]
        assert len(live) == len(set(live))
        if not ready:
            break
        for key in rng.sample(ready, rng.randint(1, len(ready))):
            results[key] = rng.choice(states[key].players)
    for spec in bracket.rounds:
        players = [p for k in spec.keys for p in states[k].players]
        assert len(players) == len(set(players))


@given(fields)
def test_the_better_seed_always_winning_gives_one_over_two_in_the_final(n):
    bracket = double_elim.build(n)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), choose=better_seed_wins)
    assert states["GF"].players == (1, 2) and champion(bracket, states) == 1
    assert states["GF2"].status == Status.SKIPPED


@given(fields, seeds)
def test_placements_put_the_champion_first_and_the_finalist_second(n, rng):
    bracket = double_elim.build(n)
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng)
    reached = stages(bracket, states)
    order = sorted(reached, key=lambda p: reached[p], reverse=True)
    winner = champion(bracket, states)
    assert order[0] == winner
    assert set(order[:2]) == set(states["GF"].players)


@given(st.integers(min_value=3, max_value=32), seeds, st.data())
def test_byes_and_withdrawals_propagate_and_the_event_still_ends(n, rng, data):
    bracket = double_elim.build(n)
    gone = frozenset(data.draw(st.sets(st.integers(1, n), max_size=n - 1)))
    _, states, _ = play_out(bracket, list(range(1, n + 1)), rng=rng, absent=gone)
    assert is_complete(states)
    assert champion(bracket, states) not in gone
    for state in states.values():
        if state.status == Status.DECIDED:
            assert not set(state.players) & gone


def test_two_players_the_loser_of_the_only_match_goes_to_the_grand_final():
    bracket = double_elim.build(2)
    states = resolve(bracket, [1, 2], {"W1.1": 2})
    assert states["GF"].players == (2, 1)
    states = resolve(bracket, [1, 2], {"W1.1": 2, "GF": 1})
    assert states["GF2"].status == Status.READY
    states = resolve(bracket, [1, 2], {"W1.1": 2, "GF": 1, "GF2": 1})
    assert champion(bracket, states) == 1
