#!/usr/bin/env python3
"""Capacity benchmark: what one core does per second, for the capacity model of the docs.

    make bench-capacity        (or: .venv/bin/python bench/capacity.py [--quick] [--json])

Each operation runs many times in this one process on the local PostgreSQL (a scratch
database ``bench_capacity``, dropped first and after), through the same code a web process or
worker runs: the REST API through Django's handler (token sign-in, routing, serializers,
rendering), the services, the engine. Its cost is the CPU time it took, **this process's and
its PostgreSQL backend's together** (``/proc/<pid>/stat`` of the backend serving this
connection), so it counts the database's share and not the time spent waiting for a core on
a busy machine. A core's rate is then 1 / (CPU seconds per operation).

Operations:

- a move (``POST /api/games/{id}/actions``) in a timed game between two people, with the three
  views it pushes rendered (no socket connected: the fan-out to sockets is measured by
  ``make bench-live``);
- a game view (``GET /api/games/{id}``) read in full (no ``If-None-Match``);
- a whole bot match, best of five to 250, greedy against greedy (``match_play_bots``: played
  and written in one go, as a batch worker does);
- a leaderboard page (``GET /api/ladders/{id}/leaderboard``) of a ladder of 2,000 players.

Baselines measured in the same run: the same moves applied by the engine alone (in memory),
and the same bot matches played by the engine alone; the service's cost is printed as a
multiple of them. The capacity model in docs/operations.md is computed from these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

DATABASE = "postgres://postgres@127.0.0.1:5432/bench_capacity"
FULL = {"moves": 400, "views": 400, "bot_matches": 12, "pages": 200, "ladder": 2000}
QUICK = {"moves": 100, "views": 100, "bot_matches": 4, "pages": 50, "ladder": 500}
TICKS = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    """CPU seconds the PostgreSQL backend process has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class CpuMeter:
    """CPU seconds of this process plus its database backend, between start() and stop()."""

    def __init__(self) -> None:
        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]

        self.database_seconds = 0.0  # the backend's share, summed over every use

    def __enter__(self) -> CpuMeter:
        self.started = (time.process_time(), backend_cpu(self.backend))
        return self

    def __exit__(self, *exc) -> None:
        database = backend_cpu(self.backend) - self.started[1]
        self.seconds = time.process_time() - self.started[0] + database
        self.database_seconds += database


def setup() -> None:
    from common import drop_database

    drop_database(DATABASE)
    import psycopg

    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute('CREATE DATABASE "bench_capacity"')
    os.environ.update(
        DATABASE_URL=DATABASE,
        CELERY_BROKER_URL="",
        REDIS_URL="",
        EMBEDDED_WORKER="inline",
        EMBEDDED_CLOCK_SWEEP="0",
        DEBUG="0",
        SECRET_KEY="bench-capacity-" + "x" * 40,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
        THROTTLE_ANON_RATE="1000000/min",
        DB_CONN_MAX_AGE="600",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def person(name: str):
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player

    user = get_user_model().objects.create(username=name, password="!")
    player = Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=name.title())
    return player, AuthToken.objects.create(user=user)[1]


def client_for(token: str):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def measure_moves(count: int, rng: random.Random) -> dict:
    """People's moves over the API, and the same moves applied by the engine alone."""
    from common import a_move

    from games.engine.actions import Action as EngineAction
    from games.engine.match import Match as EngineMatch
    from games.models import Game, Match

    alice, alice_token = person("alice")
    bob, bob_token = person("bob")
    clients = {alice.pk: client_for(alice_token), bob.pk: client_for(bob_token)}
    meter = CpuMeter()
    spent, moved, replayed = 0.0, [], []
    while len(moved) < count:
        created = clients[alice.pk].post(
            "/api/matches",
            {"opponent": bob.pk, "best_of": 1, "target": 250,
             "time_control": {"base_seconds": 3600, "increment_seconds": 5}},
            format="json",
        ).json()  # fmt: skip
        clients[bob.pk].post(f"/api/matches/{created['id']}/accept")
        match = Match.objects.get(pk=created["id"])
        replayed.append(match.pk)
        while len(moved) < count:
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE:
                break
            game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
            if game.pause_deadline is not None:
                for client in clients.values():
                    client.post(f"/api/games/{game.pk}/continue")
                continue
            mover = clients[match.players[game.to_act]]
            view = mover.get(f"/api/games/{game.pk}").json()
            body = a_move(view, rng)
            with meter:
                answer = mover.post(f"/api/games/{game.pk}/actions", body, format="json")
            assert answer.status_code == 200, answer.content
            spent += meter.seconds
            moved.append((match.pk, game.to_act, body))
    # The baseline: the same moves, in the same order, applied by the engine alone.
    from games import selectors

    engines = {}
    started = time.process_time()
    for match_id, index, body in moved:
        if match_id not in engines:
            log = selectors.match_log(match=Match.objects.get(pk=match_id))
            engines[match_id] = EngineMatch(log["seed"], _rules(log))
        engines[match_id].apply(EngineAction.from_json(body), index)
    engine = time.process_time() - started
    return {"count": len(moved), "cpu_s": spent, "db_s": meter.database_seconds,
            "engine_cpu_s": engine, "game": game.pk, "client": mover}  # fmt: skip


