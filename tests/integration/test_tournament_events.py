"""Bot events end to end on PostgreSQL and Redis with two real Celery workers.

The test process only starts the event; the workers play every match, and each finished
match advances the event in the worker's own transaction (the event row lock serialises two
workers finishing matches at once). Webhooks go from the workers to a receiver in this process.
"""

import itertools
import json
import re
import time

import pytest
from django.utils import timezone

from games.models import Match
from games.tasks import play_match
from tests.factories import BotFactory
from tests.integration.conftest import WorkerFactory, wait_for
from tests.tournaments import Receiver, event_with, humans, played
from tournaments import services, tasks, webhooks
from tournaments.models import Event, Pairing, Round, Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def module_workers(django_db_setup, tmp_path_factory):
    """Two worker processes (solo pools) on the test database and Redis, for this file.

    Their webhooks may reach the receiver on loopback over http (the test settings every
    worker of the run gets, see conftest.subprocess_env).
    """
    factory = WorkerFactory(tmp_path_factory.mktemp("tournament-workers"))
    try:
        yield factory.many(["tournament1", "tournament2"])
    finally:
        factory.stop_all()


@pytest.fixture
def two_workers(module_workers):
    """The two workers, their logs from this test's start; settled after the test, before its
    tables are emptied (as the session's worker is)."""
    for worker in module_workers:
        worker.mark()
    yield module_workers
    for worker in module_workers:
        if worker.process.poll() is None:
            worker.settle()


def bot_field(count: int) -> list:
    return [BotFactory(name=f"Greedy {i}", bot_strategy="greedy") for i in range(count)]


def wait_finished(event: Event, timeout: float = 180) -> Event:
    wait_for(
        lambda: Event.objects.get(pk=event.pk).status == Event.Status.FINISHED,
        timeout=timeout,
        interval=0.2,
    )
    event.refresh_from_db()
    return event


def played_by(worker) -> int:
    return len(re.findall(r"Task games\.play_match\[[^\]]+\] succeeded", worker.log()))


def test_a_bot_single_elimination_runs_end_to_end_on_two_workers(two_workers):
    event = event_with(bot_field(32), "single_elim", best_of=1, target=100)
    with Receiver() as receiver:
        Webhook.objects.create(event=event, url=receiver.url)
        started = time.monotonic()
        services.event_start(event=event)
        event = wait_finished(event)
        elapsed = time.monotonic() - started
        wait_for(lambda: not WebhookDelivery.objects.filter(status="pending").exists(), timeout=30)
    matches = played(event)
    assert len(matches) == 31 and len({p.match_id for p in matches}) == 31
    assert not Match.objects.filter(source="tournament").exclude(status="finished").exists()
    assert set(Round.objects.filter(event=event).values_list("status", flat=True)) == {"finished"}
    final = Pairing.objects.get(event=event, key="R5.1")
    assert event.champion_id == final.winner.player_id
    # Every winner went on to the one match its slot feeds.
    for p in matches:
        if p.winner_to:
            key, slot = p.winner_to.split(":")
            nxt = Pairing.objects.get(event=event, key=key)
            assert (nxt.entry_a_id if slot == "a" else nxt.entry_b_id) == p.winner_id
    # Both workers played, and every notification arrived once, signed.
    assert all(played_by(w) > 0 for w in two_workers), [played_by(w) for w in two_workers]
    types = receiver.types()
    assert types.count("match.finished") == 31 and types.count("event.finished") == 1
    assert types.count("round.started") == 5 and types.count("event.started") == 1
    # Notified in the order things happened; two workers may deliver two of them at once, so
    # the receiver's arrival order is not the test (receivers order by each body's time).
    first = WebhookDelivery.objects.filter(webhook__event=event).order_by("pk").first()
    assert first.event_type == "event.started"
    secret = Webhook.objects.get().secret
    for headers, body in receiver.requests:
        assert webhooks.verify(secret, headers["X-Ginrummy-Signature"], body)
    print(f"\n32-bot event on two workers: {elapsed:.1f} s, {31 / elapsed:.1f} matches/s")


def test_a_bot_swiss_pairs_each_round_after_the_last_on_two_workers(two_workers):
    event = event_with(bot_field(12), "swiss", best_of=1, target=100)
    services.event_start(event=event)
    event = wait_finished(event)
    assert event.rounds_planned == 4
    pairs = [frozenset(p.entries) for p in played(event)]
    assert len(pairs) == len(set(pairs)) == 24
    rounds = list(Round.objects.filter(event=event).order_by("number"))
    for previous, current in itertools.pairwise(rounds):
        assert previous.finished_at <= current.started_at
    assert all(played_by(w) > 0 for w in two_workers)


def test_redelivered_match_tasks_change_nothing(two_workers):
    event = event_with(bot_field(8), "double_elim", best_of=1, target=100)
    services.event_start(event=event)
    event = wait_finished(event)
    before = (
        Match.objects.count(),
        list(Pairing.objects.filter(event=event).values_list("key", "winner", "match")),
    )
    # Every match's task delivered again (at-least-once): already finished, left alone.
    results = [play_match.delay(p.match_id) for p in played(event)]
    assert [r.get(timeout=30) for r in results] == [False] * len(results)
    after = (
        Match.objects.count(),
        list(Pairing.objects.filter(event=event).values_list("key", "winner", "match")),
    )
    assert after == before
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED


def test_a_worker_sweeps_the_no_shows(two_workers):
    event = event_with(humans(4), "single_elim", grace_seconds=0)
    services.event_start(event=event)
    outcome = tasks.sweep.delay().get(timeout=30)
    assert outcome["no_shows"] == 2
    # Nobody showed up anywhere: both semifinals are double no-shows, the final is empty.
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion is None
    assert Pairing.objects.filter(event=event, result="double_no_show").count() == 2


def test_the_bracket_api_over_a_finished_event(two_workers, client):
    event = event_with(bot_field(6), "single_elim", best_of=1, target=100, third_place=True)
    services.event_start(event=event)
    wait_finished(event)
    body = client.get(f"/api/events/{event.pk}/bracket").json()
    assert body["champion"]["id"] == Event.objects.get(pk=event.pk).champion_id
    standings = client.get(f"/api/events/{event.pk}/standings").json()["rows"]
    # The two first-round losers share fifth place; the third-place match splits 3 and 4.
    assert [row["rank"] for row in standings] == [1, 2, 3, 4, 5, 5]
    assert standings[0]["reached"] == "Champion"
    assert json.dumps(body)  # serialisable as it is
    assert timezone.now() > Event.objects.get(pk=event.pk).finished_at
