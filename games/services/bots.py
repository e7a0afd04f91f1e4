"""Bots at play: a house bot's reply to a person, and bot-vs-bot matches played whole in
memory from their seed and written in one go (bulk, ``COPY`` on PostgreSQL)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Model
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
    """Bulk-write the games, deals and actions of a match played in memory.

    Three bulk writes whatever the length of the match: its games, then their deals (each
    ``COPY`` on PostgreSQL, with ids drawn from the tables' sequences beforehand), then
    every action.
    """
    games = engine.games
    game_ids = _bulk_insert(
        Game(match=match, status=Game.Status.FINISHED, finished_at=now),
        varying=_GAME_VARYING,
        rows=[
            (
                index,
                g.seed,
                g.first_dealer,
                sum(len(r.actions) for r in g.deals),
                g.scores[0],
                g.scores[1],
                [r.to_json() for r in g.results],
                g.results[0].winner if g.results else None,
                None if g.forfeit_by is None else g.forfeit_by[0],
                "" if g.forfeit_by is None else g.forfeit_by[1][:300],
            )
            for index, g in enumerate(games)
        ],
    )
    records = [(game_id, r) for game_id, g in zip(game_ids, games, strict=True) for r in g.deals]
    deal_ids = _bulk_insert(
        Deal(game_id=game_ids[0], finished_at=now),
        varying=_DEAL_VARYING,
        rows=[
            (
                game_id,
                r.number,
                r.seed,
                r.dealer,
                r.swap,
                Deal.Status.FINISHED if r.outcome else Deal.Status.ABANDONED,
                outcome_json(r),
                r.outcome.termination.value if r.outcome else "",
                r.winner_player,
                r.outcome.points if r.outcome else 0,
            )
            for game_id, r in records
        ],
    )
    players = match.players
    if connection.vendor != "postgresql":
        rows = []
        for deal_id, (_, record) in zip(deal_ids, records, strict=True):
            for ply, (action, s) in enumerate(zip(record.actions, record.seats, strict=True)):
                melds = None
                if action.melds is not None:
                    melds = [[card_name(c) for c in cards_of(m)] for m in action.melds]
                card = "" if action.card is None else card_name(action.card)
                kind = action.kind.value
                rows.append((deal_id, ply, s, players[s ^ record.swap], kind, card, melds))
        write_actions(rows, now)
        return
    # One COPY of text built here: the rows differ only in their deal, ply and seat, and
    # an action's columns are the same text wherever it is played.
    tail = f"\tf\t{now.isoformat()}\n"
    columns: dict[int, str] = {}
    lines = []
    for deal_id, (_, record) in zip(deal_ids, records, strict=True):
        seats = (f"0\t{players[record.swap]}\t", f"1\t{players[1 ^ record.swap]}\t")
        for ply, (action, s) in enumerate(zip(record.actions, record.seats, strict=True)):
            if action.melds is not None:
                text = _action_columns(action) + tail
            elif (text := columns.get(action.code)) is None:
                text = columns[action.code] = _action_columns(action) + tail
            lines.append(f"{deal_id}\t{ply}\t{seats[s]}{text}")
    with _copy_of_actions() as copy:
        copy.write("".join(lines))


def _bulk_insert(
    template: Model, *, varying: Sequence[str], rows: Sequence[Sequence[Any]]
) -> list[Any]:
    """Insert one row per item of ``rows``: the template's values, except the ``varying``
    fields (attnames), which take the item's values in that order. Returns the new ids.

    On PostgreSQL one ``COPY``, the ids drawn from the table's sequence first; elsewhere
    ``bulk_create``.
    """
    model = type(template)
    meta = model._meta
    fields = [f for f in meta.concrete_fields if f is not meta.pk]
    if connection.vendor != "postgresql":
        base = {f.attname: getattr(template, f.attname) for f in fields}
        objs = [model(**{**base, **dict(zip(varying, values, strict=True))}) for values in rows]
        model._default_manager.bulk_create(objs)
        return [obj.pk for obj in objs]
    # Each column: the value every row shares, prepared once (the varying ones filled in).
    shared = [
        None if f.attname in varying else f.get_db_prep_save(f.pre_save(template, True), connection)
        for f in fields
    ]
    slots = [next(i for i, f in enumerate(fields) if f.attname == name) for name in varying]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(c) for c in [meta.pk.column, *(f.column for f in fields)])
    with connection.wrap_database_errors, connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, len(rows)],
        )
        ids = [new_id for (new_id,) in cursor.fetchall()]
        with cursor.cursor.copy(f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for new_id, values in zip(ids, rows, strict=True):
                row = list(shared)
                for index, value in zip(slots, values, strict=True):
                    field = fields[index]
                    # Numbers and text go as they are; JSON and the like are prepared.
                    row[index] = (
                        value
                        if value is None or isinstance(value, int | str)
                        else field.get_db_prep_save(value, connection)
                    )
                copy.write_row([new_id, *row])
    return ids


#: The fields of a game and of a deal that differ from row to row, in the rows' order.
_GAME_VARYING = (
    "number",
    "seed",
    "first_dealer",
    "ply",
    "score_a",
    "score_b",
    "results",
    "winner_index",
    "forfeit_by",
    "forfeit_reason",
)
_DEAL_VARYING = (
    "game_id",
    "number",
    "seed",
    "dealer",
    "swap",
    "status",
    "outcome",
    "termination",
    "winner_index",
    "points",
)

#: The columns :func:`write_actions` fills, in its rows' order (then ``auto``, ``created_at``).
_ACTION_COLUMNS = ("deal_id", "ply", "seat", "player_id", "kind", "card", "melds")


def _copy_text(value: str) -> str:
    """``value`` as a column of ``COPY``'s text format (backslash escapes)."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        value = (
            value.replace("\\", "\\\\")
            .replace("\t", "\\t")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
    return value


def _action_columns(action: EngineAction) -> str:
    """The kind, card and melds columns of an action, in ``COPY``'s text format."""
    card = "" if action.card is None else card_name(action.card)
    melds = "\\N"
    if action.melds is not None:
        melds = _copy_text(json.dumps([[card_name(c) for c in cards_of(m)] for m in action.melds]))
    return f"{action.kind.value}\t{card}\t{melds}"


@contextmanager
def _copy_of_actions() -> Iterator[Any]:
    """A ``COPY`` into the actions table of :data:`_ACTION_COLUMNS`, ``auto``, ``created_at``."""
    table = connection.ops.quote_name(Action._meta.db_table)
    columns = ", ".join([*_ACTION_COLUMNS, "auto", "created_at"])
    # The raw psycopg cursor: wrap its errors as Django's, as the ORM's would be (a task
    # retries on OperationalError; a duplicate ply is an IntegrityError).
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
    ):
        yield copy


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
    with _copy_of_actions() as copy:
        for *head, melds in rows:
            copy.write_row((*head, None if melds is None else json.dumps(melds), False, now))
