"""Elimination seeding keeps players of one stable out of each other's first match."""

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import seeding
from tournaments.formats.seeding import first_round_opponent, keep_apart


def test_the_examples_in_the_docstring_hold():
    assert doctest.testmod(seeding).failed == 0


def test_seed_one_meets_the_last_seed_and_the_top_seeds_have_the_byes():
    assert first_round_opponent(1, 8) == 8 and first_round_opponent(4, 8) == 5
    assert first_round_opponent(1, 6) is None and first_round_opponent(3, 6) == 6


def test_a_field_without_clashes_keeps_its_seeding():
    assert keep_apart([1, 2, None, 1, 2, None]) == list(range(6))


def test_a_clash_moves_the_lower_seed_to_the_nearest_place_that_works():
    # 8 entrants: seed 2 meets seed 7, both of stable 5; seed 7 swaps with seed 8 (nearest,
    # lower) and seed 8 now meets seed 1.
    stables = [None, 5, None, None, None, None, 5, None]

    order = keep_apart(stables)

    assert order == [0, 1, 2, 3, 4, 5, 7, 6]


def test_a_person_and_their_own_bot_alone_cannot_be_kept_apart():
    assert keep_apart([3, 3]) is None
    assert keep_apart([3, 3, 3, 3]) is None


@given(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=2, max_size=40))
def test_whatever_it_returns_keeps_every_first_round_match_apart(stables):
    order = keep_apart(stables)
    if order is None:
        return
    assert sorted(order) == list(range(len(stables)))
    n = len(stables)
    for seed in range(1, n + 1):
        other = first_round_opponent(seed, n)
        if other is not None:
            a, b = stables[order[seed - 1]], stables[order[other - 1]]
            assert a is None or a != b


@given(st.integers(2, 40), st.integers(0, 2**32))
def test_one_person_with_one_bot_is_always_kept_apart_in_a_field_of_three_or_more(n, salt):
    if n < 3:
        assert keep_apart([1, 1]) is None
        return
    stables = [None] * n
    first, second = salt % n, (salt // n) % n
    if first == second:
        second = (first + 1) % n
    stables[first] = stables[second] = 1
    assert keep_apart(stables) is not None


@pytest.mark.parametrize("n", [1, 0])
def test_a_field_too_small_for_a_bracket_is_left_alone(n):
    assert keep_apart([None] * n) == list(range(n))
