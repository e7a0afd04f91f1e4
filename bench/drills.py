#!/usr/bin/env python3
"""Fault drills on the whole cluster: PostgreSQL restarted, Redis restarted, beat gone.

One file on purpose, though long: a benchmark is one command, and its set-up, load and
report read top to bottom.

    make drills              (or: .venv/bin/python bench/drills.py [--only NAME ...])

The cluster of deploy/cluster.py (gunicorn, two Celery workers, beat) runs on a PostgreSQL
and a Redis **of the drills' own**: a throw-away PostgreSQL cluster made with initdb (run as
the ``postgres`` user) and a redis-server, each on a free port under var/drills/. Crashing
and restarting them disturbs nobody else's services or tests, and both are stopped at the
end whatever happens (try/finally). Players play real games over HTTP throughout.

Drills (each prints PASS or FAIL with its figures; the exit code is 0 only if all pass):

- ``postgres``: PostgreSQL is killed (``pg_ctl stop -m immediate``, a crash) in the middle of
  play and a bot event, and started again 6 s later. Every answer meanwhile is a 503 in the
  error shape (never a 500), the health check says which service is down within a second,
  5 s after PostgreSQL is back no request gets a 503 any more, tasks that failed on the
  database are retried, and afterwards every match finishes and replays from its log to its
  state.
- ``redis``: Redis (broker and cache) is killed and restarted empty in the middle of play:
  answers are 503 while it is down (the throttle counters live there), moves still commit,
  the lost bot replies and bot matches are redone by the sweeps, every match finishes once.
- ``beat``: beat is stopped for a minute while timed games run out: the first read of each
  expired game settles it (lazy settlement), and nothing is settled twice once beat is back.
- ``restore``: ``pg_dump`` while people play and a rated bot event runs, then the cluster is
  stopped, Redis restarted empty, the dump restored into a new database and the cluster
  started on it: every match replays from its log, every rating pool equals a replay of its
  history, the event finishes and every person's unfinished game still takes a move
  (``make drill-restore`` runs this one alone).

Every drill also fails if a cluster process died during it (the cluster's supervisor starts
it again: ``processes_died``) or one is down at its end; a drill that breaks is reported as
a FAIL with its error, and the other drills still run.

The in-process kills (pool child, whole worker, at a deadline and in a bot match), the long
countdown, the poison task, SIGTERM during a deploy and the deadlock race are integration
tests (tests/integration/test_faults_*.py, test_play_crash.py) run by ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from harness import a_move, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "drills"
PG_BIN = (
    Path("/usr/lib/postgresql")
    / (
        sorted(os.listdir("/usr/lib/postgresql"))[-1]
        if Path("/usr/lib/postgresql").exists()
        else "15"
    )
    / "bin"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- services of the drills' own ------------------------------------------------------------


class Postgres:
    """A throw-away PostgreSQL cluster (initdb) owned by the postgres user, on a free port."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/ginrummy_drills"

    def _as_postgres(self, *command: str) -> subprocess.CompletedProcess:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)

    def create(self) -> None:
        if self.directory.exists():
            shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        done = self._as_postgres(
            str(PG_BIN / "initdb"), "-D", str(self.directory / "data"), "-A", "trust", "-U",
            "postgres", "--no-sync",
        )  # fmt: skip
        if done.returncode:
            sys.exit(f"initdb failed: {done.stderr}")
        self.start()

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=100"
        )
        done = self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-o", options,
            "-l", str(self.directory / "log"), "-w", "start",
        )  # fmt: skip
        if done.returncode:
            sys.exit(f"pg_ctl start failed: {done.stdout}{done.stderr}")

    @property
    def database(self) -> str:
        return self.url.rsplit("/", 1)[1]

    def run(self, *command: str) -> subprocess.CompletedProcess:
        """A client program (pg_dump, createdb, ...) against this server, as postgres."""
        where = ["-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        return self._as_postgres(*command, *where)

    def crash(self) -> None:
        self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate", "stop"
        )

    def stop(self) -> None:
        self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "fast", "stop"
        )


class Redis:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        sys.exit("redis-server did not start")

    def crash(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


# --- HTTP players -----------------------------------------------------------------------------


def call(base: str, method: str, path: str, token: str | None = None, body=None):
    headers = {"Accept": "application/json"}
    data = None
    if token:
        headers["Authorization"] = f"Token {token}"
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else {}
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw) if raw else {}
        except ValueError:
            return error.code, {"raw": raw[:200].decode(errors="replace")}
    except OSError as error:
        return 0, {"error": str(error)}


