"""Fair-play validation on simulated players: is an account that lets a program choose its
moves told from honest players of every strength, and how soon?

    .venv/bin/python bench/fairplay.py [--games 20] [--honest 30] [--assisted 10]
        [--alpha 1e-4] [--seed 1] [--masters 2] [--json]
    (make bench-fairplay BENCH_ARGS=...)

Simulated accounts play games to 100 (one game, standard rules) against the house greedy and
expert bots in turn, with the engine alone (the service's path adds nothing to what an account
chooses). For every decision of the account (a turn with two legal actions or more) the figure
is the one the service's analysis keeps: whether the action taken was the house expert's choice
from the same view (``expert_agreement``, :mod:`games.engine.analysis`), counted apart for the
draw decisions (take or pass, stock or pile) and the discard decisions.

Kinds of account:

- honest: ``random`` (any legal action), ``greedy`` (the house greedy bot), ``noisy-expert``
  (the expert, but with a chance ``p`` per decision, drawn per account between 5% and 40%,
  of another plausible action: a discard among the three that leave the least deadwood, the
  other answer of a draw), ``noisy-greedy`` (the same on the greedy bot, ``p`` 5-30%);
- assisted: ``expert`` (the expert chooses every move), ``expert-discards`` (the expert chooses
  every discard; the draws are the account's own, the greedy bot's), ``master`` (the master
  bot chooses every move; ``--masters`` of them, as a search costs ~80 ms a decision).

The test (the one the service would run): for each phase separately, with ``k`` of ``n``
decisions agreeing with the expert, the account is flagged when ``n >= 30`` and the binomial
tail ``P(Bin(n, c) >= k) < alpha / 2``, where ``c`` is the band's ceiling: the highest agreement
of the honest accounts of a *calibration* set (other accounts, other seeds, of the same honest
kinds) plus one binomial standard error at 300 decisions. It is checked after every game, so
an account's chance of a false flag over 20 games is at most ``20 * alpha``.

Printed: the ceilings; per kind, the accounts flagged within ``--games`` games and the games
needed (median, max); the honest accounts flagged (target <= 1%) and the fully assisted flagged
within 20 games (target >= 90%).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine.actions import Action, ActionKind  # noqa: E402
from games.engine.bots import make_bot  # noqa: E402
from games.engine.bots.expert import ExpertBot  # noqa: E402
from games.engine.bots.master import MasterBot  # noqa: E402
from games.engine.cards import BIT  # noqa: E402
from games.engine.game import derive_seed  # noqa: E402
from games.engine.match import Match  # noqa: E402
from games.engine.melds import min_deadwood  # noqa: E402
from games.engine.rules import RuleSet  # noqa: E402
from games.engine.views import PlayerView, view_for  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fairplay.json"
RULES = RuleSet(target=100, best_of=1)
MIN_DECISIONS = 30
PHASES = ("draw", "discard")
Chooser = Callable[[PlayerView], Action]


def phase_of(view: PlayerView) -> str:
    kinds = {a.kind for a in view.legal_actions}
    return "discard" if ActionKind.DISCARD in kinds else "draw"


def plausible_other(view: PlayerView, choice: Action, rng: random.Random) -> Action:
    """Another action a player could take instead of ``choice``: for a discard, one of the
    three that leave the least deadwood; for a draw, the other answer."""
    legal = [a for a in view.legal_actions if a != choice]
    if not legal:
        return choice
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    if discards:
        discards.sort(key=lambda a: min_deadwood(view.hand ^ BIT[a.card]))
        return rng.choice(discards[:3])
    return rng.choice(legal)


def account(kind: str, seed: int) -> tuple[Chooser, dict]:
    """The chooser of an account of ``kind`` and its parameters."""
    rng = random.Random(seed)
    expert = ExpertBot(seed)
    greedy = make_bot("greedy", seed)
    if kind == "random":
        return lambda v: rng.choice(v.legal_actions), {}
    if kind == "greedy":
        return greedy.choose, {}
    if kind in ("noisy-expert", "noisy-greedy"):
        base = expert if kind == "noisy-expert" else greedy
        p = rng.uniform(0.05, 0.40) if kind == "noisy-expert" else rng.uniform(0.05, 0.30)

        def noisy(v: PlayerView) -> Action:
            choice = base.choose(v)
            return plausible_other(v, choice, rng) if rng.random() < p else choice

        return noisy, {"p": round(p, 3)}
    if kind == "expert":
        return expert.choose, {}
    if kind == "expert-discards":
        return lambda v: expert.choose(v) if phase_of(v) == "discard" else greedy.choose(v), {}
    if kind == "master":
        master = MasterBot(seed, time_cap=60.0)
        return master.choose, {}
    raise ValueError(kind)


@dataclass
class Record:
    kind: str
    params: dict
    counts: dict[str, list[int]] = field(default_factory=lambda: {p: [0, 0] for p in PHASES})
    after_game: list[dict[str, list[int]]] = field(default_factory=list)


def play(kind: str, seed: int, games: int) -> Record:
    """``games`` games of one account; the agreement counts after each game."""
    choose, params = account(kind, seed)
    judge = ExpertBot(0)
    record = Record(kind, params)
    for g in range(games):
        opponent = make_bot("greedy" if g % 2 else "expert", derive_seed(seed, "opp", g))
        me = g % 2  # each seat in turn
        match = Match(derive_seed(seed, "game", g), RULES)
        while not match.is_over:
            game = match.game
            player = game.to_act_player
            view = view_for(game.deal, game.seat_of_player(player))
            if player == me:
                action = choose(view)
                if len(view.legal_actions) > 1:
                    counts = record.counts[phase_of(view)]
                    counts[0] += 1
                    expert_choice = judge.choose(view)
                    counts[1] += action.kind is expert_choice.kind and (
                        action.card == expert_choice.card
                    )
            else:
                action = opponent.choose(view)
            match.apply(action, player)
        record.after_game.append({p: list(c) for p, c in record.counts.items()})
    return record


def tail(n: int, k: int, c: float) -> float:
    """P(Bin(n, c) >= k), summed in logs."""
    if k <= 0:
        return 1.0
    if c >= 1.0:
        return 1.0
    total = 0.0
    for i in range(k, n + 1):
        log = (
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * math.log(c)
            + (n - i) * math.log1p(-c)
        )
        total += math.exp(log)
    return min(1.0, total)


def first_flag(record: Record, ceilings: dict[str, float], alpha: float) -> int | None:
    """The game after which the account is first flagged (1-based), or None."""
    for g, counts in enumerate(record.after_game, start=1):
        for phase in PHASES:
            n, k = counts[phase]
            if n >= MIN_DECISIONS and tail(n, k, ceilings[phase]) < alpha / 2:
                return g
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--honest", type=int, default=30, help="accounts per honest kind")
    parser.add_argument("--assisted", type=int, default=10, help="accounts per assisted kind")
    parser.add_argument("--masters", type=int, default=2, help="master-assisted accounts")
    parser.add_argument("--calibration", type=int, default=20, help="per honest kind")
    parser.add_argument("--alpha", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    honest_kinds = ("random", "greedy", "noisy-greedy", "noisy-expert")
    started = time.process_time()

    # The band's ceiling per phase, from calibration accounts (other seeds).
    calibration = [
        play(kind, derive_seed(args.seed, "calibration", kind, i), args.games)
        for kind in honest_kinds
        for i in range(args.calibration)
    ]
    ceilings = {}
    for phase in PHASES:
        top = max(r.counts[phase][1] / r.counts[phase][0] for r in calibration)
        ceilings[phase] = min(0.999, top + math.sqrt(top * (1 - top) / 300))
    print(
        f"ceilings (the most any of {len(calibration)} honest calibration accounts agreed with "
        f"the expert, plus a standard error at 300 decisions): "
        + ", ".join(f"{p} {100 * c:.1f}%" for p, c in ceilings.items())
    )

    plan = [(k, args.honest) for k in honest_kinds]
    plan += [("expert", args.assisted), ("expert-discards", args.assisted)]
    plan += [("master", args.masters)]
    rows = []
    summary: dict[str, dict] = {}
    for kind, count in plan:
        if not count:
            continue
        records = [
            play(kind, derive_seed(args.seed, "test", kind, i), args.games) for i in range(count)
        ]
        flags = [first_flag(r, ceilings, args.alpha) for r in records]
        flagged = [f for f in flags if f is not None]
        agree = {
            p: statistics.mean(r.counts[p][1] / r.counts[p][0] for r in records) for p in PHASES
        }
        summary[kind] = {
            "accounts": count,
            "flagged": len(flagged),
            "games_median": statistics.median(flagged) if flagged else None,
            "games_max": max(flagged) if flagged else None,
            "agreement": {p: round(100 * a, 1) for p, a in agree.items()},
        }
        honest = kind in honest_kinds
        rows.append(kind)
        games = (
            f"games needed median {statistics.median(flagged):.0f}, max {max(flagged)}"
            if flagged
            else "none flagged"
        )
        print(
            f"{'honest  ' if honest else 'assisted'} {kind:16} flagged {len(flagged):3}/{count:<3}"
            f" ({100 * len(flagged) / count:5.1f}%)  {games:34}  agreement with the expert: "
            f"draws {100 * agree['draw']:.1f}%, discards {100 * agree['discard']:.1f}%"
        )
    honest_total = sum(summary[k]["accounts"] for k in honest_kinds)
    honest_flagged = sum(summary[k]["flagged"] for k in honest_kinds)
    full = ("expert", "master")
    full_total = sum(summary[k]["accounts"] for k in full if k in summary)
    full_flagged = sum(summary[k]["flagged"] for k in full if k in summary)
    print(
        f"honest accounts flagged: {honest_flagged}/{honest_total} "
        f"({100 * honest_flagged / honest_total:.1f}%, target <= 1%); fully assisted flagged "
        f"within {args.games} games: {full_flagged}/{full_total} "
        f"({100 * full_flagged / full_total:.0f}%, target >= 90%); "
        f"{time.process_time() - started:.0f} s CPU"
    )
    if args.json:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"ceilings": ceilings, "kinds": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
