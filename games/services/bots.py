"""Bots at play: a house bot's reply to a person, and bot-vs-bot matches played whole in
memory from their seed and written in one go (bulk, ``COPY`` on PostgreSQL)."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import bots as engine_bots
from games.engine.actions import Action as EngineAction
from games.engine.bots.runner import play_match as engine_play_match
from games.engine.cards import card_name, cards_of
from games.engine.game import derive_seed
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.engine.views import view_for
from games.models import Action, Deal, Game, Match
from games.services.base import PlayError, active_game, engine_of, locked
from games.services.playing import (
    apply_move,
    forfeit_record,
    match_finish,
    outcome_json,
    state_save,
)
from games.services.publishing import Changes, follow_up
from games.services.settlement import settle

logger = logging.getLogger(__name__)


def bot_move(*, match_id: int, ply: int) -> bool:
    """Let the bot to act make its move, if the match is still at ``ply``. True if it moved."""
    now = timezone.now()
    with transaction.atomic():
        match = locked(match_id)
        if match.status != Match.Status.ACTIVE or match.ply != ply:
            return False  # already moved (a redelivered task) or the match went on
        changes = Changes()
        settle(match, now, changes)
        if match.status != Match.Status.ACTIVE or match.ply != ply:
            follow_up(match, changes)
            return True
        game = active_game(match)
        index = game.to_act
        player = match.player_a if index == 0 else match.player_b
        if index is None or not player.is_bot or game.paused:
            return False
        engine = engine_of(match)
        g = engine.game
        bot = engine_bots.make_bot(player.bot_strategy, derive_seed(match.seed, "bot", match.ply))
        view = view_for(g.deal, g.seat_of_player(index))
        try:
            action = bot.choose(view)
            if not isinstance(action, EngineAction):
                raise TypeError(f"returned {action!r}, not an action")
            apply_move(match, game, engine, action, index, now, changes=changes, auto=False)
        except Exception as error:  # a broken bot forfeits; the match is not corrupted
            # The engine refuses a move before changing anything, and nothing was written
            # for it: record the forfeit from the match as it was.
            reason = f"bot {player.bot_strategy!r} failed: {error}"
            logger.warning("match %s: %s", match.pk, reason)
            match.refresh_from_db()
            return forfeit_record(
                match, index, reason[:300], Match.EndReason.BOT_FAILURE, now, changes
            )
        state_save(match, game, engine, now, changes)
        follow_up(match, changes)
        return True


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
        match = locked(match_id)
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
        raise PlayError(_("only a match between two bots is played whole"), code="not_bots")
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
                    outcome=outcome_json(r),
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
        write_actions(rows, now)


#: The columns :func:`write_actions` fills, in its rows' order (then ``auto``, ``created_at``).
_ACTION_COLUMNS = ("deal_id", "ply", "seat", "player_id", "kind", "card", "melds")


def write_actions(rows: list[tuple[Any, ...]], now: datetime) -> None:
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