class Players:
    """Threads, each a player challenging a bot and playing over HTTP; statuses per second."""

    def __init__(self, base: str, tokens: list[str], bot_id: int) -> None:
        self.base, self.tokens, self.bot_id = base, tokens, bot_id
        self.stop = threading.Event()
        self.log: list[tuple[float, str, int, str]] = []  # (time, request, status, code)
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.play, args=(t,), daemon=True) for t in tokens]

    def record(self, what: str, status: int, body: dict) -> None:
        with self.lock:
            self.log.append((time.monotonic(), what, status, str(body.get("code", ""))))

    def play(self, token: str) -> None:
        game = match = None
        while not self.stop.is_set():
            if game is None:
                body = {"opponent": self.bot_id, "best_of": 1, "target": 25,
                        "time_control": {"base_seconds": 300, "increment_seconds": 5}}  # fmt: skip
                status, data = call(self.base, "POST", "/api/matches", token, body)
                self.record("POST /api/matches", status, data)
                if status == 201:
                    match, game = data["id"], data["current_game"]
                else:
                    time.sleep(0.5)
                continue
            status, view = call(self.base, "GET", f"/api/games/{game}", token)
            self.record("GET /api/games/{id}", status, view)
            if status != 200:
                time.sleep(0.5)
                continue
            if view["status"] != "active":
                game = match = None
                continue
            if not view["your_turn"]:
                time.sleep(0.3)
                continue
            move = a_move(view)
            status, data = call(self.base, "POST", f"/api/games/{game}/actions", token, move)
            self.record("POST /api/games/{id}/actions", status, data)
            time.sleep(0.3)
        if match is not None:
            status, data = call(self.base, "POST", f"/api/matches/{match}/resign", token)
            self.record("POST /api/matches/{id}/resign", status, data)

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def statuses(self, since: float = 0, until: float = float("inf")) -> Counter:
        return Counter(s for t, _, s, _ in self.log if since <= t <= until)


# --- the cluster ---------------------------------------------------------------------------------


def world(players: int, event_bots: int, rated: bool = False) -> dict:
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from tournaments import services as events

    User = get_user_model()
    suffix = int(time.time())
    tokens = []
    for n in range(players):
        user = User.objects.create(username=f"drill{suffix}-{n}", password="!")
        Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=f"Drill {suffix} {n}")
        tokens.append(AuthToken.objects.create(user=user)[1])
    bot = Player.objects.create(
        kind=Player.Kind.BOT, name=f"Drill bot {suffix}", bot_strategy="greedy"
    )
    event = events.event_create(
        name=f"Drill {suffix}",
        format="single_elim",
        base_seconds=None,
        best_of=3,
        target=100,
        rated=rated,
    )
    events.event_open_registration(event=event)
    for i in range(event_bots):
        entrant = Player.objects.create(
            kind=Player.Kind.BOT, name=f"Drill {suffix} bot {i}", bot_strategy="greedy"
        )
        events.entry_add(event=event, player=entrant)
    return {"tokens": tokens, "bot": bot.pk, "event": event}


def settle_everything(event, timeout: float = 240) -> list[int]:
    """Wait for the event's end and for every match to be over; the ids still in play."""
    from django.db import close_old_connections

    from games.models import Match
    from tournaments.models import Event

    deadline = time.monotonic() + timeout
    left: list[int] = []
    while time.monotonic() < deadline:
        close_old_connections()
        try:
            done = Event.objects.get(pk=event.pk).status != Event.Status.RUNNING
            left = list(
                Match.objects.filter(status=Match.Status.ACTIVE).values_list("pk", flat=True)
            )
        except Exception:  # the database is still coming back
            time.sleep(1)
            continue
        if done and not left:
            return []
        time.sleep(1)
    return left


def verify_logs() -> tuple[int, list[int]]:
    from django.db import close_old_connections

    from games import selectors
    from games.engine.match import Match as EngineMatch
    from games.models import Match

    close_old_connections()
    checked, bad = 0, []
    for match in Match.objects.exclude(state=None).iterator():
        checked += 1
        replayed = EngineMatch.replay(selectors.match_log(match=match))
        if replayed.snapshot() != match.state or (
            match.status == Match.Status.FINISHED
            and match.winner_id != match.players[replayed.winner]
        ):
            bad.append(match.pk)
    return checked, bad


