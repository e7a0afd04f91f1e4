"""Master bot benchmark: the master against OpenSpiel's simple bot and against the expert.

    bench/.venv/bin/python bench/master.py [--games 100] [--quick] [--jobs 1]
        [--opponents openspiel,expert] [--reference] [--samples N] [--json]
    (make bench-master BENCH_ARGS=...)

Games to 100 (one game, standard rules) on **duplicate deals**: seed ``i`` is played twice,
once with the master as player 0 and once as player 1, so each bot holds each hand of the
first deal once (later deals follow the same seeds, as long as the games run as long), and
every opponent meets the same seeds (``derive_seed(--seed, "master-bench", i)``). ``--games``
counts seeds: each opponent plays twice as many games.

OpenSpiel's simple bot is the reference client's adapter
(``ginrummy_bot.adapters.openspiel_bot.OpenSpielSimple``), asked in this process with the
view the service would send it; ``pyspiel`` comes from ``bench/.venv`` (``make
bench-master`` builds it). Without it the OpenSpiel line says why and the others run.
``--reference`` adds the expert against OpenSpiel's bot on the same seeds (fast: the expert
does not search).

Printed per opponent: the master's games won with a 95% Wilson interval, the seed pairs won
in both seat orders / split / lost in both, the mean final margin; and for the master's
decisions: wall-clock and CPU time per decision, median and p95 (all decisions, and the
searched ones apart), and how many hit the time cap. On a shared machine wall time includes
waiting for a core: CPU time is what one core spends.

Exit status 1 if a bot forfeited (an illegal action or an exception).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "clients" / "python"))

from games.engine.actions import Action  # noqa: E402
from games.engine.arena import wilson  # noqa: E402
from games.engine.bots import Bot, make_bot  # noqa: E402
from games.engine.bots.master import MasterBot, RolloutPolicy  # noqa: E402
from games.engine.bots.runner import play_match  # noqa: E402
from games.engine.deal import Deal  # noqa: E402
from games.engine.game import derive_seed  # noqa: E402
from games.engine.match import Match  # noqa: E402
from games.engine.rules import RuleSet  # noqa: E402
from games.engine.views import PlayerView, view_for  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "master.json"
RULES = RuleSet(target=100, best_of=1)
QUICK_SEEDS = 20  # 40 games per opponent


class OpenSpielPeer(Bot):
    """OpenSpiel's simple bot through the reference client's adapter."""

    name = "openspiel-simple"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        from ginrummy_bot.adapters.openspiel_bot import OpenSpielSimple

        self.peer = OpenSpielSimple()

    def choose(self, view: PlayerView) -> Action:
        data = view.to_json()
        service_view = {
            "hand": data["hand"],
            "deal": {
                "knock_limit": data["knock_limit"],
                "discard_pile": data["discard_pile"],
                "upcard": data["upcard"],
            },
            "legal_actions": data["legal_actions"],
        }
        return Action.from_json(self.peer.choose(service_view))


class Timed(Bot):
    """The master, with the CPU and wall time of each decision and what its search did."""

    def __init__(self, bot: MasterBot) -> None:
        super().__init__(bot.seed)
        self.bot = bot
        self.name = bot.name  # type: ignore[misc]
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.searched_wall: list[float] = []
        self.searched_cpu: list[float] = []
        self.capped = 0
        self.rollouts = 0
        self.overruled = 0
        self.overrules: list[str] = []  # "expert's kind -> played kind", in order

    def choose(self, view: PlayerView) -> Action:
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(view)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        self.wall.append(wall)
        self.cpu.append(cpu)
        report = self.bot.report
        if report.searched:
            self.searched_wall.append(wall)
            self.searched_cpu.append(cpu)
            self.capped += report.capped
            self.rollouts += report.rollouts
            self.overruled += report.overruled
            if report.overruled and report.expert_choice is not None:
                self.overrules.append(f"{report.expert_choice.kind.value}->{action.kind.value}")
        return action


@dataclass
class Unit:
    opponent: str
    index: int
    order: int  # the master's player number
    master_side: str = "master"
    options: dict[str, Any] = field(default_factory=dict)


def make_side(name: str, seed: int, options: dict[str, Any]) -> Bot:
    if name == "openspiel":
        return OpenSpielPeer(seed)
    if name == "master":
        return MasterBot(seed, **options)
    return make_bot(name, seed)


def play_unit(unit: Unit, base_seed: int) -> dict[str, Any]:
    seed = derive_seed(base_seed, "master-bench", unit.index)
    bot = make_side(unit.master_side, derive_seed(seed, "bot", "master"), unit.options)
    timed = Timed(bot) if isinstance(bot, MasterBot) else None
    mine: Bot = timed or bot
    other = make_side(unit.opponent, derive_seed(seed, "bot", "opponent"), {})
    bots = (mine, other) if unit.order == 0 else (other, mine)
    match = Match(seed, RULES)
    failure = play_match(match, bots)
    result = match.results[-1] if match.results else None
    margin = 0
    if result is not None:
        scores = result.hand_points
        margin = scores[unit.order] - scores[1 - unit.order]
    out: dict[str, Any] = {
        "opponent": unit.opponent,
        "side": unit.master_side,
        "index": unit.index,
        "order": unit.order,
        "won": match.winner == unit.order,
        "margin": margin,
        "failure": None if failure is None else failure.reason,
    }
    if timed is not None:
        out.update(
            wall=timed.wall,
            cpu=timed.cpu,
            searched_wall=timed.searched_wall,
            searched_cpu=timed.searched_cpu,
            capped=timed.capped,
            rollouts=timed.rollouts,
            overruled=timed.overruled,
            overrules=timed.overrules,
        )
    return out


def play_deal_unit(unit: Unit, base_seed: int) -> dict[str, Any]:
    """One deal (``--format deal``): the master's net points in it."""
    seed = derive_seed(base_seed, "master-deal", unit.index)
    bot = make_side(unit.master_side, derive_seed(seed, "bot", "master"), unit.options)
    timed = Timed(bot) if isinstance(bot, MasterBot) else None
    mine: Bot = timed or bot
    other = make_side(unit.opponent, derive_seed(seed, "bot", "opponent"), {})
    bots = (mine, other) if unit.order == 0 else (other, mine)
    deal = Deal.new(seed, unit.index % 2, RULES)
    while not deal.is_over:
        deal.apply(bots[deal.to_act].choose(view_for(deal, deal.to_act)))
    outcome = deal.outcome
    assert outcome is not None
    points = 0 if outcome.winner is None else outcome.points
    if outcome.winner is not None and outcome.winner != unit.order:
        points = -points
    out: dict[str, Any] = {
        "opponent": unit.opponent,
        "side": unit.master_side,
        "index": unit.index,
        "order": unit.order,
        "won": points > 0,
        "margin": points,
        "failure": None,
    }
    if timed is not None:
        out.update(
            wall=timed.wall,
            cpu=timed.cpu,
            searched_wall=timed.searched_wall,
            searched_cpu=timed.searched_cpu,
            capped=timed.capped,
            rollouts=timed.rollouts,
            overruled=timed.overruled,
            overrules=timed.overrules,
        )
    return out


