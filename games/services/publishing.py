"""What a change of play publishes on commit: the games it changed pushed to their sockets,
and the follow-up work (a bot's reply, a clock's countdown) enqueued by task name.

The service that locks a match creates one :class:`Changes` and hands it to every step that
changes a game; :func:`follow_up` pushes what it holds. Nothing is kept on the match row
object itself. Tasks are named (``games.bot_move``, ``games.settle_clock``) through
:mod:`common.enqueue`, not imported: the tasks import the services.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from common.enqueue import shortcut_on_commit, task_on_commit
from games.engine.match import Match as EngineMatch
from games.live import game_changed
from games.models import Game, Match


class Changes:
    """What one transaction changes of a match: the games to push on commit, and the engine
    the match's state was last saved from.

    The service that locks the match creates it and passes it to each step that changes a
    game (:meth:`touch` before the game's row is saved) or saves the match's state
    (:meth:`saved`); :func:`follow_up` (or :func:`publish`) pushes the games, once each.
    """

    __slots__ = ("_saved", "games", "views")

    def __init__(self, views: dict[int, dict] | None = None) -> None:
        self.games: dict[int, Game] = {}
        self._saved: tuple[Any, EngineMatch] | None = None
        #: Where the views pushed are handed back, by game id then audience, when the caller
        #: answers with one of them (a move's request); None: nobody asks.
        self.views = views

    def touch(self, game: Game) -> None:
        """Note that ``game`` changes: call it *before* the game's row is saved.

        The first time in a transaction the game's change number (``seq``) goes up by one,
        so the save that follows writes it with the rest of the row (no update of its own).
        """
        if game.pk not in self.games:
            game.seq = (game.seq or 0) + 1
        self.games[game.pk] = game

    def saved(self, match: Match, engine: EngineMatch) -> None:
        """The match's state was just saved from ``engine``: the views pushed on this change
        decode that state, so they are handed the engine instead."""
        self._saved = (match.state, engine)

    def engine_of(self, match: Match) -> EngineMatch | None:
        """The engine ``match.state`` was saved from, unless the state changed since."""
        if self._saved is not None and self._saved[0] is match.state:
            return self._saved[1]
        return None


def publish(match: Match, changes: Changes) -> list[Game]:
    """Push each game ``changes`` holds to its sockets, once, on commit; it then holds none.
    Returns them."""
    games = list(changes.games.values())
    changes.games = {}
    engine = changes.engine_of(match)
    for game in games:
        views = None if changes.views is None else changes.views.setdefault(game.pk, {})
        game_changed(match=match, game=game, counted=True, engine=engine, views=views)
    return games


def follow_up(match: Match, changes: Changes) -> None:
    """After a change, on commit: the sockets told; a bot's reply if a bot is to act; a clock
    countdown (to the deadline of the turn, or of the pause between deals)."""
    changed = publish(match, changes)
    if match.status != Match.Status.ACTIVE or match.is_bot_match:
        return
    # A match has one active game: when this change touched it, it is in hand already.
    game = next((g for g in changed if g.status == Game.Status.ACTIVE), None)
    if game is None:
        game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
    if game is None or game.to_act is None:
        return
    to_act = match.player_a if game.to_act == 0 else match.player_b
    deadline = game.pause_deadline or game.turn_deadline
    if to_act.is_bot and not game.paused:
        task_on_commit("games.bot_move", match.pk, match.ply)
    elif deadline is not None:
        # Only a shortcut: the sweeper settles it anyway, within a second, so it is sent for
        # a near deadline only (CLOCK_COUNTDOWN_SECONDS; common.enqueue also leaves it to the
        # sweeper where that is cheaper, or where the countdown would outlast the broker).
        delay = (deadline - timezone.now()).total_seconds()
        if delay <= settings.CLOCK_COUNTDOWN_SECONDS:
            countdown = max(0.0, delay) + 0.05
            shortcut_on_commit("games.settle_clock", (match.pk,), countdown=countdown)
