"""A rating is applied exactly once on PostgreSQL, whatever runs twice and however at once.

The two players' rating rows are locked in player id order, the match's rating changes are
looked for under the lock, and a unique constraint on (match, player) backs the check. These
tests deliver the same task twice to real workers at once, play one bot match in two workers,
send the receiver's signal from many threads, and call the service from many threads.
"""

import pytest

from games.models import Match
from games.signals import match_finished
from games.tasks import play_match
from ladders import services, tasks
from ladders.models import LadderMatch, Rating, RatingChange
from ladders.receivers import on_match_finished
from tests.factories import BotFactory
from tests.integration.conftest import run_threads
from tests.ladders import finish, make_ladder

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 12


def ratings(ladder):
    return sorted(Rating.objects.filter(ladder=ladder).values_list("player_id", "rating", "wins"))


def finished_unrated(ladder, a, b) -> Match:
    """A finished ladder match its receiver did not rate (as if it had failed)."""
    match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b)
    match_finished.disconnect(dispatch_uid="ladders.rate")
    try:
        finish(match, a)
    finally:
        match_finished.connect(on_match_finished, dispatch_uid="ladders.rate")
    assert not RatingChange.objects.filter(match=match).exists()
    return match


def assert_rated_once(ladder, match, winner, loser) -> None:
    changes = RatingChange.objects.filter(match=match)
    assert sorted(changes.values_list("player_id", "delta")) == sorted(
        [(winner.pk, 20.0), (loser.pk, -20.0)]
    )
    assert ratings(ladder) == sorted([(winner.pk, 1520.0, 1), (loser.pk, 1480.0, 0)])
    assert Rating.objects.get(ladder=ladder, player=winner).matches_played == 1


def test_the_service_called_from_twelve_threads_rates_once(alice, bob):
    ladder = make_ladder()
    match = finished_unrated(ladder, alice, bob)
    results = run_threads(THREADS, lambda i: services.rating_apply(pool=ladder, match=match))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert all(sorted(c.pk for c in r) == sorted(results[0][i].pk for i in (0, 1)) for r in results)
    assert_rated_once(ladder, match, alice, bob)


def test_the_signal_handler_run_from_twelve_threads_rates_once(alice, bob):
    ladder = make_ladder()
    match = finished_unrated(ladder, alice, bob)

    def send(i):
        match_finished.send(sender=Match, match=Match.objects.get(pk=match.pk))

    results = run_threads(THREADS, send)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert_rated_once(ladder, match, alice, bob)
    assert LadderMatch.objects.get(match=match).processed_at is not None


def test_the_rating_task_delivered_twice_to_two_workers_at_once_rates_once(
    alice, bob, worker_factory
):
    """The same task runs in two worker processes at once, as a redelivery would make it."""
    ladder = make_ladder()
    worker_factory.many(["rater0", "rater1"], queues="rate")
    match = finished_unrated(ladder, alice, bob)
    runs = [tasks.rate_match.apply_async((match.pk,), queue="rate") for _ in range(2)]
    # Exactly one delivery claimed the match and rated it; the other found it done.
    assert sorted(r.get(timeout=30) for r in runs) == [False, True]
    assert_rated_once(ladder, match, alice, bob)
    again = tasks.rate_match.apply_async((match.pk,), queue="rate").get(timeout=30)
    assert again is False
    assert_rated_once(ladder, match, alice, bob)


def test_a_bot_ladder_match_played_by_two_workers_at_once_is_rated_once(worker_factory):
    """play_match delivered twice: both workers play it; one writes it; one rating."""
    ladder = make_ladder()
    greedy = BotFactory(name="Greedy Gus", bot_strategy="greedy")
    rando = BotFactory(name="Random Rae", bot_strategy="random")
    worker_factory.many(["player0", "player1"], queues="play")
    match = services.ladder_match_create(ladder=ladder, player_a=greedy, player_b=rando, seed=5)
    runs = [play_match.apply_async((match.pk,), queue="play") for _ in range(2)]
    # One played and wrote the match (rated in the same transaction); the other waited for
    # the match row, then found it finished.
    assert sorted(r.get(timeout=60) for r in runs) == [False, True]
    assert RatingChange.objects.filter(match=match).count() == 2
    assert_rated_once(ladder, Match.objects.get(pk=match.pk), greedy, rando)
    # The bots went back to the queue once each.
    assert ladder.queue.count() == 2
