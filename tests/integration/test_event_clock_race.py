"""Events on a clock on PostgreSQL: sweepers racing (beat firing twice, several workers, a web
process embedded beside them) start each due event exactly once.

Each sweeper runs in its own thread on its own connection. A sweep holds each event's row for a
while (its start is slowed down), so the others meet rows that are locked (skipped) and rows
already started (no longer due); each sweeper passes twice, as the next beat tick would.
"""

import time
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from tests.factories import PlayerFactory
from tests.integration.conftest import run_threads
from tests.tournaments import QUICK
from tournaments import services
from tournaments.models import Event, EventLog
from tournaments.services import schedule

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SWEEPERS = 4
EVENTS = 6


def due_events(now) -> list[Event]:
    events = []
    for number in range(EVENTS):
        event = services.event_create(
            name=f"Clock {number}",
            format="swiss",
            starts_at=now + timedelta(minutes=30),
            registration_opens_at=now + timedelta(minutes=5),
            **QUICK,
        )
        # People, not bots: a worker of the suite would play bots' matches to the end.
        for side in "ab":
            person = PlayerFactory(user__username=f"clock{number}{side}")
            services.entry_add(event=event, player=person)
        events.append(event)
    return events


def test_racing_sweepers_open_and_start_each_due_event_exactly_once():
    now = timezone.now()
    events = due_events(now)
    due = now + timedelta(minutes=31)  # registration and the start both came meanwhile
    real_start = schedule.event_start

    def slow_start(**kwargs):
        time.sleep(0.15)  # hold the event's row while the other sweepers come by
        return real_start(**kwargs)

    def sweep_twice(i: int) -> list[dict]:
        later = due + timedelta(seconds=15)  # the next tick
        return [schedule.clock_sweep(now=due), schedule.clock_sweep(now=later)]

    with mock.patch.object(schedule, "event_start", slow_start):
        results = run_threads(SWEEPERS, sweep_twice)

    assert not [r for r in results if isinstance(r, Exception)], results
    passes = [p for r in results for p in r]
    assert sum(p["opened"] for p in passes) == EVENTS
    assert sum(p["started"] for p in passes) == EVENTS
    assert sum(p["refused"] + p["cancelled"] for p in passes) == 0
    for event in events:
        event.refresh_from_db()
        assert event.status == Event.Status.RUNNING
        lines = list(EventLog.objects.filter(event=event).values_list("action", flat=True))
        assert lines.count("open_registration") == 1, lines
        assert lines.count("start") == 1, lines
        assert "start_refused" not in lines and "cancel" not in lines
        assert event.rounds.count() == 1
