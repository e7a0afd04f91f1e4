"""Writes of play: create and start matches, submit moves, settle clocks, play bots, finish.

Every state change runs in one transaction that first locks the match row, and publishes
its follow-up work (a bot's reply, a clock countdown) with ``on_commit``, so nothing is
enqueued for a change that rolled back. Reads that must see a settled clock call
:func:`clock_settle_if_due` first.

Moves are validated by the engine against the match snapshot kept on the match row (a
cache of the log); the log itself (Deal and Action rows) is appended in the same
transaction, one row per ply, with a unique constraint on (deal, ply).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from accounts.models import Player
from config.errors import ServiceError
from config.metrics import CLOCK_LAG_SECONDS, MOVE_SECONDS
from games import clocks

# Re-exported: the clock and its readers were part of this module.
from games.clocks import LAG_BANK_MS, LAG_QUOTA_MS, TimeControl  # noqa: F401
from games.engine import bots as engine_bots
from games.engine.actions import Action as EngineAction
from games.engine.bots.runner import play_match as engine_play_match
from games.engine.cards import card_name, cards_of
from games.engine.errors import EngineError, IllegalActionError
from games.engine.game import DealRecord, derive_seed
from games.engine.match import Match as EngineMatch
from games.engine.match import MatchTermination
from games.engine.rules import RuleSet, RuleSetError
from games.engine.views import view_for
from games.live import challenge_changed, game_changed
from games.models import (
    IN_PROGRESS,
    Action,
    Deal,
    Game,
    Match,
    TimeoutPolicy,
    seed_commitment,
)
from games.selectors import clock_remaining_ms, turn_remaining_ms  # noqa: F401
from games.signals import match_finished

logger = logging.getLogger(__name__)

#: Autoplayed turns in a row after which the game is forfeited.
AUTOPLAY_LIMIT = 3
#: The bot that moves for a player whose clock ran out under the autoplay policy.
AUTOPLAY_BOT = "greedy"

# --- errors -----------------------------------------------------------------------------


class PlayError(ServiceError):
    """A refused request of play."""


class NotAPlayer(PlayError):
    status = 403
    code = "not_a_player"


class Conflict(PlayError):
    """Stale ply, not your turn, game over: the client's picture is out of date."""

    status = 409
    code = "conflict"


class IllegalMove(PlayError):
    status = 400
    code = "illegal_action"


# --- creating and starting ----------------------------------------------------------------


#: The longest rule set name: a preset's, or a short label for a client's own options.
RULES_NAME_MAX_LENGTH = 40
#: The most options one rules object may give (the rule book has about twenty).
RULES_MAX_OPTIONS = 30


def rules_build(
    rules: RuleSet | dict[str, Any] | str | None = None,
    *,
    best_of: int | None = None,
    target: int | None = None,
) -> RuleSet:
    """A rule set from a preset name, a dict of options or a RuleSet, with overrides.

    Raises PlayError naming the bad option.
    """
    try:
        if rules is None:
            built = RuleSet()
        elif isinstance(rules, RuleSet):
            built = rules
        elif isinstance(rules, str):
            built = RuleSet.preset(rules)
        else:
            if isinstance(rules, dict) and len(rules) > RULES_MAX_OPTIONS:
                raise RuleSetError(f"give at most {RULES_MAX_OPTIONS} rule options")
            built = RuleSet.from_dict(rules)
        if len(built.name) > RULES_NAME_MAX_LENGTH:
            # The name is stored on every match and served with it: a label, not a document.
            raise RuleSetError(f"a rule set name is at most {RULES_NAME_MAX_LENGTH} characters")
        changes = {}
        if best_of is not None:
            changes["best_of"] = best_of
        if target is not None:
            changes["target"] = target
        return built.replace(**changes) if changes else built
    except RuleSetError as error:
        raise PlayError(str(error), code="invalid_rules") from None


def rules_check_players(rules: RuleSet, *players: Player) -> None:
    """Refuse rules these players may not play with (PlayError ``duplicate_deals_need_bots``).

    Duplicate deals play each seeded deal twice with the seats swapped. Whoever plays the
    second deal of a pair at the same table has seen it from the other seat: both hands and
    the stock order. That is fair only when no one can remember the first half, so until a
    format plays the two halves at different tables the option is for bots only.
    """
    if rules.duplicate_deals and any(not player.is_bot for player in players):
        raise PlayError(
            "duplicate deals are for matches between house bots only: a person playing the second "
            "deal of a pair would already know both hands and the stock from the first",
            code="duplicate_deals_need_bots",
        )


def match_create(
    *,
    player_a: Player,
    player_b: Player,
    rules: RuleSet | dict[str, Any] | str | None = None,
    best_of: int | None = None,
    target: int | None = None,
    time_control: TimeControl | None = None,
    source: str = Match.Source.CHALLENGE,
    created_by: Player | None = None,
    status: str = Match.Status.SCHEDULED,
    start: bool = True,
    seed: int | None = None,
) -> Match:
    """Create a match (and start it unless ``start`` is false or it awaits an answer).

    The seed is secret until the match ends; its SHA-256 commitment is public from now on.
    """
    if player_a.pk == player_b.pk:
        raise PlayError("a player cannot play against themselves", code="same_player")
    for player in (player_a, player_b):
        if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
            raise PlayError(
                f"bot {player.name!r} plays an unknown strategy {player.bot_strategy!r}",
                code="unknown_bot",
            )
    built = rules_build(rules, best_of=best_of, target=target)
    rules_check_players(built, player_a, player_b)
    if seed is None:
        seed = secrets.randbits(63)
    match = Match(
        player_a=player_a,
        player_b=player_b,
        created_by=created_by,
        source=source,
        rules=built.to_dict(),
        best_of=built.best_of,
        target=built.target,
        seed=seed,
        seed_commitment=seed_commitment(seed),
        status=status,
    )
    if time_control is not None:
        match.base_seconds = time_control.base_seconds
        match.increment_seconds = time_control.increment_seconds
        match.turn_limit_seconds = time_control.turn_limit_seconds
        match.timeout_policy = time_control.timeout_policy
        match.pause_seconds = time_control.pause_seconds
        match.lag_compensation = time_control.lag_compensation
    with transaction.atomic():
        match.save()
        if start and status == Match.Status.SCHEDULED:
            match_start(match=match)
    return match


