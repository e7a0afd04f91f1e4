"""A season closing on PostgreSQL while rated matches finish: each counts in exactly one season.

Forty matches finish in forty threads while a forty-first closes the season as soon as ten
of them are rated: twenty more in flight around the close, the last ten once it is under way.
Whatever the interleaving, a match's two rating changes name the same season; the closed
season's frozen standings count exactly the changes that name it, and each player's
frozen rating is the one after their last match in it (the close saw those and no others).
"""

import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from ladders import services
from ladders.models import RatingChange, Season, SeasonEntry
from ladders.services import seasons
from tests.factories import PlayerFactory
from tests.integration.conftest import run_threads
from tests.ladders import finish, make_ladder, seed_ratings

pytestmark = pytest.mark.django_db(transaction=True)

PAIRS = 40


@pytest.mark.parametrize("system", ["elo", "glicko2"])
def test_a_close_racing_forty_finishing_matches_counts_each_in_one_season(system):
    ladder = make_ladder(rating_system=system, season_days=7, divisions=2, division_size=40)
    players = [PlayerFactory(user__username=f"s{system}{i}") for i in range(2 * PAIRS)]
    seed_ratings(ladder, players, [1400 + 2.5 * i for i in range(2 * PAIRS)])
    now = timezone.now()
    # The close is told the end has come; the matches finish (by the clock) just before it.
    first = seasons.season_open(ladder=ladder, starts_at=now, ends_at=now + timedelta(minutes=5))
    matches = [
        services.ladder_match_create(ladder=ladder, player_a=players[i], player_b=players[i + 1])
        for i in range(0, 2 * PAIRS, 2)
    ]

    closing = threading.Event()
    late = range(PAIRS - 10, PAIRS)

    def work(i: int):
        if i == PAIRS:
            # Close once a quarter of the matches are rated, the others in flight around it.
            deadline = time.monotonic() + 30
            while RatingChange.objects.filter(ladder=ladder).count() < PAIRS // 2:
                assert time.monotonic() < deadline, "the matches are not being rated"
                time.sleep(0.002)
            closing.set()
            return seasons.season_close(season_id=first.pk, now=first.ends_at)
        if i in late:
            # The last ten finish once the close is under way: they wait for it, then count
            # in the season it opened.
            closing.wait(30)
            time.sleep(0.2)
        else:
            time.sleep(0.02 * i)
        return finish(matches[i], players[2 * i]).pk

    results = run_threads(PAIRS + 1, work)
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    assert results[PAIRS] is True
    first.refresh_from_db()
    assert first.closed_at is not None
    second = Season.objects.get(ladder=ladder, number=2)
    by_match: dict[int, set] = {}
    for match_id, season_id in RatingChange.objects.filter(ladder=ladder).values_list(
        "match_id", "season_id"
    ):
        by_match.setdefault(match_id, set()).add(season_id)
    assert len(by_match) == PAIRS
    counted = Counter(season for s in by_match.values() for season in s)
    assert counted[first.pk] >= PAIRS // 4 and counted[second.pk] >= 1, counted
    assert all(len(s) == 1 and s <= {first.pk, second.pk} for s in by_match.values()), by_match
    in_first = RatingChange.objects.filter(season=first)
    frozen = {e.player_id: e for e in SeasonEntry.objects.filter(season=first)}
    for player in players:
        mine = list(in_first.filter(player=player).order_by("pk"))
        entry = frozen[player.pk]
        assert entry.matches_played == len(mine)
        assert entry.wins == sum(c.won for c in mine)
        if mine:
            assert entry.rating == pytest.approx(mine[-1].rating_after)
    # The matches of the second season started from the ratings the close froze.
    for change in RatingChange.objects.filter(season=second):
        entry = frozen[change.player_id]
        assert change.rating_before == pytest.approx(entry.rating)
    assert seasons.season_close(season_id=first.pk, now=first.ends_at) is False
