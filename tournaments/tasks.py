"""Thin tasks: load by id, return early when the work is done, call a service.

Every task may run more than once; each is idempotent through the database (the event row
lock and the recorded results for the sweep, the delivery's status for webhooks).
"""

from celery import shared_task

from tournaments import services, webhooks


@shared_task(name="tournaments.sweep")
def sweep() -> dict[str, int]:
    """Beat: forfeit no-shows whose grace period is over; record results a receiver missed."""
    return services.sweep()


@shared_task(name="tournaments.deliver_webhook", bind=True, max_retries=webhooks.MAX_RETRIES)
def deliver_webhook(self, delivery_id: int) -> bool:
    """POST one webhook delivery; retry with exponential backoff, then mark it failed."""
    if webhooks.deliver(delivery_id):
        return True
    if self.request.retries >= self.max_retries:
        webhooks.give_up(delivery_id)
        return False
    raise self.retry(countdown=webhooks.backoff(self.request.retries))
