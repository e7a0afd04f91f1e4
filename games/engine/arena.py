"""Arena: one bot against another over many seeded games or matches, with duplicate deals.

``python -m games.engine arena --a expert --b greedy --games 2000 --seed 1``

How luck is cut: every game is played with ``RuleSet(duplicate_deals=True)``, so the
engine deals every seed twice inside the game, the second time with the seats swapped
(each bot holds each hand once, from the same seat the other bot held it in), and the
target is only checked once both deals of a pair are over.  Games are independent of
each other (each has its own seed), which is what the confidence intervals assume; on
top of that bot A is player 0 in even-numbered games and player 1 in odd ones, so the
cut for the first deal favours neither.

``--format game`` (the default) plays single games to the target; ``--format match``
plays best-of-five matches (``--games`` then counts matches).  Win rates carry 95%
Wilson score intervals.  Hand rates count every hand (a drawn hand is won by nobody); they
are not independent trials (hands of a game, and the two deals of a duplicate pair,
are related), so read their intervals as indicative.

Determinism: unit ``i`` (a game or a match) takes its seed from ``derive_seed(seed,
"arena", i)`` and its bots theirs from ``derive_seed(seed, "bot", i, side)``; the work is
split over ``--jobs`` processes in fixed chunks and the results are put back in order,
so every number but the timings is the same whatever ``--jobs`` is.

A bot that raises or returns an illegal action forfeits its match (the runner records
why); the arena counts and lists those forfeits and exits with status 1.  An unknown
bot name is refused before anything is played (status 2).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from .bots import BOTS, make_bot
from .bots.runner import play_match
from .errors import EngineError
from .game import derive_seed
from .match import Match
from .rules import RuleSet

#: Units (games or matches) a worker plays per task: small enough to balance two cores.
CHUNK = 8


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default).

    >>> lo, hi = wilson(60, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.502, 0.691)
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= trials else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: the two bots (by name), how many units, the seed and the rules."""

    a: str
    b: str
    games: int = 200
    seed: int = 1
    format: str = "game"  # "game": single games; "match": best-of-N matches
    rules: RuleSet = field(default_factory=RuleSet)
    jobs: int = 2

    def unit_rules(self) -> RuleSet:
        """The rules each unit is played with: duplicate deals, one game or a full match."""
        if self.format == "game":
            return self.rules.replace(best_of=1, duplicate_deals=True)
        return self.rules.replace(duplicate_deals=True)


@dataclass(slots=True)
class UnitResult:
    """One game or match, from the sides' point of view (side 0 is bot A, 1 is bot B)."""

    index: int
    winner: int  # the side that won the unit
    games_won: tuple[int, int]
    hands_won: tuple[int, int]
    hands: int
    hand_points: tuple[int, int]
    final_margin: int  # side A's final score minus side B's, over the unit's games
    failure: tuple[int, str] | None  # (side, reason) when a bot forfeited
    times: tuple[array[float], array[float]]  # seconds per decision, per side

    def stats(self) -> tuple[Any, ...]:
        """Everything but the timings: what determinism compares."""
        return (
            self.index,
            self.winner,
            self.games_won,
            self.hands_won,
            self.hands,
            self.hand_points,
            self.final_margin,
            self.failure,
            (len(self.times[0]), len(self.times[1])),
        )


def play_unit(config: ArenaConfig, index: int) -> UnitResult:
    """Play unit ``index`` of the arena (deterministic in the config and the index)."""
    a_player = index % 2  # bot A is player 0 in even units, player 1 in odd ones
    side_of_player = (a_player, 1 - a_player)
    names = (config.a, config.b)
    bots_by_side = (
        make_bot(names[0], derive_seed(config.seed, "bot", index, 0)),
        make_bot(names[1], derive_seed(config.seed, "bot", index, 1)),
    )
    bots = (bots_by_side[side_of_player[0]], bots_by_side[side_of_player[1]])
    times: tuple[array[float], array[float]] = (array("d"), array("d"))

    def on_decision(player: int, seconds: float) -> None:
        times[side_of_player[player]].append(seconds)

    match = Match(derive_seed(config.seed, "arena", index), config.unit_rules())
    failure = play_match(match, bots, on_decision=on_decision)
    assert match.winner is not None
    games_won = [0, 0]
    margin = 0
    for result in match.results:
        games_won[side_of_player[result.winner]] += 1
        sign = 1 if side_of_player[0] == 0 else -1
        margin += sign * (result.final[0] - result.final[1])
    hands_won = [0, 0]
    hand_points = [0, 0]
    hands = 0
    for game in match.games:
        for record in game.deals:
            if record.outcome is None:
                continue  # the deal a forfeit interrupted
            hands += 1
            winner = record.winner_player
            if winner is not None:
                side = side_of_player[winner]
                hands_won[side] += 1
                hand_points[side] += record.outcome.points
    return UnitResult(
        index=index,
        winner=side_of_player[match.winner],
        games_won=(games_won[0], games_won[1]),
        hands_won=(hands_won[0], hands_won[1]),
        hands=hands,
        hand_points=(hand_points[0], hand_points[1]),
        final_margin=margin,
        failure=None if failure is None else (side_of_player[failure.player], failure.reason),
        times=times,
    )


