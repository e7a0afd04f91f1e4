"""Thin tasks: load by id, return early when the work is done, call a service.

Every task may run more than once; each is idempotent through the database (the event row
lock and the recorded results for the sweep, the delivery's status for webhooks).
"""

from celery import shared_task

from tournaments import webhooks
from tournaments.services import arena, schedule, showing_up


@shared_task(name="tournaments.sweep")
def sweep() -> dict[str, int]:
    """Beat: forfeit no-shows whose grace period is over; record results a receiver missed."""
    return showing_up.sweep()


@shared_task(name="tournaments.clock_sweep")
def clock_sweep() -> dict[str, int]:
    """Beat: open the registrations and start the events whose time has come."""
    return schedule.clock_sweep()


@shared_task(name="tournaments.clock_due")
def clock_due() -> dict[str, int]:
    """Beat, every second: open and start the events whose time has just come (on time)."""
    return schedule.clock_due()


@shared_task(name="tournaments.arena_pair")
def arena_pair(event_id: int) -> int:
    """A pairing pass over an arena people play in (queued on commit of a result or rejoin)."""
    return len(arena.arena_pass(event_id=event_id).matches)


@shared_task(name="tournaments.arena_pair_bots")
def arena_pair_bots(event_id: int) -> int:
    """A pairing pass over a bot arena (batch: nobody waits for it)."""
    return len(arena.arena_pass(event_id=event_id).matches)


@shared_task(name="tournaments.arena_sweep")
def arena_sweep() -> dict[str, int]:
    """Beat, every second: pair the free players of every arena, finish those whose time is up."""
    return arena.arenas_sweep()


@shared_task(name="tournaments.deliver_webhook", bind=True, max_retries=webhooks.MAX_RETRIES)
def deliver_webhook(self, delivery_id: int) -> bool:
    """POST one webhook delivery; retry with exponential backoff, then mark it failed.

    The same backoff in both modes: a worker's retry waits its countdown in the broker;
    embedded, the next attempt waits on the in-process worker's timer.
    """
    if webhooks.deliver(delivery_id):
        return True
    if self.request.retries >= self.max_retries:
        webhooks.give_up(delivery_id)
        return False
    countdown = webhooks.backoff(self.request.retries)
    self.retry_later(countdown)  # raises Celery's Retry, except on the in-process worker
    return False
