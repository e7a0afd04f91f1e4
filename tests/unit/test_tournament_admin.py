"""Every admin action an organiser has, done through the admin pages (staff only)."""

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages

from games.models import Match
from tests.factories import BotFactory
from tests.tournaments import by_seed, decide, event_with, humans, pairing
from tournaments import services
from tournaments.models import Entry, Event, EventLog, Pairing, Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

EVENT_FORM = {
    "name": "Friday night gin",
    "format": "single_elim",
    "rules_preset": "standard",
    "best_of": 5,
    "target": 250,
    "base_seconds": 600,
    "increment_seconds": 5,
    "timeout_policy": "forfeit",
    "grace_seconds": 300,
    "venue": "online",
    "seeding": "random",
    "bracket_reset": "on",
    "tiebreak_1": "buchholz",
    "tiebreak_2": "sonneborn_berger",
    "tiebreak_3": "games_won",
    "tiebreak_4": "margin",
    "tiebreak_unplayed": "fide",
    "group_format": "round_robin",
    "advance_per_group": 2,
    "playoff_format": "single_elim",
    "entries-TOTAL_FORMS": 0,
    "entries-INITIAL_FORMS": 0,
    "webhooks-TOTAL_FORMS": 0,
    "webhooks-INITIAL_FORMS": 0,
}


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def action(client, model: str, name: str, objects, **extra):
    return client.post(
        f"/admin/tournaments/{model}/",
        {"action": name, "_selected_action": [o.pk for o in objects], **extra},
        follow=True,
    )


def test_staff_create_an_event_and_it_is_audited(admin_client, admin_user):
    response = admin_client.post("/admin/tournaments/event/add/", EVENT_FORM)
    assert response.status_code == 302, response.content
    event = Event.objects.get()
    assert event.name == "Friday night gin" and event.status == Event.Status.DRAFT
    assert event.created_by == admin_user
    assert EventLog.objects.get(event=event).action == "create"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("format", "ladder_of_doom", "Select a valid choice"),
        ("seeding", "by_shoe_size", "Select a valid choice"),
        ("tiebreak_1", "coin_toss", "Select a valid choice"),
        ("rule_knock_limit", "ten", "Enter a whole number"),
        ("rules_preset", "strip_gin", "Select a valid choice"),
    ],
)
def test_creating_an_event_with_a_bad_option_shows_the_error(admin_client, field, value, message):
    response = admin_client.post("/admin/tournaments/event/add/", {**EVENT_FORM, field: value})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Event.objects.exists()


def test_staff_edit_an_event_until_it_starts(admin_client):
    event = event_with(humans(2), "single_elim")
    url = f"/admin/tournaments/event/{event.pk}/change/"
    entries = list(event.entries.all())
    form = {
        **EVENT_FORM,
        "name": "Renamed",
        "target": 150,
        "entries-TOTAL_FORMS": 2,
        "entries-INITIAL_FORMS": 2,
        **{f"entries-{i}-id": e.pk for i, e in enumerate(entries)},
        **{f"entries-{i}-event": event.pk for i in range(2)},
        **{f"entries-{i}-player": e.player_id for i, e in enumerate(entries)},
    }
    assert admin_client.post(url, form).status_code == 302
    event.refresh_from_db()
    assert (event.name, event.target) == ("Renamed", 150)
    assert EventLog.objects.filter(event=event, action="edit").exists()
    services.event_start(event=event)
    page = admin_client.get(url).content.decode()
    assert 'name="target"' not in page and 'name="name"' in page  # started: settings frozen


def test_the_admin_is_for_staff_only(alice_client, client, alice):
    from django.test import Client

    browser = Client()
    browser.force_login(alice.user)
    assert browser.get("/admin/tournaments/event/").status_code == 302  # to the sign-in page
    assert Client().get("/admin/tournaments/event/").status_code == 302


def test_open_and_close_registration(admin_client):
    event = services.event_create(name="E", format="swiss")
    response = action(admin_client, "event", "open_registration", [event])
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION and services.registration_open(event)
    assert "Registration opened: 1." in messages_of(response)
    action(admin_client, "event", "close_registration", [event])
    event.refresh_from_db()
    assert not services.registration_open(event)
    assert EventLog.objects.filter(action="close_registration").count() == 1
    action(admin_client, "event", "open_registration", [event])
    event.refresh_from_db()
    assert services.registration_open(event)


def test_closing_registration_of_a_draft_is_refused_with_a_message(admin_client):
    event = services.event_create(name="E", format="swiss")
    response = action(admin_client, "event", "close_registration", [event])
    assert "E: registration is not open" in messages_of(response)


