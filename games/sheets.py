"""Reads of table matches: the match replayed from its entered hands, and its score sheet.

A table match is its rules, its seed (the cut for the first dealer) and its ordered
:class:`games.models.TableHand` rows: the engine enters them again
(:meth:`games.engine.match.Match.enter`) and scores every hand, game, bonus and column
with the code that scores online deals. Nothing here computes a point itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine.cards import card_index, card_name
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet, ScoringStyle, ShutoutStyle
from games.engine.table import EnteredHand, HandKind
from games.models import Match, TableHand

TIMES = "\u00d7"
#: A preset's name as a person reads it.
PRESET_NAMES = {
    "standard": gettext_lazy("Standard"),
    "oklahoma": gettext_lazy("Oklahoma"),
    "straight": gettext_lazy("Straight gin"),
    "hollywood": gettext_lazy("Hollywood"),
}
SHUTOUT_TEXT = {
    ShutoutStyle.DOUBLE_HAND_POINTS: gettext_lazy("a shutout doubles the hand points"),
    ShutoutStyle.DOUBLE_GAME_BONUS: gettext_lazy("a shutout doubles the game bonus"),
    ShutoutStyle.NONE: gettext_lazy("no shutout bonus"),
}


def rules_line(rules: RuleSet) -> str:
    """The rules of a match in one line, as a score sheet prints them."""
    hollywood = rules.scoring is ScoringStyle.HOLLYWOOD
    # A preset's name is translated; a rule set's own name is data.
    name = str(PRESET_NAMES.get(rules.name, rules.name.capitalize()))
    if hollywood and rules.name.capitalize() == "Hollywood":
        name = _("Hollywood (three games scored at once)")
    parts = [name]
    if rules.straight:
        parts.append(_("no knocking: only gin ends a hand"))
    elif rules.oklahoma:
        spade = rules.oklahoma_spade_multiplier
        if spade > 1:
            parts.append(
                _(
                    "the first upcard sets the knock limit (an ace: gin only), "
                    "a spade upcard scores %(times)s%(multiplier)s"
                )
                % {"times": TIMES, "multiplier": spade}
            )
        else:
            parts.append(_("the first upcard sets the knock limit (an ace: gin only)"))
    else:
        parts.append(_("knock at %(limit)s or less") % {"limit": rules.knock_limit})
    if hollywood and rules.name != "hollywood":
        parts.append(_("Hollywood: three games scored at once"))
    parts.append(
        _("gin %(gin)s, big gin %(big_gin)s, undercut %(undercut)s")
        % {"gin": rules.gin_bonus, "big_gin": rules.big_gin_bonus, "undercut": rules.undercut_bonus}
    )
    parts.append(
        _("game %(game)s, box %(box)s, %(shutout)s")
        % {
            "game": rules.game_bonus,
            "box": rules.line_bonus,
            "shutout": SHUTOUT_TEXT[rules.shutout],
        }
    )
    # The same message as the pages' (a plural: "1 game to 50" reads apart in French).
    best_of = ngettext(
        "best of %(best_of)s to %(target)s", "best of %(best_of)s to %(target)s", rules.best_of
    )
    parts.append(best_of % {"best_of": rules.best_of, "target": rules.target})
    return " · ".join(parts)


def time_control_line(match: Match) -> str:
    """A match's clock in one line, as the lobby writes it: "10 min + 5 s, 30 s a turn"."""
    if not match.is_timed:
        return _("untimed")
    base = match.base_seconds or 0
    if base % 60 == 0:
        clock = _("%(minutes)s min") % {"minutes": base // 60}
    else:
        clock = _("%(seconds)s s") % {"seconds": base}
    if match.increment_seconds:
        clock = _("%(clock)s + %(seconds)s s") % {
            "clock": clock,
            "seconds": match.increment_seconds,
        }
    if match.turn_limit_seconds:
        clock = _("%(clock)s, %(seconds)s s a turn") % {
            "clock": clock,
            "seconds": match.turn_limit_seconds,
        }
    return clock


def table_hands(*, match: Match) -> list[TableHand]:
    """The hands entered for a table match, in order."""
    return list(TableHand.objects.filter(match=match).order_by("number"))


def entered_hand(row: TableHand) -> EnteredHand:
    """The engine's hand of a stored row."""
    upcard = card_index(row.upcard) if row.upcard else None
    return EnteredHand(HandKind(row.kind), row.knocker, row.deadwood, upcard)


def table_engine(*, match: Match, hands: Iterable[TableHand] | None = None) -> EngineMatch:
    """The engine's match after the entered hands (read now, unless given), in order."""
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    for row in table_hands(match=match) if hands is None else hands:
        engine.enter(entered_hand(row))
    return engine


def table_log(*, match: Match) -> dict[str, Any]:
    """The replay of a table match: the engine's log, every deal its entered ``hand``.

    ``Match.replay`` of it enters every hand again and gives the same scores.
    """
    return table_engine(match=match).log_json()


def sheet_for_match(*, match: Match, hands: list[TableHand] | None = None) -> dict[str, Any]:
    """The score sheet of a table match, as the paper pad reads, scored by the engine.

    Player-indexed throughout (0 is player A, as ``players`` lists them): every hand with
    its dealer, how it ended, its points and each column's running totals after it; every
    game with its columns (one, or Hollywood's three), boxes (hands won), bonuses and final
    scores; the match's games won and margin; who deals the next hand and its number.
    """
    hands = table_hands(match=match) if hands is None else hands
    rules = RuleSet.from_dict(match.rules)
    engine = EngineMatch(match.seed, rules)
    rows = []
    for row in hands:
        game_index = engine.game_index
        game = engine.game
        record = engine.enter(entered_hand(row))
        outcome = record.outcome
        assert outcome is not None
        rows.append(
            {
                "number": row.number,
                "game": game_index,
                "dealer": record.dealer ^ record.swap,
                "kind": row.kind,
                "knocker": row.knocker,
                "deadwood": [row.deadwood_a, row.deadwood_b],
                "upcard": row.upcard or None,
                "termination": outcome.termination.value,
                "winner": record.winner_player,
                "points": outcome.points,
                "multiplier": outcome.multiplier,
                "columns": [list(column.scores) for column in game.columns],
                "entered_by": row.entered_by_id,
                "entered_at": row.created_at,
            }
        )
    games = []
    for index, game in enumerate(engine.games):
        over = game.is_over or engine.is_over
        games.append(
            {
                "number": index,
                "first_dealer": game.first_dealer,
                "status": "finished" if over else "in_play",
                "columns": [
                    {
                        "scores": list(column.scores),
                        "hands_won": list(column.hands_won),
                        "result": None if column.result is None else column.result.to_json(),
                    }
                    for column in game.columns
                ],
                "results": [result.to_json() for result in game.results],
            }
        )
    return {
        "match": match.pk,
        "venue": match.venue,
        "table": match.table,
        "status": match.status,
        "players": [_player_json(match.player_a), _player_json(match.player_b)],
        "rules": {
            "best_of": rules.best_of,
            "target": rules.target,
            "hollywood": rules.scoring is ScoringStyle.HOLLYWOOD,
            "oklahoma": rules.oklahoma,
            "knock_limit": rules.knock_limit,
            "straight": not rules.may_knock,
        },
        "hands": rows,
        "games": games,
        "games_won": list(engine.games_won),
        "margin_a": engine.margins[0],
        "decided": engine.is_over,
        "winner": engine.winner,
        "next_hand": len(hands),
        "next_dealer": engine.next_dealer,
        "confirmation": match.confirmation,
        "confirm_result": match.confirm_result,
        "reported_by": match.reported_by_id,
        "dispute_reason": match.dispute_reason,
    }


def _player_json(player: Any) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def upcard_name(text: str) -> str:
    """A card name as the sheet stores it (``"10s"`` and ``"qs"`` read as ``TS``, ``QS``)."""
    return card_name(card_index(text))