def _rules(log: dict):
    from games.engine.rules import RuleSet

    return RuleSet.from_dict(log["rules"])


def measure_views(count: int, game_id: int, client) -> dict:
    meter = CpuMeter()
    spent = 0.0
    for _ in range(count):
        with meter:
            answer = client.get(f"/api/games/{game_id}")
        assert answer.status_code == 200
        spent += meter.seconds
    return {"count": count, "cpu_s": spent, "db_s": meter.database_seconds}


def measure_bot_matches(count: int) -> dict:
    from accounts.models import Player
    from games import services
    from games.engine.bots import make_bot
    from games.engine.bots.runner import play_match
    from games.engine.rules import RuleSet
    from games.models import Match

    a = Player.objects.create(kind=Player.Kind.BOT, name="Greta", bot_strategy="greedy")
    b = Player.objects.create(kind=Player.Kind.BOT, name="Gus", bot_strategy="greedy")
    meter = CpuMeter()
    spent, seeds = 0.0, []
    for _ in range(count):
        match = services.match_create(player_a=a, player_b=b, best_of=5, target=250, start=False)
        seeds.append((match.seed, match.rules))
        with meter:
            assert services.match_play_bots(match_id=match.pk)
        spent += meter.seconds
        assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    from games.engine.match import Match as EngineMatch

    started = time.process_time()
    for seed, rules in seeds:
        engine = EngineMatch(seed, RuleSet.from_dict(rules))
        play_match(engine, (make_bot("greedy", 1), make_bot("greedy", 2)))
    engine = time.process_time() - started
    return {"count": count, "cpu_s": spent, "db_s": meter.database_seconds, "engine_cpu_s": engine}


def measure_leaderboard(count: int, size: int, client) -> dict:
    from django.utils import timezone

    from accounts.models import Player
    from ladders.models import Ladder, Rating

    ladder = Ladder.objects.create(name="Bench ladder", slug="bench")
    bots = Player.objects.bulk_create(
        Player(kind=Player.Kind.BOT, name=f"Bench bot {n}", bot_strategy="greedy")
        for n in range(size)
    )
    now = timezone.now()
    Rating.objects.bulk_create(
        Rating(ladder=ladder, player=p, rating=1500 + (n * 7919) % 600, peak=2100,
               matches_played=20, provisional=False, is_bot=True, last_active=now)
        for n, p in enumerate(bots)
    )  # fmt: skip
    meter = CpuMeter()
    spent = 0.0
    pages = max(1, size // 20)
    for n in range(count):
        with meter:
            answer = client.get(f"/api/ladders/{ladder.pk}/leaderboard?page={1 + n % pages}")
        assert answer.status_code == 200, answer.content
        spent += meter.seconds
    return {"count": count, "cpu_s": spent, "db_s": meter.database_seconds}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    setup()
    from common import drop_database

    try:
        rng = random.Random(7)
        moves = measure_moves(sizes["moves"], rng)
        views = measure_views(sizes["views"], moves["game"], moves["client"])
        bots = measure_bot_matches(sizes["bot_matches"])
        board = measure_leaderboard(sizes["pages"], sizes["ladder"], moves["client"])
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(DATABASE)
    rows = []
    for name, data in (("move (REST, 3 views pushed)", moves), ("game view GET", views),
                       ("bot match, best of 5 (batch)", bots),
                       ("leaderboard page GET", board)):  # fmt: skip
        per = data["cpu_s"] / data["count"]
        row = {"operation": name, "count": data["count"], "cpu_ms": 1000 * per,
               "db_share": data["db_s"] / data["cpu_s"], "per_core_per_s": 1 / per}  # fmt: skip
        if "engine_cpu_s" in data:
            row["engine_cpu_ms"] = 1000 * data["engine_cpu_s"] / data["count"]
            row["x_engine"] = data["cpu_s"] / data["engine_cpu_s"]
        rows.append(row)
    print(
        f"{'operation':32} {'runs':>5} {'CPU ms':>8} {'of it DB':>8} {'per core/s':>11}  "
        "baseline (engine alone)"
    )
    for row in rows:
        base = (
            f"{row['engine_cpu_ms']:.3f} ms: service = {row['x_engine']:.1f}x the engine"
            if "x_engine" in row
            else "-"
        )
        print(
            f"{row['operation']:32} {row['count']:5d} {row['cpu_ms']:8.2f} "
            f"{row['db_share']:8.0%} {row['per_core_per_s']:11.1f}  {base}"
        )
    print(
        "\nCPU = this process + its PostgreSQL backend, summed over every run; a core's rate "
        "is 1 / that. Capacity model: docs/operations.md."
    )
    if args.json:
        out = ROOT / "bench" / "results" / "capacity.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
