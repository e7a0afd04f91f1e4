"""Playing a match on its rows: a move applied to the engine and appended to the log, deals
and games begun and ended, the rows saved, the match finished.

The steps every writer of an online match shares (a player's move, a timeout's autoplay, a
bot's reply, a forfeit). They run with the match row locked, inside the caller's transaction;
the games they change are noted on the caller's :class:`~games.services.publishing.Changes`.
Moves are validated by the engine against the match snapshot kept on the match row (a cache
of the log); the log itself (Deal and Action rows) is appended in the same transaction, one
row per ply, with a unique constraint on (deal, ply).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction

from common.compiled import insert_row, write_rows
from games.engine.actions import Action as EngineAction
from games.engine.cards import card_name, cards_of
from games.engine.errors import EngineError, IllegalActionError
from games.engine.game import DealRecord
from games.engine.match import Match as EngineMatch
from games.engine.match import MatchTermination
from games.kept_engines import keep_on_commit
from games.models import Action, Deal, Game, Match
from games.services.base import IllegalMove, active_game, engine_of, engine_text
from games.services.pause import pause_begin
from games.services.publishing import Changes, publish
from games.services.timing import charge, deadline, turn_passes
from games.signals import match_finished

logger = logging.getLogger(__name__)


def game_begin(match: Match, engine: EngineMatch, now: datetime) -> Game:
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
        game.turn_deadline = deadline(match, game, game.to_act)
    game.save()
    deal_begin(game, g.deal_number, g.deal.seed, g.deal.dealer, g.deal_swap, now)
    return game


def deal_begin(
    game: Game, number: int, seed: int | None, dealer: int, swap: int, now: datetime
) -> Deal:
    deal = Deal.objects.create(
        game=game, number=number, seed=seed, dealer=dealer, swap=swap, clock_started_at=now
    )
    game.deal_in_play, game.deal_in_play_number = deal.pk, number
    return deal


def _deal_id(game: Game, number: int) -> int:
    """The id of the game's deal ``number``: known when the row was read
    :func:`with_deal_in_play` (or the deal begun since), else looked up."""
    if getattr(game, "deal_in_play_number", None) == number:
        return game.deal_in_play
    return Deal.objects.filter(game=game, number=number).values_list("pk", flat=True).get()


def apply_move(
    match: Match,
    game: Game,
    engine: EngineMatch,
    action: EngineAction,
    index: int,
    now: datetime,
    *,
    changes: Changes,
    auto: bool,
    lag_ms: int = 0,
    client_id: str = "",
    log: list[Action] | None = None,
) -> None:
    """Apply one move to the engine and append it to the log; no save of match/game yet.

    ``log``, if given, receives the log's row instead of it being written now: the caller
    hands it to :func:`state_save`, which writes it with the game and match rows.
    """
    g = engine.game
    seat = g.seat_of_player(index)
    deal_ply = g.deal.ply
    deal_number = g.deal_number
    credit = charge(match, game, index, now, lag_ms)
    try:
        record = engine.apply(action, index)
    except IllegalActionError as error:
        raise IllegalMove(engine_text(error), code=error.rule) from None
    except EngineError as error:
        raise IllegalMove(engine_text(error), code=error.rule) from None
    deal_id = _deal_id(game, deal_number)
    # The log's row, written with an INSERT built once (common.compiled); its id is not read.
    row = Action(
        deal_id=deal_id,
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
    if log is None:
        insert_row(row)
    else:
        log.append(row)
    game.ply += 1
    match.ply += 1
    if record is not None:
        _deal_end(deal_id, record, now)
    # Hollywood: a column can decide the match while the game's other columns are open; the
    # game ends with the match then, and nothing more is dealt.
    over = g.is_over or engine.is_over
    next_to_act = None if over else g.to_act_player
    if record is not None or next_to_act != index:
        turn_passes(match, game, index, now)
    if over:
        following = game_end(match, game, engine, g, now, changes)
        if following is not None and record is not None:
            pause_begin(match, following, now)
            following.save()
    elif record is not None:
        deal_begin(game, g.deal_number, g.deal.seed, g.deal.dealer, g.deal_swap, now)
        pause_begin(match, game, now)
    game.to_act = next_to_act


def _deal_end(deal_id: int, record: DealRecord, now: datetime) -> None:
    """Record how a deal ended, both hands revealed (per seat, as they were at the end)."""
    outcome = record.outcome
    if outcome is None:
        ended = {"status": Deal.Status.ABANDONED}
    else:
        ended = {
            "status": Deal.Status.FINISHED,
            "outcome": outcome_json(record),
            "termination": outcome.termination.value,
            "winner_index": record.winner_player,
            "points": outcome.points,
        }
    Deal.objects.filter(pk=deal_id).update(finished_at=now, **ended)


def outcome_json(record: DealRecord) -> dict[str, Any] | None:
    """How a deal ended, as the Deal row keeps it: the outcome and both hands at the end."""
    if record.outcome is None:
        return None
    out = record.outcome.to_json()
    out["hands"] = [[card_name(c) for c in cards_of(h)] for h in record.hands]
    return out


def game_end(
    match: Match, game: Game, engine: EngineMatch, g: Any, now: datetime, changes: Changes
) -> Game | None:
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
        changes.touch(game)
        game.save()
        return game_begin(match, engine, now)
    return None


#: What play changes on the match row until the match ends: its engine state, its ply and
#: the games won (a game that ends). The rest changes with the match's end.
PLAY_FIELDS = ("state", "ply", "games_won_a", "games_won_b", "margin_a")


def state_save(
    match: Match,
    game: Game,
    engine: EngineMatch,
    now: datetime,
    changes: Changes,
    log: list[Action] | None = None,
) -> None:
    """Persist the match row (snapshot, ply, result) and the game row after moves, with the
    log's rows :func:`apply_move` left in ``log`` (on PostgreSQL in one statement)."""
    g = engine.game
    if game.status == Game.Status.ACTIVE:
        game.score_a, game.score_b = g.scores
        game.turn_deadline = deadline(match, game, game.to_act)
    changes.touch(game)
    match.state = engine.snapshot()
    # The rows as save() writes them, with statements built once (common.compiled).
    if engine.is_over:
        write_rows(log or (), [(game, None)])
        match_finish(match=match, engine=engine, now=now)  # saves the whole row
    else:
        write_rows(log or (), [(game, None), (match, PLAY_FIELDS)])
        # The views that follow this change render from this engine (games.kept_engines).
        keep_on_commit(match.pk, engine, match.state)
    changes.saved(match, engine)


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


def forfeit_record(
    match: Match, index: int, reason: str, end_reason: str, now: datetime, changes: Changes
) -> bool:
    """Player ``index`` forfeits the match in play now (with its row locked): the deal in play
    abandoned, the game and match ended, the rows saved and the games pushed. True."""
    engine = engine_of(match)
    game = active_game(match)
    g = engine.game
    engine.forfeit_match(index, reason)
    deal = Deal.objects.get(game=game, number=g.deal_number)
    deal.status, deal.finished_at = Deal.Status.ABANDONED, now
    deal.save(update_fields=["status", "finished_at"])
    game_end(match, game, engine, g, now, changes)
    match.end_reason = end_reason
    match.end_detail = reason[:300]
    state_save(match, game, engine, now, changes)
    publish(match, changes)
    return True