def challenge_create(
    *,
    challenger: Player,
    opponent: Player,
    rules: RuleSet | dict[str, Any] | str | None = None,
    best_of: int | None = None,
    target: int | None = None,
    time_control: TimeControl | None = None,
) -> Match:
    """Challenge a bot (the match starts at once) or a human (who accepts or declines).

    An external bot answers like a person, unless its ``auto_accept`` accepts this
    challenger at once (then as if it accepted now; a conflict leaves the challenge open).

    The challenger is player A. A bot challenge is refused with Conflict ``in_ranked_match``
    while the challenger has a ladder match in progress; any challenge with Conflict
    ``in_tournament_match`` while the challenger's tournament match is ready or in play
    online (:func:`_refuse_in_tournament_match`); a guest (no account) cannot be
    challenged: 409 ``opponent_is_guest``.
    """
    if challenger.is_bot:
        raise PlayError("bots do not issue challenges", code="bot_challenger")
    if opponent.is_deleted:
        raise PlayError("this player deleted their account", code="player_deleted", status=409)
    if opponent.is_guest:
        # A guest has no account to play online with; they play at a table, in an event.
        raise PlayError(
            f"{opponent.name} is a guest without an account, who plays only at a table",
            code="opponent_is_guest",
            status=409,
        )
    with transaction.atomic():
        if opponent.is_bot:
            # A bot match starts at once: the same guard as an accepted challenge.
            _lock_players(challenger, opponent)
            _refuse_in_ranked_match(challenger, caller=challenger)
        _refuse_in_tournament_match(challenger, caller=challenger)
        match = match_create(
            player_a=challenger,
            player_b=opponent,
            rules=rules,
            best_of=best_of,
            target=target,
            time_control=time_control,
            created_by=challenger,
            status=Match.Status.SCHEDULED if opponent.is_bot else Match.Status.CHALLENGED,
        )
        if not opponent.is_bot:
            if opponent.accepts_at_once(challenger):
                try:
                    return challenge_answer(match=match, player=opponent, accept=True)
                except Conflict:
                    pass  # busy with a ranked match: the challenge waits for an answer
            challenge_changed(match=match, status="challenged", to=[opponent.pk])
        return match


def _lock_players(*players: Player) -> None:
    """Lock the players' rows (FOR NO KEY UPDATE, in id order) until the transaction ends.

    The ladder matchmaker takes the same locks before it pairs queued players and then looks
    again for a match in progress, so a challenge starting here and a ranked pairing of the
    same player cannot both miss each other: whichever commits second sees the first.
    """
    ids = sorted({player.pk for player in players})
    list(
        Player.objects.select_for_update(no_key=True)
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def match_in_progress(player: Player, *, source: str | None = None) -> Match | None:
    """The player's oldest match waiting to start or in play (of ``source``, if given)."""
    matches = Match.objects.filter(status__in=IN_PROGRESS).filter(
        Q(player_a=player) | Q(player_b=player)
    )
    if source is not None:
        matches = matches.filter(source=source)
    return matches.order_by("pk").first()


def _refuse_in_ranked_match(*humans: Player, caller: Player) -> None:
    """Conflict ``in_ranked_match`` if one of these players has a ladder match in progress.

    A ranked match runs on a clock; nobody starts another match on top of one. The message
    speaks to ``caller``.
    """
    for human in humans:
        match = match_in_progress(human, source=Match.Source.LADDER)
        if match is not None:
            who = (
                f"you are playing ranked match {match.pk}: finish it first"
                if human.pk == caller.pk
                else f"{human.name} is playing ranked match {match.pk}: try again when it ends"
            )
            raise Conflict(
                who,
                code="in_ranked_match",
                match=match.pk,
                player=human.pk,
            )


def _refuse_in_tournament_match(*humans: Player, caller: Player) -> None:
    """Conflict ``in_tournament_match`` if one of these players has a tournament match
    waiting for them to show up or in play online.

    Its show-up countdown and its clock run whatever else the player does: another game
    started now is how a player loses their tournament match by a no-show. The refusal
    names the match and the page to go to (its table once a game is on, else the match
    page, where the player shows up). A match at a table is played with real cards, with no
    deadline on the site, and does not count. The message speaks to ``caller``.
    """
    for human in humans:
        match = (
            Match.objects.filter(
                status__in=IN_PROGRESS,
                source=Match.Source.TOURNAMENT,
                venue=Match.Venue.ONLINE,
            )
            .filter(Q(player_a=human) | Q(player_b=human))
            .order_by("pk")
            .first()
        )
        if match is None:
            continue
        state = "in play" if match.status == Match.Status.ACTIVE else "ready"
        who = (
            f"your tournament match {match.pk} is {state}: play it first"
            if human.pk == caller.pk
            else f"{human.name}'s tournament match {match.pk} is {state}: try again when it ends"
        )
        game = match.games.filter(status=Game.Status.ACTIVE).values_list("pk", flat=True).first()
        raise Conflict(
            who,
            code="in_tournament_match",
            match=match.pk,
            url=reverse("web:table", args=[game])
            if game is not None
            else reverse("web:match", args=[match.pk]),
            player=human.pk,
        )


def _locked(match_id: int) -> Match:
    # OF self: only the match row. A plain FOR UPDATE with the players joined would lock their
    # rows too, in the match's order (A, then B): two matches of the same pair, A v B and B v A,
    # finishing at once then deadlocked (found by tests/integration/test_faults_tasks.py).
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .get(pk=match_id)
    )


