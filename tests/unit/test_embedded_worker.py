"""The in-process worker (``EMBEDDED_WORKER=threads``): nothing waits for the work it queued.

Each story runs in a child process on a SQLite *file* (a copy of a database migrated once for
this module), with the embedded default's own settings: real commits, real threads, each with
its own connection, as under ``make run``. The unit suite's in-memory database cannot be shared
with other threads and its transactions never commit (tests/unit/conftest.py runs the rest of
the suite inline). A story is a ``story_*`` function below, run by the child; it returns what
it saw and the test asserts on that.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from celery import shared_task
from django.db import transaction

from common import embedded

ROOT = Path(__file__).resolve().parents[2]
CHILD = (
    "import json, sys, django; django.setup(); "
    "from tests.unit import test_embedded_worker as here; "
    "print('STORY ' + json.dumps(getattr(here, 'story_' + sys.argv[1])()))"
)

# --- tasks the stories queue ------------------------------------------------------------------

_ran: list[dict] = []
# A story holds tasks at this gate and opens it once it has seen what it came for, so what
# it asserts is an order of events, not a time that a busy machine would stretch: a caller
# that waited for a held task would wait out HOLD, far past anything a story measures.
_gate = threading.Event()
HOLD = 20.0


@shared_task(name="tests.embedded.where")
def where(player_id: int | None = None) -> str:
    """Batch lane: note the thread and, given a player, that its committed row is visible."""
    from accounts.models import Player

    seen = player_id is None or Player.objects.filter(pk=player_id).exists()
    _ran.append({"thread": threading.current_thread().name, "seen": seen})
    return threading.current_thread().name


@shared_task(name="tests.embedded.held")
def held(player_id: int | None = None) -> str:
    """Batch lane: as ``where``, once the story opens the gate (or HOLD s have passed)."""
    from accounts.models import Player

    opened = _gate.wait(HOLD)
    seen = player_id is None or Player.objects.filter(pk=player_id).exists()
    _ran.append({"thread": threading.current_thread().name, "seen": seen, "opened": opened})
    return threading.current_thread().name


@shared_task(name="tests.embedded.push_ping")
def push_ping() -> float:
    """Interactive lane (its name matches ``*.push*``): when it ran."""
    return time.monotonic()


@shared_task(name="tests.embedded.boom")
def boom() -> None:
    raise ValueError("boom")


@shared_task(name="tests.embedded.halt")
def halt() -> None:
    raise SystemExit("halt")  # not an Exception: Celery's tracer lets it through


# --- running a story in a child process ---------------------------------------------------------


def _env(var: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "1",
        "VAR_DIR": str(var),
        "DATABASE_URL": "",
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
        "EMBEDDED_WORKER": "threads",
        "EMBEDDED_CLOCK_SWEEP": "0",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """A SQLite file migrated once; each story gets its own copy."""
    var = tmp_path_factory.mktemp("embedded-template")
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v0"],
        cwd=ROOT,
        env=_env(var),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return var / "db.sqlite3"


@pytest.fixture
def story(migrated, tmp_path):
    """``story("name", **env)``: run ``story_name`` in a child process; what it returned."""

    def run(name: str, **env: str) -> dict:
        for suffix in ("", "-wal", "-shm"):
            source = migrated.with_name(migrated.name + suffix)
            if source.exists():
                shutil.copy(source, tmp_path / source.name)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, name],
            cwd=ROOT,
            env=_env(tmp_path, **env),
            capture_output=True,
            text=True,
            timeout=900,  # only a hung story meets it
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith("STORY ")]
        assert done.returncode == 0 and lines, f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        return json.loads(lines[-1].removeprefix("STORY "))

    return run


# --- (a) on commit, on another thread -----------------------------------------------------------


def story_queued_on_commit() -> dict:
    from accounts.models import Player

    started = time.monotonic()
    with transaction.atomic():
        bot = Player.objects.create(kind="bot", name="Committed", bot_strategy="random")
        held.delay_on_commit(bot.pk)
    committed = time.monotonic() - started
    ran_by_then = list(_ran)
    _gate.set()
    idle = embedded.wait_idle(HOLD)
    return {
        "caller": threading.current_thread().name,
        "commit_seconds": committed,
        "ran_by_then": ran_by_then,
        "idle": idle,
        "ran": _ran,
    }


def test_a_task_queued_on_commit_runs_on_a_worker_thread_not_the_callers(story):
    seen = story("queued_on_commit")

    assert seen["commit_seconds"] < HOLD, "the commit waited for the task at its gate"
    assert seen["ran_by_then"] == []
    assert seen["idle"]
    [ran] = seen["ran"]
    assert ran["opened"], "the task ran before the story opened its gate"
    assert ran["thread"].startswith("embedded-batch-") and ran["thread"] != seen["caller"]
    assert ran["seen"], "the worker thread sees the committed row"


def story_delay_returns_a_result() -> dict:
    result = held.delay()
    returned_at_once = not result.ready()
    _gate.set()
    return {"id": result.id, "at_once": returned_at_once, "value": result.get(timeout=HOLD)}


def test_delay_returns_at_once_a_result_with_an_id_and_get(story):
    seen = story("delay_returns_a_result")

    assert seen["id"] and seen["at_once"]
    assert seen["value"].startswith("embedded-batch-")


# --- (b) interactive before batch ---------------------------------------------------------------


def story_interactive_behind_a_full_batch_lane() -> dict:
    slow = [held.delay() for _ in range(4)]  # two batch threads held at the gate, two waiting
    time.sleep(0.1)
    started = time.monotonic()
    answered = push_ping.delay().get(timeout=3 * HOLD) - started
    busy = sum(not r.ready() for r in slow)
    _gate.set()
    for r in slow:
        r.get(timeout=HOLD)
    return {"interactive_seconds": answered, "batch_still_busy": busy}


def test_an_interactive_task_is_not_stuck_behind_slow_batch_tasks(story):
    seen = story("interactive_behind_a_full_batch_lane")

    assert seen["batch_still_busy"] == 4, "the batch lane was still full"
    assert seen["interactive_seconds"] < HOLD, "the interactive task waited for the batch lane"


def test_interactive_tasks_are_named_by_the_setting(settings):
    assert embedded.lane_of("games.bot_move") == embedded.INTERACTIVE
    assert embedded.lane_of("games.settle_clock") == embedded.INTERACTIVE
    assert embedded.lane_of("games.push_game") == embedded.INTERACTIVE
    assert embedded.lane_of("live.table_changed") == embedded.INTERACTIVE
    assert embedded.lane_of("ladders.matchmake") == embedded.INTERACTIVE
    for batch in ("games.play_match", "tournaments.deliver_webhook", "ladders.rate_match"):
        assert embedded.lane_of(batch) == embedded.BATCH
    settings.INTERACTIVE_TASKS = ["games.play_match"]
    assert embedded.lane_of("games.play_match") == embedded.INTERACTIVE
    assert embedded.lane_of("games.bot_move") == embedded.BATCH


# --- (c) countdowns -----------------------------------------------------------------------------


COUNTDOWN, ETA = 1.5, 1.0


def story_countdown() -> dict:
    started = time.monotonic()
    later = push_ping.apply_async(countdown=COUNTDOWN)
    eta = push_ping.apply_async(eta=datetime.now(UTC) + timedelta(seconds=ETA))
    # One interactive thread: these run at once only if no thread sleeps through a countdown.
    quick = [push_ping.delay().get(timeout=HOLD) - started for _ in range(3)]
    waiting = embedded.outstanding()
    idle_early = embedded.wait_idle(0.1)
    return {
        "quick": quick,
        "waiting": waiting,
        "idle_early": idle_early,
        # Each must fire while nothing else is queued to wake the worker.
        "eta": eta.get(timeout=HOLD) - started,
        "later": later.get(timeout=HOLD) - started,
        "idle": embedded.wait_idle(HOLD),
    }


def test_a_countdown_is_honoured_without_holding_a_worker_thread(story):
    seen = story("countdown", EMBEDDED_INTERACTIVE_THREADS="1")

    # A thread that slept through a countdown would have run the queued tasks after it.
    assert max(seen["quick"]) < seen["eta"], "a queued task waited behind a countdown"
    assert seen["waiting"] == 2 and not seen["idle_early"], "scheduled tasks count as busy"
    assert ETA <= seen["eta"] < seen["later"], "a task ran before its ETA, or out of order"
    assert seen["later"] >= COUNTDOWN, "a task ran before its countdown"
    assert seen["idle"]


# --- (d) failures ---------------------------------------------------------------------------------


def story_failures() -> dict:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logging.getLogger("common.embedded").addHandler(Keep(level=logging.ERROR))
    failed = boom.delay()  # does not raise here
    failed.wait(HOLD)
    try:
        failed.get(timeout=HOLD)
        raised = None
    except ValueError as error:
        raised = str(error)
    halted = halt.delay()
    halted.wait(HOLD)
    after = where.delay().get(timeout=HOLD)  # one batch thread: the same one goes on
    return {
        "state": failed.state,
        "raised": raised,
        "halted": halted.state,
        "after": after,
        "records": records,
    }


def test_a_failing_task_is_logged_and_the_worker_goes_on(story):
    seen = story("failures", EMBEDDED_BATCH_THREADS="1")

    assert seen["state"] == "FAILURE" and seen["raised"] == "boom"
    assert seen["halted"] == "FAILURE"
    assert seen["after"] == "embedded-batch-1"
    assert any("tests.embedded.boom" in r and "ValueError('boom')" in r for r in seen["records"])
    assert any("tests.embedded.halt" in r for r in seen["records"])


# --- (e) the admin's Start of a 64-bot event ------------------------------------------------------


def story_admin_starts_a_64_bot_event() -> dict:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.tournaments import bots, event_with
    from tournaments.models import Event

    admin = get_user_model().objects.create_superuser(username="organiser", password=None)
    browser = Client()
    browser.force_login(admin)
    event = event_with(bots(64), "single_elim")
    assert browser.get("/admin/tournaments/event/").status_code == 200  # the organiser's list
    started = time.monotonic()
    response = browser.post(
        "/admin/tournaments/event/", {"action": "start_events", "_selected_action": [event.pk]}
    )
    answered = time.monotonic() - started
    event.refresh_from_db()
    status_then = event.status
    deadline = time.monotonic() + 600
    while event.status == Event.Status.RUNNING and time.monotonic() < deadline:
        time.sleep(0.1)
        event.refresh_from_db()
    return {
        "code": response.status_code,
        "start_seconds": answered,
        "status_then": status_then,
        "status": event.status,
        "champion": event.champion.name if event.champion else None,
        "champion_seconds": time.monotonic() - started,
        "idle": embedded.wait_idle(60),
    }


def test_the_admins_start_of_a_64_bot_event_answers_at_once_and_the_event_finishes(story):
    seen = story("admin_starts_a_64_bot_event")

    assert seen["code"] == 302
    assert seen["status_then"] == "running", "the start answered before the event was played"
    # Beside the same run's whole event, so that a busy machine stretches both: the first
    # round alone is half the event's 63 matches (a Start that played it would take half the
    # event's time); the Start only pairs and queues it.
    assert seen["start_seconds"] < seen["champion_seconds"] / 3, seen
    assert seen["status"] == "finished" and seen["champion"], seen
    assert seen["idle"]


# --- (f) a human's move against a bot -------------------------------------------------------------


def story_human_moves_against_a_bot() -> dict:
    from rest_framework.test import APIClient

    from games import services
    from games.models import Game
    from tests.conftest import sign_in
    from tests.factories import BotFactory, PlayerFactory
    from tests.play import move, view

    PlayerFactory(user__username="alice", name="Alice")
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    alice = APIClient()
    sign_in(alice, "alice")
    created = alice.post(
        "/api/matches", {"opponent": gus.pk, "best_of": 1, "target": 25}, format="json"
    ).json()
    game = Game.objects.get(match_id=created["id"])

    def alices_view(deadline=10.0):
        until = time.monotonic() + deadline
        while time.monotonic() < until:
            data = view(alice, game)
            if data["your_turn"] or data["status"] == "finished":
                return data
            time.sleep(0.02)
        raise AssertionError("the bot never moved")

    data = alices_view()  # a bot that acts first moves in the background
    legal = data["legal_actions"]
    passing = [a for a in legal if a["type"] in ("pass", "discard")]
    if not passing:  # alice must draw first: draw, then discard
        data = move(alice, game, data["ply"], legal[0]).json()
        passing = [a for a in data["legal_actions"] if a["type"] == "discard"]
    real_bot_move = services.bot_move

    def held_bot_move(**kwargs):
        _gate.wait(HOLD)  # the bot thinks until the story has its answer
        return real_bot_move(**kwargs)

    services.bot_move = held_bot_move  # the task calls the service by its module attribute
    ply = data["ply"]
    started = time.monotonic()
    answer = move(alice, game, ply, passing[0])
    answered = time.monotonic() - started
    replied_before_answer = Game.objects.get(pk=game.pk).ply
    _gate.set()
    after = alices_view(deadline=HOLD)
    return {
        "code": answer.status_code,
        "ply": ply,
        "answered_ply": answer.json()["ply"],
        "answer_seconds": answered,
        "ply_at_answer": replied_before_answer,
        "reply_ply": after["ply"],
    }


def test_a_humans_move_is_answered_before_the_bot_replies_and_the_reply_follows(story):
    seen = story("human_moves_against_a_bot")

    assert seen["code"] == 200
    assert seen["answered_ply"] == seen["ply"] + 1, "the answer came before the bot's reply"
    assert seen["ply_at_answer"] == seen["ply"] + 1, "the bot moved before the answer"
    assert seen["answer_seconds"] < HOLD, "the answer waited for the bot's reply"
    assert seen["reply_ply"] >= seen["ply"] + 2, "the bot's reply never followed"


def test_the_clock_sweeper_stops_when_asked_and_can_start_again():
    if embedded._started.is_set():
        pytest.skip("this process runs a clock sweeper already")
    assert embedded.start_clock_sweeper(interval=3600)  # no pass before it is stopped
    sweeper = embedded._sweeper

    embedded.stop_clock_sweeper(timeout=5)

    assert not sweeper.is_alive()
    assert embedded.start_clock_sweeper(interval=3600)
    embedded.stop_clock_sweeper(timeout=5)
    assert not embedded._sweeper.is_alive()
