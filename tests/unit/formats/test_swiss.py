"""Swiss: Dutch pairing in score groups, no avoidable rematch, one bye each (hypothesis)."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats.swiss import EXACT_LIMIT, SwissPlayer, default_rounds, pair

seeds = st.integers(min_value=0, max_value=2**32).map(random.Random)


def simulate(n, rounds, rng, exact_limit=EXACT_LIMIT):
    """Play ``rounds`` rounds with random winners; yield (players, pairing) for each."""
    score = dict.fromkeys(range(1, n + 1), 0.0)
    opponents = {p: set() for p in score}
    byes = set()
    for _ in range(rounds):
        players = [SwissPlayer(p, score[p], p, frozenset(opponents[p]), p in byes) for p in score]
        pairing = pair(players, exact_limit=exact_limit)
        yield players, pairing
        for a, b in pairing.pairs:
            opponents[a].add(b)
            opponents[b].add(a)
            score[rng.choice((a, b))] += 1
        if pairing.bye is not None:
            byes.add(pairing.bye)
            score[pairing.bye] += 1


def rematch_free_pairing_exists(players, bye):
    """Brute force: can everyone but ``bye`` be paired without a rematch?"""
    rest = [p for p in players if p.id != bye]
    played = {p.id: p.opponents for p in players}

    def search(left):
        if not left:
            return True
        first, others = left[0], left[1:]
        for i, other in enumerate(others):
            if other not in played[first] and search(others[:i] + others[i + 1 :]):
                return True
        return False

    return search([p.id for p in rest])


def test_default_rounds_are_ceil_log2():
    assert [default_rounds(n) for n in (1, 2, 3, 8, 9, 1024)] == [1, 1, 2, 3, 4, 10]


def test_round_one_pairs_the_top_half_against_the_bottom_half():
    players = [SwissPlayer(p, 0, p) for p in range(1, 9)]
    assert pair(players).pairs == ((1, 5), (2, 6), (3, 7), (4, 8))


def test_a_score_group_pairs_within_itself_and_the_odd_one_floats_down():
    scores = {1: 2, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0}
    players = [SwissPlayer(p, s, p) for p, s in scores.items()]
    # 1 v 2 (the Dutch top half v bottom half of {1,2,3}); 3 floats to meet 4; then 5 v 6.
    assert pair(players).pairs == ((1, 2), (3, 4), (5, 6), (7, 8))


def test_a_rematch_is_avoided_by_the_next_opponent_down():
    players = [
        SwissPlayer(1, 1, 1, frozenset({3})),
        SwissPlayer(2, 1, 2, frozenset({4})),
        SwissPlayer(3, 1, 3, frozenset({1})),
        SwissPlayer(4, 1, 4, frozenset({2})),
    ]
    assert pair(players).pairs == ((1, 4), (2, 3))


def test_the_bye_goes_to_the_lowest_ranked_player_without_one():
    players = [SwissPlayer(p, 0, p, had_bye=p == 5) for p in range(1, 6)]
    assert pair(players).bye == 4


def test_a_player_listed_twice_is_refused():
    with pytest.raises(ValueError):
        pair([SwissPlayer(1), SwissPlayer(1)])


@settings(deadline=None)
@given(st.integers(min_value=2, max_value=40), seeds)
def test_every_eligible_player_is_paired_once_or_has_the_bye(n, rng):
    for players, pairing in simulate(n, default_rounds(n) + 1, rng):
        seated = [p for pair_ in pairing.pairs for p in pair_]
        if pairing.bye is not None:
            seated.append(pairing.bye)
        assert sorted(seated) == [p.id for p in players]
        assert (pairing.bye is not None) == (n % 2 == 1)


@settings(deadline=None)
@given(st.integers(min_value=3, max_value=40).filter(lambda n: n % 2), seeds)
def test_nobody_has_two_byes_and_the_bye_is_the_lowest_ranked_eligible(n, rng):
    had = set()
    for players, pairing in simulate(n, min(n, default_rounds(n) + 2), rng):
        assert pairing.bye not in had
        had.add(pairing.bye)
        # Lowest-ranked eligible, unless that would force a rematch.
        ranked = sorted(players, key=lambda p: (-p.score, p.rank))
        eligible = [p.id for p in reversed(ranked) if not p.had_bye]
        index = eligible.index(pairing.bye)
        for lower in eligible[:index]:
            assert not rematch_free_pairing_exists(players, lower)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=10), seeds)
def test_no_rematch_while_one_can_be_avoided(n, rng):
    # Small fields and many rounds: rematches become forced, and brute force can tell.
    for players, pairing in simulate(n, n + 2, rng):
        played = {p.id: p.opponents for p in players}
        rematches = sum(b in played[a] for a, b in pairing.pairs)
        assert rematches == pairing.rematches
        if rematches:
            assert not rematch_free_pairing_exists(players, pairing.bye)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=4, max_value=16), seeds)
def test_pairing_by_score_groups_keeps_the_same_guarantees(n, rng):
    for players, pairing in simulate(n, n, rng, exact_limit=0):
        played = {p.id: p.opponents for p in players}
        rematches = sum(b in played[a] for a, b in pairing.pairs)
        assert rematches == pairing.rematches
        if rematches:
            assert not rematch_free_pairing_exists(players, pairing.bye)


@settings(deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=4), min_size=2, max_size=80).filter(
        lambda scores: len(scores) % 2 == 0
    ),
    st.sampled_from([0, EXACT_LIMIT]),
)
def test_only_one_player_leaves_each_odd_score_group_and_none_an_even_one(scores, exact_limit):
    players = [SwissPlayer(p, s, p) for p, s in enumerate(scores, start=1)]
    pairing = pair(players, exact_limit=exact_limit)
    score = {p.id: p.score for p in players}
    across = sum(score[a] != score[b] for a, b in pairing.pairs)
    odd_groups = sorted((value for value in set(scores) if scores.count(value) % 2), reverse=True)
    # With no history: the odd groups pair off in order, first with second, and so on.
    assert across == len(odd_groups) // 2
    difference = sum(abs(score[a] - score[b]) for a, b in pairing.pairs)
    assert difference == sum(odd_groups[0::2]) - sum(odd_groups[1::2])
    # The higher-ranked player sits first, best table first.
    assert all(score[a] >= score[b] for a, b in pairing.pairs)


def test_pairing_is_deterministic_and_ignores_input_order():
    rng = random.Random(3)
    players = [SwissPlayer(p, rng.randint(0, 3), p) for p in range(1, 30)]
    shuffled = players[:]
    rng.shuffle(shuffled)
    assert pair(players) == pair(shuffled)


def test_1024_players_ten_rounds_without_a_rematch():
    for _, pairing in simulate(1024, 10, random.Random(7)):
        assert pairing.rematches == 0 and len(pairing.pairs) == 512


def test_brute_force_helper_agrees_on_a_known_impossible_field():
    everyone_met = [SwissPlayer(p, 0, p, frozenset(set(range(1, 5)) - {p})) for p in range(1, 5)]
    assert not rematch_free_pairing_exists(everyone_met, None)
    assert pair(everyone_met).rematches == 2
    assert len(list(itertools.chain(*pair(everyone_met).pairs))) == 4


# --- players of one stable never meet ----------------------------------------------------------


def stable_field(stables):
    """Players 1..n on no points, ranked by id, of the stables given (None: of none)."""
    return [SwissPlayer(i, 0.0, i, stable=s) for i, s in enumerate(stables, start=1)]


@pytest.mark.parametrize("exact_limit", [EXACT_LIMIT, 2])
def test_a_person_and_their_own_bot_are_not_paired_where_dutch_order_would(exact_limit):
    # Dutch order pairs 1 v 3 and 2 v 4; 1 and 3 are a person and their bot.
    field = stable_field([7, None, 7, None])

    result = pair(field, exact_limit=exact_limit)

    assert {frozenset(p) for p in result.pairs} == {frozenset((1, 2)), frozenset((3, 4))} or {
        frozenset(p) for p in result.pairs
    } == {frozenset((1, 4)), frozenset((2, 3))}
    assert result.unpaired == () and result.bye is None


@pytest.mark.parametrize("exact_limit", [EXACT_LIMIT, 1])
def test_a_field_of_one_stable_sits_the_round_out(exact_limit):
    assert pair(stable_field([7, 7]), exact_limit=exact_limit).unpaired == (1, 2)
    odd = pair(stable_field([7, 7, 7]), exact_limit=exact_limit)
    assert odd.pairs == () and odd.bye == 3 and odd.unpaired == (1, 2)


def test_only_those_who_cannot_be_kept_apart_sit_out():
    # A person (1) with two bots (2, 3) and one other person (4): one pair, two sit out.
    result = pair(stable_field([7, 7, 7, None]))

    assert len(result.pairs) == 1 and 4 in result.pairs[0]
    assert len(result.unpaired) == 2


@given(
    st.integers(min_value=2, max_value=30),
    st.integers(min_value=1, max_value=4),
    st.sampled_from([EXACT_LIMIT, 4]),
    seeds,
)
def test_no_pair_is_ever_of_one_stable_and_everyone_is_placed_once(n, stables, exact_limit, rng):
    for players, result in simulate(n, 3, rng, exact_limit=exact_limit):
        field = [
            SwissPlayer(
                p.id, p.score, p.rank, p.opponents, p.had_bye, rng.choice([None, *range(stables)])
            )
            for p in players
        ]
        result = pair(field, exact_limit=exact_limit)
        stable = {p.id: p.stable for p in field}
        assert not [
            (a, b) for a, b in result.pairs if stable[a] is not None and stable[a] == stable[b]
        ]
        placed = [x for p in result.pairs for x in p] + list(result.unpaired)
        placed += [result.bye] if result.bye is not None else []
        assert sorted(placed) == sorted(stable)
