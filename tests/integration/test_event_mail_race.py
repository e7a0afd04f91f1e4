"""E-mail to entrants on PostgreSQL: sweepers racing (beat firing twice, several workers, a web
process embedded beside them) queue each entrant's "about to start" exactly once, and tasks
racing (a redelivered one beside the first) send each mail exactly once.

Each sweeper and each task runs in its own thread on its own connection. Queuing a mail is
slowed down so that the sweepers meet each other's locked event rows and queued mails.
"""

import threading
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail as outbox
from django.utils import timezone

from accounts import mail, tasks
from accounts.models import Mail
from tests.factories import PlayerFactory
from tests.integration.conftest import run_threads
from tests.tournaments import QUICK
from tournaments import services
from tournaments.services import reminders, schedule

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SWEEPERS = 4
EVENTS = 3
ENTRANTS = 4


def events_about_to_start(now):
    events = []
    for number in range(EVENTS):
        event = services.event_create(
            name=f"Mail cup {number}",
            format="swiss",
            starts_at=now + timedelta(minutes=60),
            check_in_minutes=30,
            **QUICK,
        )
        services.event_open_registration(event=event)
        for seat in range(ENTRANTS):
            name = f"mail{number}x{seat}"
            services.entry_add(
                event=event,
                player=PlayerFactory(user__username=name, user__email=f"{name}@example.org"),
            )
        events.append(event)
    return events


def test_racing_sweepers_queue_and_racing_tasks_send_each_entrants_mail_once():
    now = timezone.now()
    events = events_about_to_start(now)
    due = now + timedelta(minutes=31)  # the check-in windows have opened
    real_queue = reminders.mail_queue
    queued: list[int] = []
    lock = threading.Lock()

    def slow_queue(**kwargs):
        time.sleep(0.05)  # hold the event's row while the other sweepers come by
        return real_queue(**kwargs)

    def record(mail_id):  # the task each sweeper would publish on commit
        with lock:
            queued.append(mail_id)

    def sweep_twice(i: int) -> list[dict]:
        later = due + timedelta(seconds=15)  # the next tick
        return [schedule.clock_sweep(now=due), schedule.clock_sweep(now=later)]

    with (
        mock.patch.object(reminders, "mail_queue", slow_queue),
        mock.patch.object(tasks.mail_send, "delay_on_commit", record),
        # The sweeps' clock runs half an hour ahead of the rows' own times, so every mail
        # would look overdue to the retry step: only the reminders are raced here.
        mock.patch.object(schedule, "mails_retry", lambda now: 0),
    ):
        results = run_threads(SWEEPERS, sweep_twice)

    assert not [r for r in results if isinstance(r, Exception)], results
    passes = [p for r in results for p in r]
    assert sum(p["reminded"] for p in passes) == EVENTS * ENTRANTS
    assert Mail.objects.count() == EVENTS * ENTRANTS
    for event in events:
        about = Mail.objects.filter(kind="event_starting", about=event.pk)
        assert about.count() == ENTRANTS
    assert sorted(queued) == sorted(Mail.objects.values_list("pk", flat=True))

    # Every mail's task runs in every thread at once (redeliveries beside the first), half
    # of them in the other order: one run sends it.
    ids = sorted(queued)
    sent = run_threads(
        SWEEPERS,
        lambda i: [mail.mail_deliver(mail_id=pk) for pk in (ids if i % 2 else ids[::-1])],
    )
    assert not [r for r in sent if isinstance(r, Exception)], sent
    assert sum(flag for r in sent for flag in r) == EVENTS * ENTRANTS
    assert len(outbox.outbox) == EVENTS * ENTRANTS
    assert len({tuple(m.to) for m in outbox.outbox}) == EVENTS * ENTRANTS
    assert set(Mail.objects.values_list("status", flat=True)) == {Mail.Status.SENT}
