"""Rating farming: the same two players rated against each other again and again stop counting.

Of the rated matches between two humans in a pool within RATING_PAIR_WINDOW_HOURS, only the
first RATING_PAIR_LIMIT change ratings; the rest are recorded with K 0 and change nothing
(rating, matches, wins, losses), and the history still replays to the ratings.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from ladders import services
from ladders.models import Rating, RatingChange
from tests.factories import BotFactory
from tests.ladders import make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def limit(settings):
    settings.RATING_PAIR_LIMIT = 3
    settings.RATING_PAIR_WINDOW_HOURS = 24
    return 3


def rating(ladder, player) -> Rating:
    return Rating.objects.get(ladder=ladder, player=player)


def test_matches_past_the_limit_between_two_players_do_not_count(alice, bob, limit):
    ladder = make_ladder()
    for _ in range(limit):
        play_ladder_match(ladder, alice, bob)
    before = rating(ladder, alice)

    for _ in range(5):  # alice feeds on bob: nothing more comes of it
        play_ladder_match(ladder, alice, bob)

    after = rating(ladder, alice)
    assert (after.rating, after.matches_played, after.wins) == (
        before.rating,
        before.matches_played,
        before.wins,
    )
    assert after.matches_played == limit
    farmed = RatingChange.objects.filter(ladder=ladder, k=0)
    assert farmed.count() == 10  # five matches, one row per player, each with no change
    assert all(c.delta == 0 and c.rating_before == c.rating_after for c in farmed)


def test_other_opponents_still_count(alice, bob, charlie, limit):
    ladder = make_ladder()
    for _ in range(limit + 2):
        play_ladder_match(ladder, alice, bob)
    before = rating(ladder, alice).rating

    play_ladder_match(ladder, alice, charlie)

    assert rating(ladder, alice).rating > before


def test_the_pair_counts_again_after_the_window(alice, bob, limit):
    ladder = make_ladder()
    for _ in range(limit):
        play_ladder_match(ladder, alice, bob)
    RatingChange.objects.filter(ladder=ladder).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    before = rating(ladder, alice).rating

    play_ladder_match(ladder, alice, bob)

    assert rating(ladder, alice).rating > before


def test_bots_are_not_limited(limit):
    ladder = make_ladder(bot_pairs=True)
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")
    for _ in range(limit + 2):
        play_ladder_match(ladder, gus, gil)

    assert rating(ladder, gus).matches_played == limit + 2
    assert not RatingChange.objects.filter(k=0).exists()


def test_the_history_with_uncounted_matches_replays_to_the_ratings(alice, bob, charlie, limit):
    ladder = make_ladder()
    for _ in range(limit + 3):
        play_ladder_match(ladder, alice, bob)
        play_ladder_match(ladder, charlie, alice)

    report = services.ratings_replay(pool=ladder)

    assert report.mismatches == 0, report.first_mismatch
    assert report.drifted == 0
