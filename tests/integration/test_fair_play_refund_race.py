"""A fair-play refund on PostgreSQL: made once however many staff press at once, and never
racing a match rated meanwhile (every rating row of the pool is locked in the order rating a
match takes two of them, so the two wait for each other and neither deadlocks)."""

import random

import pytest

from games.models import Match
from games.signals import match_finished
from ladders import services
from ladders.models import FairPlayRefund, RatingChange
from ladders.receivers import on_match_finished
from ladders.services.assisted import account_mark_assisted
from tests.integration.conftest import run_threads
from tests.ladders import finish, humans, make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_farming_limit(settings):
    settings.RATING_PAIR_LIMIT = 1000


def finished_unrated(ladder, a, b) -> Match:
    """A finished ladder match not yet rated (its receiver held back)."""
    match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b)
    match_finished.disconnect(dispatch_uid="ladders.rate")
    try:
        finish(match, a)
    finally:
        match_finished.connect(on_match_finished, dispatch_uid="ladders.rate")
    return match


def test_marking_from_four_threads_while_four_matches_are_rated_refunds_once():
    ladder = make_ladder()
    people = humans(8)
    cheater, others = people[0], people[1:]
    rng = random.Random(5)
    for _ in range(30):
        a, b = rng.sample(people, 2)
        play_ladder_match(ladder, a, b)
    if not RatingChange.objects.filter(ladder=ladder, player=cheater).exists():
        play_ladder_match(ladder, cheater, others[0])
    waiting = [finished_unrated(ladder, others[2 * i], others[2 * i + 1]) for i in range(3)]
    waiting.append(finished_unrated(ladder, others[6], others[0]))

    def work(i: int):
        if i < 4:
            return account_mark_assisted(player=cheater, by=None, note=f"thread {i}")
        return services.rating_apply(pool=ladder, match=waiting[i - 4])

    results = run_threads(8, work)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert FairPlayRefund.objects.filter(ladder=ladder, player=cheater).count() == 1
    refund = FairPlayRefund.objects.get()
    assert all([r.pk for r in results[i]] == [refund.pk] for i in range(4))
    for match in waiting:
        assert RatingChange.objects.filter(match=match, voided=False).count() == 2
    # The ratings are the history's replay without the matches taken back, whichever of the
    # refund and the four ratings went first.
    report = services.ratings_replay(pool=ladder)
    assert (report.drifted, report.mismatches) == (0, 0), report
    assert report.voided == 2 * refund.matches > 0
