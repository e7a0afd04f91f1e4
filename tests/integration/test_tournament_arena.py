"""A bot arena on PostgreSQL and Redis with two real Celery workers.

The test process starts the arena; the workers play the matches, and every result queues a
pairing pass (``tournaments.arena_pair_bots``) that a worker runs once the result commits,
so the bots are paired again and again until the time is up. The test stands in for beat
(the sweep that finishes an arena whose time is up with nothing in play).
"""

import itertools

import pytest

from tests.factories import BotFactory
from tests.integration.conftest import wait_for
from tests.tournaments import event_with
from tournaments import services
from tournaments.models import Entry, Event, Pairing
from tournaments.services import arena as arenas

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_bot_arena_pairs_on_the_workers_until_its_time_is_up(worker_factory):
    workers = worker_factory.many(["arena1", "arena2"])
    field = [BotFactory(name=f"Arena bot {i}", bot_strategy="greedy") for i in range(8)]
    event = event_with(field, "arena", best_of=1, target=50, arena_minutes=0.25, base_seconds=None)
    services.event_start(event=event)
    event.refresh_from_db()

    def finished() -> bool:
        arenas.arenas_sweep()  # beat's part
        return Event.objects.get(pk=event.pk).status == Event.Status.FINISHED

    wait_for(finished, timeout=120, interval=0.5)
    event.refresh_from_db()
    pairings = list(
        Pairing.objects.filter(event=event).select_related("match").order_by("match__created_at")
    )
    assert len(pairings) > 8, "the bots were paired once only"
    assert all(p.status == Pairing.Status.FINISHED for p in pairings)
    assert all(p.match.created_at < event.ends_at for p in pairings), "a match after the end"
    history: dict[int, list[int]] = {}
    for p in pairings:
        history.setdefault(p.entry_a_id, []).append(p.entry_b_id)
        history.setdefault(p.entry_b_id, []).append(p.entry_a_id)
    for met in history.values():
        assert all(x != y for x, y in itertools.pairwise(met)), met
    ranks = sorted(Entry.objects.filter(event=event).values_list("final_rank", flat=True))
    assert ranks == list(range(1, 9))
    logs = "".join(w.log() for w in workers)
    assert "tournaments.arena_pair_bots" in logs  # the passes ran on the workers
