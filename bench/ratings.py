#!/usr/bin/env python3
"""Ratings benchmark: how well Elo and Glicko-2 predict results, side by side.

    make bench-ratings      (or: .venv/bin/python bench/ratings.py [--quick] [--json])

1. **A simulated population** (pure ``ratings``, in this process): 2,000 players with hidden
   true strengths (on the rating scale: a gap of 400 makes the stronger ten times as likely
   to win a *match*), half there from the first day and half arriving over the first four
   months; a sixth improving by 200-400 points over the half-year, a quarter away once for
   two to eight weeks; each plays 1 to 14 matches a week (about 90 each on average). Every
   day those who play are paired by their strength with some noise (as a matchmaker would,
   the same pairs for both systems), and each match is a best of five, game by game, the
   game odds set so that the match odds are those of the true strengths. Both systems rate
   the same matches: Elo with today's settings (``ratings.elo.RatingConfig()``, K 40/20/10)
   and Glicko-2 with the house defaults (``ratings.glicko2.GlickoConfig()``), and a few other
   Glicko-2 settings to choose the defaults by.
2. **The bot calibration ladder's history**: ``manage.py ladder_calibrate`` (random, greedy and
   expert bots, real best-of-five matches) on a fresh embedded database in a temporary
   directory, then its matches, in order, rated by both systems.

For each: the log-loss and Brier score of each system's pre-match expected score on the later
matches (the second half of the days; the calibration ladder: its second half of matches),
beside the coin (0.5 always) and, for the simulation, the true strengths (the best possible);
and how fast a new player (one arriving after the first week) gets within 100 points of
their true strength: the median number of matches until their rating is within 100 and stays
there for ten matches, and the share within 100 after 10 and after 30 matches. Lower
log-loss and Brier are better. The full run takes about 90 s (most of it the bot matches).

Flags: ``--quick`` (500 players, 6 calibration rounds), ``--players N``, ``--rounds N``
(calibration round robins, default 20), ``--no-calibration``, ``--json`` (also writes
bench/results/ratings.json).
"""

from __future__ import annotations

import argparse
import atexit
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratings import elo, glicko2  # noqa: E402  (after the path: bench/ holds this script)

DAYS = 182
#: Expected scores are kept inside this for the log-loss (a certain wrong call is not infinite).
CLIP = 1e-6


# --- the simulated population ----------------------------------------------------------------


@dataclass
class Person:
    """One simulated player: hidden strength, its drift, when they play."""

    pid: int
    strength: float
    gain: float  # points gained over the half-year (improvers)
    joins: float  # day of arrival
    per_week: float
    away: tuple[float, float] | None  # days away (start, end)
    matches: int = 0

    def true(self, day: float) -> float:
        return self.strength + self.gain * max(0.0, day - self.joins) / DAYS

    def plays(self, day: float, rng: random.Random) -> bool:
        if day < self.joins or (self.away and self.away[0] <= day < self.away[1]):
            return False
        return rng.random() < self.per_week / 7


def population(players: int, rng: random.Random) -> list[Person]:
    people = []
    for pid in range(players):
        joins = 0.0 if pid % 2 == 0 else rng.uniform(1, 120)
        gain = rng.uniform(200, 400) if rng.random() < 1 / 6 else 0.0
        away = None
        if rng.random() < 0.25:
            start = rng.uniform(joins, DAYS - 14)
            away = (start, start + rng.uniform(14, 56))
        per_week = rng.choice([1, 2, 3, 5, 7, 10, 14])
        people.append(Person(pid, rng.gauss(1500, 250), gain, joins, per_week, away))
    return people


def game_odds(match_odds: float) -> float:
    """The single-game odds p with which a best of five is won with ``match_odds``."""
    lo, hi = 0.0, 1.0
    for _ in range(40):
        p = (lo + hi) / 2
        q = 1 - p
        if p**3 * (1 + 3 * q + 6 * q * q) < match_odds:
            lo = p
        else:
            hi = p
    return (lo + hi) / 2


