"""Arena: pairing of free players only, never the same opponent twice in a row, streak
scoring, and no match starting after the end (property tests over whole simulated arenas)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats.arena import (
    BERSERK_BONUS,
    Outcome,
    Waiting,
    match_points,
    pair,
    score,
    standings,
)

outcomes = st.lists(st.builds(Outcome, st.booleans(), st.booleans()), max_size=40)


# --- scoring -------------------------------------------------------------------------------


def test_two_wins_then_each_win_scores_double_until_a_loss():
    won, lost = Outcome(True), Outcome(False)
    assert match_points([won, won, won, won, lost, won, won, won]) == [2, 2, 4, 4, 0, 2, 2, 4]


def test_a_berserk_win_scores_one_more_and_a_berserk_loss_nothing():
    assert match_points([Outcome(True, True), Outcome(False, True)]) == [3, 0]
    assert match_points([Outcome(True)] * 2 + [Outcome(True, True)]) == [2, 2, 4 + BERSERK_BONUS]


@given(outcomes)
def test_streak_scoring_against_its_definition(results):
    """Each win: 2, or 4 when the two matches before it were both won; +1 after berserk."""
    points = match_points(results)
    for i, outcome in enumerate(results):
        if not outcome.won:
            assert points[i] == 0
            continue
        on_fire = i >= 2 and results[i - 1].won and results[i - 2].won
        assert points[i] == (4 if on_fire else 2) + (1 if outcome.berserk else 0)


@given(outcomes)
def test_score_sums_the_sheet_and_counts_the_streak_now(results):
    s = score(results)
    assert s.points == sum(s.sheet) and s.played == len(results) == s.wins + s.losses
    trailing = 0
    for outcome in reversed(results):
        if not outcome.won:
            break
        trailing += 1
    assert s.streak == trailing and s.on_fire == (trailing >= 2)


@given(st.dictionaries(st.integers(1, 30), outcomes, max_size=30))
def test_standings_rank_every_player_once_by_points(results):
    entrants = [(player, seed) for seed, player in enumerate(range(1, 31), start=1)]
    rows = standings(entrants, results)
    assert [row.rank for row in rows] == list(range(1, 31))
    assert sorted(row.player for row in rows) == list(range(1, 31))
    points = [row.score.points for row in rows]
    assert points == sorted(points, reverse=True)


# --- pairing -------------------------------------------------------------------------------


@st.composite
def waiting_rooms(draw):
    """Free players with distinct ranks and last opponents (some of them among each other)."""
    n = draw(st.integers(0, 32))
    ranks = draw(st.permutations(range(1, n + 1)))
    last = draw(st.lists(st.integers(0, n + 3), min_size=n, max_size=n))
    waited = draw(st.lists(st.integers(0, 120), min_size=n, max_size=n))
    return [
        Waiting(i + 1, ranks[i], waited[i], last[i] if last[i] not in (0, i + 1) else None)
        for i in range(n)
    ]


def _rematch(a: Waiting, b: Waiting) -> bool:
    return a.last_opponent == b.player or b.last_opponent == a.player


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(waiting_rooms())
def test_every_free_player_is_paired_at_once_unless_only_rematches_are_left(room):
    pairs = pair(room, seconds_left=60)
    by_id = {w.player: w for w in room}
    seated = [p for pair_ in pairs for p in pair_]
    assert len(seated) == len(set(seated)), "a player in two matches"
    assert set(seated) <= set(by_id), "a player who is not free was paired"
    for a, b in pairs:
        assert not _rematch(by_id[a], by_id[b]), f"{a} and {b} played each other last"
    left = [w for w in room if w.player not in set(seated)]
    for i, a in enumerate(left):
        for b in left[i + 1 :]:
            assert _rematch(a, b), f"{a.player} and {b.player} were both free and left waiting"


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(waiting_rooms(), st.floats(max_value=0, allow_nan=False))
def test_no_match_starts_once_the_time_is_up(room, seconds_left):
    assert pair(room, seconds_left=seconds_left) == []


def test_the_closest_ranks_are_paired_first():
    room = [Waiting(p, rank=p) for p in range(1, 9)]
    assert sorted(tuple(sorted(p)) for p in pair(room, seconds_left=1)) == [
        (1, 2),
        (3, 4),
        (5, 6),
        (7, 8),
    ]


def test_a_player_listed_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        pair([Waiting(1, 1), Waiting(1, 2)], seconds_left=10)


# --- whole arenas ----------------------------------------------------------------------------


def simulate(seed: int, players: int, minutes: int):
    """An arena in steps of one second: random match lengths and winners, pauses, rejoins.

    The pairing only sees the waiting room the simulation builds from its own state; the
    checks below compare what it chose with that state.
    """
    rng = random.Random(seed)
    end = minutes * 60
    playing: dict[int, tuple[int, int]] = {}  # player -> (opponent, second the match ends)
    paused: set[int] = set()
    free_since = dict.fromkeys(range(1, players + 1), 0)
    history: dict[int, list[int]] = {p: [] for p in free_since}  # opponents in order
    results: dict[int, list[Outcome]] = {p: [] for p in free_since}
    started_at: list[int] = []
    t = 0
    while t < end or playing:
        for p, (opponent, ends) in list(playing.items()):
            if ends <= t and p < opponent:
                winner = rng.choice((p, opponent))
                for x in (p, opponent):
                    results[x].append(Outcome(x == winner, rng.random() < 0.2))
                    del playing[x]
                    free_since[x] = t
        for p in free_since:
            if p not in playing and rng.random() < 0.02:
                (paused.discard if p in paused else paused.add)(p)
        rows = standings([(p, p) for p in free_since], results)
        rank = {row.player: row.rank for row in rows}
        room = [
            Waiting(
                p, rank[p], t - free_since[p], history[p][-1] if history[p] else None, is_bot=True
            )
            for p in free_since
            if p not in playing and p not in paused
        ]
        pairs = pair(room, seconds_left=end - t)
        for a, b in pairs:
            assert a not in playing and b not in playing, "paired while playing"
            assert a not in paused and b not in paused, "paired while paused"
            assert t < end, "a match started after the end"
            for x, y in ((a, b), (b, a)):
                assert not history[x] or history[x][-1] != y, "the same opponent twice in a row"
                history[x].append(y)
            length = rng.randint(1, 90)
            playing[a], playing[b] = (b, t + length), (a, t + length)
            started_at.append(t)
        t += 1
    return history, results, started_at, end, t


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 24), st.integers(1, 5))
def test_a_whole_arena_keeps_its_rules(seed, players, minutes):
    history, results, started_at, end, stopped = simulate(seed, players, minutes)
    assert all(t < end for t in started_at)
    # Matches in play at the end still count: every match started has a result for both.
    assert sum(len(r) for r in results.values()) == 2 * len(started_at)
    assert stopped >= end
    for p, opponents in history.items():
        assert len(opponents) == len(results[p])
