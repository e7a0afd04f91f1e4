"""Pairing as a pure function (games/matchmaking.py): windows, closeness, rematches, bots."""

import doctest
import itertools
import random
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from games import matchmaking
from games.matchmaking import Seeker, WindowPolicy, allowed, pair

POLICY = WindowPolicy()


def players(pairs):
    return sorted(tuple(sorted((a.player, b.player))) for a, b in pairs)


def test_the_module_examples_hold():
    assert doctest.testmod(matchmaking).failed == 0


def test_the_window_widens_25_every_10_seconds_up_to_the_maximum():
    assert [POLICY.width(t) for t in (0, 9.9, 10, 25, 60)] == [50, 50, 75, 100, 200]
    assert POLICY.width(10_000) == 1000
    assert WindowPolicy(maximum=None).width(10_000) == 50 + 25 * 1000


def test_the_closest_ratings_are_paired():
    queue = [Seeker(i, i, r, 0) for i, r in enumerate([1500, 1540, 1510, 1545])]
    assert players(pair(queue, POLICY)) == [(0, 2), (1, 3)]


def test_nobody_is_paired_outside_the_window():
    queue = [Seeker(1, 1, 1500, 0), Seeker(2, 2, 1551, 0)]
    assert pair(queue, POLICY) == []


def test_waiting_widens_the_window_until_a_pair_fits():
    fresh = [Seeker(1, 1, 1500, 0), Seeker(2, 2, 1620, 0)]
    assert pair(fresh, POLICY) == []
    # After 30 s the first player accepts +/-125: the newcomer accepts their wider window.
    waited = [Seeker(1, 1, 1500, 30), Seeker(2, 2, 1620, 0)]
    assert players(pair(waited, POLICY)) == [(1, 2)]


def test_an_immediate_rematch_is_avoided_when_another_opponent_is_available():
    queue = [
        Seeker(1, 1, 1500, 0, last_opponent=2),
        Seeker(2, 2, 1500, 0, last_opponent=1),
        Seeker(3, 3, 1530, 0),
        Seeker(4, 4, 1530, 0),
    ]
    # The closest pairs would be 1-2 and 3-4; 1 and 2 just played each other.
    assert players(pair(queue, POLICY)) == [(1, 3), (2, 4)]


def test_a_rematch_happens_when_nobody_else_is_in_reach():
    queue = [
        Seeker(1, 1, 1500, 0, last_opponent=2),
        Seeker(2, 2, 1510, 0, last_opponent=1),
        Seeker(3, 3, 1900, 0),
    ]
    assert players(pair(queue, POLICY)) == [(1, 2)]


def test_who_asked_for_a_new_opponent_never_meets_the_last_one():
    # Alone in reach of each other, long waited: a plain rejoin would be a rematch.
    asked = [Seeker(1, 1, 1500, 600, last_opponent=2, avoid=2), Seeker(2, 2, 1510, 600)]
    assert pair(asked, POLICY) == []
    # Either side's wish is enough.
    other_side = [Seeker(1, 1, 1500, 600), Seeker(2, 2, 1510, 600, avoid=1)]
    assert pair(other_side, POLICY) == []
    # Someone else comes along: they are paired with them.
    joined = [*asked, Seeker(3, 3, 1490, 0)]
    assert players(pair(joined, POLICY)) == [(1, 3)]


def test_undoing_a_rematch_never_pairs_an_avoided_opponent():
    queue = [
        Seeker(1, 1, 1500, 0, last_opponent=2),
        Seeker(2, 2, 1500, 0, last_opponent=1),
        Seeker(3, 3, 1530, 0, avoid=1),
        Seeker(4, 4, 1530, 0, avoid=1),
    ]
    # Swapping would pair 1 with 3 or 4, who both avoid 1: the rematch stands.
    assert all(allowed(a, b, POLICY) for a, b in pair(queue, POLICY))
    assert players(pair(queue, POLICY)) == [(1, 2), (3, 4)]


