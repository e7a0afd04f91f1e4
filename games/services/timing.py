"""The clock on a match's rows: a game's deadline, a move charged, the Fischer increment.

The arithmetic is :mod:`games.clocks` (pure, over plain numbers); these apply it to a Match
and its Game row, in memory, for the caller to save. They are on the hot path of every move:
no query.
"""

from __future__ import annotations

from datetime import datetime

from games import clocks
from games.models import Game, Match


def deadline(match: Match, game: Game, index: int | None) -> datetime | None:
    """When player ``index`` runs out: their clock, or the per-turn limit if sooner."""
    if index is None or not match.is_timed or game.clock_charged_at is None or game.paused:
        return None
    return clocks.deadline(
        game.clock_ms(index) or 0,
        charged_at=game.clock_charged_at,
        turn_limit_seconds=match.turn_limit_seconds,
        turn_began_at=game.turn_began_at,
    )


def charge(match: Match, game: Game, index: int, now: datetime, lag_ms: int = 0) -> int:
    """Charge the player to act for the time since their clock was last charged.

    ``lag_ms`` is the mover's lag (their network's as measured on their socket, and the
    server's own delay on the move, see :func:`games.services.moves.action_submit`),
    credited back with lag compensation within their lag bank (:func:`games.clocks.charge`).
    Returns the credit.
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


def turn_passes(match: Match, game: Game, previous: int, now: datetime) -> None:
    """``previous`` completed a turn: Fischer increment, and the next turn's clock starts."""
    if not match.is_timed:
        return
    game.set_clock_ms(previous, (game.clock_ms(previous) or 0) + match.increment_seconds * 1000)
    game.turn_began_at = now
    game.clock_charged_at = now
