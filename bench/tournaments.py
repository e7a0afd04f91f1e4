#!/usr/bin/env python3
"""Tournaments benchmark: Swiss pairing at scale, and a 256-bot event from start to champion.

    make bench-tournaments      (or: .venv/bin/python bench/tournaments.py [--quick] [--json])

1. **Swiss pairing of 1,024 players for each of 10 rounds** (pure ``tournaments.formats.swiss``,
   in this process): every round is paired from the standings of the last (random results
   from a fixed seed), timed alone. Target: each round under 1 s. Also checks that no round
   has a rematch and that every player is paired, and counts the rounds proven optimal. On
   the same states the first-completion search it replaced (``bench/swiss_first_completion.py``,
   kept for this comparison only) pairs too: pairs across score groups and the sum of score
   differences, old against new; then the same over many events of 16, 24, 64, 100 and 101.
1b. **Losers-bracket drop-in orders** for every number of entrants from 4 to 256: the
   losers-bracket rematches a bracket is expected to have when every match is a coin toss
   (worked out exactly) and the earliest losers round one can happen in, for the classic
   order, TL.net's (brackets-manager's default), the orders in the code and the chosen ones
   (a search at each number of entrants; ``--write-drop-orders`` writes the table into
   ``tournaments/formats/drop_orders.py``).
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

3. **A 64-bot arena of 10 minutes** (greedy bots, best of one to 100), embedded:
   ``manage.py run_bot_event --format arena --minutes 10``; every free bot is paired at once
   by standing. Reports the matches played, matches per second, and the pairing passes (how
   many, their mean and longest time). ``--arena-minutes M`` runs it shorter (or longer).

4. **A 256-bot groups-then-playoffs event** (greedy bots, best of one to 100), embedded:
   ``manage.py run_bot_event --format two_stage --group-size 4 --advance 2``: 64 round-robin
   groups of four (384 matches), then the top two of each in a single-elimination playoff of
   128 (127 matches), from the start to the champion.

Flags: ``--quick`` (64 bots, 4 Swiss rounds of 256 players), ``--players N``, ``--no-embedded``,
``--no-cluster``, ``--no-arena``, ``--arena-minutes M``, ``--only-arena`` (part 3 alone),
``--no-two-stage``, ``--only-two-stage`` (part 4 alone), ``--two-stage-players N`` (256),
``--only-formats`` (parts 1 and 1b),
``--write-drop-orders``, ``--json`` (also writes bench/results/tournaments.json).
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

from harness import drop_database, free_redis_urls, load_cluster

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


# --- 1b. Losers-bracket drop-in orders ---------------------------------------------------------


def _profile_key(profile, baselines) -> tuple:
    """Best first: no worse than every baseline, then fewest rematches, then latest."""
    dominates = all(profile.no_worse_than(b) for b in baselines)
    return (not dominates, profile.mean, -(profile.earliest or 99))


def _search_orders(n: int, baselines, starts) -> tuple[str, ...]:
    """The drop-in orders of ``n`` entrants with the best key: every order when a bracket has
    at most 4 winners rounds, else a descent over one round's order at a time (and over two
    rounds' at a time up to 6 winners rounds) from each of ``starts``."""
    import itertools

    from tournaments.formats.double_elim import ORDERINGS, rematch_profile

    seen: dict[tuple[str, ...], tuple] = {}

    def key(orders: tuple[str, ...]) -> tuple:
        if orders not in seen:
            seen[orders] = _profile_key(rematch_profile(n, orders), baselines)
        return seen[orders]

    rounds = len(starts[0])

    def rank(orders: tuple[str, ...]) -> tuple:
        # On a tie the orders in the code stay.
        return (key(orders), orders != tuple(starts[0]), orders)

    if rounds <= 4:
        return min(itertools.product(ORDERINGS, repeat=rounds), key=rank)

    def neighbours(orders: tuple[str, ...], width: int):
        for positions in itertools.combinations(range(rounds), width):
            for names in itertools.product(ORDERINGS, repeat=width):
                trial = list(orders)
                for position, name in zip(positions, names, strict=True):
                    trial[position] = name
                if tuple(trial) != orders:
                    yield tuple(trial)

    def descend(orders: tuple[str, ...], width: int) -> tuple[str, ...]:
        while True:
            best = min(neighbours(orders, width), key=rank)
            if key(best) >= key(orders):
                return orders
            orders = best

    found = [descend(tuple(start), 1) for start in starts]
    best = min(found, key=rank)
    if rounds <= 6:
        best = descend(best, 2)
    return best