def test_bots_wait_for_humans_unless_the_ladder_pairs_bots():
    queue = [Seeker(1, 1, 1500, 0, is_bot=True), Seeker(2, 2, 1500, 0, is_bot=True)]
    assert pair(queue, WindowPolicy(bot_pairs=False)) == []
    assert players(pair(queue, WindowPolicy(bot_pairs=True))) == [(1, 2)]
    with_human = [*queue, Seeker(3, 3, 1520, 0)]
    assert len(pair(with_human, WindowPolicy(bot_pairs=False))) == 1


def test_a_person_and_their_own_bot_are_never_paired():
    # 1 is a person, 2 their bot (stable 1): each waits for someone else.
    queue = [Seeker(1, 1, 1500, 0, stable=1), Seeker(2, 2, 1500, 0, stable=1)]
    assert pair(queue, POLICY) == []
    assert players(pair([*queue, Seeker(3, 3, 1510, 0, stable=3)], POLICY)) in ([(1, 3)], [(2, 3)])


def test_undoing_a_rematch_never_pairs_one_stable():
    # C-D are closest; A and B just played each other, so a swap makes A-C and B-D, unless
    # A and C are one stable: then A-D and B-C.
    waited = 3600  # everyone in everyone's window
    queue = [
        Seeker(1, 1, 1500, waited, last_opponent=2),
        Seeker(2, 2, 1580, waited, last_opponent=1),
        Seeker(3, 3, 1540, waited),
        Seeker(4, 4, 1545, waited),
    ]
    assert players(pair(queue, POLICY)) == [(1, 3), (2, 4)]
    a, b, c, d = queue
    apart = [replace(a, stable=9), b, replace(c, stable=9), d]
    assert players(pair(apart, POLICY)) == [(1, 4), (2, 3)]


def test_the_longest_wait_goes_first_between_equal_gaps():
    queue = [Seeker(1, 1, 1500, 0), Seeker(2, 2, 1520, 0), Seeker(3, 3, 1540, 40)]
    assert players(pair(queue, POLICY)) == [(2, 3)]


def test_a_large_dense_queue_pairs_almost_everyone():
    rng = random.Random(7)
    queue = [Seeker(i, i, rng.gauss(1500, 300), rng.uniform(0, 30)) for i in range(2000)]
    pairs = pair(queue, POLICY)
    assert len(pairs) >= 990


seekers = st.lists(
    st.builds(
        Seeker,
        key=st.integers(0, 10**6),
        player=st.integers(0, 40),
        rating=st.floats(800, 2600),
        waited=st.floats(0, 120),
        last_opponent=st.none() | st.integers(0, 40),
        is_bot=st.booleans(),
        stable=st.none() | st.integers(0, 5),
        avoid=st.none() | st.integers(0, 40),
    ),
    max_size=60,
    unique_by=(lambda s: s.key, lambda s: s.player),
)
policies = st.builds(
    WindowPolicy,
    initial=st.floats(0, 200),
    step=st.floats(0, 100),
    step_seconds=st.floats(1, 30),
    maximum=st.none() | st.floats(0, 2000),
    bot_pairs=st.booleans(),
)


@given(queue=seekers, policy=policies)
def test_nobody_is_paired_twice_and_every_pair_is_allowed(queue, policy):
    pairs = pair(queue, policy)
    keys = [s.key for p in pairs for s in p]
    assert len(keys) == len(set(keys))
    assert all(allowed(a, b, policy) for a, b in pairs)


@given(queue=seekers, policy=policies)
def test_no_two_players_left_waiting_could_have_been_paired(queue, policy):
    # Maximality among near neighbours: anyone left over has nobody allowed next to them
    # in rating order (the matchmaker looks at the nearest candidates first).
    pairs = pair(queue, policy)
    taken = {s.key for p in pairs for s in p}
    left = sorted((s for s in queue if s.key not in taken), key=lambda s: s.rating)
    for a, b in itertools.pairwise(left):
        assert not allowed(a, b, policy)
