#!/usr/bin/env python3
"""Engine benchmark: our Gin Rummy engine beside RLCard and OpenSpiel, in the same run.

One file on purpose, though long: a benchmark is one command, and its set-up, load and
report read top to bottom.

Run it with ``make bench-engine`` (which builds ``bench/.venv`` with the peers) or directly
with ``bench/.venv/bin/python bench/engine.py [--quick] [--json]``. See ``bench/README.md``
for what each figure means. A contender that cannot be imported is reported as not
available and the rest still run.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for _p in (str(ROOT), str(BENCH)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

PEER_MODULES = {
    "ours": "peers.ours",
    "rlcard": "peers.rlcard_peer",
    "openspiel": "peers.openspiel_peer",
}
#: Target for the memory of one live deal state: under 2 KiB.
MEMORY_TARGET = 2 * 1024
#: The issue's hand where OpenSpiel's 11-card shortcut says 11 and the exact answer is 9.
SHORTCUT_HAND = ["3C", "3D", "6D", "4C", "4H", "5C", "5H", "6H", "6C", "AH", "5D"]
SHORTCUT_EXACT = 9


@dataclass
class Settings:
    rounds: int
    window: float
    hands: int
    check_hands: int
    chunk: int
    mem_ours: int
    mem_peers: int
    mem_actions: int
    seed: int


FULL = Settings(
    rounds=5, window=0.4, hands=2000, check_hands=300, chunk=50,
    mem_ours=5_000, mem_peers=1_000, mem_actions=30, seed=20240601,
)  # fmt: skip
QUICK = Settings(
    rounds=3, window=0.12, hands=600, check_hands=100, chunk=50,
    mem_ours=1_000, mem_peers=250, mem_actions=30, seed=20240601,
)  # fmt: skip


# --- contenders -----------------------------------------------------------------------


def load_contender(name: str) -> tuple[Any | None, str | None, float]:
    """(contender or None, reason when not available, seconds the import took)."""
    peers = importlib.import_module("peers")
    t0 = time.perf_counter()
    try:
        contender = importlib.import_module(PEER_MODULES[name]).load()
    except peers.Unavailable as exc:
        return None, str(exc), time.perf_counter() - t0
    except Exception as exc:  # a half-written engine must not stop the peers' figures
        return None, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0
    return contender, None, time.perf_counter() - t0


# --- hands ----------------------------------------------------------------------------


def random_hands(rng: random.Random, count: int, size: int) -> list[list[str]]:
    deck = importlib.import_module("peers").DECK
    return [[deck[i] for i in rng.sample(range(52), size)] for _ in range(count)]


# --- timing ---------------------------------------------------------------------------


@dataclass
class Entry:
    """One contender's work for one figure: ``make_runner()`` gives a fresh ``step()`` that
    does one batch (a deal, or a chunk of hands) and returns how many units it did."""

    label: str
    make_runner: Callable[[], Callable[[], int]]
    rates: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def best(self) -> float | None:
        return max(self.rates) if self.rates else None

    @property
    def spread(self) -> float | None:
        if len(self.rates) < 2 or not max(self.rates):
            return None
        return (max(self.rates) - min(self.rates)) / max(self.rates)


def hand_runner(run: Callable[[Any], list[int]], prepared: list[Any], chunk: int):
    chunks = [prepared[i : i + chunk] for i in range(0, len(prepared), chunk)]

    def make() -> Callable[[], int]:
        state = {"i": 0}

        def step() -> int:
            part = chunks[state["i"] % len(chunks)]
            state["i"] += 1
            run(part)
            return len(part)

        return step

    return make


def deal_runner(play: Callable[..., int], base_seed: int):
    def make() -> Callable[[], int]:
        state = {"seed": base_seed}  # every round replays the same deals from the same seed

        def step() -> int:
            play(state["seed"])
            state["seed"] += 1
            return 1

        return step

    return make


def time_window(entry: Entry, window: float) -> float:
    """Units per second over one window of at least ``window`` seconds."""
    step = entry.make_runner()
    gc.collect()
    done = 0
    t0 = time.perf_counter()
    while True:
        done += step()
        elapsed = time.perf_counter() - t0
        if elapsed >= window:
            return done / elapsed


def run_rounds(entries: list[Entry], settings: Settings, log: Callable[[str], None]) -> None:
    """Warm each entry up, then ``rounds`` rounds; within a round every entry runs one window,
    in an order rotated each round, so load from other work falls on all of them alike."""
    live = [e for e in entries if e.error is None]
    for e in live:
        try:
            time_window(e, settings.window / 4)
        except Exception as exc:
            e.error = f"{type(exc).__name__}: {exc}"
    live = [e for e in live if e.error is None]
    for r in range(settings.rounds):
        k = r % len(live) if live else 0
        for e in live[k:] + live[:k]:
            if e.error is not None:
                continue
            try:
                e.rates.append(time_window(e, settings.window))
            except Exception as exc:
                e.error = f"{type(exc).__name__}: {exc}"
        log(f"  round {r + 1}/{settings.rounds} done")


# --- memory ---------------------------------------------------------------------------


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_probe(name: str, count: int, actions: int | None) -> dict[str, Any]:
    """Runs in a fresh interpreter: bytes per live deal state, by RSS and by tracemalloc."""
    contender, reason, _ = load_contender(name)
    if contender is None or contender.memory_states is None:
        return {"error": reason or "no deal states"}
    build = contender.memory_states
    build(min(50, count), actions)  # warm: lazy tables, imports, caches
    if actions is not None and actions < 0:
        # Learn each deal's length first (states built and dropped one by one, so the
        # heap does not grow), so the measured passes below only build the states.
        build(count, actions, hold=False)
    gc.collect()
    rss0 = rss_bytes()
    held = build(count, actions)
    gc.collect()
    rss_per = (rss_bytes() - rss0) / count
    del held
    gc.collect()
    out: dict[str, Any] = {"count": count, "actions": actions, "rss_per_state": rss_per}
    if contender.memory_method == "tracemalloc":
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        held = build(count, actions)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out["traced_per_state"] = (current - base) / count
        out["traced_peak_per_state"] = (peak - base) / count
        del held
    out["method"] = contender.memory_method
    out["per_state"] = out.get("traced_peak_per_state", rss_per)
    return out


def run_memory_probe(name: str, count: int, actions: int | None) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-probe", name]
    cmd += ["--count", str(count), "--actions", "end" if actions is None else str(actions)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return {"error": "memory probe timed out"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"memory probe failed: {tail}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory_phases(s: Settings) -> dict[str, tuple[int | None, str, bool]]:
    """phase -> (actions argument for memory_states, description, held to the target)."""
    return {
        "mid-play": (s.mem_actions, f"mid-play ({s.mem_actions} actions in)", True),
        "last-live": (-1, "last live state (one action before the end)", True),
    }


# --- formatting -----------------------------------------------------------------------


def fmt_rate(x: float | None) -> str:
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.1f}"


def fmt_ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}x"


def ratio(ours: float | None, peer: float | None) -> float | None:
    if ours is None or peer is None or peer == 0:
        return None
    return ours / peer


@dataclass
class Target:
    peer: str
    at_least: float  # ours / peer must be >= this
    text: str


def judge(targets: list[Target], ours: float | None, rates: dict[str, float | None]):
    parts, verdicts = [], []
    for t in targets:
        r = ratio(ours, rates.get(t.peer))
        if r is None:
            verdicts.append(None)
            parts.append(f"{t.text} n/a")
        else:
            verdicts.append(r >= t.at_least)
            parts.append(f"{t.text} {'ok' if r >= t.at_least else 'MISSED'}")
    if ours is None:
        overall = "n/a (ours not available)"
    elif False in verdicts:
        overall = "MISSED"
    elif None in verdicts:
        overall = "incomplete (peer missing)"
    else:
        overall = "MET"
    return overall, parts, verdicts


# --- main -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run (a few seconds a figure)")
    ap.add_argument("--json", action="store_true", help="also write bench/results/engine.json")
    ap.add_argument("--rounds", type=int, help="timed rounds per contender (best one counts)")
    ap.add_argument("--window", type=float, help="seconds per timed round")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory figures")
    ap.add_argument("--memory-probe", help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=1000, help=argparse.SUPPRESS)
    ap.add_argument("--actions", default="30", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.memory_probe:
        actions = None if args.actions == "end" else int(args.actions)
        print(json.dumps(memory_probe(args.memory_probe, args.count, actions)))
        return 0

    s = QUICK if args.quick else FULL
    if args.rounds:
        s.rounds = args.rounds
    if args.window:
        s.window = args.window

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    started = time.perf_counter()
    load_start = os.getloadavg()
    contenders: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    import_seconds: dict[str, float] = {}
    for name in PEER_MODULES:
        c, reason, secs = load_contender(name)
        import_seconds[name] = secs
        if c is None:
            unavailable[name] = reason or "?"
        else:
            contenders[name] = c
    ours = contenders.get("ours")

    rng = random.Random(s.seed)
    hands10 = random_hands(rng, s.hands, 10)
    hands11 = random_hands(rng, s.hands, 11)

    # --- agreement checks, outside timing ---
    checks: list[str] = []
    check_data: dict[str, Any] = {}
    for size, hands, run_attr, prep_attr in (
        (10, hands10, "run_10", "prepare_10"),
        (11, [SHORTCUT_HAND, *hands11], "run_11", "prepare_11"),
    ):
        sample = hands[: s.check_hands]
        answers: dict[str, list[int]] = {}
        for name, c in contenders.items():
            prep, run = getattr(c, prep_attr), getattr(c, run_attr)
            if prep and run:
                try:
                    answers[name] = run(prep(sample))
                except Exception as exc:
                    checks.append(f"check {size}-card: {name} failed: {type(exc).__name__}: {exc}")
        if len(answers) >= 2:
            names = list(answers)
            bad = [i for i in range(len(sample)) if len({answers[n][i] for n in names}) > 1]
            line = (
                f"check {size}-card deadwood: {', '.join(names)} agree on "
                f"{len(sample) - len(bad)}/{len(sample)} hands"
            )
            checks.append(line)
            for i in bad[:3]:
                vals = ", ".join(f"{n}={answers[n][i]}" for n in names)
                checks.append(f"  differs: {' '.join(sample[i])}: {vals}")
            check_data[f"{size}"] = {"hands": len(sample), "disagree": len(bad)}
        if size == 11:
            for name, a in answers.items():
                if a and a[0] != SHORTCUT_EXACT:
                    checks.append(
                        f"  {name}: {' '.join(SHORTCUT_HAND)} -> {a[0]}, exact is {SHORTCUT_EXACT}"
                    )
            os_c = contenders.get("openspiel")
            if os_c and "openspiel" in answers:
                prep, run = next(iter(os_c.extra_11.values()))
                short = run(prep(sample))
                pairs = list(zip(short, answers["openspiel"], strict=True))[1:]  # random hands
                worse = sum(1 for x, y in pairs if x != y)
                checks.append(
                    f"  openspiel's 11-card shortcut: {short[0]} on the issue's hand (exact "
                    f"{SHORTCUT_EXACT}); differs from the exact minimum on {worse}/{len(pairs)} "
                    f"random hands"
                )
                check_data["openspiel_shortcut_differs"] = worse

    # --- timed entries ---
    figures: list[dict[str, Any]] = []
    entries: list[Entry] = []

    def add_figure(key, title, unit, targets, pairs):
        fig = {"key": key, "title": title, "unit": unit, "targets": targets, "entries": {}}
        for label, make, err in pairs:
            e = Entry(label=label, make_runner=make, error=err)
            fig["entries"][label] = e
            entries.append(e)
        figures.append(fig)

    deal_pairs = []
    for label in ("ours", "rlcard-env", "rlcard-game", "openspiel"):
        owner = contenders.get(label.split("-")[0])
        play = owner.deal_kinds.get(label) if owner else None
        if play is None:
            reason = unavailable.get(label.split("-")[0], "no deal engine yet")
            deal_pairs.append((label, None, reason))
        else:
            deal_pairs.append((label, deal_runner(play, s.seed), None))
    add_figure(
        "deals", "full deals/s, random v random", "deals/s",
        [Target("openspiel", 3, ">=3x openspiel"), Target("rlcard-env", 10, ">=10x rlcard-env")],
        deal_pairs,
    )  # fmt: skip

    for key, title, hands, prep_attr, run_attr, targets in (
        (
            "md10", "10-card min deadwood, hands/s", hands10, "prepare_10", "run_10",
            [Target("rlcard", 6, ">=6x rlcard"), Target("openspiel", 0.4, ">=openspiel/2.5")],
        ),
        (
            "bd11", "11-card exact best discard, hands/s", hands11, "prepare_11", "run_11",
            [Target("openspiel", 2.5, ">=2.5x openspiel"), Target("rlcard", 30, ">=30x rlcard")],
        ),
    ):  # fmt: skip
        pairs = []
        for name in ("ours", "rlcard", "openspiel"):
            c = contenders.get(name)
            prep = getattr(c, prep_attr) if c else None
            run = getattr(c, run_attr) if c else None
            if prep is None or run is None:
                pairs.append((name, None, unavailable.get(name, "no meld code yet")))
            else:
                pairs.append((name, hand_runner(run, prep(hands), s.chunk), None))
        add_figure(key, title, "hands/s", targets, pairs)

    info_pairs = []
    for c in contenders.values():
        for label, (prep, run) in c.extra_11.items():
            info_pairs.append((label, hand_runner(run, prep(hands11), s.chunk), None))
    if info_pairs:
        title = "11-card, peers' own non-exact paths (info)"
        add_figure("info11", title, "hands/s", [], info_pairs)

    log(f"timing: {s.rounds} rounds x {s.window:.2f}s per contender, {len(entries)} contenders")
    run_rounds(entries, s, log)

    # --- player actions per deal, untimed (deals end differently in each engine) ---
    actions_per_deal: dict[str, float] = {}
    for label, e in figures[0]["entries"].items():
        owner = contenders.get(label.split("-")[0])
        if owner is None or e.error is not None or label not in owner.deal_kinds:
            continue
        play = owner.deal_kinds[label]
        n = 10 if label == "rlcard-env" else 40
        actions_per_deal[label] = sum(play(s.seed + i, count=True) for i in range(n)) / n

    # --- memory (fresh interpreters) ---
    memory: dict[str, dict[str, Any]] = {}
    if not args.no_memory:
        for phase, (actions, _desc, _judged) in memory_phases(s).items():
            memory[phase] = {}
            for name in ("ours", "rlcard", "openspiel"):
                c = contenders.get(name)
                if c is None or c.memory_states is None:
                    memory[phase][name] = {"error": unavailable.get(name, "no deal engine yet")}
                    continue
                count = s.mem_ours if name == "ours" else s.mem_peers
                if actions is None or actions < 0:  # longer to build: fewer
                    count = max(100, count * 2 // 5)
                log(f"memory: {name} {phase} ({count} states)")
                memory[phase][name] = run_memory_probe(name, count, actions)

    load_end = os.getloadavg()
    total = time.perf_counter() - started

    # --- report ---
    out: list[str] = []
    out.append(
        f"Gin Rummy engine bench: Python {platform.python_version()} {platform.machine()}, "
        f"{os.cpu_count()} cpus, load {load_start[0]:.2f} -> {load_end[0]:.2f}; "
        + ", ".join(f"{n} {c.version}" for n, c in contenders.items())
    )
    out.append(
        f"best of {s.rounds} interleaved rounds of {s.window:.2f}s each; ratio = ours/peer; "
        f"{s.hands} random hands per size from seed {s.seed}"
    )
    for name, reason in unavailable.items():
        out.append(f"{name}: not available ({reason})")
    for c in contenders.values():
        out.extend(c.notes)
    if ours is not None:
        out.append(f"ours: import (incl. any table build) {import_seconds['ours'] * 1000:.0f} ms")
    out.append("")

    results: dict[str, Any] = {"figures": {}, "memory": memory}
    for fig in figures:
        ents: dict[str, Entry] = fig["entries"]
        best = {label: e.best for label, e in ents.items()}
        ours_rate = best.get("ours")
        cells = []
        if "ours" in ents:
            cells.append(f"ours {fmt_rate(ours_rate)}")
        for label, e in ents.items():
            if label == "ours":
                continue
            if e.best is None:
                cells.append(f"{label} n/a")
            elif ours_rate is not None:
                cells.append(f"{label} {fmt_rate(e.best)} -> {fmt_ratio(ratio(ours_rate, e.best))}")
            else:
                cells.append(f"{label} {fmt_rate(e.best)}")
        line = f"{fig['title']}: " + " | ".join(cells)
        targets = fig["targets"]
        overall = None
        if targets:
            overall, parts, _ = judge(targets, ours_rate, best)
            line += f" | target {', '.join(parts)}: {overall}"
        out.append(line)
        results["figures"][fig["key"]] = {
            "title": fig["title"],
            "unit": fig["unit"],
            "rates": {
                label: {
                    "best": e.best,
                    "median": statistics.median(e.rates) if e.rates else None,
                    "rounds": e.rates,
                    "spread": e.spread,
                    "error": e.error,
                }
                for label, e in ents.items()
            },
            "ratios": {
                label: ratio(ours_rate, e.best) for label, e in ents.items() if label != "ours"
            },
            "targets": [{"peer": t.peer, "at_least": t.at_least} for t in targets],
            "verdict": overall,
        }

    if actions_per_deal:
        deals_best = {label: e.best for label, e in figures[0]["entries"].items()}
        cells = []
        for label, apd in actions_per_deal.items():
            rate = deals_best.get(label)
            per_s = None if rate is None else rate * apd
            cells.append(f"{label} {apd:.0f}/deal, {fmt_rate(per_s)}/s")
        out.append(
            "player actions (info; each engine's deals and action vocabulary differ): "
            + " | ".join(cells)
        )
        results["actions_per_deal"] = actions_per_deal

    phases = memory_phases(s)
    for phase, by_name in memory.items():
        _, desc, judged = phases[phase]
        ours_m = by_name.get("ours", {}).get("per_state")
        cells = [f"ours {fmt_bytes(ours_m)}"]
        for name, m in by_name.items():
            if name == "ours":
                continue
            v = m.get("per_state")
            tag = " (RSS)" if m.get("method") == "rss" else ""
            if v is None:
                cells.append(f"{name} n/a")
            elif ours_m is None:
                cells.append(f"{name} {fmt_bytes(v)}{tag}")
            else:
                cells.append(f"{name} {fmt_bytes(v)}{tag} -> {fmt_ratio(ratio(ours_m, v))}")
        if ours_m is None:
            verdict = "n/a"
        elif judged:
            verdict = "MET" if ours_m < MEMORY_TARGET else "MISSED"
        else:
            verdict = "info, no target (" + ("under" if ours_m < MEMORY_TARGET else "over") + ")"
        out.append(
            f"memory per deal state, {desc}: " + " | ".join(cells) + f" | < 2 KiB: {verdict}"
        )
        results["memory_verdict_" + phase] = verdict

    out.append("")
    out.extend(checks)
    out.append("")
    noisy = []
    for fig in figures:
        for label, e in fig["entries"].items():
            if e.error and e.rates:
                noisy.append(f"{label} failed mid-run: {e.error}")
            sp = e.spread
            if sp is not None:
                noisy.append(f"{fig['key']}/{label} {sp * 100:.0f}%")
    out.append(
        "noise (spread of rounds, (max-min)/max): "
        + ", ".join(x for x in noisy if "/" in x and "failed" not in x)
    )
    out.extend(x for x in noisy if "failed" in x)
    for phase, by_name in memory.items():
        for name, m in by_name.items():
            if m.get("error") and name in contenders:
                out.append(f"memory {phase} {name}: {m['error']}")
    out.append(f"total bench time {total:.0f}s")
    print("\n".join(out))

    if args.json:
        results["meta"] = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "load_start": load_start,
            "load_end": load_end,
            "versions": {n: c.version for n, c in contenders.items()},
            "unavailable": unavailable,
            "settings": s.__dict__,
            "seconds": total,
            "import_seconds": import_seconds,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        results["checks"] = {"lines": checks, **check_data}
        dest = BENCH / "results" / "engine.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {dest.relative_to(ROOT)}")
    return 0


def fmt_bytes(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f} B"


if __name__ == "__main__":
    sys.exit(main())
