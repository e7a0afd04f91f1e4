"""Match analysis: what each decision of a finished match was worth, from the player's seat.

For every decision of every deal played online (a turn with more than one legal action),
:func:`analyse_log` rebuilds the :class:`~games.engine.views.PlayerView` the player had at
that moment, and estimates the **expected value of each legal action**: the net points of
the deal for that player (positive when it scores, negative when the opponent does) if it
played that action and both seats then played on with the master bot's rollout policy. The
estimate is the mean over ``samples`` deals drawn by the master bot's sampler
(:func:`~games.engine.bots.master.sample_deal`): the hidden cards are dealt consistently
with everything the seat knew, the opponent's with the expert's card-tracking odds, and of
a few such deals the one where the opponent's hand has the least deadwood is kept. Every
action of a decision is played out on the same samples, so the differences between
actions are not blurred by the luck of the draw.

The **loss** of a decision is the best action's value minus the value of the action taken
(0 when the action taken was the best). A decision is marked by its loss:

=============  =====================
mark           loss, in deal points
=============  =====================
inaccuracy     at least 3
mistake        at least 6
blunder        at least 12
=============  =====================

Per player: the decisions analysed, the **average loss** a decision, and the **accuracy**:
the share of its decisions that were not marked, as a percentage.

Everything is deterministic in ``seed``: each decision's random numbers come from
``derive_seed(seed, game, deal, ply)``, so the same log and seed give the same analysis on
any machine. Only what the seat could see is used: the view, never the deal itself (the
other hand and the stock are there in the replay, and are not read).

A hand played with real cards (entered as its score) has no decisions and is skipped.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .bots.expert import ExpertBot, read_knowledge
from .bots.master import RolloutPolicy, rollout, sample_deal
from .deal import Deal
from .game import derive_seed
from .match import Match, MatchTermination
from .melds import min_deadwood
from .rules import RuleSet
from .table import EnteredHand
from .views import PlayerView, view_for

#: Samples of the hidden cards a decision is estimated on, when the caller names none.
DEFAULT_SAMPLES = 16
#: Of this many sampled deals, the one where the opponent holds the least deadwood is kept
#: (at most one more than the opponent's draws so far): the master bot's setting.
OPPONENT_PICKS = 6
#: The marks, worst first: (name, the least loss in deal points that earns it).
MARKS: tuple[tuple[str, float], ...] = (("blunder", 12.0), ("mistake", 6.0), ("inaccuracy", 3.0))
#: The version of the stored figures (a change of method stores a new version).
VERSION = 1


def mark_of(loss: float) -> str | None:
    """The mark a decision's ``loss`` earns (``"blunder"``, ``"mistake"``,
    ``"inaccuracy"``), or None when it is within 3 points of the best."""
    for name, least in MARKS:
        if loss >= least:
            return name
    return None


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision as it was met: where in the match, whose, the view and the action taken."""

    game: int  # the game's index in the match, from 0
    deal: int  # the deal's index in its game, from 0
    ply: int
    player: int  # 0 or 1: the match's player
    seat: int
    view: PlayerView
    taken: Action


def decisions(data: dict[str, Any]) -> Iterator[Decision]:
    """Every decision of the match in ``data`` (:meth:`Match.log_json` output, or the
    service's replay), in the order they were taken.

    A turn with a single legal action is not a decision and is not yielded; an entered hand
    is replayed and has none.
    """
    match = Match(int(data["seed"]), RuleSet.from_dict(data["rules"]))
    for game_index, game in enumerate(data["games"]):
        for deal_index, deal in enumerate(game["deals"]):
            if "hand" in deal:
                match.enter(EnteredHand.from_json(deal["hand"]))
                continue
            for text in deal["actions"]:
                action = Action.parse(text)
                live = match.game
                seat = live.deal.to_act
                legal = live.deal.legal_actions()
                if seat is not None and len(legal) > 1:
                    yield Decision(
                        game=game_index,
                        deal=deal_index,
                        ply=live.deal.ply,
                        player=live.player_of_seat(seat),
                        seat=seat,
                        view=view_for(live.deal, seat),
                        taken=action,
                    )
                match.apply(action)
        forfeit = game.get("forfeit")
        if forfeit is not None:  # as Match.replay does: the next game follows, if any
            last = game_index == len(data["games"]) - 1
            if last and data.get("termination") == MatchTermination.FORFEIT.value:
                match.forfeit_match(int(forfeit["player"]), str(forfeit["reason"]))
            else:
                match.forfeit_game(int(forfeit["player"]), str(forfeit["reason"]))


