#!/usr/bin/env python3
"""Tournaments benchmark: Swiss pairing at scale, and a 256-bot event from start to champion.

    make bench-tournaments      (or: .venv/bin/python bench/tournaments.py [--quick] [--json])

1. **Swiss pairing of 1,024 players for each of 10 rounds** (pure ``tournaments.formats.swiss``,
   in this process): every round is paired from the standings of the last (random results
   from a fixed seed), timed alone. Target: each round under 1 s. Also checks that no round
   has a rematch and that every player is paired.
2. **A 256-bot single-elimination event, best of five to 250** (greedy bots), from start to
   champion with one command, ``manage.py run_bot_event --players 256 --format single_elim``:
   a. **embedded**: a fresh SQLite database in a temporary ``VAR_DIR`` and no broker: the
      command migrates, creates the bots and the event, and plays every match in-process;
   b. **PostgreSQL + Redis with two workers**: ``deploy/cluster.py`` starts gunicorn, two Celery
      workers (one pool process each) and beat on a database of its own
      (``ginrummy_bench_tournaments``, dropped first) and two free Redis databases; the same
      command starts the event and waits while the workers play it.
   Each reports the wall time from the start to the champion and matches per second; the
   embedded line also gives the whole command's time (migrations and set-up included).

Flags: ``--quick`` (64 bots, 4 Swiss rounds of 256 players), ``--players N``, ``--no-embedded``,
``--no-cluster``, ``--json`` (also writes bench/results/tournaments.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import drop_database, free_redis_urls, load_cluster

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable

SWISS_TARGET_SECONDS = 1.0
BENCH_DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_tournaments"


# --- 1. Swiss pairing ------------------------------------------------------------------------


def swiss_bench(players: int, rounds: int, seed: int = 2026) -> dict:
    """Pair ``rounds`` rounds of ``players``; the time of each pairing alone.

    On every state the first-completion search the pairing replaced is run too (untimed), and
    both are measured: pairs across score groups and the sum of their score differences.
    """
    import swiss_first_completion as old

    from tournaments.formats.swiss import SwissPlayer, pair, quality

    rng = random.Random(seed)
    score = dict.fromkeys(range(1, players + 1), 0.0)
    opponents: dict[int, set[int]] = {p: set() for p in score}
    byes: set[int] = set()
    times, rematches, proven = [], 0, 0
    compare = {"new_cross": 0, "old_cross": 0, "new_difference": 0.0, "old_difference": 0.0}
    for _ in range(rounds):
        field = [SwissPlayer(p, score[p], p, frozenset(opponents[p]), p in byes) for p in score]
        started = time.perf_counter()
        pairing = pair(field)
        times.append(time.perf_counter() - started)
        seated = [p for pair_ in pairing.pairs for p in pair_] + [pairing.bye] * bool(pairing.bye)
        assert sorted(seated) == sorted(score), "a player was left out"
        rematches += pairing.rematches
        proven += pairing.optimal
        before = old.pair(
            [old.SwissPlayer(p.id, p.score, p.rank, p.opponents, p.had_bye) for p in field]
        )
        new_q = quality(field, pairing)
        old_q = quality(field, before)  # type: ignore[arg-type]
        compare["new_cross"] += new_q.cross_group
        compare["old_cross"] += old_q.cross_group
        compare["new_difference"] += new_q.score_difference
        compare["old_difference"] += old_q.score_difference
        for a, b in pairing.pairs:
            opponents[a].add(b)
            opponents[b].add(a)
            score[a if rng.random() < 0.5 else b] += 1
        if pairing.bye is not None:
            byes.add(pairing.bye)
            score[pairing.bye] += 1
    return {
        "players": players,
        "rounds": rounds,
        "round_seconds": [round(t, 4) for t in times],
        "max_round_seconds": round(max(times), 4),
        "total_seconds": round(sum(times), 4),
        "rematches": rematches,
        "proven_optimal_rounds": proven,
        **compare,
        "target_seconds": SWISS_TARGET_SECONDS,
        "met": max(times) < SWISS_TARGET_SECONDS and rematches == 0,
    }


def swiss_compare(players: int, events: int, seed: int = 2026) -> dict:
    """Simulated events of ``players`` (ceil(log2 N) rounds): new and old on the same states."""
    from tournaments.formats.swiss import default_rounds

    totals = {"new_cross": 0, "old_cross": 0, "new_difference": 0.0, "old_difference": 0.0}
    for event in range(events):
        one = swiss_bench(players, default_rounds(players), seed=seed + event)
        for name in totals:
            totals[name] += one[name]
    return {"players": players, "events": events, **totals}


def compare_line(label: str, row: dict) -> str:
    return (
        f"  {label:<30} cross-group pairs new {row['new_cross']:>4} old {row['old_cross']:>4}"
        f"   score differences new {row['new_difference']:>6.0f} old {row['old_difference']:>6.0f}"
    )


# --- 2. A bot event from start to champion -----------------------------------------------------


def command(players: int, extra: list[str]) -> list[str]:
    return [
        PYTHON,
        "manage.py",
        "run_bot_event",
        f"--players={players}",
        "--format=single_elim",
        "--best-of=5",
        "--target=250",
        "--strategy=greedy",
        "--seed=2026",
        "--json",
        *extra,
    ]


def run_command(args: list[str], env: dict[str, str], timeout: float) -> tuple[dict, float]:
    started = time.perf_counter()
    done = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    total = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[1:3])} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    line = [row for row in done.stdout.splitlines() if row.startswith("{")][-1]
    return json.loads(line), total


def embedded_run(players: int) -> dict:
    """The command on a brand-new SQLite database with no broker: everything in-process."""
    with tempfile.TemporaryDirectory(prefix="bench-tournaments-") as var:
        env = {
            **os.environ,
            "VAR_DIR": var,
            "DEBUG": "1",
            "DATABASE_URL": "",
            "CELERY_BROKER_URL": "",
            "REDIS_URL": "",
            "EMBEDDED_CLOCK_SWEEP": "0",
            "LOG_LEVEL": "WARNING",
        }
        report, total = run_command(command(players, []), env, timeout=3600)
    report["command_seconds"] = round(total, 2)
    return report


def cluster_run(players: int) -> dict:
    """gunicorn + two workers + beat (deploy/cluster.py); the command waits for the champion."""
    import redis

    free = free_redis_urls()
    database = os.environ.get("BENCH_DATABASE_URL", BENCH_DATABASE)
    drop_database(database)
    redis.Redis.from_url(free[0]).flushdb()
    os.environ.update(
        DATABASE_URL=database,
        CELERY_BROKER_URL=free[0],
        REDIS_URL=free[1],
        CLUSTER_DIR=str(ROOT / "var" / "bench-tournaments"),
        CLUSTER_PORT=os.environ.get("CLUSTER_PORT", "8120"),
        CLUSTER_WORKERS="2",
        CLUSTER_WORKER_CONCURRENCY="1",
        LOG_LEVEL="WARNING",
    )
    Path(os.environ["CLUSTER_DIR"]).mkdir(parents=True, exist_ok=True)
    cluster = load_cluster()
    env = cluster.child_env()
    started = subprocess.run(
        [PYTHON, "deploy/cluster.py", "start"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if started.returncode != 0:
        sys.exit(f"the cluster did not start:\n{started.stdout}\n{started.stderr}")
    try:
        report, total = run_command(command(players, ["--no-migrate"]), env, timeout=3600)
    finally:
        subprocess.run([PYTHON, "deploy/cluster.py", "stop"], cwd=ROOT, env=env, check=False)
    report["command_seconds"] = round(total, 2)
    report["workers"] = 2
    return report


# --- report ------------------------------------------------------------------------------------


def event_line(label: str, report: dict) -> str:
    return (
        f"  {label:<34} {report['wall_seconds']:>7.1f} s start to champion  "
        f"{report['matches_per_second']:>6.2f} matches/s  ({report['matches']} matches, "
        f"{report['games']} games, {report['deals']} deals, {report['actions']} moves; "
        f"command {report['command_seconds']:.1f} s)"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="64 bots, a smaller Swiss")
    parser.add_argument("--players", type=int, default=None, help="bots in the event (256)")
    parser.add_argument("--no-embedded", action="store_true")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--json", action="store_true", help="also write bench/results/…json")
    args = parser.parse_args(argv)
    players = args.players or (64 if args.quick else 256)
    swiss_players, swiss_rounds = (256, 4) if args.quick else (1024, 10)

    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    print(f"Swiss pairing, {swiss_players} players x {swiss_rounds} rounds:")
    swiss = swiss_bench(swiss_players, swiss_rounds)
    results["swiss"] = swiss
    per_round = " ".join(f"{t * 1000:.0f}" for t in swiss["round_seconds"])
    print(f"  each round (ms): {per_round}")
    print(
        f"  slowest {swiss['max_round_seconds'] * 1000:.1f} ms, all {swiss['total_seconds']:.2f} s,"
        f" rematches {swiss['rematches']}: {'met' if swiss['met'] else 'NOT met'}"
        f" (target: every round under {SWISS_TARGET_SECONDS:.0f} s)"
    )
    print(f"  proven optimal in {swiss['proven_optimal_rounds']} of {swiss_rounds} rounds")
    print("Swiss pairing quality, new (optimal by score groups) against old (first completion):")
    print(compare_line(f"{swiss_players} players x {swiss_rounds} rounds", swiss))
    results["swiss_compare"] = []
    for size, events in ((16, 50), (64, 50), (24, 50), (100, 20), (101, 20)):
        row = swiss_compare(size, events)
        results["swiss_compare"].append(row)
        print(compare_line(f"{events} events of {size} players", row))
    print(f"{players}-bot single elimination, best of five to 250, greedy bots:")
    if not args.no_embedded:
        results["embedded"] = embedded_run(players)
        print(event_line("embedded (SQLite, in-process)", results["embedded"]))
    if not args.no_cluster:
        results["cluster"] = cluster_run(players)
        print(event_line("PostgreSQL + Redis, two workers", results["cluster"]))
    if args.json:
        out = ROOT / "bench" / "results" / "tournaments.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {out.relative_to(ROOT)}")
    return 0 if swiss["met"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
