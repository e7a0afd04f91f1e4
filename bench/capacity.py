#!/usr/bin/env python3
"""Capacity benchmark: what one core does per second, for the capacity model of the docs.

    make bench-capacity        (or: .venv/bin/python bench/capacity.py [--quick] [--json])
    make bench-capacity BENCH_ARGS="--against REV"   (this tree beside commit REV's code)

Each operation runs many times in this one process on the local PostgreSQL (a scratch
database ``bench_capacity``, dropped first and after), through the same code a web process or
worker runs: the REST API through Django's handler (token sign-in, routing, serializers,
rendering), the services, the engine. Its cost is the CPU time it took, **this process's and
its PostgreSQL backend's together** (``/proc/<pid>/stat`` of the backend serving this
connection), so it counts the database's share and not the time spent waiting for a core on
a busy machine. A core's rate is then 1 / (CPU seconds per operation).

Operations:

- a move on the table socket (``{"type": "move"}`` on ``ws/games/{id}``, answered ``ack``),
  with the views it pushes rendered and handed to both players' sockets (the in-memory channel
  layer, the consumers run in this process as a web process runs them);
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

``--against REV`` measures the same operations on the code of commit REV too, in the same
run: a git worktree of REV (removed after), the same venv, the same PostgreSQL, each tree in a
process of its own with a scratch database of its own, the trees taking turns (``--repeat``
rounds, each figure the median of its rounds). It prints each figure beside the other and
their ratio (REV / this tree), since machines differ by two times and more.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
    """CPU seconds of this process (every thread) plus the PostgreSQL backends serving the
    scratch database (every connection: a socket's database work runs on threads with
    connections of their own), between entering and leaving."""

    def __init__(self) -> None:
        self.database_seconds = 0.0  # the backends' share, summed over every use

    @staticmethod
    def _pids() -> list[int]:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            return [row[0] for row in cursor.fetchall()]

    @staticmethod
    def _cpu(pids) -> dict[int, float]:
        found = {}
        for pid in pids:
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # closed meanwhile
                found[pid] = backend_cpu(pid)
        return found

    # The meter's own work (its query of pg_stat_activity, reading /proc) is left out of what
    # it measures: on entering, the backends are found and read before this process's clock
    # is read; on leaving, this process's clock and the known backends are read before the
    # query that finds backends opened meanwhile (a socket's database threads), whose whole
    # CPU is then counted.
    def __enter__(self) -> CpuMeter:
        backends = self._cpu(self._pids())
        self.started = (time.process_time(), backends)
        return self

    def __exit__(self, *exc) -> None:
        process = time.process_time()
        known = self._cpu(self.started[1])
        opened = self._cpu(pid for pid in self._pids() if pid not in self.started[1])
        database = sum(cpu - self.started[1][pid] for pid, cpu in known.items())
        database += sum(opened.values())
        self.seconds = process - self.started[0] + database
        self.database_seconds += database


def setup(database: str) -> None:
    from harness import drop_database

    drop_database(database)
    import psycopg

    name = database.rsplit("/", 1)[1]
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(
        DATABASE_URL=database,
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
        # The socket moves go back to back, not a person's few seconds apart: the per-socket
        # message limit is lifted as the REST throttles are (its cost is still measured).
        SOCKET_RATE_PER_SECOND="1000000",
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
    from harness import a_move

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


class TableSocket:
    """One player's table socket, in this process (the real routes and middleware)."""

    def __init__(self, loop, game_id: int, token: str) -> None:
        from asgiref.testing import ApplicationCommunicator
        from channels.routing import URLRouter

        import config
        from config.routing import websocket_urlpatterns

        # The socket stack of the tree measured: in the platform package (common/), or in
        # config/ for a tree from before the platform moved out of it (--against).
        code_root = Path(config.__file__).resolve().parent.parent
        platform = "common" if (code_root / "common" / "sockets.py").exists() else "config"
        socket_stack = importlib.import_module(f"{platform}.sockets").socket_stack

        self.loop = loop
        scope = {
            "type": "websocket",
            "path": f"/ws/games/{game_id}",
            "query_string": b"",
            "headers": [(b"authorization", f"Token {token}".encode())],
            "subprotocols": [],
            "client": ("127.0.0.1", 50000),
        }
        self.io = ApplicationCommunicator(socket_stack(URLRouter(websocket_urlpatterns)), scope)
        self.seq = -1
        self.view: dict | None = None

    async def open(self) -> None:
        await self.io.send_input({"type": "websocket.connect"})
        accepted = await self.io.receive_output(30)
        assert accepted["type"] == "websocket.accept", accepted
        await self.until("view")

    async def until(self, kind: str, after_seq: int | None = None) -> dict:
        """The next message of ``kind`` (a view past ``after_seq``), passing over the rest."""
        while True:
            out = await self.io.receive_output(30)
            assert out["type"] == "websocket.send", out
            message = json.loads(out["text"])
            if message.get("type") == "view":
                self.seq, self.view = message["seq"], message["view"]
            if message.get("type") == "error":
                raise AssertionError(message)
            if message.get("type") == kind and (after_seq is None or self.seq > after_seq):
                return message

    async def move(self, number: int, body: dict) -> None:
        action = {k: v for k, v in body.items() if k != "ply"}
        text = json.dumps(
            {"type": "move", "id": f"m{number}", "ply": body["ply"], "action": action}
        )
        await self.io.send_input({"type": "websocket.receive", "text": text})

    async def close(self) -> None:
        await self.io.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.io.wait(10)