def test_staff_add_players_and_bots_through_the_entries_inline(admin_client, alice):
    event = services.event_create(name="E", format="swiss")
    bot = BotFactory(name="Greedy Gus", bot_strategy="greedy")
    form = {
        **EVENT_FORM,
        "name": "E",
        "format": "swiss",
        "entries-TOTAL_FORMS": 2,
        "entries-0-player": alice.pk,
        "entries-0-event": event.pk,
        "entries-1-player": bot.pk,
        "entries-1-event": event.pk,
    }
    response = admin_client.post(f"/admin/tournaments/event/{event.pk}/change/", form)
    assert response.status_code == 302
    assert {e.player for e in event.entries.all()} == {alice, bot}
    assert EventLog.objects.filter(event=event, action="add_entry").count() == 2


def test_adding_a_player_to_a_full_event_shows_why(admin_client, alice, bob, charlie):
    event = event_with([alice, bob], "swiss", capacity=2)
    response = admin_client.post(
        f"/admin/tournaments/event/{event.pk}/change/",
        {
            **EVENT_FORM,
            "name": event.name,
            "format": "swiss",
            "capacity": 2,
            "entries-TOTAL_FORMS": 1,
            "entries-0-player": charlie.pk,
            "entries-0-event": event.pk,
        },
        follow=True,
    )
    assert any("the event is full (2 players)" in m for m in messages_of(response))
    assert event.entries.count() == 2


def test_staff_add_bots_with_a_form(admin_client):
    event = services.event_create(name="E", format="single_elim")
    url = f"/admin/tournaments/event/{event.pk}/add-bots/"
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(url, {"count": 5, "strategy": "expert"}, follow=True)
    assert "Added 5 bot(s)." in messages_of(response)
    assert event.entries.filter(player__bot_strategy="expert").count() == 5


def test_staff_seed_the_entries(admin_client):
    event = event_with(humans(4), "single_elim", seeding_seed=7)
    response = action(admin_client, "event", "seed_entries", [event])
    assert "Seeded: 1." in messages_of(response)
    assert sorted(event.entries.values_list("seed", flat=True)) == [1, 2, 3, 4]
    assert EventLog.objects.get(action="seed").detail == {"method": "random", "seeding_seed": 7}


def test_a_random_seeding_before_the_start_is_provisional(admin_client):
    event = event_with(humans(4), "single_elim")
    action(admin_client, "event", "seed_entries", [event])
    event.refresh_from_db()
    assert sorted(event.entries.values_list("seed", flat=True)) == [1, 2, 3, 4]
    assert event.seeding_seed is None
    assert EventLog.objects.get(action="seed").detail == {"method": "random", "seeding_seed": None}
    action(admin_client, "event", "start_events", [event])
    event.refresh_from_db()
    assert event.seeding_seed is not None
    assert EventLog.objects.get(action="start").detail["seeding_seed"] == event.seeding_seed


def test_staff_seed_by_hand_in_the_entries_inline(admin_client):
    event = event_with(humans(2), "single_elim", seeding="manual")
    entries = list(event.entries.order_by("pk"))
    form = {
        **EVENT_FORM,
        "name": event.name,
        "seeding": "manual",
        "entries-TOTAL_FORMS": 2,
        "entries-INITIAL_FORMS": 2,
    }
    for i, (entry, seed) in enumerate(zip(entries, (2, 1), strict=True)):
        form |= {
            f"entries-{i}-id": entry.pk,
            f"entries-{i}-event": event.pk,
            f"entries-{i}-player": entry.player_id,
            f"entries-{i}-seed": seed,
        }
    assert (
        admin_client.post(f"/admin/tournaments/event/{event.pk}/change/", form).status_code == 302
    )
    action(admin_client, "event", "seed_entries", [event])
    assert [e.pk for e in event.entries.order_by("seed")] == [entries[1].pk, entries[0].pk]


def test_staff_start_an_event(admin_client):
    event = event_with(humans(4), "single_elim")
    response = action(admin_client, "event", "start_events", [event])
    assert "Started: 1." in messages_of(response)
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    assert Match.objects.filter(source="tournament", status="scheduled").count() == 2


def test_starting_an_event_with_one_entry_shows_why_and_changes_nothing(admin_client, alice):
    event = event_with([alice], "single_elim")
    response = action(admin_client, "event", "start_events", [event])
    assert any("needs at least two entries" in m for m in messages_of(response))
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


