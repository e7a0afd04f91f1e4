"""The pause between deals of a timed game with a person: no clock runs while both read the
result, until both continue (:func:`games.services.moves.game_continue`) or it runs out
(:func:`games.services.settlement.settle`)."""

from __future__ import annotations

from datetime import datetime, timedelta

from games.models import Deal, Game, Match
from games.services.timing import deadline


def pause_begin(match: Match, game: Game, now: datetime) -> None:
    """A deal of a timed game with a person ended: no clock runs while both read the result.

    The next deal (already dealt by the engine, and hidden from the views meanwhile) starts
    when both players continue (bots at once) or ``match.pause_seconds`` pass.
    """
    if not match.is_timed or not match.pause_seconds or match.is_bot_match:
        return
    game.continued = (1 if match.player_a.is_bot else 0) | (2 if match.player_b.is_bot else 0)
    game.pause_deadline = now + timedelta(seconds=match.pause_seconds)
    game.turn_deadline = None


def pause_end(match: Match, game: Game, at: datetime) -> None:
    """The next deal starts at ``at``: the player to act's clock runs from then."""
    game.pause_deadline = None
    game.continued = 0
    game.clock_charged_at = game.turn_began_at = at
    game.turn_deadline = deadline(match, game, game.to_act)
    Deal.objects.filter(game=game, status=Deal.Status.ACTIVE).update(clock_started_at=at)
