"""Joins of one open game at once, on PostgreSQL: exactly one match starts, every other join
is refused 409 ``seek_taken`` and starts nothing.

A join locks the seek's row, then claims it with a conditional update from ``open``; the
first test holds the winner inside its transaction for a moment so the loser is known to
wait on the lock and then read the seek taken; the second races many joins freely.
"""

import threading
import time

import pytest

from games import seeks
from games.models import Match, Seek
from tests.factories import PlayerFactory
from tests.integration.conftest import run_threads

pytestmark = pytest.mark.django_db(transaction=True)

HOLD = 1.0  # seconds the first join keeps its lock in the ordered test


def people(count: int) -> list:
    return [PlayerFactory(user__username=f"joiner{i}", name=f"Joiner {i}") for i in range(count)]


def test_a_join_waiting_behind_another_is_refused_seek_taken(alice, monkeypatch):
    seek = seeks.seek_create(poster=alice, target=100)
    bob, charlie = people(2)
    holding = threading.Event()
    real_create = seeks.match_create

    def create_then_hold(**kwargs):
        match = real_create(**kwargs)  # the seek is claimed and locked by now
        holding.set()
        time.sleep(HOLD)
        return match

    monkeypatch.setattr(seeks, "match_create", create_then_hold)

    def join(i: int):
        if i == 1:
            assert holding.wait(10)
        return seeks.seek_join(seek=Seek.objects.get(pk=seek.pk), player=(bob, charlie)[i])

    first, second = run_threads(2, join)
    assert isinstance(first, Seek) and first.status == Seek.Status.TAKEN, first
    assert isinstance(second, seeks.Conflict) and second.code == "seek_taken", second
    assert list(Match.objects.values_list("player_a", "player_b")) == [(alice.pk, bob.pk)]


def test_many_joins_at_once_start_exactly_one_match(alice):
    joiners = people(6)
    for _ in range(5):
        seek = seeks.seek_create(poster=alice, target=100)
        results = run_threads(
            len(joiners),
            lambda i, seek=seek: seeks.seek_join(
                seek=Seek.objects.get(pk=seek.pk), player=joiners[i]
            ),
        )
        won = [r for r in results if isinstance(r, Seek)]
        refused = [r for r in results if isinstance(r, seeks.Conflict)]
        assert len(won) == 1, results
        assert len(refused) == len(joiners) - 1, results
        assert {r.code for r in refused} == {"seek_taken"}, results
        match = Match.objects.get(seek=seek)
        assert match.player_a_id == alice.pk
        # The match is over before the next round, so nobody is busy with it.
        Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)