def challenge_answer(*, match: Match, player: Player, accept: bool) -> Match:
    """The challenged player accepts (the match starts) or declines.

    Conflict ``not_pending`` if it was answered or withdrawn already; accepting is refused
    with Conflict ``in_ranked_match`` (nothing changes) while either player has a ladder match
    in progress, including one the matchmaker made a moment ago, and ``in_tournament_match``
    while either has a tournament match ready or in play online.
    """
    with transaction.atomic():
        match = _locked(match.pk)
        if match.player_b_id != player.pk:
            raise NotAPlayer("only the challenged player can answer this challenge")
        if match.status != Match.Status.CHALLENGED:
            raise Conflict(_challenge_gone(match), code="not_pending")
        if accept:
            _lock_players(match.player_a, match.player_b)
            _refuse_in_ranked_match(match.player_b, match.player_a, caller=player)
            _refuse_in_tournament_match(match.player_b, match.player_a, caller=player)
            match.status = Match.Status.SCHEDULED
            match.save(update_fields=["status"])
            match_start(match=match)
        else:
            match.status = Match.Status.DECLINED
            match.finished_at = timezone.now()
            match.save(update_fields=["status", "finished_at"])
        # The challenger hears the answer (with the table to open) on their own socket.
        status = "accepted" if accept else "declined"
        to = [match.player_a_id]
        if accept and match.player_b.is_external:
            to.append(match.player_b_id)  # the bot's event stream: its game starts
        challenge_changed(match=match, status=status, to=to)
    return match


def _challenge_gone(match: Match) -> str:
    """Why a challenge can no longer be answered or withdrawn, in words."""
    if match.status == Match.Status.DECLINED:
        return "this challenge was declined already"
    if match.status == Match.Status.CANCELLED:
        return "this challenge was withdrawn"
    return "this challenge was accepted already"  # the match is on, or over


def match_cancel(*, match: Match, player: Player | None = None, reason: str = "") -> Match:
    """Withdraw a challenge not yet answered (its challenger), or cancel (staff: player None)."""
    with transaction.atomic():
        match = _locked(match.pk)
        if player is not None and match.created_by_id != player.pk:
            raise NotAPlayer("only the challenger can withdraw this challenge")
        allowed = {Match.Status.CHALLENGED}
        if player is None:
            allowed |= set(IN_PROGRESS)
        if match.status not in allowed:
            detail = (
                f"{_challenge_gone(match)}: there is nothing to withdraw"
                if player is not None
                else f"a match that is {match.status} cannot be cancelled"
            )
            raise Conflict(detail, code="too_late")
        if match.status == Match.Status.CHALLENGED:
            # Withdrawn: the challenged player's offer goes; cancelled by staff: both hear.
            to = (
                [match.player_b_id]
                if player is not None
                else [match.player_a_id, match.player_b_id]
            )
            challenge_changed(
                match=match, status="withdrawn" if player is not None else "cancelled", to=to
            )
        match.status = Match.Status.CANCELLED
        match.end_detail = reason[:300]
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "end_detail", "finished_at"])
        for game in Game.objects.filter(match=match, status=Game.Status.ACTIVE):
            game.status, game.finished_at = Game.Status.FINISHED, match.finished_at
            game.turn_deadline = game.pause_deadline = None
            game.save(update_fields=["status", "finished_at", "turn_deadline", "pause_deadline"])
            game_changed(match=match, game=game)
    return match


def match_start(*, match: Match, now: datetime | None = None) -> None:
    """Deal the first game. Bot-vs-bot matches go to a worker to be played whole.

    Runs inside the caller's transaction (with the match row locked or just created).
    """
    from games import tasks

    if match.status != Match.Status.SCHEDULED:
        raise Conflict(f"a match that is {match.status} cannot start", code="not_scheduled")
    now = now or timezone.now()
    match.status = Match.Status.ACTIVE
    match.started_at = now
    if match.is_bot_match:
        # Played in memory by one task and written in one transaction.
        match.save(update_fields=["status", "started_at"])
        tasks.play_match.delay_on_commit(match.pk)
        return
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    match.state = engine.snapshot()
    match.save(update_fields=["status", "started_at", "state"])
    _game_begin(match, engine, now)
    _follow_up(match)


def _game_begin(match: Match, engine: EngineMatch, now: datetime) -> Game:
    """Create the Game row of the engine's game in play and the row of its first deal."""
    g = engine.game
    game = Game(
        match=match,
        number=engine.game_index,
        seed=g.seed,
        first_dealer=g.first_dealer,
        to_act=g.to_act_player,
    )
    if match.is_timed:
        game.clock_a_ms, game.clock_b_ms = match.base_ms(0), match.base_ms(1)
        game.clock_charged_at = game.turn_began_at = now
        game.turn_deadline = _deadline(match, game, game.to_act)
    game.save()
    _deal_begin(game, g.deal_number, g.deal.seed, g.deal.dealer, g.deal_swap, now)
    return game


def _deal_begin(
    game: Game, number: int, seed: int | None, dealer: int, swap: int, now: datetime
) -> Deal:
    return Deal.objects.create(
        game=game, number=number, seed=seed, dealer=dealer, swap=swap, clock_started_at=now
    )


# --- clocks -------------------------------------------------------------------------------


def _deadline(match: Match, game: Game, index: int | None) -> datetime | None:
    """When player ``index`` runs out: their clock, or the per-turn limit if sooner."""
    if index is None or not match.is_timed or game.clock_charged_at is None or game.paused:
        return None
    return clocks.deadline(
        game.clock_ms(index) or 0,
        charged_at=game.clock_charged_at,
        turn_limit_seconds=match.turn_limit_seconds,
        turn_began_at=game.turn_began_at,
    )


def _charge(match: Match, game: Game, index: int, now: datetime, lag_ms: int = 0) -> int:
    """Charge the player to act for the time since their clock was last charged.

    ``lag_ms`` is the mover's lag (their network's as measured on their socket, and the
    server's own delay on the move, see :func:`_server_delay_ms`), credited back with lag
    compensation within their lag bank (:func:`games.clocks.charge`). Returns the credit.
    """
    if not match.is_timed or game.clock_charged_at is None:
        return 0
    charged = clocks.charge(
        game.clock_ms(index) or 0,
        lag_bank_ms=game.lag_bank_ms(index),
        charged_at=game.clock_charged_at,
        now=now,
        lag_ms=lag_ms,
        lag_compensation=match.lag_compensation,
    )
    game.set_lag_bank_ms(index, charged.lag_bank_ms)
    game.set_clock_ms(index, charged.clock_ms)
    game.clock_charged_at = now
    return charged.credit_ms


