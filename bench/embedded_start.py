#!/usr/bin/env python3
"""Embedded start benchmark: the admin's "Start" of a 64-bot event, threads beside inline.

    make bench-embedded      (or: .venv/bin/python bench/embedded_start.py [--players N] [--json])

For each way the embedded default can run its tasks, in a fresh child process on a brand-new
SQLite file in a temporary ``VAR_DIR`` (no broker, no Redis):

- ``EMBEDDED_WORKER=threads`` (the default): the in-process worker plays the matches on its
  batch threads, so the Start request only starts the event;
- ``EMBEDDED_WORKER=inline`` (the baseline, the behaviour before the in-process worker): every
  match runs inside the request that queued it, so the Start request plays the whole event.

An organiser (staff) opens the events page of the admin, then starts a single elimination of
N greedy bots, best of five to 250 (the same event as ``make bench-tournaments``), with the
admin action, through Django's test client in the child. Reported: the seconds the Start
request took, and the seconds from the Start to the champion. With threads, a human also plays
a greedy bot over the REST API while the event is played (``POST /api/games/{id}/actions``):
how long each move's answer took and how long until the bot's reply was there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
MOVES = 20


def _env(var: str, worker: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "VAR_DIR": var,
        "DEBUG": "1",
        "DATABASE_URL": "",
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
        "EMBEDDED_WORKER": worker,
        "EMBEDDED_CLOCK_SWEEP": "0",
        "LOG_LEVEL": "WARNING",
    }


def run(worker: str, players: int) -> dict:
    """One measurement in a child process on a fresh database."""
    with tempfile.TemporaryDirectory(prefix="bench-embedded-") as var:
        env = _env(var, worker)
        migrate = [PYTHON, "manage.py", "migrate", "--no-input", "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=300)
        child = [PYTHON, "bench/embedded_start.py", "--child", f"--players={players}"]
        done = subprocess.run(
            child, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600, check=False
        )
    if done.returncode != 0:
        sys.exit(f"the {worker} run failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])


# --- the child: one Start, measured -----------------------------------------------------------


def child(players: int) -> dict:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.models import Player
    from common import embedded
    from tournaments import services
    from tournaments.models import Event

    bots = Player.objects.bulk_create(
        Player(kind=Player.Kind.BOT, name=f"Greedy {i}", bot_strategy="greedy")
        for i in range(1, players + 1)
    )
    event = services.event_create(
        name=f"{players} greedy bots",
        format="single_elim",
        best_of=5,
        target=250,
        seeding="random",
        seeding_seed=2026,
        base_seconds=None,
    )
    services.event_open_registration(event=event)
    for bot in bots:
        services.entry_add(event=event, player=bot)
    organiser = get_user_model().objects.create_superuser(username="organiser", password=None)
    browser = Client()
    browser.force_login(organiser)
    assert browser.get("/admin/tournaments/event/").status_code == 200  # the organiser's page
    threads = settings.EMBEDDED_WORKER == "threads"
    human = _human_against_a_bot() if threads else None

    started = time.perf_counter()
    response = browser.post(
        "/admin/tournaments/event/", {"action": "start_events", "_selected_action": [event.pk]}
    )
    start_seconds = time.perf_counter() - started
    assert response.status_code == 302, response.content[:500]
    moves = _play(*human) if human else []
    event.refresh_from_db()
    while event.status == Event.Status.RUNNING:
        time.sleep(0.05)
        event.refresh_from_db()
    champion_seconds = time.perf_counter() - started
    assert embedded.wait_idle(600)
    return {
        "worker": settings.EMBEDDED_WORKER,
        "players": players,
        "status": event.status,
        "champion": event.champion.name if event.champion else None,
        "start_seconds": round(start_seconds, 3),
        "champion_seconds": round(champion_seconds, 2),
        "moves": moves,
    }


def _human_against_a_bot():
    """A signed-in human and their match against a greedy bot (best of one to 500)."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from accounts.models import Player
    from games.models import Game

    user = get_user_model().objects.create_user(username="alice", password=None)
    alice = Player.objects.create(kind=Player.Kind.HUMAN, user=user, name="Alice")
    bot = Player.objects.create(kind=Player.Kind.BOT, name="Gus", bot_strategy="greedy")
    client = APIClient()
    client.force_authenticate(user=user)
    created = client.post(
        "/api/matches", {"opponent": bot.pk, "best_of": 1, "target": 500}, format="json"
    )
    assert created.status_code == 201, created.content[:500]
    game = Game.objects.get(match_id=created.json()["id"])
    return client, game, alice


def _play(client, game, player) -> list[dict]:
    """Up to MOVES moves that hand the turn to the bot: answer time, time to the bot's reply."""
    timings = []
    while len(timings) < MOVES:
        data = _my_turn(game, player)
        if data is None:
            break
        legal = data["legal_actions"]
        handing = [a for a in legal if a["type"] in ("pass", "discard")]
        action = handing[0] if handing else legal[0]
        started = time.perf_counter()
        answer = client.post(
            f"/api/games/{game.pk}/actions", {"ply": data["ply"], **action}, format="json"
        )
        answered = time.perf_counter() - started
        if answer.status_code != 200 or not handing:
            continue  # a draw keeps the turn: not a move the bot answers
        if _my_turn(game, player) is None:
            break
        timings.append({"answer": answered, "reply": time.perf_counter() - started})
    return timings


def _my_turn(game, player, timeout: float = 60.0) -> dict | None:
    """Wait for the human's turn (read with the API's own selector: polling the API itself
    would hit the request throttle); None when the game is over."""
    from games.models import Game
    from games.selectors import game_view

    until = time.perf_counter() + timeout
    while time.perf_counter() < until:
        data = game_view(game=Game.objects.get(pk=game.pk), viewer=player)
        if data["status"] != "active":
            return None
        if data["your_turn"]:
            return data
        time.sleep(0.005)
    return None


# --- report ------------------------------------------------------------------------------------


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=64, help="bots in the event (64)")
    parser.add_argument("--json", action="store_true", help="also write bench/results/…json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.players)))
        return 0

    print(f"Admin Start of a {args.players}-bot single elimination, best of five to 250, embedded:")
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    for worker in ("threads", "inline"):
        report = run(worker, args.players)
        results[worker] = report
        label = "threads (default)" if worker == "threads" else "inline (baseline)"
        print(
            f"  {label:<18} Start request {report['start_seconds']:>7.3f} s   "
            f"champion after {report['champion_seconds']:>6.1f} s  ({report['champion']})"
        )
        if report["moves"]:
            moves = report["moves"]
            print(
                f"  {'':<18} a human's move during the event ({len(moves)} moves): answer "
                f"{_ms([m['answer'] for m in moves])}; bot's reply there after "
                f"{_ms([m['reply'] for m in moves])}"
            )
    if args.json:
        out = ROOT / "bench" / "results" / "embedded_start.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
