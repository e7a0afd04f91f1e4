"""Matchmakers at once on PostgreSQL: nobody is paired twice, nobody waits in two places.

A pass locks its ladder row (SKIP LOCKED: a second pass finds it taken and leaves), then locks
the queue entries it chose in id order and deletes them in the transaction that creates the
matches. These tests race real threads (each with its own connection) and real worker
processes against that, with the ladder lock and without it (the entry locks alone).
"""

import contextlib
import itertools
import random
from collections import Counter

import pytest
from django.db import connections
from django.utils import timezone

from accounts.models import Player
from games.models import Match
from ladders import services, tasks
from ladders.models import LadderMatch, QueueEntry, Rating
from tests.factories import PlayerFactory
from tests.integration.conftest import http, run_threads, token_for, wait_for
from tests.ladders import make_ladder, seed_ratings

pytestmark = pytest.mark.django_db(transaction=True)

_batch = itertools.count()


def crowd(ladder, count: int, *, spread: float = 120, seed: int = 1) -> list[Player]:
    """``count`` players waiting in ``ladder`` with ratings close enough to pair them all.

    Written directly: joining through the service would queue a matchmaker task per join,
    and hundreds of those would only slow down the worker of a later test.
    """
    n = next(_batch)
    rng = random.Random(seed)
    users = [PlayerFactory(user__username=f"q{n}u{i}") for i in range(count)]
    memberships = seed_ratings(ladder, users, [1500 + rng.uniform(-spread, spread) for _ in users])
    now = timezone.now()
    QueueEntry.objects.bulk_create(
        QueueEntry(ladder=ladder, player=p, membership=m, joined_at=now, available_at=now)
        for p, m in zip(users, memberships, strict=True)
    )
    return users


def assert_nobody_paired_twice(ladder, players) -> Counter:
    """Every player is in at most one match, and is either paired or still queued."""
    seats = Counter()
    for a, b in Match.objects.filter(ladder_link__ladder=ladder).values_list(
        "player_a_id", "player_b_id"
    ):
        seats[a] += 1
        seats[b] += 1
    assert max(seats.values(), default=0) <= 1, [p for p, n in seats.items() if n > 1]
    waiting = set(QueueEntry.objects.filter(ladder=ladder).values_list("player_id", flat=True))
    assert not waiting & set(seats), "a paired player is still in the queue"
    assert waiting | set(seats) == {p.pk for p in players}, "a player went missing"
    return seats


@pytest.fixture
def no_follow_up_tasks(monkeypatch):
    """The passes and joins of this process publish no task (match starts, more passes).

    The session's worker, if an earlier test started it, would otherwise start hundreds of
    matches while the test database is being emptied, and TRUNCATE deadlocks with it (seen
    in full `make test` runs). These tests check the pairing, not the starts.
    """
    monkeypatch.setattr(tasks.start_matches, "delay_on_commit", lambda *a, **k: None)
    monkeypatch.setattr(tasks.matchmake, "delay_on_commit", lambda *a, **k: None)


@pytest.mark.parametrize("lock", [True, False], ids=["ladder-lock", "entry-locks-only"])
def test_eight_matchmakers_at_once_never_pair_a_player_twice(lock, no_follow_up_tasks):
    ladder = make_ladder(window_initial=400)
    players = crowd(ladder, 400)
    results = run_threads(8, lambda i: services.matchmaker_pass(ladder_id=ladder.pk, lock=lock))
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    seats = assert_nobody_paired_twice(ladder, players)
    created = sum(len(r.matches) for r in results)
    assert created == Match.objects.count() == LadderMatch.objects.count()
    assert len(seats) == 400, "everyone within reach was paired"
    if lock:
        # The others found the ladder taken and did nothing.
        assert sorted(len(r.matches) for r in results) == [0] * 7 + [200]
    else:
        # Several passes chose the same pairs; the losers found the entries gone.
        assert sum(r.dropped for r in results) > 0


