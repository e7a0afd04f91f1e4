#!/usr/bin/env python3
"""Play benchmark: bot matches end to end beside the engine alone, and API latency.

    make bench-play                       (or .venv/bin/python bench/play.py [--quick] [--json])

One run, on the local PostgreSQL and Redis, with the cluster of deploy/cluster.py (gunicorn
with two uvicorn workers, two Celery workers of one pool process each, beat):

1. **Bot matches per second.** The same matches (same seeds, same bots, best of 5) played
   twice: by the engine alone, in memory, in two processes; and end to end, each created by
   the service (``services.match_create``), published to Redis on commit, played by one of
   the two workers (``play_match``) and written to PostgreSQL. The ratio end to end / engine
   alone is the figure of the play issue (target: at least 0.25). Every match written is
   then compared with the engine's log of the same seed.
2. **API latency under 20 concurrent players.** 20 client threads, each a signed-in player
   with its own game against a greedy bot, play over real HTTP: GET the game view, POST a
   move when it is their turn, poll every 0.1 s while the bot (a task on a worker) replies.
   p50/p95/p99 of ``GET /api/games/{id}`` and ``POST /api/games/{id}/actions``, in two
   phases: flat out (no time to think) and paced (half a second to think before a move).

Everything runs in a database of its own (``ginrummy_bench``, emptied of games at the start)
and two Redis databases nobody else is connected to (12 and 13 when free; BENCH_DATABASE_URL,
BENCH_BROKER_URL and BENCH_REDIS_URL override). See bench/README.md for how to read it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import http.client
import json
import multiprocessing
import os
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from harness import a_move, clients_of, free_redis_urls, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# What each measured bot match is: a standard best-of-5 match between these strategies.
PAIRINGS = {"greedy v greedy": ("greedy", "greedy"), "expert v expert": ("expert", "expert")}
#: Matches per round of each pairing, and seconds of each latency phase.
FULL = {"greedy v greedy": 20, "expert v expert": 5, "rounds": 4, "players": 20, "seconds": 15.0}
QUICK = {"greedy v greedy": 8, "expert v expert": 2, "rounds": 2, "players": 20, "seconds": 6.0}
POLL_SECONDS = 0.1
#: A phase of bot matches fails when none finishes for this long.
STALL_SECONDS = 60
#: Latency phases: seconds a player thinks before each move (0: flat out, a stress test).
THINK = {"flat out": 0.0, "paced": 0.5}
TARGET_RATIO = 0.25


# --- The engine alone (no Django: this also runs in the spawned processes) -----------------


def engine_match(job: tuple[int, str, str]) -> tuple[int, int, str]:
    """Play one match in memory as ``match_play_bots`` does; its seed, moves and log digest."""
    from games.engine import bots
    from games.engine.bots.runner import play_match
    from games.engine.game import derive_seed
    from games.engine.match import Match

    seed, a, b = job
    match = Match(seed)
    play_match(
        match,
        (
            bots.make_bot(a, derive_seed(seed, "bot", 0)),
            bots.make_bot(b, derive_seed(seed, "bot", 1)),
        ),
    )
    log = match.log_json()
    del log["cut_dealer"]
    moves = sum(len(d["actions"]) for g in log["games"] for d in g["deals"])
    return seed, moves, digest(log)


def digest(log: dict) -> str:
    return hashlib.sha256(json.dumps(log, sort_keys=True).encode()).hexdigest()


def engine_alone(
    pool: concurrent.futures.Executor, jobs: list[tuple[int, str, str]]
) -> tuple[float, dict]:
    """Seconds for two processes to play every job; digests by seed."""
    started = time.perf_counter()
    results = list(pool.map(engine_match, jobs, chunksize=1))
    seconds = time.perf_counter() - started
    return seconds, {seed: (moves, d) for seed, moves, d in results}


# --- Setting up: environment, cluster, Django --------------------------------------------


def configure_environment() -> None:
    """This run's settings, for the cluster's processes and for this one.

    The database and Redis are the bench's own (BENCH_* to move them), never the ones the
    environment names for development or production.
    """
    broker, cache = os.environ.get("BENCH_BROKER_URL"), os.environ.get("BENCH_REDIS_URL")
    if not (broker and cache):
        free = free_redis_urls()
        broker, cache = broker or free[0], cache or free[1]
    os.environ.update(
        DATABASE_URL=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ginrummy_bench"
        ),
        CELERY_BROKER_URL=broker,
        REDIS_URL=cache,
    )
    for name, value in {
        "CLUSTER_DIR": str(ROOT / "var" / "bench-play"),
        "CLUSTER_PORT": "8110",
        "CLUSTER_WORKERS": "2",
        "CLUSTER_WORKER_CONCURRENCY": "1",
        "WEB_CONCURRENCY": "2",
        "GUNICORN_LOG_LEVEL": "warning",
        "LOG_LEVEL": "WARNING",
        # 20 players polling and moving as fast as they can: no throttling in the way.
        "THROTTLE_USER_RATE": "1000000/min",
        "THROTTLE_PLAY_RATE": "1000000/min",
        "THROTTLE_ANON_RATE": "1000000/min",
    }.items():
        if not os.environ.get(name):
            os.environ[name] = value


def reset_database() -> None:
    from django.db import connection

    name = connection.settings_dict["NAME"]
    if "bench" not in name:
        sys.exit(f"refusing to empty database {name!r}: its name does not say bench")
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE games_action, games_deal, games_game, games_match RESTART IDENTITY CASCADE"
        )
        cursor.execute("DELETE FROM knox_authtoken")


def bot(name: str, strategy: str):
    from accounts.models import Player

    player, _ = Player.objects.get_or_create(
        name=name, defaults={"kind": Player.Kind.BOT, "bot_strategy": strategy}
    )
    return player


def human(username: str):
    from accounts import services as accounts
    from accounts.models import Player

    player = Player.objects.filter(user__username=username).first()
    if player is None:
        player = accounts.player_register(
            username=username, password="bench-" + username * 2, name=username.capitalize()
        )
    _, token = accounts.token_issue(user=player.user)
    return player, token


# --- End to end: service -> Redis -> two workers -> PostgreSQL --------------------------------


def end_to_end(
    jobs: list[tuple[int, str, str]], players: dict[str, tuple]
) -> tuple[float, list[int]]:
    """Seconds from the first match created to the last one written; the matches' ids."""
    from games import services
    from games.models import Match

    started = time.perf_counter()
    ids = []
    for seed, a, _ in jobs:
        player_a, player_b = players[a]
        # Commits, then publishes play_match (delay_on_commit).
        ids.append(services.match_create(player_a=player_a, player_b=player_b, seed=seed).pk)
    finished, progress_at = 0, time.perf_counter()
    while finished < len(ids):
        time.sleep(0.02)
        done = Match.objects.filter(pk__in=ids, status=Match.Status.FINISHED).count()
        if done > finished:
            finished, progress_at = done, time.perf_counter()
        elif time.perf_counter() - progress_at > STALL_SECONDS:
            stuck = list(
                Match.objects.filter(pk__in=ids)
                .exclude(status=Match.Status.FINISHED)
                .values_list("pk", flat=True)
            )
            sys.exit(
                f"no bot match finished in {STALL_SECONDS} s; matches {stuck} were never played: "
                "their tasks were lost (another process on the bench's Redis database?) or "
                "failed (see var/bench-play/worker*.log)"
            )
    return time.perf_counter() - started, ids