def losers_bracket_table(sizes=range(4, 257)) -> list[dict]:
    """For every number of entrants: the classic order, TL.net's (brackets-manager's default),
    the orders in the code now and the chosen ones, each with its exact expected rematches.

    The chosen orders come from a search at each number of entrants, started from the orders
    in the code, the last number's choice and (at the first number of a bracket size) the
    two baselines; they are never worse than either baseline on the expected rematches and
    on the earliest round one can happen in.
    """
    from tournaments.formats.bracket import bracket_size
    from tournaments.formats.double_elim import TLNET_ORDERS, classic_orders, rematch_profile
    from tournaments.formats.drop_orders import DROP_ORDERS

    rows: list[dict] = []
    for n in sizes:
        size = bracket_size(n)
        rounds = size.bit_length() - 1
        classic, tlnet = classic_orders(rounds), TLNET_ORDERS[size]
        baselines = [rematch_profile(n, classic), rematch_profile(n, tlnet)]
        current = DROP_ORDERS.get(n, classic)
        starts = [current]
        if rows and len(rows[-1]["orders"]) == rounds:
            starts.append(tuple(rows[-1]["orders"]))
        else:
            starts += [tlnet, classic]
        chosen = _search_orders(n, baselines, list(dict.fromkeys(starts)))
        profile = rematch_profile(n, chosen)
        before = rematch_profile(n, current)
        rows.append(
            {
                "entrants": n,
                "classic": [baselines[0].mean, baselines[0].earliest],
                "tlnet": [baselines[1].mean, baselines[1].earliest],
                "before": [before.mean, before.earliest],
                "chosen": [profile.mean, profile.earliest],
                "orders": list(chosen),
                "no_worse": all(profile.no_worse_than(b) for b in baselines),
            }
        )
    return rows