def _same(a: Action, b: Action) -> bool:
    """The same choice: a knock with the melds named is the knock with that card."""
    return a.kind is b.kind and a.card == b.card


def _sample(view: PlayerView, rng: random.Random, weights: list[float], picks: int) -> Deal:
    """One deal consistent with ``view``: of ``picks`` samples, the one where the opponent's
    hand has the least deadwood (a player keeps its best cards)."""
    assert view.seat is not None
    opponent = 1 - view.seat
    base = sample_deal(view, rng, weights)
    least = min_deadwood(base.hands[opponent])
    for _ in range(picks - 1):
        other = sample_deal(view, rng, weights)
        deadwood = min_deadwood(other.hands[opponent])
        if deadwood < least:
            base, least = other, deadwood
    return base


def playouts(
    view: PlayerView,
    actions: list[Action],
    rng: random.Random,
    samples: int,
    policy: RolloutPolicy | None = None,
) -> list[list[int]]:
    """Per action of ``actions`` (legal in ``view``), its net points for the seat to act on
    each of ``samples`` sampled deals: the same deals for every action."""
    assert view.seat is not None and view.to_act == view.seat, "only the seat to act decides"
    policy = policy or RolloutPolicy()
    know = read_knowledge(view)
    picks = min(OPPONENT_PICKS, 1 + know.opponent_draws)
    seat = view.seat
    out: list[list[int]] = [[] for _ in actions]
    for _ in range(samples):
        base = _sample(view, rng, know.held, picks)
        for i, action in enumerate(actions):
            deal = base.copy()
            deal.apply(action)
            out[i].append(rollout(deal, seat, policy))
    return out


def action_values(view: PlayerView, rng: random.Random, samples: int) -> list[tuple[Action, float]]:
    """Each legal action of ``view`` with its expected net points for the seat to act,
    estimated over ``samples`` sampled deals (the same deals for every action)."""
    actions = list(view.legal_actions)
    points = playouts(view, actions, rng, samples)
    return [(a, sum(p) / samples) for a, p in zip(actions, points, strict=True)]


def _mean_and_error(diffs: list[int]) -> tuple[float, float]:
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(variance / n)