def test_staff_cancel_an_event_with_a_reason(admin_client, admin_user):
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    page = action(admin_client, "event", "cancel_events", [event])
    assert "reason" in page.content.decode()  # the intermediate page asks for one
    response = action(admin_client, "event", "cancel_events", [event], apply=1, reason="flood")
    assert "Cancelled: 1." in messages_of(response)
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED and event.cancel_reason == "flood"
    log = EventLog.objects.get(action="cancel")
    assert log.actor == admin_user and log.reason == "flood"


def test_staff_withdraw_an_entry_with_a_reason(admin_client):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    entry = event.entries.get(seed=2)
    response = action(admin_client, "entry", "withdraw_entries", [entry], apply=1, reason="ill")
    assert "Withdrawn: 1." in messages_of(response)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN and entry.note == "ill"
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert event.champion == event.entries.get(seed=1).player


def test_staff_disqualify_an_entry(admin_client):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    entry = event.entries.get(seed=1)
    action(admin_client, "entry", "disqualify_entries", [entry], apply=1, reason="cheating")
    entry.refresh_from_db()
    assert entry.status == Entry.Status.DISQUALIFIED
    assert pairing(event, "R1.1").match.end_detail == "disqualified: cheating"


def test_withdrawing_without_a_reason_asks_again(admin_client):
    event = event_with(humans(2), "single_elim")
    entry = event.entries.first()
    response = action(admin_client, "entry", "withdraw_entries", [entry], apply=1, reason="")
    assert "This field is required" in response.content.decode()
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_staff_reinstate_an_entry(admin_client):
    event = event_with(humans(3), "swiss")
    entry = event.entries.first()
    services.entry_withdraw(entry=entry)
    response = action(admin_client, "entry", "reinstate_entries", [entry])
    assert "Reinstated: 1." in messages_of(response)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_staff_check_in_an_entry(admin_client):
    from django.utils import timezone

    event = event_with(humans(2), "swiss", check_in_opens_at=timezone.now())
    entry = event.entries.first()
    response = action(admin_client, "entry", "check_in_entries", [entry])
    assert "Checked in: 1." in messages_of(response)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN


def test_staff_override_a_result_and_the_bracket_is_repaired(admin_client, admin_user):
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    decide(event, "R1.2", s[2])
    first = pairing(event, "R1.1")
    url = f"/admin/tournaments/pairing/{first.pk}/override/"
    page = admin_client.get(url).content.decode()
    assert s[1].name in page and s[4].name in page
    response = admin_client.post(url, {"winner": s[4].pk, "reason": "slow play"}, follow=True)
    assert any("wins (overridden)" in m for m in messages_of(response))
    assert pairing(event, "R1.1").winner.player == s[4]
    final = pairing(event, "R2.1").match
    assert {final.player_a, final.player_b} == {s[4], s[2]}
    log = EventLog.objects.get(action="override_result")
    assert (log.actor, log.reason) == (admin_user, "slow play") and log.at is not None
    assert admin_client.get("/admin/tournaments/eventlog/").status_code == 200


def test_an_override_naming_someone_else_shows_the_error_and_changes_nothing(admin_client, charlie):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    response = admin_client.post(
        f"/admin/tournaments/pairing/{p.pk}/override/",
        {"winner": charlie.pk, "reason": "why not"},
    )
    assert f"{charlie.name} did not play in this match" in response.content.decode()
    p.refresh_from_db()
    assert p.result == "" and p.match.status == Match.Status.SCHEDULED


def test_an_override_without_a_reason_is_refused(admin_client):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    response = admin_client.post(
        f"/admin/tournaments/pairing/{p.pk}/override/", {"winner": p.entry_a.player_id}
    )
    assert "This field is required" in response.content.decode()
    assert pairing(event, "R1.1").result == ""