def _turn_passes(match: Match, game: Game, previous: int, now: datetime) -> None:
    """``previous`` completed a turn: Fischer increment, and the next turn's clock starts."""
    if not match.is_timed:
        return
    game.set_clock_ms(previous, (game.clock_ms(previous) or 0) + match.increment_seconds * 1000)
    game.turn_began_at = now
    game.clock_charged_at = now


# --- the pause between deals ----------------------------------------------------------------


def _pause_begin(match: Match, game: Game, now: datetime) -> None:
    """A deal of a timed game with a person ended: no clock runs while both read the result.

    The next deal (already dealt by the engine, and hidden from the views meanwhile) starts
    when both players continue (bots at once) or ``match.pause_seconds`` pass.
    """
    if not match.is_timed or not match.pause_seconds or match.is_bot_match:
        return
    game.continued = (1 if match.player_a.is_bot else 0) | (2 if match.player_b.is_bot else 0)
    game.pause_deadline = now + timedelta(seconds=match.pause_seconds)
    game.turn_deadline = None


def _pause_end(match: Match, game: Game, at: datetime) -> None:
    """The next deal starts at ``at``: the player to act's clock runs from then."""
    game.pause_deadline = None
    game.continued = 0
    game.clock_charged_at = game.turn_began_at = at
    game.turn_deadline = _deadline(match, game, game.to_act)
    Deal.objects.filter(game=game, status=Deal.Status.ACTIVE).update(clock_started_at=at)


