"""Listeners: what ladders do when games (or accounts) tells them something happened."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from accounts.models import Player
from games.models import Match
from ladders import services
from ladders.models import QueueEntry
from ladders.services import fairplay

logger = logging.getLogger(__name__)


def on_match_finished(sender: Any, match: Match, **kwargs: Any) -> None:
    """Rate a finished match of a pool and requeue its bots, in the finishing transaction.

    Runs for every finished match; one primary-key lookup tells whether a pool rates it.
    Idempotent (see ``services.ladder_match_finished``): sending the signal twice rates once.
    """
    services.ladder_match_finished(match=match)


def on_rated_match_finished(
    sender: Any, match: Match, override: bool = False, **kwargs: Any
) -> None:
    """A rated event recorded a result: rate it in the rated-events pool, exactly once.

    Sent by tournaments inside the transaction that records the result. An organiser's later
    override of a result already rated is not re-rated here (the history is append-only):
    ``manage.py ladder_replay rated-events --write`` recomputes the ratings from the results.
    """
    if match.status != Match.Status.FINISHED or match.winner_id is None:
        return
    pool = services.rated_events_pool()
    try:
        with transaction.atomic():  # a refusal must not undo the event's result
            changes = services.rating_apply(pool=pool, match=match)
    except services.LadderError as error:
        logger.error("rated event match %s was not rated: %s", match.pk, error)
        return
    rated_winner = next((c.player_id for c in changes if c.won), None)
    if override and rated_winner != match.winner_id:
        logger.warning(
            "match %s was rated with %s winning; an override now gives it to %s: run "
            "`manage.py ladder_replay %s --write` to recompute the ratings",
            match.pk,
            rated_winner,
            match.winner_id,
            pool.slug,
        )


def on_analysis_finished(sender: Any, match: Match, analysis: Any, **kwargs: Any) -> None:
    """A match's analysis is done: fair play counts it if a pool rated it between people
    (once per match; see ``services.fairplay``)."""
    fairplay.fairplay_count(match=match, analysis=analysis)


def on_player_deleted(player: Player) -> None:
    """A deleted account leaves the ladder queue it waits in (a hook of ``accounts.hooks``)."""
    QueueEntry.objects.filter(player=player).delete()