def measure_socket_moves(count: int, rng: random.Random) -> dict:
    """People's moves on the table socket: from the move sent to its ack on the mover's socket
    and the new view on the opponent's (both rendered and handed over)."""
    import asyncio

    from harness import a_move

    from games.models import Game, Match

    alice, alice_token = person("sally")
    bob, bob_token = person("sam")
    clients = {alice.pk: client_for(alice_token), bob.pk: client_for(bob_token)}
    tokens = {alice.pk: alice_token, bob.pk: bob_token}
    loop = asyncio.new_event_loop()
    meter = CpuMeter()
    spent, moved = 0.0, 0
    while moved < count:
        created = clients[alice.pk].post(
            "/api/matches",
            {"opponent": bob.pk, "best_of": 1, "target": 250,
             "time_control": {"base_seconds": 3600, "increment_seconds": 5}},
            format="json",
        ).json()  # fmt: skip
        clients[bob.pk].post(f"/api/matches/{created['id']}/accept")
        match = Match.objects.get(pk=created["id"])
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        sockets = {pk: TableSocket(loop, game.pk, tokens[pk]) for pk in tokens}
        for socket in sockets.values():
            loop.run_until_complete(socket.open())
        while moved < count:
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE:
                break
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE:
                break  # the game is over (a match of one game)
            if game.pause_deadline is not None:
                for client in clients.values():
                    client.post(f"/api/games/{game.pk}/continue")
                continue
            mover_id = match.players[game.to_act]
            other_id = next(pk for pk in tokens if pk != mover_id)
            view = clients[mover_id].get(f"/api/games/{game.pk}").json()
            body = a_move(view, rng)
            mover, other = sockets[mover_id], sockets[other_id]
            seen = other.seq

            async def one_move(mover=mover, other=other, body=body, seen=seen, n=moved) -> None:
                await mover.move(n, body)
                await mover.until("ack")
                await other.until("view", after_seq=seen)

            with meter:
                loop.run_until_complete(one_move())
            spent += meter.seconds
            moved += 1
        for socket in sockets.values():
            loop.run_until_complete(socket.close())
    loop.close()
    return {"count": moved, "cpu_s": spent, "db_s": meter.database_seconds}


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


OPERATIONS = (
    ("socket", "move (table socket, views pushed)"),
    ("moves", "move (REST, 3 views pushed)"),
    ("views", "game view GET"),
    ("bots", "bot match, best of 5 (batch)"),
    ("board", "leaderboard page GET"),
)


def measure(sizes: dict, database: str) -> list[dict]:
    """Every operation on the code this process imports, in a scratch database of its own."""
    setup(database)
    from harness import drop_database

    try:
        rng = random.Random(7)
        found = {"socket": measure_socket_moves(sizes["moves"], random.Random(11))}
        found["moves"] = measure_moves(sizes["moves"], rng)
        found["views"] = measure_views(
            sizes["views"], found["moves"]["game"], found["moves"]["client"]
        )
        found["bots"] = measure_bot_matches(sizes["bot_matches"])
        found["board"] = measure_leaderboard(
            sizes["pages"], sizes["ladder"], found["moves"]["client"]
        )
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(database)
    rows = []
    for key, name in OPERATIONS:
        data = found[key]
        per = data["cpu_s"] / data["count"]
        row = {"key": key, "operation": name, "count": data["count"], "cpu_ms": 1000 * per,
               "db_share": data["db_s"] / data["cpu_s"], "per_core_per_s": 1 / per}  # fmt: skip
        if "engine_cpu_s" in data:
            row["engine_cpu_ms"] = 1000 * data["engine_cpu_s"] / data["count"]
            row["x_engine"] = data["cpu_s"] / data["engine_cpu_s"]
        rows.append(row)
    return rows


