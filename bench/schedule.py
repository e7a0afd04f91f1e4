#!/usr/bin/env python3
"""Scheduled starts: how long after ``starts_at`` events on a clock start, on the cluster.

    make bench-schedule      (or: .venv/bin/python bench/schedule.py [--events N] [--quick])

One run, with the local launcher of deploy/cluster.py (gunicorn, two Celery workers, beat) on
the local PostgreSQL and Redis, in a database of its own (``ginrummy_bench_schedule``, dropped
first and after), two free Redis databases and port 8160. Nobody presses Start: beat's clock
sweep starts every event (tournaments.services.schedule).

**The world.** ``--events`` Swiss events (50), each open for registration with four named
house bots (best of one to 50, so their matches keep the workers busy while the next events
start), created through the services as the organiser's pages do. Two phases:

1. *On time*: the events' starts spread evenly over ``--spread`` seconds (60), the first
   ``LEAD`` seconds after they are made. Half of them have a check-in window (the bots check
   in by themselves), so both paths of the start are taken.
2. *After an outage*: beat is stopped (``cluster.hold``), a fifth as many events as phase 1
   are made with starts a few seconds ahead, beat stays down until ``--outage`` seconds (30)
   after the last of them was due, then is let run again. An event due while nothing could
   start it must start at the first sweep after the return, late, but once.

**Figures.** An event has *started* when this process first reads it running with its first
round paired (it reads every event's status every ``POLL`` seconds, so a start is seen at
most that late); each delay is that moment minus ``starts_at``. Phase 1: p50/p95/max of the
delays, against the same run's **baseline**, the median time the service takes to start one
such event when the organiser presses Start (``POST /api/events/{id}/start``, measured on
``BASELINE`` events made for it): the clock can do no better than the start's own cost, and
the on-time pass's period (beat's ``event-clock-on-time``) bounds what it adds. Phase 2: each delay
after beat's return. **Checks**: every event started exactly once (one ``start`` line in its
audit log, one first round, two pairings), none before its time (``started_at`` >=
``starts_at``), none missed. Any failed check: printed, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

from harness import cluster_environment, drop_database, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "bench-schedule"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_schedule"
PORT = 8160
#: Seconds between making the events and the first start (the making is not what is timed);
#: more than the one-minute check-in window, which must fit before the start.
LEAD = 75.0
#: Seconds between two readings of every event's status.
POLL = 0.2
#: Events started by hand for the baseline.
BASELINE = 5
#: Seconds to wait for a start before calling it missed, after the last was due (or beat's
#: return): four sweep periods.
GRACE = 60.0


def configure(port: int) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
    )


def make_events(count: int, first_start, spread: float, prefix: str, check_in: bool) -> list:
    """``count`` Swiss events open for registration with four house bots each, their starts
    spread evenly from ``first_start`` over ``spread`` seconds (every other one, if
    ``check_in``, with a one-minute check-in window)."""
    from django.contrib.auth import get_user_model

    from tournaments import services as events

    organiser, _ = get_user_model().objects.get_or_create(username="bench-organiser")
    made = []
    for n in range(count):
        starts_at = first_start + timedelta(seconds=spread * n / max(count - 1, 1))
        options = {"best_of": 1, "target": 50, "swiss_rounds": 1, "starts_at": starts_at}
        if check_in and n % 2:
            options["check_in_minutes"] = 1
        event = events.event_create(
            name=f"{prefix} {n + 1}", format="swiss", created_by=organiser, **options
        )
        events.event_open_registration(event=event)
        events.bots_add(event=event, count=4, strategy="greedy")
        made.append(event.pk)
    return made


def watch(pks: list[int], deadline: float) -> dict[int, float]:
    """Read the events every POLL seconds until all have started or ``deadline`` (monotonic)
    passes: each event's first wall-clock moment (epoch seconds) seen running and paired."""
    from tournaments.models import Event, Pairing

    seen: dict[int, float] = {}
    while len(seen) < len(pks) and time.monotonic() < deadline:
        now = time.time()
        waiting = [pk for pk in pks if pk not in seen]
        running = set(
            Event.objects.filter(pk__in=waiting)
            .exclude(status__in=[Event.Status.DRAFT, Event.Status.REGISTRATION])
            .values_list("pk", flat=True)
        )
        paired = set(
            Pairing.objects.filter(event_id__in=running, round__number=1).values_list(
                "event_id", flat=True
            )
        )
        for pk in paired:
            seen[pk] = now
        time.sleep(POLL)
    return seen


def delays(pks: list[int], seen: dict[int, float], since: dict[int, float]) -> list[float]:
    return [seen[pk] - since[pk] for pk in pks if pk in seen]


