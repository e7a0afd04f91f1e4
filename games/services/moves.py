"""A player's requests at an online table: a move with the ply they saw, continuing after a
deal, and a move found again by the client's own id.

The hot path: one transaction locks the match, settles a clock that ran out, validates the
move with the engine, appends one action and saves the two rows; the views are pushed and a
bot's reply or a countdown enqueued on commit.
"""

from __future__ import annotations

import time
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from common.metrics import MOVE_SECONDS
from games.engine.actions import Action as EngineAction
from games.models import Action, Game, Match
from games.services.base import Conflict, engine_of
from games.services.pause import pause_end
from games.services.playing import apply_move, state_save
from games.services.publishing import Changes, follow_up
from games.services.settlement import player_locked


def action_submit(
    *,
    game_id: int,
    player: Player,
    ply: int,
    action: EngineAction,
    now: datetime | None = None,
    lag_ms: int = 0,
    client_id: str = "",
    delivered_at: float | None = None,
    arrived_at: float | None = None,
    views: dict[int, dict] | None = None,
) -> Game:
    """A player's move, with the ply they saw. Returns the game row after the move.

    ``lag_ms`` is the network lag measured on the mover's socket; ``delivered_at`` (epoch
    seconds) is when the server handed the mover the view they answer (a bot's game stream,
    see :mod:`games.delivery`) and ``arrived_at`` when the move's request reached the
    server. In a timed game the lag and the server's own time (from the last charge to the
    hand-over, from the arrival to now) are credited back to the mover's clock, within
    their lag bank (see :func:`games.services.timing.charge`). ``client_id`` is the mover's
    own id for the move, kept with it so a repeat can be answered (see
    :func:`action_by_client_id`). ``views``, if given, is filled with the views the move
    pushed to the sockets, by game id and audience (the request answers with the mover's).

    Refusals (nothing is written): NotAPlayer (403), Conflict for a stale ply, a move out of
    turn, during the pause between deals or in a game that is over (409, with the current
    ply), IllegalMove naming the rule (400).
    """
    now = now or timezone.now()
    started = time.perf_counter()
    outcome = "refused"
    try:
        game = _action_submit(
            game_id, player, ply, action, now, lag_ms, client_id, delivered_at, arrived_at, views
        )
        outcome = "played"
        return game
    finally:
        MOVE_SECONDS.labels(outcome).observe(time.perf_counter() - started)


def _action_submit(
    game_id: int,
    player: Player,
    ply: int,
    action: EngineAction,
    now: datetime,
    lag_ms: int,
    client_id: str,
    delivered_at: float | None,
    arrived_at: float | None,
    views: dict[int, dict] | None,
) -> Game:
    with transaction.atomic():
        # A clock that ran out is settled before the move is looked at. The settlement must
        # commit even though the move is then refused, so the refusal waits until after.
        changes = Changes(views)
        match, index, game, settled = player_locked(game_id, player, now, changes)
        if settled:
            follow_up(match, changes)
        else:
            _check_turn(match, game, index, ply)
            engine = engine_of(match)
            lag_ms += _server_delay_ms(game, now, delivered_at, arrived_at)
            log: list[Action] = []  # written with the game and match rows
            apply_move(
                match,
                game,
                engine,
                action,
                index,
                now,
                changes=changes,
                auto=False,
                lag_ms=lag_ms,
                client_id=client_id,
                log=log,
            )
            game.set_autoplays(index, 0)
            state_save(match, game, engine, now, changes, log)
            follow_up(match, changes)
    if settled:
        _check_turn(match, game, index, ply)
        raise Conflict(_("the clock ran out before this move"), code="stale_ply", ply=game.ply)
    return game


def _server_delay_ms(
    game: Game, now: datetime, delivered_at: float | None, arrived_at: float | None
) -> int:
    """The server's own time in the charge of a move at ``now``: from the last charge to
    the hand-over of the mover's view, and from the move's arrival to ``now``.

    A hand-over noted after the move arrived (the mover answered another copy of the view)
    or before the last charge (a note of an older turn) counts nothing.
    """
    if game.clock_charged_at is None:
        return 0
    charged, at = game.clock_charged_at.timestamp(), now.timestamp()
    arrived = at if arrived_at is None else min(arrived_at, at)
    delay = 0.0
    if delivered_at is not None and charged <= delivered_at <= arrived:
        delay += delivered_at - charged
    if arrived_at is not None:
        delay += at - max(arrived, charged)
    return round(delay * 1000)


def action_by_client_id(*, game_id: int, player: Player, client_id: str) -> Action | None:
    """The move ``player`` made in this game under their own id ``client_id``, if any."""
    if not client_id:
        return None
    return (
        Action.objects.filter(deal__game_id=game_id, player=player, client_id=client_id)
        .select_related("deal")
        .only("ply", "deal__number", "deal__game_id")
        .first()
    )


def _check_turn(match: Match, game: Game, index: int, ply: int) -> None:
    if game.status != Game.Status.ACTIVE or match.status != Match.Status.ACTIVE:
        raise Conflict(_("this game is over"), code="game_over", ply=game.ply)
    if game.paused:
        raise Conflict(
            _("the deal is over: the next one starts when both players continue"),
            code="paused",
            ply=game.ply,
        )
    if ply != game.ply:
        raise Conflict(
            _("stale ply %(ply)s: the game is at ply %(current)s")
            % {"ply": ply, "current": game.ply},
            code="stale_ply",
            ply=game.ply,
        )
    if game.to_act != index:
        raise Conflict(_("it is not your turn"), code="not_your_turn", ply=game.ply)


def game_continue(
    *,
    game_id: int,
    player: Player,
    now: datetime | None = None,
    views: dict[int, dict] | None = None,
) -> Game:
    """A player has read the last deal's result; the next deal starts once both have.

    ``views``, if given, is filled with the views pushed, as :func:`action_submit` does.

    Refusals (nothing is written): NotAPlayer (403); Conflict ``not_paused`` once the next
    deal has started, ``game_over`` for a game that is over (409, with the current ply).
    Continuing twice is harmless.
    """
    now = now or timezone.now()
    with transaction.atomic():
        changes = Changes(views)
        match, index, game, settled = player_locked(game_id, player, now, changes)
        if game.status == Game.Status.ACTIVE and game.paused:
            if not game.continued & (1 << index):
                game.continued |= 1 << index
                if game.continued == 3:
                    pause_end(match, game, now)
                changes.touch(game)
                game.save()
            follow_up(match, changes)
            return game
        if settled:
            follow_up(match, changes)
    if game.status != Game.Status.ACTIVE or match.status != Match.Status.ACTIVE:
        raise Conflict(_("this game is over"), code="game_over", ply=game.ply)
    raise Conflict(_("the next deal has started already"), code="not_paused", ply=game.ply)
