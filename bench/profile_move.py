#!/usr/bin/env python3
"""Where a move's time goes: pyinstrument on the web request path of moves and game views.

    make bench-profile     (or: .venv/bin/python bench/profile_move.py [--quick] [--moves N] ...)

In this process, with the service's settings as the cluster runs them (DEBUG off, PostgreSQL,
the Redis channel layer and broker), on a database of its own (``ginrummy_bench_profile``,
dropped first and after) and two free Redis databases (flushed after): ``--games`` timed
human-v-human matches (90 s a player, 2 s increment, as bench/load.py plays), then
``--moves`` moves, each POSTed to ``/api/games/{id}/actions`` by the player to act and
followed by the opponent's ``GET /api/games/{id}``, through Django's request handler
(middleware, token authentication, throttling, DRF, the play service, the push to the
table's sockets on the channel layer, the queued follow-up tasks: no worker takes them).
The web processes of the cluster run this same code on a thread of each uvicorn worker.

Prints:
- the top functions by cumulative time (pyinstrument, a sample every millisecond; a
  function counted once per stack, so recursion does not count twice), as a share of the
  profiled time, and each request's mean;
- every SQL statement by total time (Django's ``execute_wrapper``: calls, mean, per move),
  and ``pg_stat_statements`` for the bench database when the server has it loaded (it
  needs ``shared_preload_libraries``; this script never changes the server's settings).

The whole pyinstrument report is written to ``var/bench-profile/`` (text and HTML).
pyinstrument is pinned in bench/requirements-load.txt and installed only into
bench/.venv-load (``make bench-profile`` installs it); this script finds it there.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import sysconfig
import time
from collections import defaultdict
from pathlib import Path

from harness import a_move, drop_database, free_redis_urls, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
LOAD_VENV = ROOT / "bench" / ".venv-load"
RUN_DIR = ROOT / "var" / "bench-profile"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_profile"
MOVE, VIEW = "POST /api/games/{id}/actions", "GET /api/games/{id}"
CONTINUE = "POST /api/games/{id}/continue"
MATCH = {
    "best_of": 1,
    "target": 250,
    "time_control": {"base_seconds": 90, "increment_seconds": 2},
}


def import_pyinstrument():
    """pyinstrument from bench/.venv-load (same Python version), after the service's own
    packages on the path, so nothing of the service is shadowed."""
    try:
        import pyinstrument

        return pyinstrument
    except ImportError:
        pass
    version = sysconfig.get_python_version()
    site = LOAD_VENV / "lib" / f"python{version}" / "site-packages"
    if not (site / "pyinstrument").exists():
        sys.exit(
            f"pyinstrument is missing from {site}: run `make bench-profile` (it installs "
            "bench/requirements-load.txt into bench/.venv-load with this Python)"
        )
    sys.path.append(str(site))
    import pyinstrument

    return pyinstrument


def configure() -> None:
    broker, cache = free_redis_urls()
    os.environ.update(
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", DATABASE),
        CELERY_BROKER_URL=broker,
        REDIS_URL=cache,
        CLUSTER_DIR=str(RUN_DIR / "cluster"),
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        # The figures are the request path's, not the throttle's refusals.
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
    )


def make_games(count: int) -> list[dict]:
    """``count`` timed matches in play between two people each, with their tokens."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from knox.models import AuthToken

    from accounts.models import Player

    User = get_user_model()
    names = [f"prof{n:04}" for n in range(2 * count)]
    User.objects.bulk_create([User(username=n, password="!") for n in names])
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    Player.objects.bulk_create(
        [Player(kind=Player.Kind.HUMAN, user=by_name[n], name=n.capitalize()) for n in names]
    )
    people = list(Player.objects.filter(user__username__in=names).order_by("user__username"))
    games = []
    for a, b in zip(people[::2], people[1::2], strict=True):
        clients = []
        for person in (a, b):
            _, token = AuthToken.objects.create(user=person.user)
            clients.append(Client(HTTP_AUTHORIZATION=f"Token {token}"))
        ids = (a.pk, b.pk)
        games.append({"game": new_game(clients, ids), "clients": clients, "ids": ids})
    return games