def game_continue(*, game_id: int, player: Player, now: datetime | None = None) -> Game:
    """A player has read the last deal's result; the next deal starts once both have.

    Refusals (nothing is written): NotAPlayer (403); Conflict ``not_paused`` once the next
    deal has started, ``game_over`` for a game that is over (409, with the current ply).
    Continuing twice is harmless.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match, index, game, settled = _player_locked(game_id, player, now)
        if game.status == Game.Status.ACTIVE and game.paused:
            if not game.continued & (1 << index):
                game.continued |= 1 << index
                if game.continued == 3:
                    _pause_end(match, game, now)
                _touched(match, game)
                game.save()
            _follow_up(match)
            return game
        if settled:
            _follow_up(match)
    if game.status != Game.Status.ACTIVE or match.status != Match.Status.ACTIVE:
        raise Conflict("this game is over", code="game_over", ply=game.ply)
    raise Conflict("the next deal has started already", code="not_paused", ply=game.ply)


# --- publishing ----------------------------------------------------------------------------


def _touched(match: Match, game: Game) -> None:
    """Note that this transaction changes ``game``: call it *before* the game's row is saved.

    The first time in a transaction the game's change number (``seq``) goes up by one, so
    the save that follows writes it with the rest of the row (no update of its own); the
    change is pushed by :func:`_publish`.
    """
    touched = match.__dict__.setdefault("_touched_games", {})
    if game.pk not in touched:
        game.seq = (game.seq or 0) + 1
    touched[game.pk] = game


def _publish(match: Match) -> list[Game]:
    """Push each game this transaction changed to its sockets, once, on commit. Returns them."""
    games = list(match.__dict__.pop("_touched_games", {}).values())
    for game in games:
        game_changed(match=match, game=game, counted=True)
    return games


# --- moves ---------------------------------------------------------------------------------


def _engine(match: Match) -> EngineMatch:
    assert match.state is not None
    return EngineMatch.from_snapshot(match.state)


def _active_game(match: Match) -> Game:
    return Game.objects.get(match=match, status=Game.Status.ACTIVE)


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
) -> Game:
    """A player's move, with the ply they saw. Returns the game row after the move.

    ``lag_ms`` is the network lag measured on the mover's socket; ``delivered_at`` (epoch
    seconds) is when the server handed the mover the view they answer (a bot's game stream,
    see :mod:`games.delivery`) and ``arrived_at`` when the move's request reached the
    server. In a timed game the lag and the server's own time (from the last charge to the
    hand-over, from the arrival to now) are credited back to the mover's clock, within
    their lag bank (see :func:`_charge`). ``client_id`` is the mover's own id for the move,
    kept with it so a repeat can be answered (see :func:`action_by_client_id`).

    Refusals (nothing is written): NotAPlayer (403), Conflict for a stale ply, a move out of
    turn, during the pause between deals or in a game that is over (409, with the current
    ply), IllegalMove naming the rule (400).
    """
    now = now or timezone.now()
    started = time.perf_counter()
    outcome = "refused"
    try:
        game = _action_submit(
            game_id, player, ply, action, now, lag_ms, client_id, delivered_at, arrived_at
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
) -> Game:
    with transaction.atomic():
        # A clock that ran out is settled before the move is looked at. The settlement must
        # commit even though the move is then refused, so the refusal waits until after.
        match, index, game, settled = _player_locked(game_id, player, now)
        if settled:
            _follow_up(match)
        else:
            _check_turn(match, game, index, ply)
            engine = _engine(match)
            lag_ms += _server_delay_ms(game, now, delivered_at, arrived_at)
            _apply(
                match,
                game,
                engine,
                action,
                index,
                now,
                auto=False,
                lag_ms=lag_ms,
                client_id=client_id,
            )
            game.set_autoplays(index, 0)
            _save(match, game, engine, now)
            _follow_up(match)
    if settled:
        _check_turn(match, game, index, ply)
        raise Conflict("the clock ran out before this move", code="stale_ply", ply=game.ply)
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


def _player_locked(game_id: int, player: Player, now: datetime) -> tuple[Match, int, Game, bool]:
    """In a transaction: lock the game's match, check ``player`` plays it (NotAPlayer),
    settle a deadline that has passed. Returns the match, the player's index, the game row
    after the settlement and whether anything was settled."""
    # One query finds and locks the match (OF self: not the game row joined to find it).
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .get(games__pk=game_id)
    )
    index = match.index_of(player.pk)
    if index is None:
        raise NotAPlayer("you are not a player of this game")
    game = Game.objects.get(pk=game_id)  # read under the lock: the row as it is now
    game.match = match
    settled = _settle(match, now, game=game)
    if settled:
        game = Game.objects.get(pk=game_id)
        game.match = match
    return match, index, game, settled


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
        raise Conflict("this game is over", code="game_over", ply=game.ply)
    if game.paused:
        raise Conflict(
            "the deal is over: the next one starts when both players continue",
            code="paused",
            ply=game.ply,
        )
    if ply != game.ply:
        raise Conflict(
            f"stale ply {ply}: the game is at ply {game.ply}", code="stale_ply", ply=game.ply
        )
    if game.to_act != index:
        raise Conflict("it is not your turn", code="not_your_turn", ply=game.ply)


def _apply(
    match: Match,
    game: Game,
    engine: EngineMatch,
    action: EngineAction,
    index: int,
    now: datetime,
    *,
    auto: bool,
    lag_ms: int = 0,
    client_id: str = "",
) -> None:
    """Apply one move to the engine and append it to the log; no save of match/game yet."""
    g = engine.game
    seat = g.seat_of_player(index)
    deal_ply = g.deal.ply
    deal_number = g.deal_number
    credit = _charge(match, game, index, now, lag_ms)
    try:
        record = engine.apply(action, index)
    except IllegalActionError as error:
        raise IllegalMove(str(error), code=error.rule) from None
    except EngineError as error:
        raise IllegalMove(str(error), code=error.rule) from None
    deal = Deal.objects.get(game=game, number=deal_number)
    Action.objects.create(
        deal=deal,
        ply=deal_ply,
        seat=seat,
        player_id=match.players[index],
        kind=action.kind.value,
        card="" if action.card is None else card_name(action.card),
        melds=None
        if action.melds is None
        else [[card_name(c) for c in cards_of(m)] for m in action.melds],
        auto=auto,
        lag_ms=credit,
        client_id=client_id[:64],
        created_at=now,
    )
    game.ply += 1
    match.ply += 1
    if record is not None:
        _deal_end(deal, record, now)
    # Hollywood: a column can decide the match while the game's other columns are open; the
    # game ends with the match then, and nothing more is dealt.
    over = g.is_over or engine.is_over
    next_to_act = None if over else g.to_act_player
    if record is not None or next_to_act != index:
        _turn_passes(match, game, index, now)
    if over:
        following = _game_end(match, game, engine, g, now)
        if following is not None and record is not None:
            _pause_begin(match, following, now)
            following.save()
    elif record is not None:
        _deal_begin(game, g.deal_number, g.deal.seed, g.deal.dealer, g.deal_swap, now)
        _pause_begin(match, game, now)
    game.to_act = next_to_act


def _deal_end(deal: Deal, record: DealRecord, now: datetime) -> None:
    """Record how a deal ended, both hands revealed (per seat, as they were at the end)."""
    outcome = record.outcome
    deal.finished_at = now
    if outcome is None:
        deal.status = Deal.Status.ABANDONED
    else:
        deal.status = Deal.Status.FINISHED
        deal.outcome = _outcome_json(record)
        deal.termination = outcome.termination.value
        deal.winner_index = record.winner_player
        deal.points = outcome.points
    deal.save()


def _outcome_json(record: DealRecord) -> dict[str, Any] | None:
    if record.outcome is None:
        return None
    out = record.outcome.to_json()
    out["hands"] = [[card_name(c) for c in cards_of(h)] for h in record.hands]
    return out


def _game_end(match: Match, game: Game, engine: EngineMatch, g: Any, now: datetime) -> Game | None:
    """The engine game in play finished: record its results; start the next or end the match.

    Returns the next game's row, if one began.
    """
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.results = [r.to_json() for r in g.results]
    game.winner_index = g.results[0].winner if g.results else None
    game.turn_deadline = None
    if g.forfeit_by is not None:
        game.forfeit_by, game.forfeit_reason = g.forfeit_by[0], g.forfeit_by[1][:300]
    won = engine.games_won
    match.games_won_a, match.games_won_b = won
    match.margin_a = engine.margins[0]
    if not engine.is_over:
        _touched(match, game)
        game.save()
        return _game_begin(match, engine, now)
    return None


def _save(match: Match, game: Game, engine: EngineMatch, now: datetime) -> None:
    """Persist the match row (snapshot, ply, result) and the game row after moves."""
    g = engine.game
    if game.status == Game.Status.ACTIVE:
        game.score_a, game.score_b = g.scores
        game.turn_deadline = _deadline(match, game, game.to_act)
    _touched(match, game)
    game.save()
    match.state = engine.snapshot()
    if engine.is_over:
        match_finish(match=match, engine=engine, now=now)
    match.save()
    # The views pushed on this change decode this state: hand them the engine instead.
    match.__dict__["_saved_engine"] = (match.state, engine)


def match_finish(
    *, match: Match, engine: EngineMatch, now: datetime, winner: int | None = None
) -> None:
    """End a match (its row locked): the result, its games closed, ``match_finished`` sent in
    this transaction. The one finishing path of every match, online or at a table.

    ``engine`` is the match as played; ``winner`` (a player index) is given when the match
    ends otherwise than its engine says (a table match decided by an organiser, conceded);
    ``match.end_reason`` then says how.
    """
    winner = engine.winner if winner is None else winner
    assert winner is not None
    match.status = Match.Status.FINISHED
    match.winner_id = match.players[winner]
    match.games_won_a, match.games_won_b = engine.games_won
    match.margin_a = engine.margins[0]
    match.finished_at = now
    if not match.end_reason:  # a timeout, resignation or bot failure was named already
        if engine.termination is MatchTermination.GAMES:
            match.end_reason = Match.EndReason.GAMES
        else:
            match.end_reason = Match.EndReason.FORFEIT
    match.end_detail = match.end_detail or engine.reason[:300]
    match.save()
    Game.objects.filter(match=match, status=Game.Status.ACTIVE).update(
        status=Game.Status.FINISHED, turn_deadline=None, finished_at=now
    )
    _announce_finished(match)


def _announce_finished(match: Match) -> None:
    """Send ``match_finished`` inside the finishing transaction, in a savepoint.

    The bracket advance or rating change then commits with the result itself. If a receiver
    fails, the receivers' writes roll back to the savepoint and the error is logged, but the
    result still stands: a broken listener must never lose a player's winning move. Listeners
    reconcile what they missed from finished matches (their periodic sweeps).
    """
    try:
        with transaction.atomic():
            match_finished.send(sender=Match, match=match)
    except Exception:
        logger.exception("a match_finished receiver failed for match %s", match.pk)


def _follow_up(match: Match) -> None:
    """After a change, on commit: the sockets told; a bot's reply if a bot is to act; a clock
    countdown (to the deadline of the turn, or of the pause between deals)."""
    from games import tasks

    changed = _publish(match)
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
        tasks.bot_move.delay_on_commit(match.pk, match.ply)
    elif deadline is not None and not settings.CELERY_EMBEDDED:
        # Only a shortcut: the sweeper settles it anyway. Redis redelivers a task whose
        # countdown outlasts the visibility timeout, so long ones are left to the sweeper.
        delay = (deadline - timezone.now()).total_seconds()
        if delay < settings.CELERY_VISIBILITY_TIMEOUT - 60:
            tasks.settle_clock.apply_async_on_commit((match.pk,), countdown=max(0.0, delay) + 0.05)


# --- clock settlement ----------------------------------------------------------------------


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
        changed = _settle(match, now)
        if changed:
            _follow_up(match)
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


def _settle(match: Match, now: datetime, game: Game | None = None) -> bool:
    """With the match row locked: end a pause that ran out, apply the timeout policy to a
    turn that did, while a deadline has passed.

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
            _pause_end(match, game, game.pause_deadline)
            _touched(match, game)
            game.save()
            changed = True
            continue
        if game is None or game.turn_deadline is None or game.turn_deadline > now:
            break
        CLOCK_LAG_SECONDS.observe((now - game.turn_deadline).total_seconds())
        _timeout(match, game, game.turn_deadline)
        changed = True
    return changed