def analyse_decision(
    decision: Decision, seed: int, samples: int, check_samples: int | None = None
) -> dict[str, Any]:
    """One decision's figures: every legal action's value, the best, the loss, the mark.

    Every legal action is played out on ``samples`` deals; when the action taken was not
    the best of them, the best and the action taken are played out again on
    ``check_samples`` fresh deals (``2 * samples`` unless named), and the loss is the mean
    of their differences there. A decision is marked only when that loss is more than two
    standard errors above zero: the best of many noisy estimates is flattered by its luck,
    the fresh deals are not.
    """
    view = decision.view
    rng = random.Random(derive_seed(seed, "analysis", decision.game, decision.deal, decision.ply))
    values = action_values(view, rng, samples)
    best_action, best = max(values, key=lambda pair: pair[1])
    taken = next((a for a, _ in values if _same(a, decision.taken)), None)
    if taken is None:  # cannot happen for a log the engine accepted
        raise ValueError(f"{decision.taken} was not a legal action at ply {decision.ply}")
    taken_value = dict(values)[taken]
    expert = ExpertBot().choose(view)  # the house expert's choice: agreement for fair play
    loss = error = 0.0
    mark = None
    if taken is not best_action:
        check = check_samples if check_samples is not None else 2 * samples
        points = playouts(view, [best_action, taken], rng, check)
        diffs = [b - t for b, t in zip(points[0], points[1], strict=True)]
        mean, error = _mean_and_error(diffs)
        loss = max(0.0, mean)
        if mean - 2 * error > 0:
            mark = mark_of(loss)
    return {
        "game": decision.game,
        "deal": decision.deal,
        "ply": decision.ply,
        "player": decision.player,
        "phase": view.phase.name.lower(),
        "taken": str(decision.taken),
        "best": str(best_action),
        "value": round(taken_value, 2),
        "best_value": round(best, 2),
        "loss": round(loss, 2),
        "error": round(error, 2) if math.isfinite(error) else None,
        "mark": mark,
        "expert": str(expert),
        "agrees_best": taken is best_action,
        "agrees_expert": _same(expert, decision.taken),
        "values": {str(a): round(v, 2) for a, v in values},
    }


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per player (0 and 1): decisions, average loss, accuracy, the count of each mark, and
    how often the action taken was the analysis's best and the house expert's choice."""
    out = []
    for player in (0, 1):
        mine = [r for r in rows if r["player"] == player]
        n = len(mine)
        marks = {name: sum(1 for r in mine if r["mark"] == name) for name, _ in MARKS}
        unmarked = n - sum(marks.values())

        def share(count: int, n: int = n) -> float | None:
            return round(100 * count / n, 1) if n else None

        out.append(
            {
                "decisions": n,
                "average_loss": round(sum(r["loss"] for r in mine) / n, 2) if n else None,
                "accuracy": share(unmarked),
                "inaccuracies": marks["inaccuracy"],
                "mistakes": marks["mistake"],
                "blunders": marks["blunder"],
                "best_agreement": share(sum(1 for r in mine if r["agrees_best"])),
                "expert_agreement": share(sum(1 for r in mine if r["agrees_expert"])),
            }
        )
    return out


def assemble(
    data: dict[str, Any], rows: list[dict[str, Any]], seed: int, samples: int
) -> dict[str, Any]:
    """The whole analysis of the match in ``data`` from its decisions' ``rows``
    (:func:`analyse_decision`'s, every decision of the match, in the order played).

    ``{"version", "seed", "samples", "marks", "players", "games", "decisions"}``: ``players``
    is :func:`summarise`'s; ``games`` lists per game its deals, each ``{"game", "deal",
    "decisions": [...]}`` (a deal without a decision, such as an entered hand, has none).
    """
    games: list[list[dict[str, Any]]] = [
        [{"game": g, "deal": d, "decisions": []} for d in range(len(game["deals"]))]
        for g, game in enumerate(data["games"])
    ]
    for row in rows:
        games[row["game"]][row["deal"]]["decisions"].append(row)
    return {
        "version": VERSION,
        "seed": seed,
        "samples": samples,
        "marks": {name: least for name, least in MARKS},
        "players": summarise(rows),
        "games": [{"game": g, "deals": deals} for g, deals in enumerate(games)],
        "decisions": len(rows),
    }


def analyse_some(
    data: dict[str, Any],
    seed: int,
    samples: int,
    start: int = 0,
    budget: float | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The decisions of ``data`` from the ``start``-th on, analysed until ``budget`` seconds
    of CPU are spent (at least one decision; all of them without a budget).

    Returns the new rows and the match's number of decisions. The rows of every call
    concatenated equal one call's: each decision is analysed on its own random numbers.
    """
    if samples < 1:
        raise ValueError("samples must be at least 1")
    started = time.process_time()
    rows: list[dict[str, Any]] = []
    total = 0
    spent = False
    for index, decision in enumerate(decisions(data)):
        total += 1
        if index < start or spent:
            continue
        rows.append(analyse_decision(decision, seed, samples))
        if budget is not None and time.process_time() - started >= budget:
            spent = True
    return rows, total


def analyse_log(data: dict[str, Any], seed: int, samples: int = DEFAULT_SAMPLES) -> dict[str, Any]:
    """The analysis of the match in ``data`` (its replay log) with ``seed``, in one call
    (:func:`assemble`'s answer)."""
    rows, _ = analyse_some(data, seed, samples)
    return assemble(data, rows, seed, samples)


__all__ = [
    "DEFAULT_SAMPLES",
    "MARKS",
    "VERSION",
    "Decision",
    "action_values",
    "analyse_decision",
    "analyse_log",
    "analyse_some",
    "assemble",
    "decisions",
    "mark_of",
    "playouts",
    "summarise",
]