def best_of_five(p: float, rng: random.Random) -> tuple[int, int]:
    won = lost = 0
    while won < 3 and lost < 3:
        if rng.random() < p:
            won += 1
        else:
            lost += 1
    return won, lost


@dataclass(frozen=True)
class Played:
    day: float
    a: int
    b: int
    a_won: bool
    games: tuple[int, int]
    true_odds: float  # A's true match odds (the best prediction possible)


def schedule(people: list[Person], rng: random.Random) -> list[Played]:
    """Every match of the half-year, in order: the same for both systems."""
    played: list[Played] = []
    for day in range(DAYS):
        today = [p for p in people if p.plays(day, rng)]
        # A matchmaker pairs by rating; here by strength with noise, so both systems see the
        # same matches (and the pairs are close, as on a ladder).
        today.sort(key=lambda p: p.true(day) + rng.gauss(0, 150))
        for i in range(0, len(today) - 1, 2):
            a, b = today[i], today[i + 1]
            if rng.random() < 0.5:
                a, b = b, a
            when = day + rng.random()
            odds = elo.expected_score(a.true(when), b.true(when))
            games = best_of_five(game_odds(odds), rng)
            played.append(Played(when, a.pid, b.pid, games[0] == 3, games, odds))
    played.sort(key=lambda m: m.day)
    return played


# --- rating systems over a list of matches ------------------------------------------------------


@dataclass
class Run:
    """One system over one history: its pre-match predictions and each player's path."""

    name: str
    expected: list[float] = field(default_factory=list)
    paths: dict[int, list[float]] = field(default_factory=dict)  # rating after each match
    seconds: float = 0.0


def run_elo(history: list[Played], config: elo.RatingConfig, name: str = "Elo") -> Run:
    run = Run(name)
    state: dict[int, tuple[float, int]] = {}
    started = time.perf_counter()
    for m in history:
        ra, na = state.get(m.a, (config.initial, 0))
        rb, nb = state.get(m.b, (config.initial, 0))
        result = elo.MatchResult(0 if m.a_won else 1, m.games)
        ua, ub = elo.rate_match(elo.Side(ra, na), elo.Side(rb, nb), result, config)
        run.expected.append(ua.expected)
        state[m.a], state[m.b] = (ua.after, na + 1), (ub.after, nb + 1)
        run.paths.setdefault(m.a, []).append(ua.after)
        run.paths.setdefault(m.b, []).append(ub.after)
    run.seconds = time.perf_counter() - started
    return run


def run_glicko(history: list[Played], config: glicko2.GlickoConfig, name: str = "Glicko-2") -> Run:
    run = Run(name)
    fresh = (config.initial, config.deviation, config.volatility, None)
    state: dict[int, tuple[float, float, float, float | None]] = {}
    started = time.perf_counter()
    for m in history:
        sides = []
        for pid in (m.a, m.b):
            rating, deviation, volatility, last = state.get(pid, fresh)
            idle = 0.0 if last is None else m.day - last
            sides.append(glicko2.GlickoSide(rating, deviation, volatility, idle_days=idle))
        result = elo.MatchResult(0 if m.a_won else 1, m.games)
        ua, ub = glicko2.rate_match(sides[0], sides[1], result, config)
        run.expected.append(ua.expected)
        for pid, u in ((m.a, ua), (m.b, ub)):
            state[pid] = (u.after, u.deviation_after, u.volatility_after, m.day)
            run.paths.setdefault(pid, []).append(u.after)
    run.seconds = time.perf_counter() - started
    return run


# --- measures --------------------------------------------------------------------------------


def log_loss(expected: list[float], outcomes: list[bool]) -> float:
    total = 0.0
    for e, won in zip(expected, outcomes, strict=True):
        e = min(1 - CLIP, max(CLIP, e))
        total -= math.log(e if won else 1 - e)
    return total / len(expected)


