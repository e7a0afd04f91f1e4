"""Command line: ``python -m games.engine {deadwood,knock,play,replay,arena} ...``.

- ``deadwood``: one hand a line (10 or 11 cards) on stdin, one JSON object a line out.
- ``knock``: one JSON knock a line on stdin, its scoring out.
- ``play``: seeded deals, games or matches between named bots.
- ``replay``: a match log (JSON, as ``play --log`` or the service writes it) on stdin;
  replays every deal from the seed (a hand played with real cards from its entered
  hand) and checks the recorded outcomes.
- ``arena``: bot against bot over many duplicate deals, with confidence intervals.

Bad input gets a one-line error on stderr and a non-zero exit; in the stdin modes the bad
line answers with ``{"error": ...}`` and the other lines still answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from . import arena
from .bots import make_bot
from .bots.runner import play_match
from .cards import card_name, cards_of, mask_of, parse_cards
from .deal import Deal
from .errors import EngineError
from .match import Match
from .melds import arrange, best_discard, defend, is_meld, meld_points_check
from .rules import RuleSet


def _names(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


def deadwood_line(line: str) -> dict[str, Any]:
    """Answer one ``deadwood`` line: melds, deadwood and points (and discard for 11)."""
    cards = parse_cards(line)
    if len(cards) not in (10, 11):
        raise EngineError(f"a hand has 10 or 11 cards, not {len(cards)}", rule="card_count")
    mask = mask_of(cards)
    out: dict[str, Any] = {"cards": [card_name(c) for c in cards]}
    if len(cards) == 11:
        discard, _ = best_discard(mask)
        kept = mask if discard is None else mask & ~(1 << discard)
        arr = arrange(kept)
        out["discard"] = None if discard is None else card_name(discard)
    else:
        arr = arrange(mask)
    out["melds"] = arr.meld_names()
    out["deadwood"] = arr.deadwood_names()
    out["points"] = arr.points
    return out


def _rules_from(value: Any) -> RuleSet:
    if value is None:
        return RuleSet()
    if isinstance(value, str):
        return RuleSet.preset(value)
    return RuleSet.from_dict(value)


def _card_list(data: dict[str, Any], key: str) -> list[int]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise EngineError(f"{key} must be a list of cards", rule="invalid_input")
    return parse_cards(value)


def knock_line(line: str) -> dict[str, Any]:
    """Score one knock: the knocker's melds as declared, the defender's best answer."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise EngineError(f"not JSON: {error.msg}", rule="invalid_input") from None
    if not isinstance(data, dict):
        raise EngineError("each line must be a JSON object", rule="invalid_input")
    rules = _rules_from(data.get("rules"))
    raw_melds = data.get("knocker_melds", [])
    if not isinstance(raw_melds, list) or not all(isinstance(m, list) for m in raw_melds):
        raise EngineError("knocker_melds must be a list of lists of cards", rule="invalid_input")
    meld_cards = [parse_cards(m) for m in raw_melds]
    melds = tuple(mask_of(m) for m in meld_cards)
    for cards, meld in zip(meld_cards, melds, strict=True):
        if not is_meld(meld):
            raise EngineError(
                f"not a meld: {' '.join(card_name(c) for c in cards)}", rule="invalid_melds"
            )
    deadwood = _card_list(data, "knocker_deadwood")
    defender_cards = _card_list(data, "defender")
    all_cards = [c for m in meld_cards for c in m] + deadwood + defender_cards
    if len(set(all_cards)) != len(all_cards):
        seen: set[int] = set()
        dup = next(c for c in all_cards if c in seen or seen.add(c))  # type: ignore[func-returns-value]
        raise EngineError(f"duplicate card {card_name(dup)}", rule="invalid_card")
    knocker_hand = mask_of(all_cards[: len(all_cards) - len(defender_cards)])
    if knocker_hand.bit_count() != 10:
        raise EngineError(
            f"the knocker shows 10 cards, not {knocker_hand.bit_count()}", rule="card_count"
        )
    if len(defender_cards) != 10:
        raise EngineError(
            f"the defender holds 10 cards, not {len(defender_cards)}", rule="card_count"
        )
    points = meld_points_check(melds, knocker_hand)
    if points is None:
        raise EngineError("the knocker's melds overlap", rule="invalid_melds")
    limit = rules.knock_limit if rules.may_knock else 0
    if points > limit:
        raise EngineError(
            f"knocker's deadwood {points} is over the knock limit of {limit}", rule="knock_limit"
        )
    defender = mask_of(defender_cards)
    if points == 0:
        own = arrange(defender)
        return {
            "kind": "gin",
            "knocker_deadwood": 0,
            "defender_deadwood": own.points,
            "defender_melds": own.meld_names(),
            "layoffs": [],
            "winner": "knocker",
            "score": own.points + rules.gin_bonus,
        }
    defence = defend(defender, melds)
    undercut = defence.points <= points
    return {
        "kind": "undercut" if undercut else "knock",
        "knocker_deadwood": points,
        "defender_deadwood": defence.points,
        "defender_melds": [_names(m) for m in defence.melds],
        "layoffs": [
            {"card": card_name(lo.card), "onto": _names(lo.onto)} for lo in defence.layoffs
        ],
        "winner": "defender" if undercut else "knocker",
        "score": (points - defence.points + rules.undercut_bonus)
        if undercut
        else defence.points - points,
    }


