"""Clocks settled: a pause or a turn that ran out ends (the timeout policy applied: the game
forfeited, or a bot's autoplay), by a countdown, the sweep, or any read or move that finds a
deadline passed; and berserk, a player halving their own clock.

Reads that must see a settled clock call :func:`clock_settle_if_due` first.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from common.compiled import CompiledQuery
from common.metrics import CLOCK_LAG_SECONDS
from games.engine import bots as engine_bots
from games.engine.game import derive_seed
from games.engine.views import view_for
from games.models import Action, Deal, Game, Match, TimeoutPolicy
from games.services.base import (
    Conflict,
    NotAPlayer,
    engine_of,
    locked,
    status_word,
    with_deal_in_play,
)
from games.services.pause import pause_end
from games.services.playing import apply_move, game_end, state_save
from games.services.publishing import Changes, follow_up
from games.services.timing import charge, deadline

#: Autoplayed turns in a row after which the game is forfeited.
AUTOPLAY_LIMIT = 3
#: The bot that moves for a player whose clock ran out under the autoplay policy.
AUTOPLAY_BOT = "greedy"


def clock_settle(*, match_id: int, now: datetime | None = None, skip_locked: bool = False) -> bool:
    """Settle an expired clock of the match (timeout policy applied). True if it changed."""
    now = now or timezone.now()
    with transaction.atomic():
        qs = Match.objects.select_for_update(skip_locked=skip_locked, of=("self",)).select_related(
            "player_a", "player_b"
        )
        match = qs.filter(pk=match_id).first()
        if match is None:
            return False
        changes = Changes()
        changed = settle(match, now, changes)
        if changed:
            follow_up(match, changes)
        return changed


def clock_due(*, match_id: int, now: datetime | None = None) -> bool:
    """Whether a deadline (turn or pause) of the match's game in play has passed: one read,
    no lock, so a countdown that the player beat costs nothing more."""
    now = now or timezone.now()
    return Game.objects.filter(
        Q(turn_deadline__lte=now) | Q(pause_deadline__lte=now),
        match_id=match_id,
        status=Game.Status.ACTIVE,
    ).exists()


def clock_settle_if_due(*, game: Game, now: datetime | None = None) -> bool:
    """For reads: settle first if the game's deadline has passed (cheap when it has not)."""
    now = now or timezone.now()
    deadline = game.pause_deadline or game.turn_deadline
    if game.status != Game.Status.ACTIVE or deadline is None or deadline > now:
        return False
    return clock_settle(match_id=game.match_id, now=now)


def settle(match: Match, now: datetime, changes: Changes, game: Game | None = None) -> bool:
    """With the match row locked: end a pause that ran out, apply the timeout policy to a
    turn that did, while a deadline has passed. The games changed are noted on ``changes``.

    ``game`` is a row of the match read under the lock, if the caller has one: when it is
    the active game it is not read again.
    """
    changed = False
    while match.status == Match.Status.ACTIVE and match.is_timed:
        if game is None or game.status != Game.Status.ACTIVE or changed:
            game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if game is not None and game.pause_deadline is not None:
            if game.pause_deadline > now:
                break
            CLOCK_LAG_SECONDS.observe((now - game.pause_deadline).total_seconds())
            pause_end(match, game, game.pause_deadline)
            changes.touch(game)
            game.save()
            changed = True
            continue
        if game is None or game.turn_deadline is None or game.turn_deadline > now:
            break
        CLOCK_LAG_SECONDS.observe((now - game.turn_deadline).total_seconds())
        _timeout(match, game, game.turn_deadline, changes)
        changed = True
    return changed


def _charge_to_timeout(match: Match, game: Game, index: int, at: datetime) -> bool:
    """Charge the player who ran out at ``at``; True if their own clock ran out.

    A per-turn limit that runs out first leaves the clock with what it has left; a clock
    that ran out is set to zero exactly (the charge is in whole milliseconds).
    """
    clock_end = game.clock_charged_at + timedelta(milliseconds=game.clock_ms(index) or 0)
    charge(match, game, index, at)
    if clock_end <= at:
        game.set_clock_ms(index, 0)
        return True
    return False


def _timeout(match: Match, game: Game, at: datetime, changes: Changes) -> None:
    """Player to act ran out at ``at``: forfeit the game, or autoplay their turn."""
    index = game.to_act
    assert index is not None
    engine = engine_of(match)
    autoplay = match.timeout_policy == TimeoutPolicy.AUTOPLAY
    if autoplay and game.autoplays(index) + 1 < AUTOPLAY_LIMIT:
        game.set_autoplays(index, game.autoplays(index) + 1)
        bot = engine_bots.make_bot(AUTOPLAY_BOT, derive_seed(match.seed, "autoplay", match.ply))
        _charge_to_timeout(match, game, index, at)
        # The bot plays the whole turn (a draw and a discard are one turn).
        while engine.game.to_act_player == index and not engine.is_over:
            g = engine.game
            view = view_for(g.deal, g.seat_of_player(index))
            apply_move(match, game, engine, bot.choose(view), index, at, changes=changes, auto=True)
            if game.status != Game.Status.ACTIVE:
                break
    else:
        clock_out = _charge_to_timeout(match, game, index, at)
        if autoplay:
            reason = f"ran out of time {AUTOPLAY_LIMIT} turns in a row"
        else:
            reason = "ran out of time" if clock_out else "ran out of time for the turn"
        g = engine.game
        engine.forfeit_game(index, reason)
        deal = Deal.objects.get(game=game, number=g.deal_number)
        deal.status, deal.finished_at = Deal.Status.ABANDONED, at
        deal.save(update_fields=["status", "finished_at"])
        game_end(match, game, engine, g, at, changes)
        if engine.is_over:
            match.end_reason = Match.EndReason.TIMEOUT
    state_save(match, game, engine, at, changes)


