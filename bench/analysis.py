"""Match analysis benchmark: decisions analysed a second on one core, beside the bots' own work.

    .venv/bin/python bench/analysis.py [--matches 4] [--samples 16] [--seed 1] [--json]
    (make bench-analysis BENCH_ARGS=...)

Plays ``--matches`` matches of greedy against expert (one game to 100, standard rules) with
the engine alone, then analyses every decision of each (:mod:`games.engine.analysis`, the
method the service runs, with ``--samples`` samples a decision) and counts the CPU time of
the process (so waiting for a core on a busy machine does not count). Measured in the same
run on the same decisions, as baselines: the expert bot deciding (the house bot the rollouts
are modelled on) and the master bot's search (the same sampler and rollouts over the
expert's few candidates instead of every legal action).

Printed: decisions analysed a second on one core, the CPU time a decision (median, p95, by
phase: a draw or offer has two answers, a discard up to eleven plus the knocks), the share of
decisions checked again on fresh samples, the ratios to the baselines, and what the analysis
of a whole best-of-five match to 250 would cost at that rate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import analysis  # noqa: E402
from games.engine.bots import make_bot  # noqa: E402
from games.engine.bots.master import MasterBot  # noqa: E402
from games.engine.bots.runner import play_match  # noqa: E402
from games.engine.game import derive_seed  # noqa: E402
from games.engine.match import Match  # noqa: E402
from games.engine.rules import STANDARD, RuleSet  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "analysis.json"
RULES = RuleSet(target=100, best_of=1)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--samples", type=int, default=analysis.DEFAULT_SAMPLES)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)

    logs = []
    for i in range(args.matches):
        seed = derive_seed(args.seed, "analysis-bench", i)
        match = Match(seed, RULES)
        play_match(match, (make_bot("greedy", seed), make_bot("expert", seed + 1)))
        logs.append(match.log_json())
    decisions = [d for log in logs for d in analysis.decisions(log)]

    per_decision: dict[str, list[float]] = {"draw": [], "discard": []}
    checked = 0
    clock = time.process_time
    started = clock()
    for d in decisions:
        t = clock()
        row = analysis.analyse_decision(d, args.seed, args.samples)
        kind = "discard" if len(d.view.legal_actions) > 2 else "draw"
        per_decision[kind].append(clock() - t)
        checked += row["taken"] != row["best"]
    spent = clock() - started

    expert = make_bot("expert", 1)
    t = clock()
    for d in decisions:
        expert.choose(d.view)
    expert_spent = clock() - t

    master = MasterBot(1, samples=args.samples, time_cap=60.0)
    t = clock()
    for d in decisions:
        master.choose(d.view)
    master_spent = clock() - t

    n = len(decisions)
    rate = n / spent
    all_ms = [1000 * s for kind in per_decision.values() for s in kind]
    # A best-of-five match to 250, played by the same bots, for its number of decisions.
    long_match = Match(derive_seed(args.seed, "analysis-bench", "long"), STANDARD)
    play_match(long_match, (make_bot("greedy", 3), make_bot("expert", 4)))
    long_decisions = sum(1 for _ in analysis.decisions(long_match.log_json()))

    print(
        f"analysis: {args.samples} samples a decision, {args.matches} matches to 100 "
        f"(greedy v expert), {n} decisions"
    )
    print(
        f"  analysed          {rate:7.1f} decisions a second on one core "
        f"({spent:.1f} s CPU); checked again on fresh samples: {checked}/{n} "
        f"({100 * checked / n:.0f}%)"
    )
    print(
        f"  CPU a decision    median {statistics.median(all_ms):.0f} ms, "
        f"p95 {pct(all_ms, 0.95):.0f} ms"
    )
    for kind, values in per_decision.items():
        if values:
            ms = [1000 * v for v in values]
            print(
                f"    {kind:8}        {len(values):5} decisions, median "
                f"{statistics.median(ms):.0f} ms, p95 {pct(ms, 0.95):.0f} ms"
            )
    print(
        f"  baselines (same decisions, same run): expert decides {n / expert_spent:,.0f} a "
        f"second, master searches {n / master_spent:.1f} a second; the analysis costs "
        f"{spent / expert_spent:,.0f}x the expert and {spent / master_spent:.2f}x the master"
    )
    print(
        f"  a best-of-five match to 250 ({long_decisions} decisions): about "
        f"{long_decisions / rate:.0f} s of one core"
    )
    if args.json:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            json.dumps(
                {
                    "samples": args.samples,
                    "decisions": n,
                    "per_second": rate,
                    "median_ms": statistics.median(all_ms),
                    "p95_ms": pct(all_ms, 0.95),
                    "checked": checked,
                    "expert_per_second": n / expert_spent,
                    "master_per_second": n / master_spent,
                    "long_match_decisions": long_decisions,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
