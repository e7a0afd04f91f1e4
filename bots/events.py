"""The lines of a bot's event stream, and the news the Bot API adds to a bot's own group.

A bot's event stream follows the same group as a person's ``ws/me`` socket
(``accounts.live.player_group``), so every challenge, ladder pairing and tournament match
that services announce reaches it. :func:`event_lines` turns those messages into the Bot
API's vocabulary:

- ``challenge``: someone challenged the bot (``match``, ``challenger``, ``opponent``,
  ``best_of``, ``target``, ``time_control``); accept or decline it with the match endpoints;
- ``challenge_canceled``: a challenge is gone (``status``: ``declined``, ``withdrawn`` or
  ``cancelled``);
- ``game_start``: a match of the bot started, or its next game did (``match``, ``game``,
  ``source``, ``opponent``): open ``/api/bot/game/stream/{game}``;
- ``game_finish``: a match of the bot is over (``match``, ``winner``, ``end_reason``,
  ``games_won``).

A stream that (re)connects starts with what is pending now (:func:`pending_lines`), so a
bot that was away misses nothing it can still act on. An open event stream is the bot being
there: it shows up for its tournament matches (:func:`show_up`) when it connects and when a
new one is announced.
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Q

from accounts.live import player_tell
from accounts.models import Player
from common.errors import ServiceError
from games.live import challenge_message
from games.models import Game, Match
from tournaments import services as tournaments

CANCELED = {"declined", "withdrawn", "cancelled"}


def _brief(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def game_start_line(*, bot_id: int, match: Match, game_id: int) -> dict[str, Any]:
    """``game_start`` for one game of a match of the bot."""
    opponent = match.player_b if match.player_a_id == bot_id else match.player_a
    return {
        "type": "game_start",
        "match": match.pk,
        "game": game_id,
        "source": match.source,
        "opponent": _brief(opponent),
    }


def active_games(*, bot: Player) -> list[tuple[Match, int]]:
    """The bot's matches in play with the game in play of each, oldest match first."""
    games = (
        Game.objects.filter(status=Game.Status.ACTIVE, match__status=Match.Status.ACTIVE)
        .filter(Q(match__player_a=bot) | Q(match__player_b=bot))
        .select_related("match__player_a", "match__player_b")
        .order_by("match_id", "number")
    )
    return [(game.match, game.pk) for game in games]


def pending_lines(*, bot: Player) -> list[dict[str, Any]]:
    """What a (re)connecting event stream starts with: open challenges to the bot, then a
    ``game_start`` for every game in play."""
    challenges = (
        Match.objects.filter(status=Match.Status.CHALLENGED, player_b=bot)
        .select_related("player_a", "player_b")
        .order_by("pk")
    )
    lines = [{**challenge_message(m, "challenged"), "type": "challenge"} for m in challenges]
    lines += [
        game_start_line(bot_id=bot.pk, match=match, game_id=game_id)
        for match, game_id in active_games(bot=bot)
    ]
    return lines


def event_lines(*, bot_id: int, text: str) -> list[dict[str, Any]]:
    """The stream lines for one message of the bot's group (none for news it does not use)."""
    message = json.loads(text)
    kind = message.get("type")
    if kind == "challenge":
        status = message.get("status")
        if status == "challenged":
            return [message]
        if status in CANCELED:
            return [{**message, "type": "challenge_canceled"}]
        if status == "accepted" and message.get("game"):
            opponent = message["opponent"] if message["challenger"]["id"] == bot_id else None
            return [
                {
                    "type": "game_start",
                    "match": message["match"],
                    "game": message["game"],
                    "source": Match.Source.CHALLENGE.value,
                    "opponent": opponent or message["challenger"],
                }
            ]
        return []
    if kind == "pairing" and message.get("game"):
        return [
            {
                "type": "game_start",
                "match": message["match"],
                "game": message["game"],
                "source": Match.Source.LADDER.value,
                "opponent": message.get("opponent"),
            }
        ]
    if kind == "match_ready":
        if message.get("status") == "active" and message.get("game"):
            return [
                {
                    "type": "game_start",
                    "match": message["match"],
                    "game": message["game"],
                    "source": Match.Source.TOURNAMENT.value,
                    "opponent": message.get("opponent"),
                }
            ]
        return [message]  # a tournament match waiting for the bot to show up
    if kind == "game_finish":
        return [message]
    return []


def show_up(*, bot: Player, match_id: int | None = None) -> int:
    """The connected bot shows up for its tournament matches waiting for it (``match_id``:
    that one only); how many it showed up for. An event stream that is open counts as being
    there: a bot that is not connected when its match starts is a no-show like a person,
    once the event's grace period is over. A match past its deadline (settled as a no-show
    meanwhile) or over is skipped."""
    waiting = Match.objects.filter(
        Q(player_a=bot) | Q(player_b=bot),
        source=Match.Source.TOURNAMENT,
        status=Match.Status.SCHEDULED,
    )
    if match_id is not None:
        waiting = waiting.filter(pk=match_id)
    shown = 0
    for match in waiting.order_by("pk"):
        try:
            tournaments.match_ready(match=match, player=bot)
        except ServiceError:  # too late (forfeited now), or over: nothing to show up for
            continue
        shown += 1
    return shown


def game_finish_line(match: Match) -> dict[str, Any]:
    """``game_finish``: the match is over, with its winner and why."""
    return {
        "type": "game_finish",
        "match": match.pk,
        "winner": None if match.winner_id is None else _brief(match.winner),
        "end_reason": match.end_reason,
        "games_won": [match.games_won_a, match.games_won_b],
    }


def match_finished_tell(*, match: Match) -> None:
    """Tell the match's external bots, on commit, that it is over (``game_finish``)."""
    for player in (match.player_a, match.player_b):
        if player.is_external:
            player_tell(player.pk, game_finish_line(match))