def _run(args: tuple[Unit, int, str]) -> dict[str, Any]:
    unit, seed, fmt = args
    return play_deal_unit(unit, seed) if fmt == "deal" else play_unit(unit, seed)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarise(label: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    games = len(rows)
    wins = sum(r["won"] for r in rows)
    lo, hi = wilson(wins, games)
    by_index: dict[int, int] = {}
    for r in rows:
        by_index[r["index"]] = by_index.get(r["index"], 0) + r["won"]
    pairs = [by_index[i] for i in sorted(by_index)]
    net: dict[int, list[float]] = {}
    for r in rows:
        net.setdefault(r["index"], []).append(r["margin"])
    pair_means = [statistics.fmean(v) for v in net.values()]
    margin_se = (
        statistics.stdev(pair_means) / len(pair_means) ** 0.5 if len(pair_means) > 1 else 0.0
    )
    summary: dict[str, Any] = {
        "label": label,
        "games": games,
        "wins": wins,
        "rate": wins / games if games else float("nan"),
        "ci95": [lo, hi],
        "pairs_both": pairs.count(2),
        "pairs_split": pairs.count(1),
        "pairs_lost": pairs.count(0),
        "mean_margin": statistics.fmean(r["margin"] for r in rows) if rows else 0.0,
        "margin_se": margin_se,
        "forfeits": [r["failure"] for r in rows if r["failure"]],
    }
    if rows and "wall" in rows[0]:
        wall = [t for r in rows for t in r["wall"]]
        cpu = [t for r in rows for t in r["cpu"]]
        swall = [t for r in rows for t in r["searched_wall"]]
        scpu = [t for r in rows for t in r["searched_cpu"]]
        summary["decisions"] = {
            "count": len(wall),
            "searched": len(swall),
            "capped": sum(r["capped"] for r in rows),
            "overruled": sum(r["overruled"] for r in rows),
            "rollouts_per_search": (sum(r["rollouts"] for r in rows) / len(swall) if swall else 0),
            "wall_ms": [1000 * pct(wall, 0.5), 1000 * pct(wall, 0.95)],
            "cpu_ms": [1000 * pct(cpu, 0.5), 1000 * pct(cpu, 0.95)],
            "searched_wall_ms": [1000 * pct(swall, 0.5), 1000 * pct(swall, 0.95)],
            "searched_cpu_ms": [1000 * pct(scpu, 0.5), 1000 * pct(scpu, 0.95)],
        }
    return summary


def paired(rows: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict[str, Any]:
    """The master's margin less the expert's on the same seeds and seat orders against the
    same opponent: both play the same cards until the master first overrules the expert, so
    the seeds where it never does add nothing but their count."""
    theirs = {(r["index"], r["order"]): r["margin"] for r in reference}
    by_index: dict[int, list[float]] = {}
    by_first: dict[str, list[float]] = {}  # by the kind of the first overruling
    differ = 0
    for r in rows:
        key = (r["index"], r["order"])
        if key not in theirs:
            continue
        d = r["margin"] - theirs[key]
        differ += d != 0
        by_index.setdefault(r["index"], []).append(d)
        if r.get("overrules"):
            by_first.setdefault(r["overrules"][0], []).append(d)
    means = [statistics.fmean(v) for v in by_index.values()]
    se = statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else 0.0
    return {
        "seeds": len(means),
        "differ": differ,
        "units": sum(len(v) for v in by_index.values()),
        "mean": statistics.fmean(means) if means else 0.0,
        "ci95": 1.96 * se,
        "by_first_overruling": {
            k: {"count": len(v), "sum": sum(v)} for k, v in sorted(by_first.items())
        },
    }


def print_summary(s: dict[str, Any]) -> None:
    lo, hi = s["ci95"]
    print(
        f"{s['label']:<28} {s['wins']:>4}/{s['games']:<4} games won  {100 * s['rate']:5.1f}%  "
        f"95% CI [{100 * lo:4.1f}, {100 * hi:4.1f}]  seed pairs won 2/1/0: "
        f"{s['pairs_both']}/{s['pairs_split']}/{s['pairs_lost']}  "
        f"mean margin {s['mean_margin']:+.1f} (+-{1.96 * s['margin_se']:.1f})"
    )
    d = s.get("decisions")
    if d:
        print(
            f"{'':<28} decisions {d['count']} (searched {d['searched']}, capped {d['capped']}, "
            f"{d['rollouts_per_search']:.0f} rollouts a search, the expert's choice overruled "
            f"{d['overruled']})"
        )
        print(
            f"{'':<28} time a decision, median / p95: all {d['cpu_ms'][0]:.0f} / "
            f"{d['cpu_ms'][1]:.0f} ms CPU ({d['wall_ms'][0]:.0f} / {d['wall_ms'][1]:.0f} ms "
            f"wall); searched {d['searched_cpu_ms'][0]:.0f} / {d['searched_cpu_ms'][1]:.0f} ms "
            f"CPU ({d['searched_wall_ms'][0]:.0f} / {d['searched_wall_ms'][1]:.0f} ms wall)"
        )
    for reason in s["forfeits"]:
        print(f"{'':<28} FORFEIT: {reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="seeds (2 games each)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SEEDS} seeds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the first seed's number")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--opponents", default="openspiel,expert")
    parser.add_argument("--reference", action="store_true", help="expert v OpenSpiel too")
    parser.add_argument("--samples", type=int, default=None, help="master: samples")
    parser.add_argument("--candidates", type=int, default=None, help="master: discards")
    parser.add_argument("--uniform", action="store_true", help="master: uniform sampling")
    parser.add_argument("--time-cap", type=float, default=None, help="master: cap (s)")
    parser.add_argument("--margin", type=float, default=None, help="master: margin (points)")
    parser.add_argument("--z", type=float, default=None, help="master: standard errors")
    parser.add_argument("--search", default=None, help="master: draws,discards,knocks searched")
    parser.add_argument("--picks", type=int, default=None, help="master: opponent picks")
    parser.add_argument(
        "--picks-per-draw", type=float, default=None, help="master: picks more a draw"
    )
    parser.add_argument(
        "--fit-cost", type=float, default=None, help="master: points a contradicted choice"
    )
    parser.add_argument(
        "--opponent-rollouts",
        choices=("knock-at-once", "own"),
        default=None,
        help="master: the opponent's rollout policy (its own: the seat's)",
    )
    parser.add_argument(
        "--extra-samples", type=int, default=None, help="master: more samples, close calls"
    )
    parser.add_argument(
        "--extend-z", type=float, default=None, help="master: standard errors, close calls"
    )
    parser.add_argument(
        "--format",
        choices=("game", "deal"),
        default="game",
        help="deal: single deals, the master's net points a deal (for tuning)",
    )
    parser.add_argument("--json", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    seeds = QUICK_SEEDS if args.quick else args.games
    options: dict[str, Any] = {}
    if args.samples is not None:
        options["samples"] = args.samples
    if args.candidates is not None:
        options["max_search_candidates"] = args.candidates
    if args.uniform:
        options["weighted"] = False
    if args.margin is not None:
        options["margin"] = args.margin
    if args.z is not None:
        options["z"] = args.z
    if args.search is not None:
        options["search"] = args.search
    if args.picks is not None:
        options["opponent_picks"] = args.picks
    if args.picks_per_draw is not None:
        options["picks_per_draw"] = args.picks_per_draw
    if args.fit_cost is not None:
        options["fit_cost"] = args.fit_cost
    if args.opponent_rollouts is not None:
        options["opponent_policy"] = RolloutPolicy(
            knock_at_once=args.opponent_rollouts == "knock-at-once"
        )
    if args.extra_samples is not None:
        options["extra_samples"] = args.extra_samples
    if args.extend_z is not None:
        options["extend_z"] = args.extend_z
    if args.time_cap is not None:
        options["time_cap"] = args.time_cap
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    sides = [("master", o) for o in opponents]
    if args.reference:
        sides.append(("expert", "openspiel"))
    if any(o == "openspiel" for _, o in sides):
        try:
            import pyspiel  # noqa: F401
        except ImportError as exc:
            print(f"OpenSpiel simple bot: not available ({exc}); run make bench-master")
            sides = [(m, o) for m, o in sides if o != "openspiel"]
    probe = MasterBot(0, **options)
    close_calls = (
        f"close calls {probe.extra_samples} more (z {probe.extend_z:g}), "
        if probe.extra_samples
        else ""
    )
    print(
        f"master: {probe.samples} samples, {probe.max_search_candidates} discards searched, "
        f"{'weighted' if probe.weighted else 'uniform'} sampling, best of "
        f"{probe.opponent_picks or 1} opponent hands ({probe.picks_per_draw:g} more a draw"
        f"{f', fit cost {probe.fit_cost:g}' if probe.fit_cost else ''}), "
        f"opponent rollouts {'knock at once' if probe.opponent_policy.knock_at_once else 'own'}, "
        f"z {probe.z}, margin {probe.margin}, "
        f"{close_calls}"
        f"searched: {'draws ' if probe.search_draws else ''}"
        f"{'discards ' if probe.search_discards else ''}"
        f"{'knocks' if probe.search_knocks else ''}; cap {probe.time_cap:.2f} s; "
        f"{seeds} seeds x 2 seat orders, games to {RULES.target}, jobs {args.jobs}; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    units = [
        Unit(opponent, i, order, side, options)
        for side, opponent in sides
        for i in range(args.first, args.first + seeds)
        for order in (0, 1)
    ]
    started = time.time()
    work = [(u, args.seed, args.format) for u in units]
    rows = []
    with multiprocessing.get_context("spawn").Pool(max(1, args.jobs)) as pool:
        for row in pool.imap(_run, work, chunksize=1):
            rows.append(row)
            if len(rows) % 10 == 0:
                print(f"  {len(rows)}/{len(work)} played", file=sys.stderr, flush=True)
    summaries = []
    for side, opponent in sides:
        label = f"{side} v {'OpenSpiel simple' if opponent == 'openspiel' else opponent}"
        subset = [r for r in rows if r["opponent"] == opponent and r["side"] == side]
        summary = summarise(label, subset)
        summaries.append(summary)
        print_summary(summary)
    reference = [r for r in rows if r["side"] == "expert" and r["opponent"] == "openspiel"]
    mine = [r for r in rows if r["side"] == "master" and r["opponent"] == "openspiel"]
    if reference and mine:
        p = paired(mine, reference)
        unit = "deal" if args.format == "deal" else "game"
        print(
            f"{'master less expert':<28} v OpenSpiel simple, same seeds: {p['mean']:+.2f} "
            f"(+-{p['ci95']:.2f}) points a {unit}; {p['differ']} of {p['units']} {unit}s differ"
        )
        for kind, f in p["by_first_overruling"].items():
            print(
                f"{'':<28} first overruling {kind}: {f['count']} {unit}"
                f"{'' if f['count'] == 1 else 's'}, "
                f"{f['sum']:+.0f} points against the expert's"
            )
        summaries.append({"label": "master less expert v OpenSpiel simple", **p})
    print(f"{time.time() - started:.0f} s; load {os.getloadavg()[0]:.1f}")
    if args.json:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"seeds": seeds, "summaries": summaries}, indent=1))
    return 1 if any(s.get("forfeits") for s in summaries) else 0


if __name__ == "__main__":
    sys.exit(main())