def _play_chunk(task: tuple[ArenaConfig, int, int]) -> list[UnitResult]:
    config, start, stop = task
    return [play_unit(config, i) for i in range(start, stop)]


@dataclass(slots=True)
class SideSummary:
    """One bot's totals over the arena."""

    name: str
    units_won: int = 0
    games_won: int = 0
    hands_won: int = 0
    hand_points: int = 0
    forfeits: int = 0
    decisions: int = 0
    seconds: float = 0.0
    median_seconds: float = 0.0


@dataclass(slots=True)
class ArenaResult:
    """The arena's outcome: per-unit results in order and the two sides' totals."""

    config: ArenaConfig
    units: list[UnitResult]
    sides: tuple[SideSummary, SideSummary]
    games: int
    hands: int
    draws: int
    wall_seconds: float

    @property
    def failures(self) -> list[tuple[int, int, str]]:
        """(unit index, side, reason) of every forfeit by a failing bot."""
        return [(u.index, *u.failure) for u in self.units if u.failure is not None]

    def stats(self) -> list[tuple[Any, ...]]:
        """Every number that must not depend on timing or on ``jobs``."""
        return [u.stats() for u in self.units]

    def to_json(self) -> dict[str, Any]:
        units = len(self.units)
        out: dict[str, Any] = {
            "a": self.config.a,
            "b": self.config.b,
            "format": self.config.format,
            "units": units,
            "games": self.games,
            "hands": self.hands,
            "draws": self.draws,
            "seed": self.config.seed,
            "rules": self.config.rules.name,
            "sides": [],
        }
        for side in self.sides:
            out["sides"].append(
                {
                    "bot": side.name,
                    "units_won": side.units_won,
                    "unit_win_rate": side.units_won / units if units else 0.0,
                    "unit_win_ci95": list(wilson(side.units_won, units)),
                    "games_won": side.games_won,
                    "game_win_ci95": list(wilson(side.games_won, self.games)),
                    "hands_won": side.hands_won,
                    "hand_win_ci95": list(wilson(side.hands_won, self.hands)),
                    "points_per_hand": side.hand_points / self.hands if self.hands else 0.0,
                    "forfeits": side.forfeits,
                    "decisions": side.decisions,
                    "decisions_per_second": side.decisions / side.seconds if side.seconds else 0,
                    "median_decision_ms": side.median_seconds * 1000,
                }
            )
        return out


def _chunks(config: ArenaConfig) -> list[tuple[ArenaConfig, int, int]]:
    return [(config, i, min(i + CHUNK, config.games)) for i in range(0, config.games, CHUNK)]


def _results(config: ArenaConfig) -> Iterable[list[UnitResult]]:
    tasks = _chunks(config)
    if config.jobs <= 1 or len(tasks) <= 1:
        yield from map(_play_chunk, tasks)
        return
    # fork shares the registered bots (tests register their own) with the workers.
    context = multiprocessing.get_context("fork")
    with context.Pool(min(config.jobs, len(tasks))) as pool:
        yield from pool.imap(_play_chunk, tasks)


def run_arena(config: ArenaConfig) -> ArenaResult:
    """Play the arena; raises UnknownBotError before playing anything if a name is unknown."""
    for name in (config.a, config.b):
        if name not in BOTS:
            make_bot(name)  # raises UnknownBotError listing the known bots
    if config.format not in ("game", "match"):
        raise EngineError(f"unknown format {config.format!r}: game or match", rule="format")
    started = time.perf_counter()
    units: list[UnitResult] = []
    for chunk in _results(config):
        units.extend(chunk)
    wall = time.perf_counter() - started
    sides = (SideSummary(config.a), SideSummary(config.b))
    games = hands = 0
    decided_hands = 0
    for unit in units:
        sides[unit.winner].units_won += 1
        games += unit.games_won[0] + unit.games_won[1]
        hands += unit.hands
        for s in (0, 1):
            side = sides[s]
            side.games_won += unit.games_won[s]
            side.hands_won += unit.hands_won[s]
            decided_hands += unit.hands_won[s]
            side.hand_points += unit.hand_points[s]
            side.decisions += len(unit.times[s])
            side.seconds += sum(unit.times[s])
        if unit.failure is not None:
            sides[unit.failure[0]].forfeits += 1
    for s in (0, 1):
        all_times = [t for unit in units for t in unit.times[s]]
        sides[s].median_seconds = statistics.median(all_times) if all_times else 0.0
    return ArenaResult(
        config=config,
        units=units,
        sides=sides,
        games=games,
        hands=hands,
        draws=hands - decided_hands,
        wall_seconds=wall,
    )