def _charge_to_timeout(match: Match, game: Game, index: int, at: datetime) -> bool:
    """Charge the player who ran out at ``at``; True if their own clock ran out.

    A per-turn limit that runs out first leaves the clock with what it has left; a clock
    that ran out is set to zero exactly (the charge is in whole milliseconds).
    """
    clock_end = game.clock_charged_at + timedelta(milliseconds=game.clock_ms(index) or 0)
    _charge(match, game, index, at)
    if clock_end <= at:
        game.set_clock_ms(index, 0)
        return True
    return False


def _timeout(match: Match, game: Game, at: datetime) -> None:
    """Player to act ran out at ``at``: forfeit the game, or autoplay their turn."""
    index = game.to_act
    assert index is not None
    engine = _engine(match)
    autoplay = match.timeout_policy == TimeoutPolicy.AUTOPLAY
    if autoplay and game.autoplays(index) + 1 < AUTOPLAY_LIMIT:
        game.set_autoplays(index, game.autoplays(index) + 1)
        bot = engine_bots.make_bot(AUTOPLAY_BOT, derive_seed(match.seed, "autoplay", match.ply))
        _charge_to_timeout(match, game, index, at)
        # The bot plays the whole turn (a draw and a discard are one turn).
        while engine.game.to_act_player == index and not engine.is_over:
            g = engine.game
            view = view_for(g.deal, g.seat_of_player(index))
            _apply(match, game, engine, bot.choose(view), index, at, auto=True)
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
        _game_end(match, game, engine, g, at)
        if engine.is_over:
            match.end_reason = Match.EndReason.TIMEOUT
    _save(match, game, engine, at)


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


# --- lost bot work ------------------------------------------------------------------------

#: A bot's reply still not made this long after the human's move: its task was lost (Redis
#: restarted and dropped its queue, or was down when the move committed). Replies normally
#: come within a second; the sweep then makes the move itself.
BOT_REPLY_STALE = timedelta(seconds=10)
#: A bot-vs-bot match started this long ago and still unplayed: the sweep plays it itself
#: (a queued task that arrives later finds it finished). Longer than a reply: under a burst
#: (a 256-bot event's round) matches wait their turn in the queue for a while.
BOT_MATCH_STALE = timedelta(seconds=60)


def bot_work_sweep(*, now: datetime | None = None, limit: int = 20, matches: int = 2) -> int:
    """Do the bot work whose task was lost: replies in human-vs-bot games, whole bot matches.

    The embedded sweeper runs it once a second. With Celery the two halves run apart, each
    on the queue of its own kind of work: :func:`bot_reply_sweep` with the clock sweep
    (interactive), :func:`bot_match_sweep` on the batch queue. Returns how many replies and
    matches it did.
    """
    done = bot_reply_sweep(now=now, limit=limit)
    return done + bot_match_sweep(now=now, limit=max(0, limit - done), matches=matches)


def bot_reply_sweep(*, now: datetime | None = None, limit: int = 20) -> int:
    """Make the bot replies (human-vs-bot games) whose task was lost; returns how many.

    Idempotent like the task it stands in for: a reply is made only if the match is still
    at the ply it was found at.
    """
    now = now or timezone.now()
    done = 0
    bot, human = Player.Kind.BOT, Player.Kind.HUMAN
    # The game's current deal, then its last action: two probes of the (game, number) and
    # (deal, ply) indexes whatever the planner thinks of the table sizes (a join of all the
    # game's actions was planned as a scan of every action ever written).
    current_deal = Deal.objects.filter(game=OuterRef("pk")).order_by("-number")
    deal_of_game = Deal.objects.filter(game=OuterRef(OuterRef("pk"))).order_by("-number")
    last_move = Action.objects.filter(deal=Subquery(deal_of_game.values("pk")[:1])).order_by("-ply")
    waiting = (
        Game.objects.filter(status=Game.Status.ACTIVE, match__status=Match.Status.ACTIVE)
        .filter(
            Q(to_act=0, match__player_a__kind=bot, match__player_b__kind=human)
            | Q(to_act=1, match__player_b__kind=bot, match__player_a__kind=human)
        )
        .annotate(
            idle_since=Coalesce(
                Subquery(last_move.values("created_at")[:1]),  # a move in this deal
                Subquery(current_deal.values("started_at")[:1]),  # or the deal's start
                F("started_at"),
            )
        )
        .filter(idle_since__lte=now - BOT_REPLY_STALE)
        .values_list("match_id", "match__ply")[:limit]
    )
    for row in list(waiting):
        match_id, ply = row
        logger.warning("match %s: the bot's reply at ply %s was lost; the sweep makes it", *row)
        done += bot_move(match_id=match_id, ply=ply)
    return done