def brier(expected: list[float], outcomes: list[bool]) -> float:
    return sum((e - won) ** 2 for e, won in zip(expected, outcomes, strict=True)) / len(expected)


def convergence(run: Run, history: list[Played], people: list[Person]) -> dict[str, float]:
    """For players arriving after the first week: matches until within 100 of their truth."""
    truths: dict[int, list[float]] = {}
    for m in history:
        truths.setdefault(m.a, []).append(people[m.a].true(m.day))
        truths.setdefault(m.b, []).append(people[m.b].true(m.day))
    needed, within10, within30 = [], [], []
    for person in people:
        path, truth = run.paths.get(person.pid), truths.get(person.pid)
        if person.joins < 7 or not path or len(path) < 30:
            continue
        gaps = [abs(r - t) for r, t in zip(path, truth, strict=True)]
        # Within 100 and staying there for the next ten matches (a swing through the truth on
        # its way past does not count).
        first = next(
            (i + 1 for i in range(len(gaps) - 10) if max(gaps[i : i + 10]) <= 100),
            len(gaps) + 1,
        )
        needed.append(first)
        within10.append(gaps[9] <= 100)
        within30.append(gaps[29] <= 100)
    return {
        "players": len(needed),
        "median_matches_to_100": statistics.median(needed) if needed else math.nan,
        "within_100_after_10": sum(within10) / len(within10) if within10 else math.nan,
        "within_100_after_30": sum(within30) / len(within30) if within30 else math.nan,
    }


def scores(run: Run, history: list[Played], later: int) -> dict[str, float]:
    outcomes = [m.a_won for m in history[later:]]
    expected = run.expected[later:]
    return {"log_loss": log_loss(expected, outcomes), "brier": brier(expected, outcomes)}


# --- the calibration ladder ------------------------------------------------------------------


def calibration_history(rounds: int) -> list[Played]:
    """``ladder_calibrate`` on a fresh embedded database; its matches in the order rated."""
    directory = tempfile.mkdtemp(prefix="bench-ratings-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    os.environ.update(
        {"VAR_DIR": directory, "DATABASE_URL": "", "CELERY_BROKER_URL": "", "REDIS_URL": ""}
    )
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from games.models import Match
    from ladders.models import Ladder

    call_command("migrate", verbosity=0)
    with open(os.devnull, "w") as quiet:
        call_command("ladder_calibrate", rounds=rounds, seed=2026, stdout=quiet)
    pool = Ladder.objects.get(slug="calibration")
    matches = (
        Match.objects.filter(ladder_link__ladder=pool, status=Match.Status.FINISHED)
        .order_by("finished_at", "pk")
        .values_list(
            "finished_at", "player_a_id", "player_b_id", "winner_id", "games_won_a", "games_won_b"
        )
    )
    start = None
    history = []
    for finished, a, b, winner, won_a, won_b in matches:
        start = start or finished
        day = (finished - start).total_seconds() / 86400
        history.append(Played(day, a, b, winner == a, (won_a, won_b), math.nan))
    return history


# --- the report ------------------------------------------------------------------------------


