"""What a change at a table pushes, and to whom.

A table has three audiences: player A, player B and everyone else (spectators, signed in or
not, see the same view). Each has a group of sockets (:func:`group`). When a service
changes a game it calls :func:`game_changed` inside its transaction, with the match row
locked: the game's change number (``seq``) goes up by one, each audience's view is rendered
*then*, by the same selector the REST API answers with, and the three views are sent on
commit, each to its own group. So:

- hidden information has one code path (``games.selectors.game_view``) and no message ever
  holds more than its audience may see;
- every socket receives every change, in order, as the view at that change (rendered under
  the lock, not later when the game may have moved on), and a gap in ``seq`` means a
  message was lost;
- a change costs three renders however many people watch.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.live import player_tell
from common.live import dumps, publish_on_commit
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.models import Game, Match
from games.rating_hook import player_rating
from games.selectors import game_view
from games.sheets import rules_line, time_control_line

#: The audiences of a table: the player indices, and everyone else.
SPECTATORS = "watch"


def group(game_id: int, audience: int | str) -> str:
    """The channel-layer group of one audience of a table (0, 1 or :data:`SPECTATORS`)."""
    return f"game.{game_id}.{audience}"


def audience_of(match: Match, player_id: int | None) -> int | str:
    """Which audience a viewer belongs to."""
    index = None if player_id is None else match.index_of(player_id)
    return SPECTATORS if index is None else index


def view_message(game: Game, view: dict) -> str:
    """The socket message of a view, as text (what consumers forward as they got it)."""
    return dumps({"type": "view", "seq": game.seq, "view": view})


def game_changed(
    *,
    match: Match,
    game: Game,
    now: datetime | None = None,
    counted: bool = False,
    engine: EngineMatch | None = None,
    views: dict | None = None,
) -> None:
    """Count a committed change of ``game`` and push each audience its view on commit.

    Call it once per transaction and game, after the rows are saved, with the match row
    locked (the lock orders the changes, so ``seq`` follows the commit order). ``counted``:
    the caller raised ``game.seq`` already and saved it with the row. ``engine``: the engine
    match the match's state was just saved from, if the caller has it (the views render from
    it instead of decoding the state again).

    ``views``, if given, is filled with the views rendered (by audience: 0, 1, spectators),
    so the request that made the change can answer with its player's view without rendering
    it again: it is the same view, at the same moment.
    """
    now = now or timezone.now()
    if not counted:
        game.seq = (game.seq or 0) + 1
        Game.objects.filter(pk=game.pk).update(seq=game.seq)
    game.match = match
    # The player to act next is told first, the other player next, the spectators last:
    # the groups are sent one after another, and the one who must answer is waiting.
    first = 1 if game.to_act == 1 else 0
    viewers = {
        first: (match.player_a, match.player_b)[first],
        1 - first: (match.player_a, match.player_b)[1 - first],
        SPECTATORS: None,
    }
    # The state decoded and the last deal read once for the three views; the engine match
    # the state was just saved from, when the service hands it over.
    shared: dict = {}
    if engine is not None:
        shared["engine"] = engine
    for audience, viewer in viewers.items():
        view = game_view(game=game, viewer=viewer, now=now, shared=shared)
        if views is not None:
            views[audience] = view
        text = view_message(game, view)
        publish_on_commit(
            group(game.pk, audience), {"type": "game.view", "seq": game.seq, "text": text}
        )


# --- challenges, on the players' own sockets (``ws/me``, see accounts.live) -----------------


def challenge_message(match: Match, status: str) -> dict:
    """``challenge``: a challenge between two people and what became of it.

    ``status`` is ``challenged`` (new), ``accepted`` (``game`` is the table to open),
    ``declined``, ``withdrawn`` (by the challenger) or ``cancelled`` (by staff). What the
    challenged player weighs comes in words too: ``rules`` (the rules in one line, as a score
    sheet prints them), ``clock`` (the time control, "10 min + 5 s, 30 s a turn") and
    ``challenger_rating`` (``{"rating", "provisional", "pool": {"id", "name"}}`` in the pool
    that would rate the match, else the challenger's main rating; null for none).
    """
    game = (
        Game.objects.filter(match=match, status=Game.Status.ACTIVE)
        .values_list("pk", flat=True)
        .first()
    )
    time_control = None
    if match.is_timed:
        time_control = {
            "base_seconds": match.base_seconds,
            "increment_seconds": match.increment_seconds,
            "turn_limit_seconds": match.turn_limit_seconds,
        }
    return {
        "type": "challenge",
        "status": status,
        "match": match.pk,
        "game": game,
        "challenger": _brief(match.player_a),
        "opponent": _brief(match.player_b),
        "best_of": match.best_of,
        "target": match.target,
        "time_control": time_control,
        "rules": rules_line(RuleSet.from_dict(match.rules)),
        "clock": time_control_line(match),
        "challenger_rating": player_rating(match.player_a_id, match.pk),
    }


def challenge_changed(*, match: Match, status: str, to: list[int]) -> None:
    """Tell these players (ids) of the challenge on commit; nobody else hears of it."""
    message = challenge_message(match, status)
    for player_id in to:
        player_tell(player_id, message)


def _brief(player) -> dict:
    return {"id": player.pk, "name": player.name, "kind": player.kind}