def test_matchmakers_racing_joins_and_leaves(alice, no_follow_up_tasks):
    ladder = make_ladder(window_initial=400)
    players = crowd(ladder, 60)
    late = [PlayerFactory(user__username=f"late{i}") for i in range(40)]
    seed_ratings(ladder, late, [1500] * 40)

    def work(i: int):
        if i < 4:
            return [services.matchmaker_pass(ladder_id=ladder.pk, lock=i % 2 == 0)]
        out = []
        for player in late[(i - 4) * 5 : (i - 3) * 5]:
            out.append(services.queue_join(ladder=ladder, player=player))
            if player.pk % 3 == 0:
                with contextlib.suppress(services.Conflict):  # paired already: fine
                    services.queue_leave(ladder=ladder, player=player)
        return out

    results = run_threads(12, work)
    assert not [r for r in results if isinstance(r, Exception)], results

    # Whoever is left and can be paired. A worker may be running passes too (each join
    # queued one), so a pass here can find the ladder taken: go on until nobody pairs.
    def nobody_left_to_pair() -> bool:
        services.matchmaker_pass(ladder_id=ladder.pk)
        return QueueEntry.objects.count() <= 1

    wait_for(nobody_left_to_pair)
    seats = Counter()
    for a, b in Match.objects.values_list("player_a_id", "player_b_id"):
        seats[a] += 1
        seats[b] += 1
    assert max(seats.values()) == 1
    waiting = list(QueueEntry.objects.values_list("player_id", flat=True))
    assert len(waiting) == len(set(waiting)) <= 1
    assert not set(waiting) & set(seats)
    everyone = {p.pk for p in players + late}
    left = everyone - set(seats) - set(waiting)
    assert all(pk % 3 == 0 for pk in left), "only players who left are out of both"


def test_worker_processes_running_matchmakers_at_once(worker_factory, celery_worker):
    """Real processes: two prefork workers, two pool processes each, twenty passes queued.

    The passes' follow-up tasks (the matches' starts) go to the session's worker, settled
    after the test (``celery_worker``): starting matches while the tables are emptied would
    deadlock the TRUNCATE.
    """
    ladder = make_ladder(window_initial=400, bot_pairs=True)
    worker_factory.many(["matchmaker0", "matchmaker1"], pool="prefork", concurrency=2, queues="mm")
    players = crowd(ladder, 300, seed=3)
    connections.close_all()
    results = [tasks.matchmake.apply_async((ladder.pk,), queue="mm") for _ in range(20)]
    created = sum(r.get(timeout=60) for r in results)
    seats = assert_nobody_paired_twice(ladder, players)
    assert created == Match.objects.count() == len(seats) // 2
    assert len(seats) == 300


def test_twenty_joins_of_one_player_over_http_make_one_entry(alice, live_server):
    ladder = make_ladder()
    token = token_for("alice")
    url = f"/api/ladders/{ladder.pk}/queue"
    answers = run_threads(20, lambda i: http(live_server.url, "POST", url, token))
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] + [409] * 19, answers
    assert {body["code"] for status, body in answers if status == 409} == {"already_queued"}
    assert QueueEntry.objects.get().player == alice
    assert Rating.objects.filter(player=alice).count() == 1


def test_joins_over_http_are_paired_by_the_worker(live_server, celery_worker):
    """The production path: a join commits, its matchmaker task runs in a worker."""
    ladder = make_ladder(window_initial=400)
    users = [PlayerFactory(user__username=f"http{i}") for i in range(10)]
    tokens = [token_for(u.user.username) for u in users]
    url = f"/api/ladders/{ladder.pk}/queue"
    answers = run_threads(10, lambda i: http(live_server.url, "POST", url, tokens[i]))
    assert sorted(status for status, _ in answers) == [201] * 10, answers
    wait_for(lambda: Match.objects.filter(status=Match.Status.ACTIVE).count() == 5, timeout=30)
    status, body = http(live_server.url, "GET", url, tokens[0])
    assert status == 200 and body["status"] == "paired" and body["match"]["status"] == "active"
    assert_nobody_paired_twice(ladder, users)
