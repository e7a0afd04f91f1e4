"""Round robin: Berger tables, single or double, one bye per cycle in odd fields (hypothesis)."""

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats.round_robin import berger, rounds_count

fields = st.integers(min_value=2, max_value=30)


def test_six_players_match_the_printed_berger_table():
    assert berger(6)[:3] == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
    ]


@given(fields, st.booleans())
def test_everyone_meets_everyone_once_or_twice(n, double):
    rounds = berger(n, double=double)
    assert len(rounds) == rounds_count(n, double=double)
    meetings = Counter(
        frozenset((a, b)) for tables in rounds for a, b in tables if a is not None and b is not None
    )
    everyone = {frozenset((i, j)) for i in range(1, n + 1) for j in range(i + 1, n + 1)}
    assert set(meetings) == everyone
    assert set(meetings.values()) == {2 if double else 1}


@given(fields, st.booleans())
def test_nobody_plays_twice_in_a_round(n, double):
    for tables in berger(n, double=double):
        seated = [p for table in tables for p in table if p is not None]
        assert sorted(seated) == list(range(1, n + 1))


@given(fields, st.booleans())
def test_odd_fields_give_each_player_one_bye_per_cycle(n, double):
    byes = Counter(
        a if b is None else b
        for tables in berger(n, double=double)
        for a, b in tables
        if a is None or b is None
    )
    if n % 2 == 0:
        assert not byes
    else:
        assert byes == dict.fromkeys(range(1, n + 1), 2 if double else 1)


@given(fields)
def test_the_second_cycle_swaps_the_seats(n):
    single, double = berger(n), berger(n, double=True)
    for first, second in zip(single, double[len(single) :], strict=True):
        assert {(b, a) for a, b in first} == set(second)


def test_a_round_robin_needs_two_players():
    with pytest.raises(ValueError):
        berger(1)


@given(fields)
def test_a_double_round_robin_plays_the_first_cycles_last_two_rounds_swapped(n):
    single, double = berger(n), berger(n, double=True)
    cycle = len(single)
    if cycle >= 2:
        assert double[cycle - 2] == single[-1] and double[cycle - 1] == single[-2]
        assert double[: cycle - 2] == single[: cycle - 2]
    else:
        assert double[:cycle] == single


@pytest.mark.parametrize("n", range(3, 21))
def test_nobody_has_the_same_seat_three_rounds_running_in_a_double_round_robin(n):
    for player in range(1, n + 1):
        seats = [
            "a" if a == player else "b"
            for tables in berger(n, double=True)
            for a, b in tables
            if player in (a, b) and a is not None and b is not None
        ]
        runs = [len(list(group)) for _, group in itertools.groupby(seats)]
        assert max(runs) <= 2, (player, "".join(seats))
