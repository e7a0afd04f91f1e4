"""The ladders' periodic sweep: what Celery beat runs every second (and the embedded sweeper).

It closes the seasons that are due and catches up on what a lost receiver or task left
undone: finished ladder matches not yet rated, matches whose start task was lost, queues
with players waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from games.models import Match
from ladders.models import LadderMatch, QueueEntry
from ladders.services import seasons
from ladders.services.matchmaking import ladder_match_start, matchmaker_pass
from ladders.services.rating import ladder_match_finished

#: A ladder match still waiting to start after this long lost its start task: the sweep starts it.
START_GRACE = timedelta(seconds=15)


@dataclass(frozen=True)
class SweepResult:
    processed: int  # finished or cancelled matches rated / requeued by the sweep
    started: int  # ladder matches whose start task was lost
    paired: int  # players paired
    closed: int = 0  # seasons closed (they were due)


def ladders_sweep(*, now: datetime | None = None, limit: int = 200) -> SweepResult:
    """What Celery beat runs every second (and the embedded sweeper thread).

    Closes the seasons that are due, catches up on finished ladder matches the receiver
    missed, starts ladder matches whose start task was lost, and runs a matchmaker pass for
    every ladder with players waiting.
    """
    now = now or timezone.now()
    closed = seasons.seasons_sweep(now=now)
    processed = 0
    pending = (
        LadderMatch.objects.filter(
            processed_at__isnull=True,
            match__status__in=(Match.Status.FINISHED, Match.Status.CANCELLED),
        )
        .select_related("match")
        .order_by("created_at")[:limit]
    )
    for link in pending:
        processed += ladder_match_finished(match=link.match, now=now)
    started = 0
    stale = LadderMatch.objects.filter(
        processed_at__isnull=True,
        match__status=Match.Status.SCHEDULED,
        created_at__lte=now - START_GRACE,
    ).values_list("match_id", flat=True)[:limit]
    for match_id in stale:
        started += ladder_match_start(match_id=match_id)
    paired = 0
    ladder_ids = (
        QueueEntry.objects.filter(available_at__lte=now)
        .order_by()
        .values_list("ladder_id", flat=True)
        .distinct()
    )
    for ladder_id in list(ladder_ids):
        paired += matchmaker_pass(ladder_id=ladder_id, now=now).paired
    return SweepResult(processed, started, paired, closed)