def _answer_lines(
    lines: Iterable[str], answer: Callable[[str], dict[str, Any]], out: TextIO, err: TextIO
) -> int:
    status = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            result = answer(line)
        except (EngineError, ValueError) as error:
            message = str(error)
            result = {"error": message, "line": number}
            err.write(f"line {number}: {message}\n")
            status = 1
        out.write(json.dumps(result) + "\n")
        out.flush()
    return status


def _cmd_deadwood(args: argparse.Namespace) -> int:
    return _answer_lines(sys.stdin, deadwood_line, sys.stdout, sys.stderr)


def _cmd_knock(args: argparse.Namespace) -> int:
    return _answer_lines(sys.stdin, knock_line, sys.stdout, sys.stderr)


def _cmd_play(args: argparse.Namespace) -> int:
    rules = _rules_from(json.loads(args.rules) if args.rules.startswith("{") else args.rules)
    if args.mode == "game":
        rules = rules.replace(best_of=1)
    elif args.mode == "deal":
        rules = rules.replace(best_of=1, target=1)
    results = []
    for i in range(args.count):
        seed = args.seed + i
        match = Match(seed, rules)
        failure = play_match(match, (make_bot(args.a, seed * 2), make_bot(args.b, seed * 2 + 1)))
        result: dict[str, Any] = {
            "seed": seed,
            "players": [args.a, args.b],
            "winner": match.winner,
            "games_won": match.games_won,
            "games": [r.to_json() for r in match.results],
            "deals": sum(len(g.deals) for g in match.games),
        }
        if failure is not None:
            result["failure"] = failure.reason
        if args.log:
            result["log"] = match.log_json()
        results.append(result)
        print(json.dumps(result))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    data = json.load(sys.stdin)
    replayed = Match.replay(data).log_json()
    ok = replayed["results"] == data.get("results", replayed["results"])
    for g_index, game in enumerate(replayed["games"]):
        for d_index, deal in enumerate(game["deals"]):
            recorded = data["games"][g_index]["deals"][d_index].get("outcome")
            same = recorded is None or recorded == deal["outcome"]
            ok = ok and same
            line: dict[str, Any] = {"game": g_index, "deal": d_index, "seed": deal["seed"]}
            if "hand" in deal:
                # Played with real cards: no seed to deal from, only the entered hand.
                line["entered"] = deal["hand"]
            else:
                start = Deal.new(deal["seed"], deal["dealer"], RuleSet.from_dict(data["rules"]))
                line["hands"] = [_names(start.hands[0]), _names(start.hands[1])]
                line["upcard"] = card_name(start.upcard)
            line.update(outcome=deal["outcome"], matches_record=same)
            print(json.dumps(line))
    print(
        json.dumps(
            {"winner": replayed["winner"], "games_won": replayed["games_won"], "verified": ok}
        )
    )
    if not ok:
        sys.stderr.write("replay differs from the recorded outcomes\n")
        return 1
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    return arena.main(args.rest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("deadwood", help="melds and deadwood of hands read from stdin")
    sub.add_parser("knock", help="score knocks read from stdin as JSON lines")
    play = sub.add_parser("play", help="play seeded deals, games or matches between bots")
    play.add_argument("--a", default="random", help="bot for player 0")
    play.add_argument("--b", default="random", help="bot for player 1")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--count", type=int, default=1, help="how many to play (seeds seed..)")
    play.add_argument("--mode", choices=["deal", "game", "match"], default="match")
    play.add_argument("--rules", default="standard", help="a preset name or a JSON object")
    play.add_argument("--log", action="store_true", help="include the full log")
    sub.add_parser("replay", help="replay a match log read from stdin and verify it")
    arena_parser = sub.add_parser("arena", help="bot against bot with duplicate deals")
    arena_parser.add_argument("rest", nargs=argparse.REMAINDER)
    handlers = {
        "deadwood": _cmd_deadwood,
        "knock": _cmd_knock,
        "play": _cmd_play,
        "replay": _cmd_replay,
        "arena": _cmd_arena,
    }
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "arena":
        return _cmd_arena(argparse.Namespace(rest=argv[1:]))
    args = parser.parse_args(argv)
    try:
        return handlers[args.command](args)
    except (EngineError, ValueError, KeyError) as error:
        message = error.args[0] if error.args else type(error).__name__
        sys.stderr.write(f"error: {message}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