def new_game(clients: list, ids: tuple[int, int]) -> int:
    """A timed match between the two, challenged and accepted over the API: its game."""
    response = clients[0].post(
        "/api/matches", {"opponent": ids[1], **MATCH}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    match = response.json()["id"]
    response = clients[1].post(f"/api/matches/{match}/accept")
    assert response.status_code == 200, response.content
    return response.json()["current_game"]


def play(games: list[dict], moves: int, rng: random.Random, timings: dict) -> int:
    """``moves`` moves round the tables: the player to act POSTs, the opponent GETs its view.

    Each side's view is the last answer it had (the POST's, the GET's), so no request is made
    only to find whose turn it is; every request is timed under its route.
    """

    def timed(route: str, call, *args, **kwargs):
        started = time.perf_counter()
        response = call(*args, **kwargs)
        timings[route].append(time.perf_counter() - started)
        # A Continue may come after the pause ran out (not_paused): only that is let through.
        allowed = (200, 201, 409) if route == CONTINUE else (200, 201)
        assert response.status_code in allowed, (route, response.content)
        return response.json()

    done, idle_since = 0, time.monotonic()
    while done < moves:
        if time.monotonic() - idle_since > 30:
            raise RuntimeError(f"no table could move for 30 s ({done} of {moves} moves made)")
        for table in games:
            if done >= moves:
                break
            clients, path = table["clients"], f"/api/games/{table['game']}"
            views = table.get("views")
            if views is None:
                views = table["views"] = [timed(VIEW, c.get, path) for c in clients]
            actor = next((i for i, v in enumerate(views) if v["your_turn"]), None)
            if actor is None:
                table["views"] = None  # look again next time round
                if views[0]["status"] != "active":
                    table["game"] = views[0].get("next_game") or new_game(clients, table["ids"])
                elif views[0].get("pause"):  # between deals: both continue
                    for client in clients:
                        timed(CONTINUE, client.post, f"{path}/continue")
                continue
            idle_since = time.monotonic()
            move = a_move(views[actor], rng)
            mover, opponent = clients[actor], clients[1 - actor]
            views[actor] = timed(
                MOVE, mover.post, f"{path}/actions", move, content_type="application/json"
            )
            views[1 - actor] = timed(VIEW, opponent.get, path)
            done += 1
    return done


def package_of(path: str) -> str:
    """Where a frame's code lives: a library (django.db, psycopg, ...), an app of the
    project (games, games/engine, config, ...) or the standard library."""
    if "site-packages/" in path:
        parts = path.split("site-packages/", 1)[1].split("/")
        if parts[0] in ("django", "rest_framework", "channels") and len(parts) > 2:
            return f"{parts[0]}.{parts[1]}"
        return parts[0].removesuffix(".py")
    if path.startswith(str(ROOT)):
        parts = Path(path).relative_to(ROOT).parts
        if parts[0] == "games" and len(parts) > 2:
            return f"games/{parts[1]}"
        return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")
    return "<python>" if path else "<other>"


def where_time_goes(session) -> tuple[list, list, list]:
    """Self time by package and by function, and the project's functions by cumulative time
    (a function counted once per stack, so recursion does not count twice)."""
    own: dict[str, float] = defaultdict(float)
    leaves: dict[str, float] = defaultdict(float)
    cumulative: dict[str, float] = defaultdict(float)

    def walk(frame, on_stack: frozenset, parent_path: str = "", parent: str = "") -> None:
        path = frame.file_path or ""
        on_leaf = f"{frame.function}  {frame.file_path_short}:{frame.line_no}" if path else parent
        if not frame.children:  # a leaf: its time is its own ("[self]" of its parent's code)
            own[package_of(path or parent_path)] += frame.time
            leaves[on_leaf] += frame.time
        key = on_stack
        if path.startswith(str(ROOT)) and "/bench/" not in path and "/.venv" not in path:
            name = f"{frame.function}  {Path(path).relative_to(ROOT)}:{frame.line_no}"
            if name not in on_stack:
                cumulative[name] += frame.time
            key = on_stack | {name}
        for child in frame.children:
            walk(child, key, path or parent_path, on_leaf)

    root = session.root_frame()
    if root is not None:
        walk(root, frozenset())
    return (
        sorted(own.items(), key=lambda kv: -kv[1]),
        sorted(leaves.items(), key=lambda kv: -kv[1]),
        sorted(cumulative.items(), key=lambda kv: -kv[1]),
    )


def short_sql(sql: str, width: int = 150) -> str:
    """A statement's head and its WHERE clause (the columns listed in between cut)."""
    where = sql.find(" WHERE ")
    if where < 0 or where < 60:
        return sql[:width]
    head = sql[:50]
    table = sql.find(" FROM ")
    if 0 <= table < where:
        head = f"{sql[:30]} ... {sql[table : table + 40].split(' WHERE ')[0]}"
    return f"{head}{sql[where:]}"[:width]


NUMBERS = re.compile(r"\b\d+\b")
STRINGS = re.compile(r"'(?:[^']|'')*'")
IN_LISTS = re.compile(r"\((?:\s*(?:%s|\?|\d+)\s*,)+\s*(?:%s|\?|\d+)\s*\)")


def normalise(sql: str) -> str:
    sql = STRINGS.sub("'?'", sql)
    sql = NUMBERS.sub("?", sql)
    return IN_LISTS.sub("(...)", " ".join(sql.split()))


class QueryTimer:
    """Django's execute_wrapper: every statement's time, by its normalised text."""

    def __init__(self) -> None:
        self.stats: dict[str, list[float]] = defaultdict(list)

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.stats[normalise(sql)].append(time.perf_counter() - started)


def pg_stat_statements(database: str) -> list[str]:
    """Top statements of the bench database from pg_stat_statements, or why there are none."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW shared_preload_libraries")
        preload = cursor.fetchone()[0]
        if "pg_stat_statements" not in preload:
            return [
                "  pg_stat_statements: not loaded by this server (shared_preload_libraries "
                f"is {preload!r}); the statements above are timed by Django instead"
            ]
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'")
        if cursor.fetchone() is None:
            return [
                "  pg_stat_statements: loaded, but not created in this database "
                "(CREATE EXTENSION pg_stat_statements needs a superuser); skipped"
            ]
        cursor.execute(
            "SELECT calls, total_exec_time, mean_exec_time, left(query, 110) "
            "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = %s ORDER BY total_exec_time DESC LIMIT 15",
            [database],
        )
        rows = cursor.fetchall()
    lines = ["  pg_stat_statements (this database, since the server's last reset):"]
    for calls, total, mean, query in rows:
        lines.append(f"  {total:9.1f} ms {calls:7} calls {mean:7.2f} ms  {' '.join(query.split())}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="tables in play (20)")
    parser.add_argument("--moves", type=int, default=400, help="moves profiled (400)")
    parser.add_argument("--warm-up", type=int, default=40, help="moves before profiling (40)")
    parser.add_argument("--top", type=int, default=30, help="functions printed (30)")
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument("--quick", action="store_true", help="6 tables, 100 moves, 20 to warm up")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.moves, args.warm_up = 6, 100, 20
    pyinstrument = import_pyinstrument()
    (RUN_DIR / "cluster" / "metrics").mkdir(parents=True, exist_ok=True)  # as the cluster has
    configure()
    cluster = load_cluster()
    drop_database(os.environ["DATABASE_URL"])
    cluster.ensure_database()
    setup_django(cluster)
    import redis
    from django.core.management import call_command
    from django.db import connection

    try:
        call_command("migrate", verbosity=0, interactive=False)
        print(f"migrated; {args.games} tables, {args.warm_up} moves to warm up", flush=True)
        rng = random.Random(7)
        games = make_games(args.games)
        timings: dict[str, list[float]] = defaultdict(list)
        play(games, args.warm_up, rng, timings)
        print(f"profiling {args.moves} moves", flush=True)
        timings.clear()
        queries = QueryTimer()
        profiler = pyinstrument.Profiler(interval=0.001, async_mode="disabled")
        started = time.perf_counter()
        with connection.execute_wrapper(queries):
            profiler.start()
            moved = play(games, args.moves, rng, timings)
            profiler.stop()
        wall = time.perf_counter() - started
        session = profiler.last_session
        (RUN_DIR / "profile.txt").write_text(
            profiler.output_text(unicode=False, color=False, show_all=True)
        )
        (RUN_DIR / "profile.html").write_text(profiler.output_html())
        packages, leaves, functions = where_time_goes(session)
        pg_lines = pg_stat_statements(connection.settings_dict["NAME"])
        pg = connection.pg_version // 10000
    finally:
        connection.close()
        for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
            redis.Redis.from_url(url).flushdb()
        if not args.keep_database:
            drop_database(os.environ["DATABASE_URL"])

    requests = sum(len(v) for v in timings.values())
    profiled = session.duration
    lines = [
        "",
        f"profile of the web request path: {moved} moves, {requests} requests "
        f"({args.games} timed tables), {wall:.1f} s wall, {profiled:.1f} s sampled; "
        f"PostgreSQL {pg}, Redis channel layer and broker (no worker); load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
    ]
    for route, values in timings.items():
        values = sorted(values)
        lines.append(
            f"  {route:32} n={len(values):5}  mean {1000 * sum(values) / len(values):6.1f} ms  "
            f"p50 {1000 * values[len(values) // 2]:6.1f} ms  "
            f"p95 {1000 * values[int(0.95 * len(values))]:6.1f} ms"
        )
    lines += [
        "",
        f"  self time by where the code lives (share of the sampled {profiled:.1f} s):",
        "  " + "; ".join(f"{name} {100 * t / profiled:.1f}%" for name, t in packages[:14] if t > 0),
        "",
        "  self time by function (where the samples ended: waits on PostgreSQL or Redis end in "
        "their client's wait):",
        *(f"  {100 * t / profiled:6.1f}%  {name}" for name, t in leaves[:12]),
        "",
        f"  the project's functions by cumulative time (share; ms per request, {requests} "
        "requests):",
        f"  {'cum %':>6} {'ms/req':>7}  function  file:line",
    ]
    for name, total in functions[: args.top]:
        lines.append(
            f"  {100 * total / profiled:6.1f} {1000 * total / max(1, requests):7.2f}  {name}"
        )
    stats = sorted(queries.stats.items(), key=lambda kv: -sum(kv[1]))
    total_sql = sum(sum(v) for v in queries.stats.values())
    calls = sum(len(v) for v in queries.stats.values())
    lines += [
        "",
        f"  SQL: {calls} statements ({calls / max(1, moved):.1f} per move and its view), "
        f"{1000 * total_sql:.0f} ms in all = {100 * total_sql / wall:.0f}% of the wall time "
        "(the client's wait on PostgreSQL); top statements by total time:",
        f"  {'total ms':>9} {'calls':>6} {'/move':>6} {'mean ms':>8}  statement",
    ]
    for sql, values in stats[:15]:
        lines.append(
            f"  {1000 * sum(values):9.1f} {len(values):6} {len(values) / max(1, moved):6.2f} "
            f"{1000 * sum(values) / len(values):8.2f}  {short_sql(sql)}"
        )
    lines += pg_lines
    lines.append(f"  full report: {RUN_DIR / 'profile.txt'} and profile.html")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
