"""Groups, then playoffs: snake groups, cross-seeded playoffs, group mates apart (hypothesis)."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import DOUBLE_ELIM, ROUND_ROBIN, SINGLE_ELIM, SWISS
from tournaments.formats.bracket import bracket_size, resolve
from tournaments.formats.two_stage import (
    OptionError,
    assignment,
    build_playoff,
    group_key,
    group_name,
    group_rounds,
    is_group_key,
    meeting_round,
    plan,
    playoff_order,
    snake,
)


def seeds_of(groups: int, advance: int) -> dict[tuple[int, int], int]:
    return {gp: s for s, gp in enumerate(playoff_order(groups, advance), start=1)}


def mate_meetings(groups: int, advance: int, seed: dict[tuple[int, int], int]) -> list[int]:
    """The rounds in which every two group mates of the playoff would meet, earliest first."""
    size = bracket_size(groups * advance)
    return sorted(
        meeting_round(size, seed[g, p], seed[g, q])
        for g in range(groups)
        for p, q in itertools.combinations(range(1, advance + 1), 2)
    )


# --- snake groups ------------------------------------------------------------------------------


def test_eight_players_in_two_groups_snake():
    assert snake(8, 2) == ((1, 4, 5, 8), (2, 3, 6, 7))


@given(st.integers(min_value=1, max_value=300), st.integers(min_value=1, max_value=40))
def test_snake_deals_every_seed_once_in_bands_that_turn(entrants, groups):
    dealt = snake(entrants, groups)
    assert len(dealt) == groups
    assert sorted(s for g in dealt for s in g) == list(range(1, entrants + 1))
    sizes = [len(g) for g in dealt]
    assert max(sizes) - min(sizes) <= 1
    group_of = {s: i for i, g in enumerate(dealt) for s in g}
    for seed in range(1, entrants + 1):
        band, place = divmod(seed - 1, groups)
        expected = place if band % 2 == 0 else groups - 1 - place
        assert group_of[seed] == expected, (seed, band)
    for g in dealt:
        assert list(g) == sorted(g)
        # One player of every full band of seeds: the groups are as strong as each other.
        assert [(s - 1) // groups for s in g] == list(range(len(g)))


@given(st.integers(min_value=4, max_value=300), st.integers(min_value=2, max_value=8))
def test_snake_groups_have_near_equal_seed_sums(entrants, size):
    groups = snake(entrants, max(1, entrants // size))
    full_bands = min(len(g) for g in groups)
    # Over two bands (there and back) every group's seeds add up to the same total.
    sums = {sum(g[: full_bands - full_bands % 2]) for g in groups}
    assert len(sums) == 1


def test_group_names_run_a_to_z_then_double_letters():
    assert [group_name(i) for i in (0, 1, 25, 26, 27, 51, 52)] == [
        "A",
        "B",
        "Z",
        "AA",
        "AB",
        "AZ",
        "BA",
    ]
    assert group_key(27, 3, 2) == "GAB3.2"
    assert is_group_key("GAB3.2") and is_group_key("GA1.1")
    assert not any(is_group_key(k) for k in ("GF", "GF2", "R1.1", "W2.1", "L3.2", "3P", "S4.7"))


# --- options --------------------------------------------------------------------------------


def test_group_count_or_size_decides_the_groups():
    assert [len(g) for g in plan(16, group_count=4).groups] == [4, 4, 4, 4]
    assert [len(g) for g in plan(10, group_size=4).groups] == [3, 3, 4]
    assert plan(256, group_size=8).qualifiers == 64


@pytest.mark.parametrize(
    ("entrants", "options", "option"),
    [
        (16, {"group_count": 4, "group_size": 4}, "group_count"),
        (16, {"group_count": 0}, "group_count"),
        (16, {"group_size": 1}, "group_size"),
        (5, {"group_count": 3}, "group_count"),
        (8, {"group_count": 2, "advance": 5}, "advance"),
        (8, {"group_count": 2, "advance": 0}, "advance"),
        (4, {"group_count": 1, "advance": 1}, "advance"),
    ],
)
def test_impossible_options_are_refused_naming_the_option(entrants, options, option):
    with pytest.raises(OptionError) as refused:
        plan(entrants, **options)
    assert refused.value.option == option and option in str(refused.value)


def test_group_rounds():
    assert group_rounds(4, ROUND_ROBIN) == 3
    assert group_rounds(5, ROUND_ROBIN) == 5
    assert group_rounds(8, SWISS) == 3
    assert group_rounds(4, SWISS, swiss_rounds=9) == 3  # never more than a round robin
    with pytest.raises(OptionError):
        group_rounds(4, "knockout")


# --- cross-seeding ---------------------------------------------------------------------------


def test_two_groups_cross_a1_b2_and_b1_a2():
    bracket = build_playoff(2, 2)
    order = playoff_order(2, 2)
    states = resolve(bracket, list(range(1, 5)), {})
    first = {frozenset(order[p - 1] for p in states[k].players) for k in ("R1.1", "R1.2")}
    assert first == {frozenset({(0, 1), (1, 2)}), frozenset({(1, 1), (0, 2)})}


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=4))
def test_places_fill_bands_of_seeds_in_order(groups, advance):
    if groups * advance < 2:
        return
    order = playoff_order(groups, advance)
    assert sorted(order) == [(g, p) for g in range(groups) for p in range(1, advance + 1)]
    assert [p for _, p in order] == sorted(p for _, p in order)
    assert [g for g, p in order if p == 1] == list(range(groups))  # A1 is seed 1, B1 seed 2


@given(st.integers(min_value=2, max_value=40), st.integers(min_value=2, max_value=4))
def test_a_group_winner_never_meets_a_group_mate_first(groups, advance):
    seed = seeds_of(groups, advance)
    size = bracket_size(groups * advance)
    winners = {seed[g, 1]: g for g in range(groups)}
    for s, g in winners.items():
        opponent = size + 1 - s  # a standard bracket's first round
        if opponent > groups * advance:
            continue  # a bye
        assert opponent > groups, "group winners do not meet in the first round"
        assert opponent not in {seed[g, p] for p in range(2, advance + 1)}


@given(st.integers(min_value=2, max_value=64))
def test_winners_and_runners_up_of_a_group_meet_only_in_the_final(groups):
    rounds = bracket_size(2 * groups).bit_length() - 1
    assert set(mate_meetings(groups, 2, seeds_of(groups, 2))) == {rounds}


@given(st.integers(min_value=2, max_value=32))
def test_a_power_of_two_playoff_pits_every_winner_against_another_groups_runner_up(groups):
    if groups & (groups - 1):
        return
    seed = seeds_of(groups, 2)
    group_of = {s: gp for gp, s in seed.items()}
    for g in range(groups):
        opponent = group_of[2 * groups + 1 - seed[g, 1]]
        assert opponent[1] == 2 and opponent[0] != g


@pytest.mark.parametrize(("groups", "advance"), [(g, k) for g in (2, 3, 4, 5) for k in (2, 3)])
def test_group_mates_meet_as_late_as_any_arrangement_allows(groups, advance):
    """Against every arrangement of every band: no other puts group mates' meetings later."""
    best = None
    for perms in itertools.product(itertools.permutations(range(groups)), repeat=advance - 1):
        seed = {(g, 1): g + 1 for g in range(groups)}
        for place, perm in enumerate(perms, start=2):
            for j, g in enumerate(perm):
                seed[g, place] = (place - 1) * groups + j + 1
        meetings = mate_meetings(groups, advance, seed)
        best = meetings if best is None else max(best, meetings)
    assert mate_meetings(groups, advance, seeds_of(groups, advance)) == best


@pytest.mark.parametrize("playoff", [SINGLE_ELIM, DOUBLE_ELIM])
def test_the_playoff_bracket_holds_every_qualifier(playoff):
    bracket = build_playoff(3, 2, playoff_format=playoff)
    assert bracket.entrants == 6 and bracket.format == playoff
    with pytest.raises(OptionError):
        build_playoff(3, 2, playoff_format="swiss")


@given(
    st.lists(
        st.lists(st.integers(min_value=0, max_value=50), min_size=5, max_size=5),
        min_size=5,
        max_size=5,
    )
)
def test_the_assignment_is_the_cheapest(cost):
    chosen = assignment(cost)
    assert sorted(chosen) == list(range(5))
    cheapest = min(
        sum(cost[r][c] for r, c in enumerate(p)) for p in itertools.permutations(range(5))
    )
    assert sum(cost[r][c] for r, c in enumerate(chosen)) == cheapest
