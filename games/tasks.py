"""Thin tasks: load by id, return early when the work is done, call a service.

Every task may run more than once (late acks, redelivery); each is idempotent through the
database: the match row lock plus a status or ply check, and unique constraints on the log.
"""

from celery import shared_task

from games import seeks, services
from games.services import analysis


@shared_task(name="games.play_match")
def play_match(match_id: int) -> bool:
    """Play a bot-vs-bot match whole and write it; a finished match is left alone."""
    return services.match_play_bots(match_id=match_id)


@shared_task(name="games.bot_move")
def bot_move(match_id: int, ply: int) -> bool:
    """The bot to act in a human-vs-bot match moves, if the match is still at ``ply``."""
    return services.bot_move(match_id=match_id, ply=ply)


@shared_task(name="games.settle_clock")
def settle_clock(match_id: int) -> bool:
    """Countdown shortcut: settle the match's clock if its deadline has passed.

    Most countdowns find the player moved long before: one unlocked read answers those
    without a transaction or the match's lock."""
    if not services.clock_due(match_id=match_id):
        return False
    return services.clock_settle(match_id=match_id)


@shared_task(name="games.sweep_clocks")
def sweep_clocks() -> int:
    """Beat, every second (interactive): settle every game whose deadline has passed, then
    make the bot replies to people whose task was lost (services.bot_reply_sweep)."""
    settled = services.clocks_sweep()
    services.bot_reply_sweep()
    return settled


@shared_task(name="games.sweep_bot_matches")
def sweep_bot_matches(matches: int = 20) -> int:
    """Beat, every 10 s (batch, behind the matches queued before it): play the bot-vs-bot
    matches whose task was lost (services.bot_match_sweep), at most ``matches`` of them."""
    return services.bot_match_sweep(matches=matches)


@shared_task(name="games.analyse_match")
def analyse_match(analysis_id: int) -> bool:
    """One step of a match's analysis (batch): its next decisions for a few seconds of CPU,
    then the next step is queued (games.services.analysis)."""
    return analysis.analysis_step(analysis_id=analysis_id)


@shared_task(name="games.sweep_analyses")
def sweep_analyses() -> int:
    """Beat, every minute (batch): queue again the analyses whose step was lost."""
    return analysis.analysis_sweep()


@shared_task(name="games.sweep_seeks")
def sweep_seeks() -> int:
    """Beat, every 15 s (batch): mark the open games past their time expired, and tell the
    lobby (games.seeks.seeks_expire; they are already left out of the list and refused)."""
    return seeks.seeks_expire()
