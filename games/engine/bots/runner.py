"""Play whole deals, games and matches between bots, in memory.

A bot only ever receives the view of its own seat.  A bot that raises, or answers with
an action the rules refuse, forfeits the match with the reason recorded; the match state
is never left half-changed, because the engine refuses an illegal action before it
changes anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..actions import Action
from ..errors import EngineError
from ..match import Match
from ..views import view_for
from . import Bot


@dataclass(frozen=True, slots=True)
class BotFailure:
    """Why a bot forfeited."""

    player: int
    bot: str
    reason: str


def _failure_reason(bot: Bot, action: object, error: BaseException | None) -> str:
    if error is not None and not isinstance(error, EngineError):
        return f"bot {bot.name!r} raised {type(error).__name__}: {error}"
    rule = getattr(error, "rule", "illegal_action")
    return f"bot {bot.name!r} chose an illegal action {action!s} ({rule}: {error})"


def play_match(
    match: Match,
    bots: tuple[Bot, Bot],
    on_decision: Callable[[int, float], None] | None = None,
) -> BotFailure | None:
    """Play ``match`` to its end with ``bots[0]`` as player 0 and ``bots[1]`` as player 1.

    ``on_decision(player, seconds)`` is told how long each decision took.  Returns the
    failure that forfeited the match, if a bot failed.
    """
    clock = time.perf_counter
    while not match.is_over:
        game = match.game
        deal = game.deal
        swap = game.deal_swap
        # The plies of one deal; once it ends the match has moved on to the next deal.
        while not deal.is_over:
            seat = deal.to_act
            player = seat ^ swap
            bot = bots[player]
            view = view_for(deal, seat)
            action: object = None
            try:
                if on_decision is None:
                    action = bot.choose(view)
                else:
                    started = clock()
                    action = bot.choose(view)
                    on_decision(player, clock() - started)
                if not isinstance(action, Action):
                    raise TypeError(f"returned {action!r}, not an Action")
                match.apply(action, player)
            except Exception as error:  # a broken bot must not break the match
                reason = _failure_reason(bot, action, error)
                match.forfeit_match(player, reason)
                return BotFailure(player, bot.name, reason)
    return None


__all__ = ["BotFailure", "play_match"]
