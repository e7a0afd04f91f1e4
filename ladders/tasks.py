"""Thin tasks: load by id, call a service; each may run twice and changes nothing the second time.

Idempotency lives in the database: a pass deletes the queue entries it pairs in the same
transaction that creates the matches; a match starts only from ``scheduled`` under its row
lock; a rating is written once per (match, player) by a unique constraint.
"""

from celery import shared_task

from common.metrics import MATCHMAKER_PASS_SECONDS
from games.models import Match
from ladders import services


@shared_task(name="ladders.matchmake")
def matchmake(ladder_id: int) -> int:
    """One matchmaker pass over a ladder's queue (queued on commit by every join)."""
    with MATCHMAKER_PASS_SECONDS.time():
        return len(services.matchmaker_pass(ladder_id=ladder_id).matches)


@shared_task(name="ladders.start_matches")
def start_matches(match_ids: list[int]) -> int:
    """Start ladder matches the matchmaker created; those started already are skipped."""
    return sum(services.ladder_match_start(match_id=match_id) for match_id in match_ids)


@shared_task(name="ladders.rate_match")
def rate_match(match_id: int) -> bool:
    """Rate a finished pool match and requeue its bots, unless that was done already."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return False
    return services.ladder_match_finished(match=match)


@shared_task(name="ladders.sweep")
def sweep() -> int:
    """Beat, every second: catch up on missed results and lost starts, pair every queue."""
    return services.ladders_sweep().paired
