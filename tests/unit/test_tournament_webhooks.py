"""Webhooks: signed JSON deliveries to a local receiver, retried with backoff, recorded."""

import hashlib
import hmac
import json

import pytest

from tests.tournaments import Receiver, by_seed, decide, event_with, humans
from tournaments import services, tasks, webhooks
from tournaments.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local_receivers(settings):
    """The receivers here listen on loopback over http: allowed only by the test settings."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True


@pytest.fixture
def fast_retries(monkeypatch):
    monkeypatch.setattr(webhooks, "backoff", lambda retries: 0)


def test_an_event_notifies_start_rounds_results_and_the_end(django_capture_on_commit_callbacks):
    event = event_with(humans(2), "single_elim")
    with Receiver() as receiver:
        Webhook.objects.create(event=event, url=receiver.url)
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
        with django_capture_on_commit_callbacks(execute=True):
            decide(event, "R1.1", by_seed(event)[1])
    assert receiver.types() == [
        "event.started",
        "round.started",
        "match.finished",
        "event.finished",
    ]
    bodies = [json.loads(body) for _, body in receiver.requests]
    assert bodies[2]["data"]["key"] == "R1.1" and bodies[2]["data"]["result"] == "forfeit"
    assert bodies[3]["data"]["champion"]["id"] == by_seed(event)[1].pk
    assert bodies[3]["event"] == {
        "id": event.pk,
        "name": event.name,
        "format": "single_elim",
        "status": "finished",
    }
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"delivered"}
    assert WebhookDelivery.objects.filter(response_status=200, attempts=1).count() == 4


def test_deliveries_are_signed_with_the_webhook_secret(django_capture_on_commit_callbacks):
    event = event_with(humans(2), "single_elim")
    with Receiver() as receiver:
        hook = Webhook.objects.create(event=event, url=receiver.url, events=["event.started"])
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
    [(headers, body)] = receiver.requests
    signature = headers["X-Ginrummy-Signature"]
    timestamp = signature.split(",")[0].removeprefix("t=")
    expected = hmac.new(hook.secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    assert signature == f"t={timestamp},v1={expected.hexdigest()}"
    assert webhooks.verify(hook.secret, signature, body)
    assert not webhooks.verify(hook.secret, signature, body.replace(b"event", b"evnt"))
    assert not webhooks.verify("another secret", signature, body)
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["id"] == headers["X-Ginrummy-Delivery"]


def test_a_failed_delivery_is_retried_and_every_response_recorded(
    django_capture_on_commit_callbacks, fast_retries
):
    event = event_with(humans(2), "single_elim")
    with Receiver(statuses=[500, 502]) as receiver:
        Webhook.objects.create(event=event, url=receiver.url, events=["event.started"])
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert delivery.response_status == 200 and delivery.response_body == "answer 3"
    # The same delivery every time: one id for the receiver to dedupe by.
    assert len({headers["X-Ginrummy-Delivery"] for headers, _ in receiver.requests}) == 1


def test_a_delivery_that_keeps_failing_is_given_up_after_the_retries(
    django_capture_on_commit_callbacks, fast_retries
):
    event = event_with(humans(2), "single_elim")
    with Receiver(statuses=[503] * 10) as receiver:
        Webhook.objects.create(event=event, url=receiver.url, events=["event.started"])
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and delivery.attempts == webhooks.MAX_RETRIES + 1
    assert delivery.response_status == 503 and delivery.error == "HTTP 503"
    assert len(receiver.requests) == webhooks.MAX_RETRIES + 1


def test_an_unreachable_receiver_is_recorded_as_an_error(fast_retries, monkeypatch):
    monkeypatch.setattr(webhooks, "MAX_RETRIES", 0)
    event = services.event_create(name="E", format="swiss")
    hook = Webhook.objects.create(event=event, url="http://127.0.0.1:9/nothing-listens")
    delivery = WebhookDelivery.objects.create(webhook=hook, event_type="event.started", payload={})
    assert webhooks.deliver(delivery.pk) is False
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.response_status is None and "connection refused" in delivery.error.lower()


def test_a_delivered_notification_is_not_sent_again():
    event = services.event_create(name="E", format="swiss")
    with Receiver() as receiver:
        hook = Webhook.objects.create(event=event, url=receiver.url)
        delivery = WebhookDelivery.objects.create(webhook=hook, event_type="x", payload={})
        assert tasks.deliver_webhook.apply(args=(delivery.pk,)).get() is True
        assert tasks.deliver_webhook.apply(args=(delivery.pk,)).get() is True
    assert len(receiver.requests) == 1


def test_a_webhook_gets_only_the_notifications_it_asked_for(django_capture_on_commit_callbacks):
    event = event_with(humans(4), "single_elim")
    with Receiver() as receiver:
        Webhook.objects.create(event=event, url=receiver.url, events=["match.finished"])
        Webhook.objects.create(event=event, url=receiver.url, active=False)
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
            s = by_seed(event)
            decide(event, "R1.1", s[1])
            decide(event, "R1.2", s[2])
    assert receiver.types() == ["match.finished", "match.finished"]


def test_nothing_is_sent_for_a_change_that_rolled_back(django_capture_on_commit_callbacks):
    from django.db import transaction

    event = event_with(humans(2), "single_elim")
    with Receiver() as receiver:
        Webhook.objects.create(event=event, url=receiver.url)
        with (
            django_capture_on_commit_callbacks(execute=True) as callbacks,
            pytest.raises(RuntimeError),
            transaction.atomic(),
        ):
            services.event_start(event=event)
            raise RuntimeError("the start failed after all")
    assert callbacks == [] and receiver.requests == []
    assert not WebhookDelivery.objects.exists()