def retried_tasks() -> int:
    """Lines in the workers' logs where a task was retried after a database error."""
    count = 0
    for log in (RUN_DIR / "cluster").glob("worker*.log"):
        count += sum("Retry in" in line for line in log.read_text(errors="replace").splitlines())
    return count


# --- drills -------------------------------------------------------------------------------------


#: Seconds after a service's return within which every request is served again (200s, no
#: more 503s).
RECOVERY_SECONDS = 5


def drill_outage(name: str, base: str, crash, restart, data: dict, health_key: str) -> dict:
    """Players and an event in play; crash a service for 6 s; restart; check the aftermath."""
    from tournaments import services as events

    players = Players(base, data["tokens"], data["bot"])
    players.start()
    events.event_start(event=data["event"])
    time.sleep(6)
    down_at = time.monotonic()
    crash()
    time.sleep(1.5)
    asked = time.monotonic()
    health_down = call(base, "GET", "/api/health")
    health_seconds = time.monotonic() - asked
    time.sleep(max(0.0, down_at + 6 - time.monotonic()))
    restart()
    up_at = time.monotonic()
    time.sleep(12)
    players.finish()
    left = settle_everything(data["event"])
    checked, bad = verify_logs()
    during = players.statuses(down_at, up_at + 1)
    after = players.statuses(up_at + RECOVERY_SECONDS)
    answered_after = [(t - up_at, s) for t, _, s, _ in players.log if t >= up_at]
    first_200 = min((t for t, s in answered_after if s == 200), default=None)
    last_503 = max((t for t, s in answered_after if s == 503), default=None)
    five_hundreds = sum(n for s, n in players.statuses().items() if 500 <= s != 503)
    codes_503 = Counter(c for t, _, s, c in players.log if s == 503)
    ok = (
        five_hundreds == 0
        and during.get(503, 0) > 0
        and set(codes_503) <= {"service_unavailable", ""}
        and health_down[0] == 503
        and health_seconds <= 1.0
        and not str(health_down[1].get(health_key, "")).startswith("ok")
        and after.get(200, 0) > 0
        and after.get(503, 0) == 0
        and not left
        and not bad
    )
    return {
        "drill": name,
        "pass": ok,
        "statuses_during_outage": dict(during),
        "statuses_after": dict(after),
        "5xx_other_than_503": five_hundreds,
        "health_during_outage": health_down,
        "health_seconds": round(health_seconds, 3),
        "first_200_after_return_s": first_200 and round(first_200, 2),
        "last_503_after_return_s": last_503 and round(last_503, 2),
        "tasks_retried": retried_tasks(),
        "matches_checked": checked,
        "log_mismatches": bad,
        "still_in_play": left,
    }


def drill_beat(base: str, cluster, data: dict) -> dict:
    """Beat (and, stricter, the workers with it) down for a minute while timed games run out
    with nobody looking: the first read of each settles it; nothing is settled twice after."""
    from django.db import close_old_connections

    from games.models import Game, Match

    close_old_connections()
    for name in ("beat", *cluster.worker_names()):
        cluster.hold(name)  # stopped, and kept stopped: no sweep, no countdown runs
    stopped_at = time.monotonic()
    games = []
    for token in data["tokens"][:4]:
        # Each challenges a bot with a 10 s clock and never moves.
        status, match = call(base, "POST", "/api/matches", token,
                             {"opponent": data["bot"], "best_of": 1,
                              "time_control": {"base_seconds": 10}})  # fmt: skip
        if status == 201:
            games.append((match["id"], match["current_game"], token))
    time.sleep(max(0.0, stopped_at + 60 - time.monotonic()))
    close_old_connections()
    active_before_reads = sum(
        Match.objects.get(pk=m).status == Match.Status.ACTIVE for m, _, _ in games
    )
    reads = [call(base, "GET", f"/api/games/{g}", token) for _, g, token in games]
    settled_by_read = sum(body.get("status") == "finished" for _, body in reads)
    for name in (*cluster.worker_names(), "beat"):
        cluster.release(name)
    wait_for_workers(cluster)
    time.sleep(8)  # the workers run the countdowns they find: they change nothing now
    close_old_connections()
    once = all(
        Game.objects.filter(match_id=m, forfeit_by__isnull=False).count() == 1
        and len(Game.objects.get(match_id=m).results) == 1
        for m, _, _ in games
    )
    ok = bool(games) and active_before_reads == len(games) and settled_by_read == len(games)
    return {
        "drill": "beat",
        "pass": ok and once,
        "games": len(games),
        "active_a_minute_later_before_any_read": active_before_reads,
        "settled_by_the_first_read": settled_by_read,
        "one_timeout_each_after_beat_and_workers_return": once,
    }