def _pct(successes: int, trials: int) -> str:
    if not trials:
        return "-"
    lo, hi = wilson(successes, trials)
    return f"{successes:>6} {100 * successes / trials:5.1f}%  [{100 * lo:4.1f}, {100 * hi:4.1f}]"


def format_table(result: ArenaResult) -> str:
    """The arena's printed table: win rates with 95% Wilson intervals, points, speed."""
    config = result.config
    a, b = result.sides
    units = len(result.units)
    rules = config.unit_rules()
    kind = (
        f"{units} single games to {rules.target}"
        if config.format == "game"
        else f"{units} best-of-{rules.best_of} matches to {rules.target}"
    )
    lines = [
        f"arena: {a.name} (A) vs {b.name} (B), {kind}, rules {config.rules.name}, "
        f"duplicate deals, seed {config.seed}",
        f"{result.games} games, {result.hands} hands ({result.draws} drawn), "
        f"{result.wall_seconds:.1f} s on {config.jobs} job(s)",
        "",
        f"{'':22}{'A: ' + a.name:>32}{'B: ' + b.name:>34}",
    ]

    def row(label: str, left: str, right: str) -> None:
        lines.append(f"{label:22}{left:>32}{right:>34}")

    if config.format == "match":
        row("matches won [95% CI]", _pct(a.units_won, units), _pct(b.units_won, units))
    row("games won [95% CI]", _pct(a.games_won, result.games), _pct(b.games_won, result.games))
    row("hands won [95% CI]", _pct(a.hands_won, result.hands), _pct(b.hands_won, result.hands))
    hands = result.hands or 1
    row("mean points per hand", f"{a.hand_points / hands:.2f}", f"{b.hand_points / hands:.2f}")
    row("decisions", str(a.decisions), str(b.decisions))
    row(
        "decisions per second",
        f"{a.decisions / a.seconds:,.0f}" if a.seconds else "-",
        f"{b.decisions / b.seconds:,.0f}" if b.seconds else "-",
    )
    row(
        "median decision time",
        f"{a.median_seconds * 1e3:.4f} ms",
        f"{b.median_seconds * 1e3:.4f} ms",
    )
    row("forfeits (bot failed)", str(a.forfeits), str(b.forfeits))
    for index, side, reason in result.failures[:5]:
        lines.append(f"forfeit in unit {index} by {result.sides[side].name}: {reason}")
    if len(result.failures) > 5:
        lines.append(f"... and {len(result.failures) - 5} more forfeits")
    return "\n".join(lines)


def _rules_arg(text: str) -> RuleSet:
    if text.lstrip().startswith("{"):
        return RuleSet.from_dict(json.loads(text))
    return RuleSet.preset(text)


def parse_args(argv: Sequence[str]) -> tuple[ArenaConfig, bool]:
    """The arena's configuration, and whether to print JSON, from the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m games.engine arena",
        description="Bot against bot over duplicate deals, with 95% confidence intervals.",
    )
    parser.add_argument("--a", required=True, help="bot A (a registered bot name)")
    parser.add_argument("--b", required=True, help="bot B (a registered bot name)")
    parser.add_argument("--games", type=int, default=200, help="games (or matches) to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--format",
        choices=["game", "match"],
        default="game",
        help="single games to the target, or best-of-five matches",
    )
    parser.add_argument("--rules", default="standard", help="a preset name or a JSON object")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead")
    args = parser.parse_args(list(argv))
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    config = ArenaConfig(
        a=args.a,
        b=args.b,
        games=args.games,
        seed=args.seed,
        format=args.format,
        rules=_rules_arg(args.rules),
        jobs=args.jobs,
    )
    return config, args.json


def main(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the arena command line; returns the exit status (0 ok, 1 a bot failed, 2 bad input)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        config, as_json = parse_args(argv)
        result = run_arena(config)
    except SystemExit as stop:  # argparse has already said what was wrong
        return int(stop.code or 0)
    except (EngineError, ValueError) as error:
        err.write(f"error: {error}\n")
        return 2
    if as_json:
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        out.write(format_table(result) + "\n")
    for index, side, reason in result.failures[:1]:
        err.write(f"error: unit {index}: {result.sides[side].name} forfeited: {reason}\n")
    return 1 if result.failures else 0


__all__ = [
    "ArenaConfig",
    "ArenaResult",
    "UnitResult",
    "format_table",
    "main",
    "play_unit",
    "run_arena",
    "wilson",
]