def written_digests(ids: list[int]) -> dict[int, tuple[int, str]]:
    from games import selectors
    from games.models import Match

    out = {}
    for match in Match.objects.filter(pk__in=ids):
        log = selectors.match_log(match=match)
        out[match.seed] = (match.ply, digest(log))
    return out


# --- API latency ------------------------------------------------------------------------------


@dataclass
class Timings:
    get: list[float] = field(default_factory=list)
    post: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    moves: int = 0
    games: int = 0


class Api:
    """Real HTTP to the cluster's gunicorn, one connection per request."""

    def __init__(self, base: str, token: str) -> None:
        url = urlsplit(base)
        self.host, self.port = url.hostname, url.port
        self.headers = {"Authorization": f"Token {token}", "Accept": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict, float]:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        seconds = time.perf_counter() - started
        return response.status, json.loads(raw or b"{}"), seconds


def player_loop(
    api: Api, opponent_id: int, until: float, timings: Timings, seed: int, think: float
) -> None:
    rng = random.Random(seed)

    def count(status: int) -> None:
        key = str(status)
        timings.statuses[key] = timings.statuses.get(key, 0) + 1

    game_id = None
    while time.perf_counter() < until:
        if game_id is None:
            status, match, _ = api.call("POST", "/api/matches", {"opponent": opponent_id})
            if status != 201:
                raise RuntimeError(f"challenge refused: {status} {match}")
            game_id = match["current_game"]
            timings.games += 1
        status, view, seconds = api.call("GET", f"/api/games/{game_id}")
        timings.get.append(seconds)
        count(status)
        if status != 200:
            time.sleep(POLL_SECONDS)
            continue
        if view["status"] != "active":
            game_id = None  # the game (or match) is over: challenge again
            continue
        if not view["your_turn"]:
            time.sleep(POLL_SECONDS)  # the bot's turn: its reply is a task on a worker
            continue
        if think:
            time.sleep(think)
        status, _, seconds = api.call("POST", f"/api/games/{game_id}/actions", a_move(view, rng))
        timings.post.append(seconds)
        count(status)
        timings.moves += status == 200