GLICKO_VARIANTS = [
    ("Glicko-2 tau 0.3", {"tau": 0.3}),
    ("Glicko-2 tau 1.2", {"tau": 1.2}),
    ("Glicko-2 period 1 d", {"period_days": 1.0}),
    ("Glicko-2 period 30 d", {"period_days": 30.0}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--players", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    players = args.players or (500 if args.quick else 2000)
    rounds = args.rounds or (6 if args.quick else 20)
    rng = random.Random(2026)
    started = time.perf_counter()
    people = population(players, rng)
    history = schedule(people, rng)
    later = next(i for i, m in enumerate(history) if m.day >= DAYS / 2)
    print(
        f"Simulated population: {players} players, {len(history):,} best-of-five matches over "
        f"{DAYS} days (built in {time.perf_counter() - started:.1f} s); scored on the "
        f"{len(history) - later:,} matches of the second half."
    )
    runs = [run_elo(history, elo.RatingConfig()), run_glicko(history, glicko2.GlickoConfig())]
    variants = [
        run_glicko(history, glicko2.GlickoConfig(**changes), name)
        for name, changes in GLICKO_VARIANTS
    ]
    outcomes = [m.a_won for m in history[later:]]
    truth = [m.true_odds for m in history[later:]]
    results: dict[str, dict] = {"simulated": {}, "calibration": {}}
    for run in [*runs, *variants]:
        results["simulated"][run.name] = {
            **scores(run, history, later),
            **convergence(run, history, people),
            "seconds": run.seconds,
        }
    sim = results["simulated"]
    coin = {"log_loss": math.log(2), "brier": 0.25}
    best = {"log_loss": log_loss(truth, outcomes), "brier": brier(truth, outcomes)}
    names = [r.name for r in runs]
    print()
    print(f"{'':40} {names[0]:>10} {names[1]:>10} {'coin':>10} {'truth':>10}")
    print(
        f"{'simulated: log-loss (later matches)':40} {sim[names[0]]['log_loss']:>10.4f} "
        f"{sim[names[1]]['log_loss']:>10.4f} {coin['log_loss']:>10.4f} {best['log_loss']:>10.4f}"
    )
    print(
        f"{'simulated: Brier (later matches)':40} {sim[names[0]]['brier']:>10.4f} "
        f"{sim[names[1]]['brier']:>10.4f} {coin['brier']:>10.4f} {best['brier']:>10.4f}"
    )
    for key, label, fmt in (
        ("median_matches_to_100", "new player: matches to stay within 100", "{:>10.0f}"),
        ("within_100_after_10", "new player: within 100 after 10", "{:>10.0%}"),
        ("within_100_after_30", "new player: within 100 after 30", "{:>10.0%}"),
    ):
        cells = " ".join(fmt.format(sim[n][key]) for n in names)
        print(f"{label:40} {cells}")
    if not args.no_calibration:
        started = time.perf_counter()
        calibration = calibration_history(rounds)
        half = len(calibration) // 2
        cal_runs = [
            run_elo(calibration, elo.RatingConfig()),
            run_glicko(calibration, glicko2.GlickoConfig()),
        ]
        cal_outcomes = [m.a_won for m in calibration[half:]]
        for run in cal_runs:
            results["calibration"][run.name] = scores(run, calibration, half)
        cal = results["calibration"]
        print(
            f"{'calibration ladder: log-loss (2nd half)':40} {cal[names[0]]['log_loss']:>10.4f} "
            f"{cal[names[1]]['log_loss']:>10.4f} {math.log(2):>10.4f}"
        )
        print(
            f"{'calibration ladder: Brier (2nd half)':40} {cal[names[0]]['brier']:>10.4f} "
            f"{cal[names[1]]['brier']:>10.4f} {0.25:>10.4f}"
        )
        print(
            f"  ({len(calibration)} matches of random, greedy and expert bots, {rounds} round "
            f"robins, played in {time.perf_counter() - started:.0f} s; "
            f"{sum(cal_outcomes)} of the last {len(cal_outcomes)} won by side A)"
        )
    print()
    print("Glicko-2 settings on the simulated population (the defaults: tau 0.5, period 7 d):")
    print(f"{'':24} {'log-loss':>9} {'Brier':>8} {'to 100':>7} {'after 10':>9}")
    for run in [runs[1], *variants]:
        r = sim[run.name]
        print(
            f"{run.name:24} {r['log_loss']:>9.4f} {r['brier']:>8.4f} "
            f"{r['median_matches_to_100']:>7.0f} {r['within_100_after_10']:>9.0%}"
        )
    if args.json:
        out = ROOT / "bench" / "results" / "ratings.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps({"coin": coin, "truth": best, **results}, indent=2))
        print(f"\nWrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
