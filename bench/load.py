#!/usr/bin/env python3
"""Load benchmark: 200 people playing timed games on the cluster while a 256-bot event runs.

    make bench-load        (or: .venv/bin/python bench/load.py [--quick] [--users N] [--seconds S])

One run, with the local launcher of deploy/cluster.py (gunicorn (four uvicorn workers), two
Celery workers of one pool process each, beat) on the local PostgreSQL and Redis:

1. Sets up a database of its own (``ginrummy_bench_load``, dropped first): 200 human players
   with sign-in tokens, a few greedy bots to challenge, and a 256-bot single-elimination event
   (greedy bots, best of five to 250) open for its start.
2. Runs **locust** (this same file is the locustfile; locust lives in ``bench/.venv-load``,
   pinned in bench/requirements-load.txt) with 200 simulated players on loopback for the
   given time. Shortly after the players have arrived, the event starts, so its 255 bot
   matches go through the same two workers as the players' bot replies and clocks.
   - 90 players play each other in 45 fixed pairs: one challenges, the other accepts from its
     list of challenges, and both play the game through the API: poll the game view with
     ``If-None-Match`` (an empty 304 until something happens), think, move.
   - 90 players each challenge a bot and play it (the bot's replies are tasks on the workers).
   - 20 spectators follow the event (bracket, standings), the matches in play, a game in
     play (the spectator's view) and the leaderboards.
   Games are timed (90 s a player, 2 s increment) and short (one game to 25), so most end
   during the run; when the run ends, every player resigns the match it is in.
3. Reports requests per second and p50/p95/p99 latency per endpoint, and every error (only
   the conflicts a run expects are counted apart, by code: a move's ``stale_ply``,
   ``not_your_turn`` or ``game_over`` when a clock or a bot moved first, an accept's
   ``not_pending`` for a withdrawn challenge, ``too_late`` when resigning or withdrawing at
   the end; any other 409 is an error), then waits for the event's champion and **replays
   every match** from its log (``games.selectors.match_log`` through the engine): the
   replayed snapshot must equal ``Match.state`` and every game of a finished match must be
   finished.

Think times are scaled to two cores: a player thinks 4-8 s before a move and polls every
3 s while waiting, so 200 players offer about 40-50 requests a second on top of the event;
gunicorn runs four uvicorn workers here (WEB_CONCURRENCY overrides), so the web tier keeps its
share of the two cores beside the two Celery workers busy with the event.
``--quick``: 60 players, 60 s, a 64-bot event.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from common import a_move, drop_database, free_redis_urls, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
LOAD_VENV = ROOT / "bench" / ".venv-load"
RUN_DIR = ROOT / "var" / "bench-load"
PLAYERS_FILE = RUN_DIR / "players.json"
COUNTERS_FILE = RUN_DIR / "counters.json"

#: Seconds a player thinks before a move, and waits between polls of a game or a list.
THINK = (4.0, 8.0)
POLL = 3.0
#: The only conflicts a run expects, per request: a move that a clock or a bot's reply beat
#: (the ply moved on, the turn passed, the game ended on time), and a challenge withdrawn
#: before its answer. Any other 409 (on these or any other endpoint) is an error.
MOVE_CONFLICTS = frozenset({"stale_ply", "not_your_turn", "game_over"})
ACCEPT_CONFLICTS = frozenset({"not_pending"})
#: Timed, short matches: one game to 25 (a deal or two), 90 s a player, 2 s increment.
MATCH = {
    "best_of": 1,
    "target": 25,
    "time_control": {"base_seconds": 90, "increment_seconds": 2},
}
#: The share of each role among the players (the rest are spectators).
PAIRED, VERSUS_BOTS = 0.45, 0.45


# =============================================================================================
# The locust side: imported by locust (bench/.venv-load) as the locustfile.
# =============================================================================================

try:
    from locust import FastHttpUser, events, task
except ImportError:  # the orchestrator's own .venv has no locust
    FastHttpUser = None

#: Expected refusals and other counts, written to COUNTERS_FILE when locust quits.
COUNTERS: dict[str, int] = {}


def count(name: str) -> None:
    COUNTERS[name] = COUNTERS.get(name, 0) + 1


def expect_conflict(response, codes, name: str) -> None:
    """A 409 whose code is one of ``codes`` counts apart as expected; any other fails."""
    try:
        code = response.json().get("code")
    except ValueError:
        code = None
    if code in codes:
        response.success()
        count(f"409 {code} {name}")
    else:
        response.failure(f"409 {code}: {response.text[:200]}")


if FastHttpUser is not None:
    _numbers = itertools.count()
    _setup: dict = {}

    def setup() -> dict:
        if not _setup:
            _setup.update(json.loads(Path(os.environ["LOAD_PLAYERS"]).read_text()))
        return _setup

    @events.quitting.add_listener
    def _write_counters(environment, **kwargs):
        COUNTERS_FILE.write_text(json.dumps(COUNTERS))

    class Person(FastHttpUser):
        """One of the simulated people; its number decides its role (see the docstring)."""

        # The tasks sleep on purpose (thinking, polling): no extra wait between them.
        wait_time = staticmethod(lambda: 0)

        def on_start(self) -> None:
            data = setup()
            self.number = next(_numbers)
            me = data["players"][self.number % len(data["players"])]
            self.player_id = me["id"]
            self.headers = {"Authorization": f"Token {me['token']}"}
            self.rng = random.Random(self.number)
            self.role = me["role"]
            self.partner = me.get("partner")
            self.match_id: int | None = None
            self.game_id: int | None = None
            self.etag: str | None = None
            self.view: dict | None = None

        def on_stop(self) -> None:
            """Leave nothing unfinished: resign the match in play, withdraw a challenge."""
            if self.match_id is None:
                return
            with self.client.post(
                f"/api/matches/{self.match_id}/resign",
                headers=self.headers,
                name="POST /api/matches/{id}/resign",
                catch_response=True,
            ) as response:
                if response.status_code != 409:
                    return
                # Over already, or a challenge not yet answered: withdraw that instead.
                expect_conflict(response, {"too_late"}, "POST /api/matches/{id}/resign")
            with self.client.post(
                f"/api/matches/{self.match_id}/cancel",
                headers=self.headers,
                name="POST /api/matches/{id}/cancel",
                catch_response=True,
            ) as response:
                if response.status_code == 409:
                    # The match is simply over.
                    expect_conflict(response, {"too_late"}, "POST /api/matches/{id}/cancel")
                elif response.status_code != 200:
                    response.failure(f"{response.status_code}: {response.text[:200]}")

        # --- requests ---------------------------------------------------------------------

        def _json(
            self, method: str, path: str, name: str, body=None, expect=(200, 201), conflicts=()
        ):
            """One request; a 409 with one of the ``conflicts`` codes counts apart as
            expected, any other 409 and anything else unexpected as an error."""
            kwargs = {"headers": self.headers, "name": name, "catch_response": True}
            if body is not None:
                kwargs["json"] = body
            with self.client.request(method, path, **kwargs) as response:
                if response.status_code == 409:
                    expect_conflict(response, conflicts, name)
                    return 409, response.json()
                if response.status_code not in expect:
                    response.failure(f"{response.status_code}: {response.text[:200]}")
                    return response.status_code, None
                return response.status_code, response.json() if response.text else None

        def _game_view(self) -> dict | None:
            headers = dict(self.headers)
            if self.etag:
                headers["If-None-Match"] = self.etag
            with self.client.get(
                f"/api/games/{self.game_id}",
                headers=headers,
                name="GET /api/games/{id}",
                catch_response=True,
            ) as response:
                if response.status_code == 304:
                    count("304 GET /api/games/{id}")
                    return self.view
                if response.status_code != 200:
                    response.failure(f"{response.status_code}: {response.text[:200]}")
                    return None
                self.etag = response.headers.get("ETag")
                self.view = response.json()
                return self.view

        # --- playing ----------------------------------------------------------------------

        @task
        def live(self) -> None:
            if self.role == "spectator":
                self.watch()
            elif self.game_id is None:
                self.find_a_game()
            else:
                self.play_a_turn()

        def find_a_game(self) -> None:
            if self.role == "bot":
                body = {"opponent": setup()["bots"][self.number % len(setup()["bots"])], **MATCH}
                status, match = self._json("POST", "/api/matches", "POST /api/matches", body)
                if status == 201:
                    self.begin(match)
            elif self.role == "challenger":
                if self.match_id is None:
                    body = {"opponent": self.partner, **MATCH}
                    status, match = self._json("POST", "/api/matches", "POST /api/matches", body)
                    if status == 201:
                        self.match_id = match["id"]
                    return
                status, match = self._json(
                    "GET", f"/api/matches/{self.match_id}", "GET /api/matches/{id}"
                )
                if match and match["status"] == "active":
                    self.begin(match)
                elif match and match["status"] != "challenged":
                    self.match_id = None  # declined or cancelled: challenge again
                else:
                    time.sleep(POLL)
            else:  # answers the partner's challenges
                status, page = self._json(
                    "GET",
                    f"/api/matches?status=challenged&player={self.player_id}",
                    "GET /api/matches?status=challenged",
                )
                for match in (page or {}).get("results", []):
                    if match["player_b"]["id"] == self.player_id:
                        status, accepted = self._json(
                            "POST",
                            f"/api/matches/{match['id']}/accept",
                            "POST /api/matches/{id}/accept",
                            conflicts=ACCEPT_CONFLICTS,
                        )
                        if status == 200:
                            self.begin(accepted)
                            return
                time.sleep(POLL)

        def begin(self, match: dict) -> None:
            self.match_id = match["id"]
            self.game_id = match["current_game"]
            self.etag = self.view = None
            count("matches started")

        def play_a_turn(self) -> None:
            view = self._game_view()
            if view is None:
                time.sleep(POLL)
                return
            if view["status"] != "active":
                count("games finished")
                self.match_id = self.game_id = None  # one game a match: on to the next
                return
            if not view["your_turn"]:
                time.sleep(POLL)
                return
            time.sleep(self.rng.uniform(*THINK))
            status, after = self._json(
                "POST",
                f"/api/games/{self.game_id}/actions",
                "POST /api/games/{id}/actions",
                a_move(view, self.rng),
                conflicts=MOVE_CONFLICTS,
            )
            if status == 200:
                self.view = after
                self.etag = None  # the answer is the new view; the next GET fetches it whole
                count("moves")

        def watch(self) -> None:
            data = setup()
            event = data["event"]
            choice = self.rng.random()
            if choice < 0.3:
                self._json("GET", f"/api/events/{event}/bracket", "GET /api/events/{id}/bracket")
            elif choice < 0.5:
                self._json(
                    "GET", f"/api/events/{event}/standings", "GET /api/events/{id}/standings"
                )
            elif choice < 0.65:
                self._json(
                    "GET",
                    f"/api/ladders/{data['ladder']}/leaderboard",
                    "GET /api/ladders/{id}/leaderboard",
                )
            else:
                _, page = self._json(
                    "GET", "/api/matches?status=active", "GET /api/matches?status=active"
                )
                games = [m["current_game"] for m in (page or {}).get("results", [])]
                games = [g for g in games if g]
                if games:
                    # A spectator's view: no hidden card, but the same table.
                    self._json("GET", f"/api/games/{self.rng.choice(games)}", "GET /api/games/{id}")
            time.sleep(self.rng.uniform(2.0, 4.0))


# =============================================================================================
# The orchestrator: run with the service's .venv.
# =============================================================================================

DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_load"


def configure(port: int) -> None:
    broker, cache = os.environ.get("BENCH_BROKER_URL"), os.environ.get("BENCH_REDIS_URL")
    if not (broker and cache):
        free = free_redis_urls()
        broker, cache = broker or free[0], cache or free[1]
    os.environ.update(
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", DATABASE),
        CELERY_BROKER_URL=broker,
        REDIS_URL=cache,
        CLUSTER_DIR=str(RUN_DIR / "cluster"),
        CLUSTER_PORT=str(port),
        CLUSTER_WORKERS="2",
        CLUSTER_WORKER_CONCURRENCY="1",
        WEB_CONCURRENCY=os.environ.get("WEB_CONCURRENCY", "4"),
        GUNICORN_LOG_LEVEL="warning",
        LOG_LEVEL="WARNING",
    )


def create_world(users: int, event_bots: int) -> dict:
    """Players with tokens and roles, bots to challenge, the event; written for locust."""
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from ladders.models import Ladder
    from tournaments import services as events

    User = get_user_model()
    names = [f"load{n:03}" for n in range(users)]
    User.objects.bulk_create(
        [User(username=name, password="!") for name in names]  # no password: tokens only
    )
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    Player.objects.bulk_create(
        [Player(kind=Player.Kind.HUMAN, user=by_name[n], name=n.capitalize()) for n in names]
    )
    players = list(Player.objects.filter(user__username__in=names).order_by("user__username"))
    bots = [
        Player.objects.create(kind=Player.Kind.BOT, name=f"Load bot {i}", bot_strategy="greedy")
        for i in range(1, 9)
    ]
    paired = int(users * PAIRED) // 2 * 2
    versus = int(users * VERSUS_BOTS)
    rows = []
    for index, player in enumerate(players):
        _, token = AuthToken.objects.create(user=player.user)
        row = {"id": player.pk, "token": token}
        if index < paired:
            row["role"] = "challenger" if index % 2 == 0 else "answerer"
            row["partner"] = players[index + 1 if index % 2 == 0 else index - 1].pk
        elif index < paired + versus:
            row["role"] = "bot"
        else:
            row["role"] = "spectator"
        rows.append(row)
    # Locust numbers its users in start order: interleave roles so a partial ramp has all.
    rows = [rows[i] for i in _interleaved(len(rows), paired)]

    event_players = [
        Player(kind=Player.Kind.BOT, name=f"Event bot {i}", bot_strategy="greedy")
        for i in range(1, event_bots + 1)
    ]
    Player.objects.bulk_create(event_players)
    event = events.event_create(
        name=f"{event_bots} greedy bots under load", format="single_elim", base_seconds=None
    )
    events.event_open_registration(event=event)
    for bot in Player.objects.filter(name__startswith="Event bot "):
        events.entry_add(event=event, player=bot)
    ladder = Ladder.objects.create(name="Load ladder", slug="load-ladder")
    world = {
        "players": rows,
        "bots": [b.pk for b in bots],
        "event": event.pk,
        "ladder": ladder.pk,
    }
    PLAYERS_FILE.write_text(json.dumps(world))
    return world


def _interleaved(count: int, paired: int) -> list[int]:
    """Start order: a pair, a bot player, a pair, ..., spectators spread among them."""
    pairs = [[i, i + 1] for i in range(0, paired, 2)]
    others = list(range(paired, count))
    order: list[int] = []
    while pairs or others:
        if pairs:
            order += pairs.pop(0)
        if others:
            order.append(others.pop(0))
    return order


def run_locust(users: int, seconds: int, host: str, start_event) -> subprocess.CompletedProcess:
    locust = LOAD_VENV / "bin" / "locust"
    if not locust.exists():
        sys.exit(f"{locust} is missing: run `make bench-load` (it installs bench/.venv-load)")
    command = [
        str(locust),
        "-f",
        str(Path(__file__).resolve()),
        "--headless",
        "--users",
        str(users),
        "--spawn-rate",
        str(max(10, users // 8)),
        "--run-time",
        f"{seconds}s",
        "--stop-timeout",
        "30",
        "--host",
        host,
        "--csv",
        str(RUN_DIR / "locust"),
        "--only-summary",
        "--loglevel",
        "WARNING",
    ]
    env = {**os.environ, "LOAD_PLAYERS": str(PLAYERS_FILE)}
    with (RUN_DIR / "locust.log").open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        time.sleep(min(15, seconds / 4))  # the players arrive, then the event starts
        start_event()
        process.wait(timeout=seconds + 120)
    return subprocess.CompletedProcess(command, process.returncode)


def read_stats() -> list[dict]:
    with (RUN_DIR / "locust_stats.csv").open() as handle:
        return list(csv.DictReader(handle))


def timeline(event_after: float, step: int = 30) -> list[str]:
    """Aggregated rate and latency over the run, every ``step`` s (locust's rolling window)."""
    path = RUN_DIR / "locust_stats_history.csv"
    if not path.exists():
        return []
    with path.open() as handle:
        rows = [r for r in csv.DictReader(handle) if r["Name"] == "Aggregated"]
    if not rows:
        return []
    start = int(rows[0]["Timestamp"])
    lines = []
    for row in rows:
        t = int(row["Timestamp"]) - start
        if t % step > 1 or row["50%"] in ("N/A", ""):
            continue
        phase = "before the event" if t < event_after else "event running"
        lines.append(
            f"  t={t:4d} s {int(row['User Count']):4d} users {float(row['Requests/s']):6.1f} req/s "
            f"p50 {row['50%']:>6} ms p95 {row['95%']:>6} ms ({phase})"
        )
    return lines


def wait_for_the_end(event_id: int, timeout: float) -> tuple[float, list[int]]:
    """Seconds until the event has its champion and no match is in play; matches left."""
    from games.models import Match
    from tournaments.models import Event

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        event = Event.objects.get(pk=event_id)
        unfinished = list(
            Match.objects.filter(status__in=[Match.Status.ACTIVE, Match.Status.SCHEDULED])
            .exclude(source=Match.Source.TOURNAMENT, status=Match.Status.SCHEDULED)
            .values_list("pk", flat=True)
        )
        if event.status != Event.Status.RUNNING and not unfinished:
            return time.monotonic() - started, []
        time.sleep(1)
    return time.monotonic() - started, unfinished


def verify_logs() -> dict:
    """Replay every match from its log; compare with Match.state and the result."""
    from games import selectors
    from games.engine.match import Match as EngineMatch
    from games.models import Game, Match

    report = {"matches": 0, "replayed_equal": 0, "mismatches": [], "unfinished_games": 0}
    played = Match.objects.exclude(state=None).select_related("player_a", "player_b")
    for match in played.iterator(chunk_size=200):
        report["matches"] += 1
        replayed = EngineMatch.replay(selectors.match_log(match=match))
        same = replayed.snapshot() == match.state
        if match.status == Match.Status.FINISHED:
            same = same and list(replayed.games_won) == [match.games_won_a, match.games_won_b]
            same = same and match.winner_id == match.players[replayed.winner]
        if same:
            report["replayed_equal"] += 1
        else:
            report["mismatches"].append(match.pk)
    report["unfinished_games"] = Game.objects.filter(
        status=Game.Status.ACTIVE, match__status=Match.Status.FINISHED
    ).count()
    report["by_status"] = {
        status: Match.objects.filter(status=status).count() for status in Match.Status.values
    }
    return report


def percentile_line(row: dict, seconds: float) -> str:
    return (
        f"  {row['Name'][:44]:44} {int(row['Request Count']):7} "
        f"{float(row['Requests/s']):7.1f} {row['50%']:>7} {row['95%']:>7} {row['99%']:>7} "
        f"{int(row['Failure Count']):6}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 players, 60 s, 64 event bots")
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--seconds", type=int, default=None)
    parser.add_argument("--event-bots", type=int, default=None)
    parser.add_argument("--port", type=int, default=8130)
    parser.add_argument("--keep-cluster", action="store_true")
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=10,
        help="nice value of the Celery workers (0: the same priority as the web processes)",
    )
    args = parser.parse_args(argv)
    users = args.users or (60 if args.quick else 200)
    seconds = args.seconds or (60 if args.quick else 180)
    event_bots = args.event_bots or (64 if args.quick else 256)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    for stale in RUN_DIR.glob("locust*"):
        stale.unlink()
    COUNTERS_FILE.unlink(missing_ok=True)
    run_started = time.monotonic()
    load_before = os.getloadavg()[0]

    configure(args.port)
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    if cluster.start() != 0:
        return 1
    if args.worker_nice:
        # One box stands in for a deployment where the event's bot matches run on worker
        # machines of their own: the batch work yields the CPU to the people (and to the
        # workers' own bot replies only as much as to everything else).
        for name in cluster.worker_names():
            for pid in cluster.group_members(cluster.running()[name]):
                os.setpriority(os.PRIO_PROCESS, pid, args.worker_nice)
    ok = False
    try:
        setup_django(cluster)
        world = create_world(users, event_bots)
        host = f"http://{cluster.HOST}:{cluster.PORT}"
        event_started: dict = {}

        def start_event() -> None:
            from tournaments import services as events
            from tournaments.models import Event

            event_started["at"] = time.monotonic()
            events.event_start(event=Event.objects.get(pk=world["event"]))

        print(
            f"load: {users} players ({sum(r['role'] != 'spectator' for r in world['players'])} "
            f"playing, the rest watching) for {seconds} s on {host}; a {event_bots}-bot event "
            "starts once they are in",
            flush=True,
        )
        result = run_locust(users, seconds, host, start_event)
        locust_seconds = seconds
        rows = read_stats()
        counters = json.loads(COUNTERS_FILE.read_text()) if COUNTERS_FILE.exists() else {}
        waited, left = wait_for_the_end(world["event"], timeout=900)
        event_seconds = time.monotonic() - event_started.get("at", time.monotonic())
        from tournaments.models import Event

        event = Event.objects.get(pk=world["event"])
        logs = verify_logs()
    finally:
        if not args.keep_cluster:
            cluster.stop()

    total = [r for r in rows if r["Name"] == "Aggregated"]
    endpoints = [r for r in rows if r["Name"] != "Aggregated"]
    errors = sum(int(r["Failure Count"]) for r in endpoints)
    expected = {k: v for k, v in counters.items() if k.startswith("409")}
    lines = [
        "",
        f"load benchmark: {os.cpu_count()} cores; "
        f"gunicorn x{os.environ['WEB_CONCURRENCY']} uvicorn, "
        f"2 Celery workers (prefork x1, nice {args.worker_nice}), beat; {users} locust users for "
        f"{locust_seconds} s",
        "",
        f"  {'endpoint':44} {'count':>7} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'errors':>6}",
    ]
    lines += [percentile_line(r, locust_seconds) for r in endpoints]
    lines += [percentile_line(r, locust_seconds) for r in total]
    lines += ["", "  over time (every 30 s, locust's 10 s rolling window):"]
    lines += timeline(event_after=min(15, seconds / 4))
    lines += [
        "",
        f"  errors: {errors} (locust exit code {result.returncode}); expected 409s apart: "
        f"{sum(expected.values())} {expected}",
        f"  play: {counters.get('matches started', 0)} matches started, "
        f"{counters.get('games finished', 0)} games seen to the end, {counters.get('moves', 0)} "
        f"moves, {counters.get('304 GET /api/games/{id}', 0)} polls answered 304",
        f"  event: {event.status}, champion {event.champion.name if event.champion else None}; "
        f"{event_seconds:.0f} s from its start to the end of play (waited {waited:.0f} s after "
        f"the players stopped)",
        f"  logs: {logs['replayed_equal']}/{logs['matches']} matches replay from their log to "
        f"their state and result; mismatches {logs['mismatches'][:10]}; unfinished games of "
        f"finished matches {logs['unfinished_games']}; still in play {left[:10]}; "
        f"by status {logs['by_status']}",
        f"  run time {time.monotonic() - run_started:.0f} s; load average {load_before:.2f} -> "
        f"{os.getloadavg()[0]:.2f}",
    ]
    ok = (
        result.returncode == 0
        and errors == 0
        and sum(int(r["Request Count"]) for r in endpoints) > 0
        and not logs["mismatches"]
        and not left
        and not logs["unfinished_games"]
        and event.status == Event.Status.FINISHED
    )
    lines.append(f"  verdict: {'PASS' if ok else 'FAIL'}")
    print("\n".join(lines))
    out = ROOT / "bench" / "results" / "load.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "users": users,
                "seconds": locust_seconds,
                "event_bots": event_bots,
                "endpoints": endpoints,
                "aggregated": total,
                "errors": errors,
                "expected_409": expected,
                "counters": counters,
                "event_seconds": event_seconds,
                "logs": logs,
                "left_in_play": left,
                "pass": ok,
            },
            indent=2,
        )
    )
    print(f"wrote {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