def child(code_root: str, database: str, quick: bool) -> list[dict]:
    """Run :func:`measure` in a process of its own on the code of ``code_root``."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": code_root}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", code_root,
               "--database", database] + (["--quick"] if quick else [])  # fmt: skip
    done = subprocess.run(command, env=env, cwd=code_root, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(
            f"the measurement of {code_root} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_rows(rounds: list[list[dict]]) -> list[dict]:
    """Each operation's figures, the median over the rounds (by CPU ms)."""
    import statistics

    rows = []
    for i, _ in enumerate(rounds[0]):
        runs = sorted((r[i] for r in rounds), key=lambda row: row["cpu_ms"])
        row = dict(runs[len(runs) // 2])
        row["cpu_ms"] = statistics.median(r["cpu_ms"] for r in runs)
        row["per_core_per_s"] = 1000 / row["cpu_ms"]
        rows.append(row)
    return rows


def worktree(rev: str) -> Path:
    import subprocess
    import tempfile

    # A directory of this run's own: two runs at once do not remove each other's tree.
    path = Path(tempfile.mkdtemp(prefix=f"bench-capacity-{rev.replace('/', '-')}-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(path), rev], cwd=ROOT,
                   check=True, capture_output=True)  # fmt: skip
    return path


def print_rows(rows: list[dict]) -> None:
    print(
        f"{'operation':34} {'runs':>5} {'CPU ms':>8} {'of it DB':>8} {'per core/s':>11}  "
        "baseline (engine alone)"
    )
    for row in rows:
        base = (
            f"{row['engine_cpu_ms']:.3f} ms: service = {row['x_engine']:.1f}x the engine"
            if "x_engine" in row
            else "-"
        )
        print(
            f"{row['operation']:34} {row['count']:5d} {row['cpu_ms']:8.2f} "
            f"{row['db_share']:8.0%} {row['per_core_per_s']:11.1f}  {base}"
        )


def print_against(rev: str, ours: list[dict], theirs: list[dict]) -> None:
    by_key = {row["key"]: row for row in theirs}
    print(f"{'operation':34} {rev + ' ms':>12} {'this tree ms':>13} {'ratio':>7}")
    for row in ours:
        other = by_key.get(row["key"])
        if other is None:
            print(f"{row['operation']:34} {'-':>12} {row['cpu_ms']:13.2f} {'-':>7}")
            continue
        print(
            f"{row['operation']:34} {other['cpu_ms']:12.2f} {row['cpu_ms']:13.2f} "
            f"{other['cpu_ms'] / row['cpu_ms']:6.2f}x"
        )
    socket, rest = by_key.get("socket"), by_key.get("moves")
    if rest is not None:
        print(
            f"\nthis tree's socket move / {rev}'s REST move: "
            f"{ours[0]['cpu_ms'] / rest['cpu_ms']:.2f}"
            + (f"; {rev}'s socket move: {socket['cpu_ms']:.2f} ms" if socket else "")
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", metavar="REV", help="also measure commit REV's code")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of each tree, taking turns")
    parser.add_argument("--child", metavar="CODE_ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--database", default=DATABASE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.child:
        sys.path.insert(0, args.child)
        print(json.dumps(measure(sizes, args.database)))
        return 0
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    # Scratch databases of this run's own (two runs at once do not drop each other's).
    database = f"{DATABASE}_{os.getpid()}"
    other = worktree(args.against) if args.against else None
    ours_rounds, theirs_rounds = [], []
    try:
        for _ in range(args.repeat):
            ours_rounds.append(child(str(ROOT), database, args.quick))
            if other is not None:
                theirs_rounds.append(child(str(other), database + "_against", args.quick))
    finally:
        if other is not None:
            import subprocess

            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT,
                           capture_output=True)  # fmt: skip
            shutil.rmtree(other.parent, ignore_errors=True)
    rows = median_rows(ours_rounds)
    print_rows(rows)
    print(
        "\nCPU = this process + its PostgreSQL backends, summed over every run; a core's rate "
        "is 1 / that. Capacity model: docs/operations.md."
    )
    if theirs_rounds:
        print(f"\nbeside {args.against} (the same operations on its code, in this run; "
              f"median of {args.repeat} round(s) each):")  # fmt: skip
        print_against(args.against, rows, median_rows(theirs_rounds))
    if args.json:
        out = ROOT / "bench" / "results" / "capacity.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
