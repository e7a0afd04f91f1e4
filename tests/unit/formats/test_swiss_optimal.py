"""Swiss optimality: the pairing is the best one by its criteria, checked against brute force.

Criteria, in order (lower is better): rematches, the bye's place (eligible players ranked below
it), pairs across score groups, the sum of the pairs' score differences.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats.swiss import SwissPlayer, pair, quality, ranking

#: Random histories brute-forced for each field size 1..10.
HISTORIES = 150


def random_history(n, rng):
    """Players with random match points, random past opponents and random byes."""
    rounds = rng.randint(0, n)
    opponents = {p: set() for p in range(1, n + 1)}
    for _ in range(rounds * n // 3):
        a, b = rng.sample(range(1, n + 1), 2) if n > 1 else (1, 1)
        if a != b:
            opponents[a].add(b)
            opponents[b].add(a)
    return [
        SwissPlayer(
            p,
            float(rng.randint(0, rounds)),
            rng.randint(1, n),
            frozenset(opponents[p]),
            rng.random() < 0.3,
        )
        for p in range(1, n + 1)
    ]


def matchings(ids):
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        for tail in matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def best_by_brute_force(players):
    """The best (rematches, bye place, cross pairs, differences) over every legal pairing."""
    order = ranking(players)
    by_id = {p.id: p for p in players}
    everyone_had_one = all(p.had_bye for p in players)
    byes = [None]
    if len(players) % 2:
        byes = [p.id for p in order if everyone_had_one or not p.had_bye]
    best = None
    for bye in byes:
        below = 0
        if bye is not None:
            place = [p.id for p in order].index(bye)
            below = sum(1 for p in order[place + 1 :] if everyone_had_one or not p.had_bye)
        rest = [p.id for p in order if p.id != bye]
        for pairs in matchings(rest):
            key = (
                sum(b in by_id[a].opponents for a, b in pairs),
                below,
                sum(by_id[a].score != by_id[b].score for a, b in pairs),
                sum(abs(by_id[a].score - by_id[b].score) for a, b in pairs),
            )
            if best is None or key < best:
                best = key
    return best


def measured(players, pairing):
    q = quality(players, pairing)
    return (q.rematches, q.bye_rank, q.cross_group, q.score_difference)


@pytest.mark.parametrize("n", range(1, 11))
def test_every_small_field_is_paired_as_well_as_brute_force_can(n):
    rng = random.Random(1000 + n)
    for _ in range(HISTORIES):
        players = random_history(n, rng)
        pairing = pair(players)
        seated = sorted([p for ab in pairing.pairs for p in ab] + [pairing.bye] * (n % 2))
        assert seated == list(range(1, n + 1))
        assert measured(players, pairing) == best_by_brute_force(players), players


def test_the_issue_score_group_stays_together():
    # The 2-point group {1,4,5,6,8,12}: 1 had met 6, 5 had met 12. Nobody needs to leave it.
    met = {1: {6}, 6: {1}, 5: {12}, 12: {5}}
    two = [1, 4, 5, 6, 8, 12]
    players = [SwissPlayer(p, 2.0, p, frozenset(met.get(p, ()))) for p in two]
    players += [SwissPlayer(p, 1.0, p) for p in (2, 3, 7, 9)]
    pairing = pair(players)
    assert quality(players, pairing).cross_group == 0
    assert pairing.rematches == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=11, max_value=48), st.integers(min_value=0, max_value=2**32))
def test_score_groups_reach_the_weighted_matchings_optimum_on_larger_fields(n, seed):
    rng = random.Random(seed)
    players = random_history(n, rng)
    # Sparser histories, as in real events: a few rounds, scores up to the rounds played.
    rounds = rng.randint(1, 6)
    players = [
        SwissPlayer(p.id, float(min(p.score, rounds)), p.rank, p.opponents, p.had_bye)
        for p in players
    ]
    exact = pair(players)  # the weighted matching over every pair
    by_groups = pair(players, exact_limit=0)  # the score-group bound
    assert measured(players, by_groups) >= measured(players, exact)
    if by_groups.optimal:
        assert measured(players, by_groups) == measured(players, exact)