def write_drop_orders(rows: list[dict]) -> Path:
    """Write tournaments/formats/drop_orders.py from the measured table (runs of sizes)."""
    runs: list[list] = []  # [first, last, orders]
    for row in rows:
        orders = tuple(row["orders"])
        if runs and runs[-1][2] == orders and runs[-1][1] == row["entrants"] - 1:
            runs[-1][1] = row["entrants"]
        else:
            runs.append([row["entrants"], row["entrants"], orders])
    lines = [
        '"""The losers bracket\'s drop-in orders by number of entrants, as measured.',
        "",
        "Generated by ``bench/tournaments.py --write-drop-orders`` (the table printed by",
        "``make bench-tournaments``): for each number of entrants, the orders with the fewest",
        "losers-bracket rematches expected when every match is a coin toss (exact), never worse",
        "than the classic order or TL.net's on that or on the earliest round; see",
        ":mod:`tournaments.formats.double_elim`. Each line: entrants from, to, and one order",
        "per winners round.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "_RUNS: tuple[tuple[int, int, tuple[str, ...]], ...] = (",
    ]
    for first, last, orders in runs:
        lines.append(f"    ({first}, {last}, {orders!r}),")
    lines += [
        ")",
        "",
        "DROP_ORDERS: dict[int, tuple[str, ...]] = {",
        "    n: orders for first, last, orders in _RUNS for n in range(first, last + 1)",
        "}",
    ]
    out = ROOT / "tournaments" / "formats" / "drop_orders.py"
    out.write_text("\n".join(lines) + "\n")
    subprocess.run([str(Path(PYTHON).parent / "ruff"), "format", str(out)], check=False)
    return out


def lb_line(row: dict) -> str:
    def cell(pair):
        mean, earliest = pair
        return f"{mean:6.4f} L{earliest if earliest is not None else '-':<2}"

    flag = "" if row["no_worse"] else "  (worse than a baseline)"
    return (
        f"  {row['entrants']:>4}  classic {cell(row['classic'])}  TL.net {cell(row['tlnet'])}"
        f"  in the code {cell(row['before'])}  chosen {cell(row['chosen'])}"
        f"  {' '.join(row['orders'])}{flag}"
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


#: Part 4's event: round-robin groups of four, the top two of each to a single elimination.
TWO_STAGE = [
    "--format=two_stage",
    "--group-size=4",
    "--group-format=round_robin",
    "--advance=2",
    "--best-of=1",
    "--target=100",
]


def embedded_run(players: int, extra: list[str] | None = None) -> dict:
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
        report, total = run_command(command(players, extra or []), env, timeout=3600)
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


# --- 3. An arena -----------------------------------------------------------------------------

ARENA_PLAYERS = 64


def arena_run(players: int, minutes: float) -> dict:
    """A bot arena on a brand-new SQLite database, played in-process for ``minutes``."""
    args = [
        PYTHON,
        "manage.py",
        "run_bot_event",
        f"--players={players}",
        "--format=arena",
        f"--minutes={minutes}",
        "--best-of=1",
        "--target=100",
        "--strategy=greedy",
        "--seed=2026",
        "--json",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-arena-") as var:
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
        report, total = run_command(args, env, timeout=minutes * 60 + 900)
    report["command_seconds"] = round(total, 2)
    return report


def arena_title(minutes: float) -> str:
    return f"{ARENA_PLAYERS}-bot arena, {minutes:g} minutes, best of one to 100, greedy bots:"


def arena_line(report: dict) -> str:
    return (
        f"  {report['players']}-bot arena, {report['minutes']:g} min (embedded): "
        f"{report['matches']} matches played ({report['games']} games, {report['deals']} deals), "
        f"{report['matches_per_second']:.2f} matches/s; {report['passes']} pairing passes, "
        f"{report['pass_ms_mean']} ms each on average, {report['pass_ms_max']} ms the slowest; "
        f"{report['wall_seconds']:.1f} s start to finish"
    )


# --- report ------------------------------------------------------------------------------------


def event_line(label: str, report: dict) -> str:
    return (
        f"  {label:<34} {report['wall_seconds']:>7.1f} s start to champion  "
        f"{report['matches_per_second']:>6.2f} matches/s  ({report['matches']} matches, "
        f"{report['games']} games, {report['deals']} deals, {report['actions']} moves; "
        f"command {report['command_seconds']:.1f} s)"
    )


def two_stage_part(players: int, results: dict) -> None:
    """Part 4: a groups-then-playoffs bot event from the start to the champion, embedded."""
    print(
        f"{players}-bot groups then playoffs (round-robin groups of 4, the top 2 of each to a "
        "single elimination), best of one to 100, greedy bots:"
    )
    results["two_stage"] = embedded_run(players, TWO_STAGE)
    print(event_line("embedded (SQLite, in-process)", results["two_stage"]))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="64 bots, a smaller Swiss")
    parser.add_argument("--players", type=int, default=None, help="bots in the event (256)")
    parser.add_argument("--no-embedded", action="store_true")
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--no-arena", action="store_true", help="skip the arena")
    parser.add_argument(
        "--arena-minutes", type=float, default=10.0, help="how long the arena runs (10)"
    )
    parser.add_argument("--only-arena", action="store_true", help="the arena alone")
    parser.add_argument("--no-two-stage", action="store_true", help="skip groups-then-playoffs")
    parser.add_argument(
        "--only-two-stage", action="store_true", help="the groups-then-playoffs event alone"
    )
    parser.add_argument(
        "--two-stage-players", type=int, default=256, help="bots in the two-stage event (256)"
    )
    parser.add_argument("--json", action="store_true", help="also write bench/results/…json")
    parser.add_argument(
        "--write-drop-orders", action="store_true", help="write the measured table to the code"
    )
    parser.add_argument(
        "--only-formats", action="store_true", help="Swiss and losers brackets, no bot event"
    )
    args = parser.parse_args(argv)
    players = args.players or (64 if args.quick else 256)
    swiss_players, swiss_rounds = (256, 4) if args.quick else (1024, 10)

    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    if args.only_two_stage:
        two_stage_part(args.two_stage_players, results)
        return 0
    if args.only_arena:
        print(arena_title(args.arena_minutes))
        print(arena_line(arena_run(ARENA_PLAYERS, args.arena_minutes)))
        return 0
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
    print(
        "Losers-bracket rematches a bracket, expected when every match is a coin toss (exact),"
        " and the earliest losers round one can happen in:"
    )
    lb_sizes = range(4, 65) if args.quick else range(4, 257)
    table = losers_bracket_table(sizes=lb_sizes)
    results["losers_bracket"] = table
    for row in table:
        print(lb_line(row))
    if args.write_drop_orders:
        print(f"wrote {write_drop_orders(table).relative_to(ROOT)}")
    if not args.only_formats:
        print(f"{players}-bot single elimination, best of five to 250, greedy bots:")
    if not args.no_embedded and not args.only_formats:
        results["embedded"] = embedded_run(players)
        print(event_line("embedded (SQLite, in-process)", results["embedded"]))
    if not args.no_cluster and not args.only_formats:
        results["cluster"] = cluster_run(players)
        print(event_line("PostgreSQL + Redis, two workers", results["cluster"]))
    if not args.no_arena and not args.only_formats:
        print(arena_title(args.arena_minutes))
        results["arena"] = arena_run(ARENA_PLAYERS, args.arena_minutes)
        print(arena_line(results["arena"]))
    if not args.no_two_stage and not args.only_formats:
        two_stage_part(args.two_stage_players, results)
    if args.json:
        out = ROOT / "bench" / "results" / "tournaments.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {out.relative_to(ROOT)}")
    return 0 if swiss["met"] and all(row["no_worse"] for row in table) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