def drill_restore(base: str, cluster, postgres: Postgres, redis_server) -> dict:
    """Back up while people play and a rated bot event runs; restore; serve from the copy.

    ``pg_dump -Fc`` of the live database (a consistent snapshot: pg_dump reads in one
    repeatable-read transaction while play goes on), then the cluster is stopped, Redis is
    restarted empty (a lost host loses its broker too), the dump is restored into a new
    database and the cluster started on it. Passes when every match replays from its log to
    its state and winner, every rating pool equals a replay of its rating history, the event
    finishes, and every person's unfinished game still takes a move.
    """
    from django.db import close_old_connections, connections

    from games.models import Match
    from ladders.models import Ladder
    from ladders.services import ratings_replay
    from tournaments import services as events

    data = world(4, 16, rated=True)
    players = Players(base, data["tokens"], data["bot"])
    players.start()
    events.event_start(event=data["event"])
    time.sleep(8)
    dump = postgres.directory / "backup.dump"
    began = time.monotonic()
    done = postgres.run(str(PG_BIN / "pg_dump"), "-Fc", "-f", str(dump), postgres.database)
    dump_seconds = time.monotonic() - began
    if done.returncode:
        return {"drill": "restore", "pass": False, "pg_dump": done.stderr}
    time.sleep(3)  # play goes on after the backup: that work is what a restore loses
    players.finish()
    cluster.stop()
    close_old_connections()
    connections.close_all()
    redis_server.crash()
    redis_server.start()

    restored = "ginrummy_restored"
    postgres.run(str(PG_BIN / "dropdb"), "--if-exists", restored)
    postgres.run(str(PG_BIN / "createdb"), restored)
    began = time.monotonic()
    done = postgres.run(str(PG_BIN / "pg_restore"), "-d", restored, "--no-owner", str(dump))
    restore_seconds = time.monotonic() - began
    if done.returncode:
        return {"drill": "restore", "pass": False, "pg_restore": done.stderr}
    url = postgres.url.rsplit("/", 1)[0] + f"/{restored}"
    os.environ["DATABASE_URL"] = url
    cluster.DATABASE_URL = url
    if cluster.start() != 0:
        return {"drill": "restore", "pass": False, "cluster": "did not start on the copy"}
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = restored
    close_old_connections()
    connections.close_all()

    humans_open = list(
        Match.objects.filter(status=Match.Status.ACTIVE, player_b_id=data["bot"]).values_list(
            "pk", "player_a__user__username"
        )
    )
    resumed = 0
    for match_id, username in humans_open:
        token = data["tokens"][int(username.rsplit("-", 1)[1])]
        status, detail = call(base, "GET", f"/api/matches/{match_id}", token)
        game = detail.get("current_game") if status == 200 else None
        status, view = call(base, "GET", f"/api/games/{game}", token)
        if status == 200 and view["your_turn"]:
            status, _ = call(base, "POST", f"/api/games/{game}/actions", token, a_move(view))
            resumed += status == 200
        elif status == 200:
            resumed += 1  # the bot is to reply: the sweep redoes the lost reply
        call(base, "POST", f"/api/matches/{match_id}/resign", token)
    left = settle_everything(data["event"])
    checked, bad = verify_logs()
    pools = []
    for pool in Ladder.objects.all():
        report = ratings_replay(pool=pool)
        pools.append({"pool": pool.name, "changes": report.changes, "mismatches": report.mismatches,
                      "drifted": report.drifted})  # fmt: skip
    ok = (
        not left
        and not bad
        and resumed == len(humans_open)
        and any(p["changes"] for p in pools)
        and all(p["mismatches"] == p["drifted"] == 0 for p in pools)
    )
    return {
        "drill": "restore",
        "pass": ok,
        "dump_bytes": dump.stat().st_size,
        "pg_dump_seconds": round(dump_seconds, 2),
        "pg_restore_seconds": round(restore_seconds, 2),
        "matches_checked": checked,
        "log_mismatches": bad,
        "unfinished_person_games_resumed": f"{resumed}/{len(humans_open)}",
        "rating_pools": pools,
        "still_in_play": left,
    }