def check(pks: list[int], seen: dict[int, float]) -> list[str]:
    """What went wrong with these events' starts (nothing: an empty list)."""
    from tournaments.models import Event, EventLog, Pairing, Round

    wrong = []
    for event in Event.objects.filter(pk__in=pks):
        if event.pk not in seen:
            wrong.append(f"{event.name}: not started ({event.status})")
            continue
        starts = EventLog.objects.filter(event=event, action="start").count()
        rounds = Round.objects.filter(event=event, number=1).count()
        pairings = Pairing.objects.filter(event=event, round__number=1).count()
        if (starts, rounds, pairings) != (1, 1, 2):
            wrong.append(f"{event.name}: {starts} starts, {rounds} first rounds, {pairings} pairs")
        if event.started_at < event.starts_at:
            wrong.append(f"{event.name}: started at {event.started_at} before {event.starts_at}")
    return wrong


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def baseline(host: str, port: int) -> list[float]:
    """Seconds the service takes to start one such event by hand, over the API."""
    import json
    import urllib.request

    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from knox.models import AuthToken

    organiser, _ = get_user_model().objects.get_or_create(username="bench-organiser")
    organiser.is_staff = organiser.is_superuser = True  # the event's organiser, and staff
    organiser.save(update_fields=["is_staff", "is_superuser"])
    _, token = AuthToken.objects.create(user=organiser)
    far = timezone.now() + timedelta(days=1)
    taken = []
    for pk in make_events(BASELINE, far, 0, "By hand", check_in=False):
        request = urllib.request.Request(
            f"http://{host}:{port}/api/events/{pk}/start",
            data=json.dumps({}).encode(),
            method="POST",
            headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            if answer.status != 200:
                sys.exit(f"the start by hand answered {answer.status}")
        taken.append(time.perf_counter() - started)
    return taken


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50, help="events started on time")
    parser.add_argument("--spread", type=float, default=60.0, help="seconds their starts span")
    parser.add_argument("--outage", type=float, default=30.0, help="seconds beat stays down")
    parser.add_argument("--quick", action="store_true", help="10 events over 20 s, 20 s down")
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--keep-cluster", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.spread, args.outage = 10, 20.0, 20.0
    if args.events < 2 or args.spread < 0 or args.outage < 0:
        parser.error("--events must be at least 2, --spread and --outage at least 0")
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    configure(args.port)
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    urls = (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"])
    for url in urls:
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    wrong: list[str] = []
    try:
        if cluster.start() != 0:
            return 1
        setup_django(cluster)
        from django.conf import settings
        from django.utils import timezone

        period = float(settings.CELERY_BEAT_SCHEDULE["event-clock-on-time"]["schedule"])
        sweep = float(settings.CELERY_BEAT_SCHEDULE["sweep-event-clock"]["schedule"])
        by_hand = baseline(cluster.HOST, cluster.PORT)

        # Phase 1: on time.
        first = timezone.now() + timedelta(seconds=LEAD)
        on_time = make_events(args.events, first, args.spread, "On time", check_in=True)
        from tournaments.models import Event

        due = {e.pk: e.starts_at.timestamp() for e in Event.objects.filter(pk__in=on_time)}
        seen = watch(on_time, time.monotonic() + LEAD + args.spread + GRACE)
        late = delays(on_time, seen, due)
        wrong += check(on_time, seen)

        # Phase 2: beat down while events come due; started at its return.
        cluster.hold("beat")
        count = max(2, args.events // 5)
        outage_first = timezone.now() + timedelta(seconds=5)
        after_outage = make_events(count, outage_first, 5.0, "After the outage", check_in=False)
        last_due = max(e.starts_at for e in Event.objects.filter(pk__in=after_outage))
        time.sleep(max(0.0, (last_due - timezone.now()).total_seconds() + args.outage))
        if any(Event.objects.filter(pk__in=after_outage, status=Event.Status.RUNNING)):
            wrong.append("an event started while beat was down")
        released = time.time()
        cluster.release("beat")
        back = dict.fromkeys(after_outage, released)
        seen_back = watch(after_outage, time.monotonic() + GRACE)
        return_delays = delays(after_outage, seen_back, back)
        wrong += check(after_outage, seen_back)
        cpus = os.cpu_count()
    finally:
        if not args.keep_cluster:
            cluster.stop()
            drop_database(os.environ["DATABASE_URL"])
            for url in urls:
                redis.Redis.from_url(url).flushdb()

    hand = statistics.median(by_hand)
    print(
        f"scheduled starts: {cpus} cores; the cluster (gunicorn x2, 2 Celery workers, beat; "
        f"the on-time pass every {period:g} s, the whole clock sweep every {sweep:g} s); "
        f"Swiss events of 4 house bots; load {load:.1f} at the start"
    )
    print(f"baseline: a start by hand (POST .../start) median {hand:.2f} s over {BASELINE}")
    print(
        f"on time: {len(late)} of {len(on_time)} events started by themselves, their starts "
        f"over {args.spread:g} s; seconds after starts_at p50 {pct(late, 0.5):.2f} "
        f"p95 {pct(late, 0.95):.2f} max {max(late, default=float('nan')):.2f} "
        f"(p50 {pct(late, 0.5) / hand:.1f} x the start by hand; the pass's period {period:g} s)"
    )
    print(
        f"after an outage: beat down {args.outage:g} s past the last of {len(after_outage)} "
        f"starts; {len(return_delays)} started, seconds after beat's return p50 "
        f"{pct(return_delays, 0.5):.2f} max {max(return_delays, default=float('nan')):.2f}"
    )
    print("checks: " + ("every event started once, none early, none missed" if not wrong else ""))
    for line in wrong:
        print(f"  FAIL {line}")
    print("PASS" if not wrong else "FAIL")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
