"""Writes of play, one module per purpose (as zulip splits its actions).

==================  =======================================================================
module              holds
==================  =======================================================================
``base``            the refusals (``PlayError``, ``NotAPlayer``, ``Conflict``,
                    ``IllegalMove``), the engine's refusals translated (``engine_text``),
                    the match's row lock, the players' locks
``timing``          the clock on a match's rows: deadlines, a move charged, the increment
                    (the arithmetic itself is the pure :mod:`games.clocks`)
``publishing``      what a change pushes and enqueues on commit (``Changes``, the follow-up)
``pause``           the pause between deals: its start and its end
``playing``         a move applied and logged, deals and games begun and ended, the rows
                    saved, the match finished (the one finishing path), a forfeit recorded
``matches``         the rules, creating, challenges and their answers, starting,
                    cancelling, forfeiting (a table match's concession is handed over)
``settlement``      clocks settled (timeouts, autoplay, the sweep), berserk
``moves``           a player's move, continuing after a deal, a move by its client id
``bots``            a bot's reply; bot-vs-bot matches played whole and bulk-written
``lost_work``       the sweeps that redo bot work whose task was lost
``analysis``        a finished match's analysis asked for, its steps, its sweep
==================  =======================================================================

Every state change runs in one transaction that first locks the match row and publishes its
follow-up work (a bot's reply, a clock countdown) on commit, by task name
(:mod:`common.enqueue`), so nothing is enqueued for a change that rolled back and no service
imports the tasks. What one change touched travels as a ``Changes`` value from the service
that locked the match to the steps it calls, never on the match row object.

The modules import each other one way only: ``base``, ``timing`` and ``publishing`` first,
then ``pause``, ``playing``, then ``matches`` and ``settlement``, then ``moves`` and ``bots``,
and ``lost_work`` and ``analysis`` on those (import-linter's "games.services in layers"
contract). Reads, the clock's time left among them
(:func:`games.selectors.clock_remaining_ms`), live in :mod:`games.selectors`, which imports
no service.

A table match is conceded by :mod:`games.tables`, which builds on these services: the table
module's ``table_concede`` is registered with :func:`table_concession_register` when the app
is ready (:class:`games.apps.GamesConfig`), so no service imports the module above it.

Everything other code imported from the single ``games.services`` module is re-exported
here, so ``from games import services`` and ``services.action_submit(...)`` keep working;
code inside the project may import the specific module instead.
"""

from games.clocks import LAG_BANK_MS, LAG_QUOTA_MS, TimeControl
from games.engine.actions import Action as EngineAction
from games.selectors import clock_remaining_ms, turn_remaining_ms
from games.services.base import (
    Conflict,
    IllegalMove,
    NotAPlayer,
    PlayError,
    engine_text,
    lock_players,
)
from games.services.bots import bot_move, match_play_bots
from games.services.lost_work import (
    BOT_MATCH_STALE,
    BOT_REPLY_STALE,
    bot_match_sweep,
    bot_reply_sweep,
    bot_work_sweep,
)
from games.services.matches import (
    RULES_MAX_OPTIONS,
    RULES_NAME_MAX_LENGTH,
    challenge_answer,
    challenge_create,
    match_cancel,
    match_create,
    match_forfeit,
    match_in_progress,
    match_start,
    refuse_in_ranked_match,
    refuse_in_tournament_match,
    rules_build,
    rules_check_players,
    table_concession_register,
)
from games.services.moves import action_by_client_id, action_submit, game_continue
from games.services.playing import match_finish
from games.services.settlement import (
    AUTOPLAY_BOT,
    AUTOPLAY_LIMIT,
    clock_due,
    clock_settle,
    clock_settle_if_due,
    clocks_sweep,
    match_berserk,
)

__all__ = [
    "AUTOPLAY_BOT",
    "AUTOPLAY_LIMIT",
    "BOT_MATCH_STALE",
    "BOT_REPLY_STALE",
    "LAG_BANK_MS",
    "LAG_QUOTA_MS",
    "RULES_MAX_OPTIONS",
    "RULES_NAME_MAX_LENGTH",
    "Conflict",
    "EngineAction",
    "IllegalMove",
    "NotAPlayer",
    "PlayError",
    "TimeControl",
    "action_by_client_id",
    "action_submit",
    "bot_match_sweep",
    "bot_move",
    "bot_reply_sweep",
    "bot_work_sweep",
    "challenge_answer",
    "challenge_create",
    "clock_due",
    "clock_remaining_ms",
    "clock_settle",
    "clock_settle_if_due",
    "clocks_sweep",
    "engine_text",
    "game_continue",
    "lock_players",
    "match_berserk",
    "match_cancel",
    "match_create",
    "match_finish",
    "match_forfeit",
    "match_in_progress",
    "match_play_bots",
    "match_start",
    "refuse_in_ranked_match",
    "refuse_in_tournament_match",
    "rules_build",
    "rules_check_players",
    "table_concession_register",
    "turn_remaining_ms",
]