def wait_for_workers(cluster, timeout: float = 60) -> bool:
    """Wait until every worker answers a ping (after ``release``, the supervisor starts them)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cluster.ping_workers(cluster.worker_names(), timeout=0.5) == set(cluster.worker_names()):
            return True
        time.sleep(0.5)
    return False


def run_drill(name: str, base: str, cluster, postgres: Postgres, redis_server, args) -> dict:
    if name == "beat":
        return drill_beat(base, cluster, world(args.players, 0))
    if name == "restore":
        return drill_restore(base, cluster, postgres, redis_server)
    data = world(args.players, args.event_bots)
    if name == "postgres":
        crash, restart, key = postgres.crash, postgres.start, "database"
    else:
        crash, restart, key = redis_server.crash, redis_server.start, "broker"
    return drill_outage(name, base, crash, restart, data, key)


def processes_report(cluster, restarts_before: int) -> dict:
    """Which cluster processes died during a drill (and were started again by the cluster's
    supervisor), and which are down at its end: either fails the drill."""
    died = [r["name"] for r in cluster.restarts()[restarts_before:] if r["reason"] == "exited"]
    deadline = time.monotonic() + 30  # one that died at the very end is being started again
    while True:
        down = sorted(set(cluster.process_names()) - set(cluster.running()))
        if not down or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    return {"processes_died": died, "processes_down": down}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=["postgres", "redis", "beat", "restore"])
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--event-bots", type=int, default=16)
    args = parser.parse_args(argv)
    # The restore drill comes last: it moves the cluster onto the restored copy.
    chosen = args.only or ["postgres", "redis", "beat", "restore"]
    if not PG_BIN.exists() or not shutil.which("redis-server"):
        sys.exit("the drills need PostgreSQL's server binaries and redis-server on this machine")
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    postgres = Postgres(RUN_DIR / "postgres")
    redis_server = Redis(RUN_DIR / "redis")
    results = []
    cluster = None
    started = time.monotonic()
    try:
        postgres.create()
        redis_server.start()
        port = free_port()
        os.environ.update(
            DATABASE_URL=postgres.url,
            CELERY_BROKER_URL=redis_server.url(0),
            REDIS_URL=redis_server.url(1),
            CLUSTER_DIR=str(RUN_DIR / "cluster"),
            CLUSTER_PORT=str(port),
            LOG_LEVEL="WARNING",
            GUNICORN_LOG_LEVEL="warning",
            DB_CONN_MAX_AGE="60",
            # Drills play fast: no throttling in the way.
            THROTTLE_USER_RATE="100000/min",
            THROTTLE_PLAY_RATE="100000/min",
            THROTTLE_ANON_RATE="100000/min",
        )
        cluster = load_cluster()
        if cluster.start() != 0:
            return 1
        setup_django(cluster)
        base = f"http://{cluster.HOST}:{cluster.PORT}"
        for name in chosen:
            print(f"drill {name} ...", flush=True)
            began, restarts_before = time.monotonic(), len(cluster.restarts())
            try:
                result = run_drill(name, base, cluster, postgres, redis_server, args)
            except Exception as error:  # a drill that breaks is a failed drill; go on
                traceback.print_exc()
                result = {"drill": name, "pass": False, "error": f"{type(error).__name__}: {error}"}
            result.update(processes_report(cluster, restarts_before))
            result["pass"] = bool(
                result["pass"] and not result["processes_died"] and not result["processes_down"]
            )
            result["seconds"] = round(time.monotonic() - began)
            results.append(result)
            print(f"  {'PASS' if result['pass'] else 'FAIL'} {json.dumps(result, default=str)}")
    finally:
        if cluster is not None:
            cluster.stop()
        redis_server.crash()
        postgres.stop()
    passed = all(r["pass"] for r in results) and len(results) == len(chosen)
    print(
        f"\ndrills: {sum(r['pass'] for r in results)}/{len(chosen)} passed in "
        f"{time.monotonic() - started:.0f} s"
    )
    out = ROOT / "bench" / "results" / "drills.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