def test_staff_rerun_a_failed_bot_match(admin_client):
    bots = [BotFactory(name=f"B{i}", bot_strategy="greedy") for i in range(2)]
    event = event_with(bots, "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    # The worker never played it (in this test nothing runs on commit): a stuck bot match.
    response = action(admin_client, "pairing", "rerun_bot_matches", [p])
    assert "Re-run: 1." in messages_of(response)
    rerun = pairing(event, "R1.1")
    assert rerun.match_id != p.match_id and rerun.status == Pairing.Status.PLAYING
    assert Match.objects.get(pk=p.match_id).status == Match.Status.CANCELLED
    assert EventLog.objects.filter(action="rerun").exists()


def test_a_match_decided_by_its_games_is_not_rerun(admin_client):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    response = action(admin_client, "pairing", "rerun_bot_matches", [p])
    assert any("only a bot match is re-run" in m for m in messages_of(response))


def test_staff_see_webhook_deliveries_and_send_one_again(admin_client, monkeypatch):
    from tournaments import tasks

    sent = []
    monkeypatch.setattr(tasks.deliver_webhook, "delay_on_commit", sent.append)
    event = services.event_create(name="E", format="swiss")
    hook = Webhook.objects.create(event=event, url="http://127.0.0.1:9/hook")
    delivery = WebhookDelivery.objects.create(
        webhook=hook, event_type="event.started", payload={}, status="failed", attempts=6
    )
    assert admin_client.get(f"/admin/tournaments/webhook/{hook.pk}/change/").status_code == 200
    assert admin_client.get("/admin/tournaments/webhookdelivery/").status_code == 200
    action(admin_client, "webhookdelivery", "deliver_again", [delivery])
    delivery.refresh_from_db()
    assert delivery.status == "pending" and sent == [delivery.pk]


@pytest.mark.parametrize(
    "page",
    [
        "/admin/tournaments/event/",
        "/admin/tournaments/event/add/",
        "/admin/tournaments/entry/",
        "/admin/tournaments/pairing/",
        "/admin/tournaments/eventlog/",
        "/admin/tournaments/webhook/",
    ],
)
def test_admin_pages_render(admin_client, page):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    assert admin_client.get(page).status_code == 200
    assert admin_client.get(f"/admin/tournaments/event/{event.pk}/change/").status_code == 200
    p = pairing(event, "R1.1")
    assert admin_client.get(f"/admin/tournaments/pairing/{p.pk}/change/").status_code == 200


def test_staff_who_may_only_view_are_offered_no_action(admin_client):
    from django.contrib.auth.models import Permission
    from django.test import Client

    from tests.factories import UserFactory

    viewer = UserFactory(username="vera", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    browser = Client()
    browser.force_login(viewer)
    event = event_with(humans(2), "single_elim")

    pages = {
        "event list": "/admin/tournaments/event/",
        "entry list": "/admin/tournaments/entry/",
        "pairing list": "/admin/tournaments/pairing/",
        "delivery list": "/admin/tournaments/webhookdelivery/",
    }
    for where, page in pages.items():
        seen = browser.get(page)
        assert seen.status_code == 200, where
        assert 'name="action"' not in seen.content.decode(), where  # no actions menu at all
    assert 'value="start_events"' in admin_client.get(pages["event list"]).content.decode()
    refused = action(browser, "event", "start_events", [event])
    assert refused.status_code == 200 and "Started" not in " ".join(messages_of(refused))
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


def test_staff_create_an_event_for_bots_only_in_the_form(admin_client):
    response = admin_client.post("/admin/tournaments/event/add/", {**EVENT_FORM, "bots_only": "on"})
    assert response.status_code == 302, response.content
    assert Event.objects.get().bots_only is True


def _moment(minutes: float) -> str:
    from django.utils import timezone

    return (timezone.now() + timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S")


def _admin_when(minutes: float) -> dict:
    """The admin's split date and time widget's fields for a moment ``minutes`` from now."""
    date, time = _moment(minutes).split(" ")
    return {"starts_at_0": date, "starts_at_1": time}


def test_staff_put_an_event_on_a_clock_in_the_form_and_its_check_in_follows_the_start(
    admin_client,
):
    response = admin_client.post(
        "/admin/tournaments/event/add/",
        {**EVENT_FORM, **_admin_when(120), "check_in_minutes": 30, "description": "Bring cards"},
    )
    assert response.status_code == 302, response.content
    event = Event.objects.get()
    assert event.description == "Bring cards"
    assert event.starts_at - event.check_in_opens_at == timedelta(minutes=30)
    assert (event.repeat_lead_minutes, event.repeat_timezone) == (60, "UTC")  # the defaults


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (lambda: _admin_when(-5), "the start is in the past"),
        (lambda: {**_admin_when(10), "check_in_minutes": 30}, "check-in"),
        (lambda: {**_admin_when(60), "repeat_rule": "FREQ=SOMETIMES"}, "repeat"),
        (lambda: {**_admin_when(60), "repeat_rule": "FREQ=MINUTELY"}, "15 minutes"),
    ],
)
def test_a_clock_that_cannot_run_is_refused_in_the_form_as_by_the_api(admin_client, fields, named):
    response = admin_client.post("/admin/tournaments/event/add/", {**EVENT_FORM, **fields()})
    assert response.status_code == 200  # the form again, with the refusal beside its field
    errors = response.context["adminform"].form.errors
    assert any(named in message for messages in errors.values() for message in messages), errors
    assert not Event.objects.exists()