def bot_match_sweep(*, now: datetime | None = None, limit: int = 20, matches: int = 20) -> int:
    """Play the bot-vs-bot matches whose ``play_match`` task was lost; returns how many.

    A match counts as lost once it has waited :data:`BOT_MATCH_STALE` unplayed. With Celery
    this runs on the batch queue, behind the ``play_match`` tasks queued before it: a match
    that only waits its turn in a long queue (a 256-bot event's round) is played by its own
    task first, and none is ever played on the interactive workers, whose time is the
    people's. Idempotent: a match is played only while it has not been, under its row lock;
    a row locked by a worker playing it right now is skipped.
    """
    now = now or timezone.now()
    done = 0
    unplayed = list(
        Match.objects.filter(
            status=Match.Status.ACTIVE,
            player_a__kind=Player.Kind.BOT,
            player_b__kind=Player.Kind.BOT,
            started_at__lte=now - BOT_MATCH_STALE,
            games__isnull=True,
        ).values_list("pk", flat=True)[:limit]
    )
    for match_id in unplayed:
        if done >= limit or matches <= 0:
            break
        with transaction.atomic():
            # A worker playing it holds the row: leave it to that worker.
            free = Match.objects.select_for_update(skip_locked=True).filter(pk=match_id)
            if not list(free.values_list("pk", flat=True)):
                continue
            logger.warning("match %s: its play_match task was lost; the sweep plays it", match_id)
            played = match_play_bots(match_id=match_id)
        done += played
        matches -= played
    return done


# --- bots ---------------------------------------------------------------------------------


def bot_move(*, match_id: int, ply: int) -> bool:
    """Let the bot to act make its move, if the match is still at ``ply``. True if it moved."""
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match_id)
        if match.status != Match.Status.ACTIVE or match.ply != ply:
            return False  # already moved (a redelivered task) or the match went on
        _settle(match, now)
        if match.status != Match.Status.ACTIVE or match.ply != ply:
            _follow_up(match)
            return True
        game = _active_game(match)
        index = game.to_act
        player = match.player_a if index == 0 else match.player_b
        if index is None or not player.is_bot or game.paused:
            return False
        engine = _engine(match)
        g = engine.game
        bot = engine_bots.make_bot(player.bot_strategy, derive_seed(match.seed, "bot", match.ply))
        view = view_for(g.deal, g.seat_of_player(index))
        try:
            action = bot.choose(view)
            if not isinstance(action, EngineAction):
                raise TypeError(f"returned {action!r}, not an action")
            _apply(match, game, engine, action, index, now, auto=False)
        except Exception as error:  # a broken bot forfeits; the match is not corrupted
            # The engine refuses a move before changing anything, and nothing was written
            # for it: record the forfeit from the match as it was.
            reason = f"bot {player.bot_strategy!r} failed: {error}"
            logger.warning("match %s: %s", match.pk, reason)
            match.refresh_from_db()
            return _forfeit(match, index, reason[:300], Match.EndReason.BOT_FAILURE, now)
        _save(match, game, engine, now)
        _follow_up(match)
        return True


def _forfeit(match: Match, index: int, reason: str, end_reason: str, now: datetime) -> bool:
    engine = _engine(match)
    game = _active_game(match)
    g = engine.game
    engine.forfeit_match(index, reason)
    deal = Deal.objects.get(game=game, number=g.deal_number)
    deal.status, deal.finished_at = Deal.Status.ABANDONED, now
    deal.save(update_fields=["status", "finished_at"])
    _game_end(match, game, engine, g, now)
    match.end_reason = end_reason
    match.end_detail = reason[:300]
    _save(match, game, engine, now)
    _publish(match)
    return True


def match_forfeit(
    *, match: Match, loser: Player, reason: str, end_reason: str = Match.EndReason.FORFEIT
) -> Match:
    """``loser`` forfeits the whole match (resignation, no-show, withdrawal)."""
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match.pk)
        index = match.index_of(loser.pk)
        if index is None:
            raise NotAPlayer("that player is not in this match")
        if match.at_table and match.status == Match.Status.ACTIVE:
            # No deal in play: the match ends as its entered hands stand. The table module
            # imports this one (as games.tasks does), so it is imported here, when needed.
            from games import tables

            tables.table_concede(match=match, index=index, reason=reason, end_reason=end_reason)
            return match
        if match.status == Match.Status.SCHEDULED:
            match_start(match=match, now=now)
            if match.is_bot_match:
                # A bot match not yet played: decide it without playing.
                engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
                match.state = engine.snapshot()
                match.save(update_fields=["state"])
                _game_begin(match, engine, now)
        if match.status != Match.Status.ACTIVE:
            raise Conflict(f"a match that is {match.status} cannot be forfeited", code="too_late")
        _forfeit(match, index, reason, end_reason, now)
    return match


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
        match = _locked(match.pk)
        index = match.index_of(player.pk)
        if index is None:
            raise NotAPlayer("you are not a player of this match")
        if match.status not in (Match.Status.SCHEDULED, Match.Status.ACTIVE):
            raise Conflict(f"the match is {match.status}", code="match_over")
        if not match.is_timed:
            raise Conflict("an untimed match has no clock to halve", code="not_timed")
        if match.berserk(index):
            raise Conflict("you went berserk in this match already", code="berserk_already")
        game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if _settle(match, now, game):
            _follow_up(match)
            game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if match.status not in (Match.Status.SCHEDULED, Match.Status.ACTIVE):
            raise Conflict(f"the match is {match.status}", code="match_over")
        moved = Action.objects.filter(deal__game__match=match, player_id=player.pk).exists()
        if moved or (game is not None and game.number > 0):
            raise Conflict(
                "berserk is chosen before your first move of the match", code="berserk_too_late"
            )
        setattr(match, "berserk_a" if index == 0 else "berserk_b", True)
        match.save(update_fields=["berserk_a" if index == 0 else "berserk_b"])
        if game is not None:
            # Nothing charged to this player yet (no move of theirs): their clock is the base.
            game.set_clock_ms(index, min(game.clock_ms(index) or 0, match.base_ms(index) or 0))
            if game.to_act == index:
                game.turn_deadline = _deadline(match, game, index)
            _touched(match, game)
            game.save()
            _follow_up(match)
    return match