def api_latency(
    base: str, tokens: list[str], opponent_id: int, seconds: float, think: float
) -> Timings:
    timings = [Timings() for _ in tokens]
    until = time.perf_counter() + seconds
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            player_loop(Api(base, tokens[i]), opponent_id, until, timings[i], seed=i, think=think)
        except BaseException as error:  # reported after the run
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    total = Timings()
    for t in timings:
        total.get += t.get
        total.post += t.post
        total.moves += t.moves
        total.games += t.games
        for key, n in t.statuses.items():
            total.statuses[key] = total.statuses.get(key, 0) + n
    return total


def bot_reply_delays(since) -> list[float]:
    """Server timestamps: a human's move to the bot's next move, in the latency phase's games."""
    from games.models import Action

    delays = []
    previous = None
    rows = (
        Action.objects.filter(created_at__gte=since, deal__game__match__player_a__kind="human")
        .order_by("deal_id", "ply")
        .values_list("deal_id", "player__kind", "created_at")
    )
    for deal_id, kind, created in rows:
        if previous and previous[0] == deal_id and previous[1] == "human" and kind == "bot":
            delays.append((created - previous[2]).total_seconds())
        previous = (deal_id, kind, created)
    return delays


# --- Reporting ------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spread(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def latency_line(label: str, values: list[float], window: float) -> str:
    return (
        f"    {label:30} n={len(values):5}  p50 {ms(percentile(values, 0.50))}  "
        f"p95 {ms(percentile(values, 0.95))}  p99 {ms(percentile(values, 0.99))}  "
        f"max {ms(max(values) if values else float('nan'))}  ({len(values) / window:5.0f}/s)"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer matches, an 8 s latency window")
    parser.add_argument("--json", action="store_true", help="also write bench/results/play.json")
    parser.add_argument("--keep-cluster", action="store_true", help="leave the cluster running")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    run_started = time.perf_counter()
    load_before = os.getloadavg()[0]

    configure_environment()
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
        if clients_of(url):
            sys.exit(
                f"another process is connected to {url}: a worker of it would take the bench's "
                "tasks. Stop it, or set BENCH_BROKER_URL and BENCH_REDIS_URL to free databases."
            )
        redis.Redis.from_url(url).flushdb()
    # Spawned before Django is set up: the engine processes import the engine only.
    pool = concurrent.futures.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context("spawn")
    )
    list(pool.map(engine_match, [(7, "greedy", "greedy")] * 2))
    if cluster.start() != 0:
        return 1
    report: dict = {"pairings": {}, "api": {}}
    lines = []
    try:
        setup_django(cluster)
        reset_database()
        players = {
            "greedy": (bot("Bench Greedy A", "greedy"), bot("Bench Greedy B", "greedy")),
            "expert": (bot("Bench Expert A", "expert"), bot("Bench Expert B", "expert")),
        }
        # Warm the workers (imports, connections) with matches that are not counted.
        end_to_end([(10_000 + i, "greedy", "greedy") for i in range(4)], players)

        import django
        from django.db import connection

        lines.append(
            f"play benchmark: {os.cpu_count()} cores; PostgreSQL {connection.pg_version // 10000} "
            f"({connection.settings_dict['NAME']}), Redis {os.environ['CELERY_BROKER_URL']}; "
            f"Django {django.get_version()}; gunicorn x{os.environ['WEB_CONCURRENCY']} uvicorn, "
            f"{cluster.WORKERS} Celery workers (prefork x{cluster.CONCURRENCY}), beat"
        )
        lines.append("")
        lines.append(
            "bot matches (best of 5; the same seeds and bots both ways, round by round; "
            "rates of the best round)"
        )
        seed = 1_000
        for label, (a, b) in PAIRINGS.items():
            engine_rounds, e2e_rounds = [], []
            count = moves = agree = 0
            for round_ in range(sizes["rounds"]):
                jobs = [(seed + i, a, b) for i in range(sizes[label])]
                seed += len(jobs)
                # Alternate which goes first, so drift in the machine's load falls on both.
                if round_ % 2 == 0:
                    engine_seconds, expected = engine_alone(pool, jobs)
                    e2e_seconds, ids = end_to_end(jobs, {a: players[a]})
                else:
                    e2e_seconds, ids = end_to_end(jobs, {a: players[a]})
                    engine_seconds, expected = engine_alone(pool, jobs)
                written = written_digests(ids)
                agree += sum(written.get(s) == expected[s] for s, *_ in jobs)
                moves += sum(m for m, _ in expected.values())
                count += len(jobs)
                engine_rounds.append(len(jobs) / engine_seconds)
                e2e_rounds.append(len(jobs) / e2e_seconds)
            round_ratios = [e / g for e, g in zip(e2e_rounds, engine_rounds, strict=True)]
            ratio = max(e2e_rounds) / max(engine_rounds)
            verdict = "met" if ratio >= TARGET_RATIO else "NOT MET"
            lines += [
                f"  {label}: {count} matches in {len(engine_rounds)} rounds, "
                f"{moves / count:,.0f} moves a match",
                f"    engine alone, 2 processes, in memory   {max(engine_rounds):6.2f} matches/s  "
                f"(rounds {spread(engine_rounds)})",
                f"    end to end, 2 workers, PostgreSQL      {max(e2e_rounds):6.2f} matches/s  "
                f"(rounds {spread(e2e_rounds)}; {max(e2e_rounds) * moves / count:,.0f} moves "
                "written/s)",
                f"    ratio end to end / engine alone        {ratio:6.2f}  "
                f"(target >= {TARGET_RATIO}: {verdict}; per round {spread(round_ratios)})",
                f"    agreement: {agree}/{count} match logs in PostgreSQL equal the engine's",
            ]
            report["pairings"][label] = {
                "matches": count,
                "moves_per_match": moves / count,
                "engine_matches_per_s": engine_rounds,
                "end_to_end_matches_per_s": e2e_rounds,
                "ratio_of_best_rounds": ratio,
                "round_ratios": round_ratios,
                "agree": agree,
            }
            print("\n".join(lines[-5:]), flush=True)

        from django.utils import timezone

        opponent = bot("Bench Reply Bot", "greedy")
        tokens = [human(f"bench{n:02}")[1] for n in range(sizes["players"])]
        base = f"http://{cluster.HOST}:{cluster.PORT}"
        window = sizes["seconds"]
        lines += [
            "",
            f"API under {len(tokens)} concurrent players (each its own game v a greedy bot; real "
            f"HTTP to gunicorn; {window:.0f} s a phase)",
        ]
        for phase, think in THINK.items():
            since = timezone.now()
            timings = api_latency(base, tokens, opponent.pk, window, think)
            replies = bot_reply_delays(since)
            lines += [
                f"  {phase} ({think:.1f} s to think before a move; polls every "
                f"{POLL_SECONDS:.1f} s while the bot is to move): {timings.moves} moves, "
                f"answers {dict(sorted(timings.statuses.items()))}",
                latency_line("GET  /api/games/{id}", timings.get, window),
                latency_line("POST /api/games/{id}/actions", timings.post, window),
                f"    {'bot reply (server clock)':30} n={len(replies):5}  "
                f"p50 {ms(percentile(replies, 0.5))}  p95 {ms(percentile(replies, 0.95))}  "
                f"max {ms(max(replies) if replies else float('nan'))}",
            ]
            report["api"][phase] = {
                "players": len(tokens),
                "seconds": window,
                "think": think,
                "get_ms": {q: percentile(timings.get, q) * 1000 for q in (0.5, 0.95, 0.99)},
                "post_ms": {q: percentile(timings.post, q) * 1000 for q in (0.5, 0.95, 0.99)},
                "bot_reply_ms": {q: percentile(replies, q) * 1000 for q in (0.5, 0.95)},
                "requests": {"get": len(timings.get), "post": len(timings.post)},
                "statuses": timings.statuses,
            }
            print("\n".join(lines[-4:]), flush=True)
    finally:
        pool.shutdown()
        if not args.keep_cluster:
            cluster.stop()
    total = time.perf_counter() - run_started
    lines += [
        "",
        f"run time {total:.0f} s; load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}",
    ]
    print("\n" + "=" * 100 + "\n" + "\n".join(lines))
    if args.json:
        report["load_average"] = [load_before, os.getloadavg()[0]]
        report["run_seconds"] = total
        out = ROOT / "bench" / "results" / "play.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, default=str))
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