def clocks_sweep(*, now: datetime | None = None, limit: int = 200) -> int:
    """Settle every game whose deadline has passed (Celery beat runs this every second).

    Games locked by a move in progress are skipped: that move settles its own clock.
    """
    now = now or timezone.now()
    due = list(
        Game.objects.filter(status=Game.Status.ACTIVE, turn_deadline__lte=now)
        .order_by("turn_deadline")
        .values_list("match_id", flat=True)[:limit]
    )
    # Pauses between deals that ran out (their own partial index).
    due += Game.objects.filter(status=Game.Status.ACTIVE, pause_deadline__lte=now).values_list(
        "match_id", flat=True
    )[:limit]
    settled = 0
    for match_id in dict.fromkeys(due):
        if clock_settle(match_id=match_id, now=now, skip_locked=True):
            settled += 1
    return settled


#: The reads of every move, compiled once (common.compiled): the match of a game, locked,
#: with its players; the game with its deal in play.
_MATCH_LOCKED = CompiledQuery(
    lambda game_id: (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .filter(games__pk=game_id)
    ),
    -918_273_645,
)
_GAME_IN_PLAY = CompiledQuery(
    lambda game_id: with_deal_in_play(Game.objects.filter(pk=game_id)), -918_273_645
)


def player_locked(
    game_id: int, player: Player, now: datetime, changes: Changes
) -> tuple[Match, int, Game, bool]:
    """In a transaction: lock the game's match, check ``player`` plays it (NotAPlayer),
    settle a deadline that has passed (its changes noted on ``changes``). Returns the match,
    the player's index, the game row after the settlement and whether anything was settled."""
    # One query finds and locks the match (OF self: not the game row joined to find it).
    match = _MATCH_LOCKED.get(game_id)
    index = match.index_of(player.pk)
    if index is None:
        raise NotAPlayer(_("you are not a player of this game"))
    # Read under the lock: the row as it is now, with the deal a move appends to.
    game = _GAME_IN_PLAY.get(game_id)
    game.match = match
    settled = settle(match, now, changes, game=game)
    if settled:
        game = _GAME_IN_PLAY.get(game_id)
        game.match = match
    return match, index, game, settled


def _match_is(match: Match) -> str:
    return _("the match is %(status)s") % {"status": status_word(match.status)}


def match_berserk(*, match: Match, player: Player, now: datetime | None = None) -> Match:
    """``player`` halves their own base time for the rest of the match (berserk).

    Only in a timed match that has not ended, and only before the player's first move of
    the match: the game in play (if any) gives them half the base time at once, every later
    game starts them on half. Whether berserk is allowed at all is the caller's rule (an
    arena's option); this keeps the clocks. Conflict ``berserk_too_late`` after a move of
    theirs, ``berserk_already`` a second time, ``not_timed`` for an untimed match.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = locked(match.pk)
        index = match.index_of(player.pk)
        if index is None:
            raise NotAPlayer(_("you are not a player of this match"))
        if match.status not in (Match.Status.SCHEDULED, Match.Status.ACTIVE):
            raise Conflict(_match_is(match), code="match_over")
        if not match.is_timed:
            raise Conflict(_("an untimed match has no clock to halve"), code="not_timed")
        if match.berserk(index):
            raise Conflict(_("you went berserk in this match already"), code="berserk_already")
        game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        changes = Changes()
        if settle(match, now, changes, game):
            follow_up(match, changes)
            game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if match.status not in (Match.Status.SCHEDULED, Match.Status.ACTIVE):
            raise Conflict(_match_is(match), code="match_over")
        moved = Action.objects.filter(deal__game__match=match, player_id=player.pk).exists()
        if moved or (game is not None and game.number > 0):
            raise Conflict(
                _("berserk is chosen before your first move of the match"),
                code="berserk_too_late",
            )
        setattr(match, "berserk_a" if index == 0 else "berserk_b", True)
        match.save(update_fields=["berserk_a" if index == 0 else "berserk_b"])
        if game is not None:
            # Nothing charged to this player yet (no move of theirs): their clock is the base.
            game.set_clock_ms(index, min(game.clock_ms(index) or 0, match.base_ms(index) or 0))
            if game.to_act == index:
                game.turn_deadline = deadline(match, game, index)
            changes.touch(game)
            game.save()
            follow_up(match, changes)
    return match