def match_play_bots(*, match_id: int) -> bool:
    """Play a bot-vs-bot match whole, in memory from its seed, and write it in one go.

    Idempotent: a finished match is left alone; the match row lock makes a second delivery
    of the same task wait and then find the match finished. True if it played the match.

    On SQLite (embedded) the match is played before the lock is taken and the lock only
    covers the write: there a transaction's lock is the whole database's one write lock,
    which a whole match (about a second) would hold while people's moves waited behind it.
    A second delivery may then play the match too, but only one writes it (the result
    depends on the seed alone). PostgreSQL locks the one row, and plays it once.
    """
    done = (Match.Status.FINISHED, Match.Status.CANCELLED)
    played = None
    if connection.vendor == "sqlite":
        match = Match.objects.select_related("player_a", "player_b").get(pk=match_id)
        if match.status in done:
            return False
        played = _play_bots(match)
    with transaction.atomic():
        match = _locked(match_id)
        if match.status in done:
            return False  # another delivery wrote it meanwhile
        engine, failure = played or _play_bots(match)
        now = timezone.now()
        if match.status == Match.Status.SCHEDULED:
            match.status = Match.Status.ACTIVE
            match.started_at = now
        # Unique (match, number) on games backs the lock: the log cannot be written twice.
        _write_whole_match(match, engine, now)
        if failure is not None:
            match.end_reason = Match.EndReason.BOT_FAILURE
            match.end_detail = failure.reason[:300]
        match.ply = sum(len(r.actions) for g in engine.games for r in g.deals)
        match.state = engine.snapshot()
        match_finish(match=match, engine=engine, now=now)
    return True


def _play_bots(match: Match) -> tuple[EngineMatch, Any]:
    """The match played in memory by its two bots: the engine, and a bot's failure or None."""
    if not match.is_bot_match:
        raise PlayError("only a match between two bots is played whole", code="not_bots")
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    bots = (
        engine_bots.make_bot(match.player_a.bot_strategy, derive_seed(match.seed, "bot", 0)),
        engine_bots.make_bot(match.player_b.bot_strategy, derive_seed(match.seed, "bot", 1)),
    )
    return engine, engine_play_match(engine, bots)


def _write_whole_match(match: Match, engine: EngineMatch, now: datetime) -> None:
    """Bulk-write the games, deals and actions of a match played in memory."""
    players = match.players
    for index, g in enumerate(engine.games):
        game = Game.objects.create(
            match=match,
            number=index,
            seed=g.seed,
            first_dealer=g.first_dealer,
            status=Game.Status.FINISHED,
            ply=sum(len(r.actions) for r in g.deals),
            score_a=g.scores[0],
            score_b=g.scores[1],
            results=[r.to_json() for r in g.results],
            winner_index=g.results[0].winner if g.results else None,
            forfeit_by=None if g.forfeit_by is None else g.forfeit_by[0],
            forfeit_reason="" if g.forfeit_by is None else g.forfeit_by[1][:300],
            finished_at=now,
        )
        deals = Deal.objects.bulk_create(
            [
                Deal(
                    game=game,
                    number=r.number,
                    seed=r.seed,
                    dealer=r.dealer,
                    swap=r.swap,
                    status=Deal.Status.FINISHED if r.outcome else Deal.Status.ABANDONED,
                    outcome=_outcome_json(r),
                    termination=r.outcome.termination.value if r.outcome else "",
                    winner_index=r.winner_player,
                    points=r.outcome.points if r.outcome else 0,
                    finished_at=now,
                )
                for r in g.deals
            ]
        )
        rows = []
        for deal, record in zip(deals, g.deals, strict=True):
            for ply, (action, s) in enumerate(zip(record.actions, record.seats, strict=True)):
                melds = None
                if action.melds is not None:
                    melds = [[card_name(c) for c in cards_of(m)] for m in action.melds]
                card = "" if action.card is None else card_name(action.card)
                kind = action.kind.value
                rows.append((deal.pk, ply, s, players[s ^ record.swap], kind, card, melds))
        _write_actions(rows, now)


#: The columns :func:`_write_actions` fills, in its rows' order (then ``auto``, ``created_at``).
_ACTION_COLUMNS = ("deal_id", "ply", "seat", "player_id", "kind", "card", "melds")


def _write_actions(rows: list[tuple[Any, ...]], now: datetime) -> None:
    """Append many actions at once: ``COPY`` on PostgreSQL, ``bulk_create`` elsewhere.

    A bot match writes thousands of actions; building a model instance per row cost more
    than playing the match. COPY sends the rows as they are (and still checks the unique
    (deal, ply) constraint).
    """
    if connection.vendor != "postgresql":
        Action.objects.bulk_create(
            [
                Action(**dict(zip(_ACTION_COLUMNS, row, strict=True)), created_at=now)
                for row in rows
            ],
            batch_size=2000,
        )
        return
    table = connection.ops.quote_name(Action._meta.db_table)
    columns = ", ".join([*_ACTION_COLUMNS, "auto", "created_at"])
    # The raw psycopg cursor: wrap its errors as Django's, as the ORM's would be (a task
    # retries on OperationalError; a duplicate ply is an IntegrityError).
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
    ):
        for *head, melds in rows:
            copy.write_row((*head, None if melds is None else json.dumps(melds), False, now))
