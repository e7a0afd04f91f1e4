"""The organiser API: every admin action on events, entries, pairings and webhooks.

The cast: olga organises (staff holding the one permission each action needs, given per test,
and the right to manage every event: whose event it is, is tests/unit/test_event_ownership.py's
concern), vera is staff who may only view, pat is a player. Each endpoint is walked three ways (olga
with the permission, vera, pat) and then its rule is told as a story.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from games.models import Match
from tests.factories import PlayerFactory
from tests.tournaments import bots, decide, event_with, humans, pairing
from tournaments import services
from tournaments.models import Entry, Event, EventLog, Pairing, Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

PUBLIC_URL = "https://93.184.216.34/gin"  # a literal public address: no lookup needed


def staff(username: str, *permissions: str):
    user = PlayerFactory(user__username=username).user
    user.is_staff = True
    user.save()
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    for name in permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return type(user).objects.get(pk=user.pk)  # permissions are cached on the user


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


@pytest.fixture
def vera(db):
    return client_of(staff("vera"))


@pytest.fixture
def pat(db):
    return client_of(PlayerFactory(user__username="pat").user)


def organiser(*permissions: str) -> APIClient:
    return client_of(staff("olga", "tournaments.manage_all_events", *permissions))


def staff_without(permission: str) -> APIClient:
    """Staff holding every permission there is but ``permission``."""
    user = staff("nearly")
    app_label, codename = permission.split(".")
    user.user_permissions.set(
        Permission.objects.exclude(content_type__app_label=app_label, codename=codename)
    )
    return client_of(type(user).objects.get(pk=user.pk))


def log_actions(event: Event) -> list[str]:
    return list(
        EventLog.objects.filter(event=event).order_by("id").values_list("action", flat=True)
    )


# --- who may: every endpoint, three ways ----------------------------------------------------


def _running(world):
    return world["running"]


ENDPOINTS = [
    # (method, path given the world, body, the permission it needs)
    ("patch", lambda w: f"/api/events/{w['open'].pk}", {"name": "Renamed"}, "change_event"),
    ("post", lambda w: f"/api/events/{w['draft'].pk}/open-registration", {}, "change_event"),
    ("post", lambda w: f"/api/events/{w['open'].pk}/close-registration", {}, "change_event"),
    ("post", lambda w: f"/api/events/{w['open'].pk}/players", "charlie", "change_event"),
    (
        "post",
        lambda w: f"/api/events/{w['open'].pk}/bots",
        {"count": 1, "strategy": "greedy"},
        "change_event",
    ),
    ("post", lambda w: f"/api/events/{w['open'].pk}/import", "csv", "change_event"),
    ("post", lambda w: f"/api/events/{w['open'].pk}/seed", {"seeding": "random"}, "change_event"),
    ("post", lambda w: f"/api/events/{w['ready'].pk}/start", {}, "change_event"),
    ("post", lambda w: f"/api/events/{w['open'].pk}/cancel", {"reason": "rain"}, "change_event"),
    ("get", lambda w: f"/api/events/{w['open'].pk}/log", None, "view_eventlog"),
    (
        "post",
        lambda w: f"/api/events/{w['open'].pk}/entries/{w['entry'].pk}/withdraw",
        {"reason": "ill"},
        "change_entry",
    ),
    (
        "post",
        lambda w: f"/api/events/{w['open'].pk}/entries/{w['entry'].pk}/disqualify",
        {"reason": "cheated"},
        "change_entry",
    ),
    (
        "post",
        lambda w: f"/api/events/{w['open'].pk}/entries/{w['withdrawn'].pk}/reinstate",
        {},
        "change_entry",
    ),
    (
        "post",
        lambda w: f"/api/events/{w['open'].pk}/entries/{w['entry'].pk}/check-in",
        {},
        "change_entry",
    ),
    (
        "post",
        lambda w: f"/api/events/{w['running'].pk}/pairings/R1.1/override",
        "winner",
        "change_pairing",
    ),
    ("post", lambda w: f"/api/events/{w['running'].pk}/pairings/R1.1/rerun", {}, "change_pairing"),
    ("post", lambda w: f"/api/events/{w['running'].pk}/webhooks", "hook", "add_webhook"),
    ("get", lambda w: f"/api/events/{w['running'].pk}/webhooks", None, "view_webhook"),
    (
        "get",
        lambda w: f"/api/events/{w['running'].pk}/webhooks/{w['hook'].pk}/deliveries",
        None,
        "view_webhookdelivery",
    ),
    (
        "post",
        lambda w: (
            f"/api/events/{w['running'].pk}/webhooks/{w['hook'].pk}/deliveries/"
            f"{w['delivery'].pk}/resend"
        ),
        {},
        "change_webhookdelivery",
    ),
]


@pytest.fixture
def world(alice, bob, charlie):
    draft = services.event_create(name="Draft", format="swiss")
    open_event = event_with([alice, bob], "swiss", check_in_opens_at="2000-01-01T00:00Z")
    withdrawn = services.entry_add(event=open_event, player=PlayerFactory(name="Wendy"))
    services.entry_withdraw(entry=withdrawn, reason="away")
    running = event_with(humans(4), "single_elim")
    services.event_start(event=running)
    hook = Webhook.objects.create(event=running, url=PUBLIC_URL)
    delivery = WebhookDelivery.objects.create(
        webhook=hook, event_type="event.started", payload={}, status="failed", attempts=6
    )
    return {
        "draft": draft,
        "open": open_event,
        "ready": event_with(bots(2), "swiss"),
        "entry": open_event.entries.get(player=alice),
        "withdrawn": withdrawn,
        "running": running,
        "hook": hook,
        "delivery": delivery,
        "charlie": charlie,
    }


def body_for(kind, world):
    if kind == "charlie":
        return {"player": world["charlie"].pk}
    if kind == "csv":
        return {"csv": "name\nCharlie\n"}
    if kind == "winner":
        return {"winner": pairing(world["running"], "R1.1").entry_a.player_id, "reason": "judge"}
    if kind == "hook":
        return {"url": PUBLIC_URL}
    return kind


def snapshot():
    return (
        list(Event.objects.order_by("pk").values_list()),
        list(Entry.objects.order_by("pk").values_list()),
        list(Pairing.objects.order_by("pk").values_list()),
        list(EventLog.objects.order_by("pk").values_list()),
        list(Webhook.objects.order_by("pk").values_list()),
        list(WebhookDelivery.objects.order_by("pk").values_list()),
    )


@pytest.mark.parametrize(
    "method,path,body,permission",
    ENDPOINTS,
    ids=[f"{i}-{e[0]}-{e[3]}" for i, e in enumerate(ENDPOINTS)],
)
def test_each_endpoint_needs_its_permission(world, vera, pat, method, path, body, permission):
    url, data = path(world), body_for(body, world)
    call = lambda client: getattr(client, method)(url, data, format="json")  # noqa: E731
    refused_to = [staff_without(f"tournaments.{permission}"), pat]
    if method != "get":
        refused_to.append(vera)  # reads need a view permission, which vera holds
    before = snapshot()

    refused = [call(client) for client in refused_to]

    assert [r.status_code for r in refused] == [403] * len(refused_to)
    assert {r.json()["code"] for r in refused} == {"permission_denied"}
    assert snapshot() == before
    allowed = call(organiser(f"tournaments.{permission}"))
    assert allowed.status_code not in (401, 403) and allowed.status_code < 500, allowed.content


def test_an_anonymous_caller_is_told_to_sign_in(world):
    response = APIClient().post(f"/api/events/{world['open'].pk}/start", {}, format="json")

    assert response.status_code == 401


# --- events ---------------------------------------------------------------------------------


def test_an_organiser_edits_an_event_and_the_log_names_the_fields(world):
    event = world["open"]

    response = organiser("tournaments.change_event").patch(
        f"/api/events/{event.pk}", {"name": "Spring Open", "capacity": 16}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["name"], response.json()["capacity"]) == ("Spring Open", 16)
    edit = EventLog.objects.filter(event=event, action="edit").get()
    assert sorted(edit.detail["fields"]) == ["capacity", "name"]
    assert edit.actor.username == "olga"


def test_a_started_event_changes_only_its_name(world):
    event = world["running"]
    olga = organiser("tournaments.change_event")

    refused = olga.patch(f"/api/events/{event.pk}", {"best_of": 3}, format="json")
    renamed = olga.patch(f"/api/events/{event.pk}", {"name": "Final four"}, format="json")

    assert refused.status_code == 409 and refused.json()["code"] == "event_started"
    assert "best_of" in refused.json()["detail"]
    assert renamed.status_code == 200
    event.refresh_from_db()
    assert (event.name, event.best_of) == ("Final four", 1)


def test_an_edit_with_bad_options_changes_nothing(world):
    event = world["open"]

    response = organiser("tournaments.change_event").patch(
        f"/api/events/{event.pk}", {"name": "New", "best_of": 2}, format="json"
    )

    assert response.status_code == 400 and response.json()["code"] == "invalid_rules"
    event.refresh_from_db()
    assert event.name != "New"
    assert not EventLog.objects.filter(event=event, action="edit").exists()


def test_open_and_close_registration_are_logged(world):
    event, olga = world["draft"], organiser("tournaments.change_event")

    opened = olga.post(f"/api/events/{event.pk}/open-registration")
    closed = olga.post(f"/api/events/{event.pk}/close-registration")
    again = olga.post(f"/api/events/{event.pk}/open-registration")

    assert opened.json()["status"] == "registration" and opened.json()["registration_open"]
    assert closed.status_code == 200 and not closed.json()["registration_open"]
    assert again.json()["registration_open"]
    assert log_actions(event)[-3:] == [
        "open_registration",
        "close_registration",
        "open_registration",
    ]


def test_starting_twice_is_refused_and_changes_nothing(world):
    event, olga = world["open"], organiser("tournaments.change_event")
    services.entry_check_in(entry=world["entry"])
    services.entry_check_in(entry=event.entries.get(player__name="Bob"))

    first = olga.post(f"/api/events/{event.pk}/start")
    before = snapshot()
    second = olga.post(f"/api/events/{event.pk}/start")

    assert first.status_code == 200 and first.json()["status"] == "running"
    assert second.status_code == 409 and second.json()["code"] == "event_started"
    assert snapshot() == before
    assert log_actions(event).count("start") == 1


def test_cancelling_needs_a_reason_and_records_it(world):
    event, olga = world["running"], organiser("tournaments.change_event")

    no_reason = olga.post(f"/api/events/{event.pk}/cancel", {}, format="json")
    cancelled = olga.post(f"/api/events/{event.pk}/cancel", {"reason": "Venue flooded"})

    assert no_reason.status_code == 400 and "reason" in no_reason.json()["errors"]
    assert cancelled.json()["status"] == "cancelled"
    assert EventLog.objects.get(event=event, action="cancel").reason == "Venue flooded"


# --- entries --------------------------------------------------------------------------------


def test_adding_a_player_to_a_full_event_is_refused(world):
    event, olga = world["open"], organiser("tournaments.change_event")
    Event.objects.filter(pk=event.pk).update(capacity=2)

    response = olga.post(
        f"/api/events/{event.pk}/players", {"player": world["charlie"].pk}, format="json"
    )

    assert response.status_code == 409 and response.json()["code"] == "event_full"
    assert not event.entries.filter(player=world["charlie"]).exists()


def test_an_organiser_adds_a_player_and_house_bots(world):
    event, olga = world["open"], organiser("tournaments.change_event")

    player = olga.post(f"/api/events/{event.pk}/players", {"player": world["charlie"].pk})
    robots = olga.post(f"/api/events/{event.pk}/bots", {"count": 2, "strategy": "greedy"})
    stranger = olga.post(f"/api/events/{event.pk}/players", {"player": 10**9})

    assert player.status_code == 201 and player.json()["player"]["name"] == "Charlie"
    assert robots.status_code == 201 and len(robots.json()) == 2
    assert all(e["player"]["kind"] == "bot" for e in robots.json())
    assert stranger.status_code == 400 and "player" in stranger.json()["errors"]
    # Alice, Bob and Wendy before; Charlie and two bots now.
    assert log_actions(event).count("add_entry") == 3 + 1 + 2


def test_withdraw_disqualify_reinstate_and_check_in(world):
    event, olga = world["open"], organiser("tournaments.change_entry")
    entry, withdrawn = world["entry"], world["withdrawn"]
    base = f"/api/events/{event.pk}/entries"

    checked = olga.post(f"{base}/{entry.pk}/check-in")
    back = olga.post(f"{base}/{withdrawn.pk}/reinstate")
    out = olga.post(f"{base}/{entry.pk}/withdraw", {"reason": "ill"})
    banned = olga.post(f"{base}/{withdrawn.pk}/disqualify", {"reason": "cheated"})
    twice = olga.post(f"{base}/{withdrawn.pk}/disqualify", {"reason": "again"})

    assert checked.json()["status"] == "checked_in"
    assert back.json()["status"] == "registered"
    assert out.json()["status"] == "withdrawn"
    assert banned.json()["status"] == "disqualified"
    assert twice.status_code == 409 and twice.json()["code"] == "already_withdrawn"
    assert log_actions(event)[-4:] == ["check_in", "reinstate", "withdraw", "disqualify"]
    assert EventLog.objects.get(event=event, action="disqualify").reason == "cheated"


def test_an_entry_of_another_event_is_not_found(world):
    olga = organiser("tournaments.change_entry")
    other = world["running"].entries.first()

    response = olga.post(f"/api/events/{world['open'].pk}/entries/{other.pk}/check-in")

    assert response.status_code == 404


# --- seeding --------------------------------------------------------------------------------


def test_a_manual_order_seeds_as_given(world):
    event, olga = world["open"], organiser("tournaments.change_event")
    alice, bob = world["entry"], event.entries.get(player__name="Bob")

    response = olga.post(
        f"/api/events/{event.pk}/seed", {"seeding": "manual", "order": [bob.pk, alice.pk]}
    )

    assert response.status_code == 200
    assert [e["player"]["name"] for e in response.json()] == ["Bob", "Alice"]
    event.refresh_from_db()
    assert event.seeding == "manual"
    assert log_actions(event)[-2:] == ["edit", "seed"]


def test_a_manual_order_that_leaves_out_an_entry_changes_nothing(world):
    event, olga = world["open"], organiser("tournaments.change_event")
    before = snapshot()

    response = olga.post(
        f"/api/events/{event.pk}/seed", {"seeding": "manual", "order": [world["entry"].pk]}
    )

    assert response.status_code == 400 and response.json()["code"] == "incomplete_order"
    assert snapshot() == before


def test_a_random_seeding_records_the_seed_given(world):
    event, olga = world["open"], organiser("tournaments.change_event")

    first = olga.post(f"/api/events/{event.pk}/seed", {"seeding": "random", "seed": 12345})
    again = olga.post(f"/api/events/{event.pk}/seed", {"seeding": "random", "seed": 12345})

    event.refresh_from_db()
    assert (event.seeding, event.seeding_seed) == ("random", 12345)
    assert first.json() == again.json()  # the same seed, the same order
    assert EventLog.objects.filter(event=event, action="seed").last().detail["seeding_seed"] == (
        12345
    )


def test_seeding_a_started_event_is_refused(world):
    response = organiser("tournaments.change_event").post(
        f"/api/events/{world['running'].pk}/seed", {"seeding": "rating"}
    )

    assert response.status_code == 409 and response.json()["code"] == "event_started"


# --- results --------------------------------------------------------------------------------


def test_overriding_with_a_player_not_in_the_pairing_is_refused(world):
    event, olga = world["running"], organiser("tournaments.change_pairing")
    before = snapshot()

    response = olga.post(
        f"/api/events/{event.pk}/pairings/R1.1/override",
        {"winner": world["charlie"].pk, "reason": "judge"},
    )

    assert response.status_code == 400 and response.json()["code"] == "not_in_match"
    assert "Charlie" in response.json()["detail"]
    assert snapshot() == before


def test_an_override_repairs_the_bracket_and_is_audited(world):
    event, olga = world["running"], organiser("tournaments.change_pairing")
    first = pairing(event, "R1.1")
    decide(event, "R1.1", first.entry_a.player)
    loser = first.entry_b.player

    response = olga.post(
        f"/api/events/{event.pk}/pairings/R1.1/override",
        {"winner": loser.pk, "reason": "the winner played a marked deck"},
    )

    assert response.status_code == 200
    assert response.json()["result"] == "override" and response.json()["winner"] == loser.pk
    final = Pairing.objects.get(event=event, key=first.winner_to.split(":")[0])
    assert loser.pk in {e.player_id for e in (final.entry_a, final.entry_b) if e is not None}
    audit = EventLog.objects.get(event=event, action="override_result")
    assert audit.reason == "the winner played a marked deck"
    log = olga.get(f"/api/events/{event.pk}/log")  # view_eventlog comes with view_*
    assert log.json()[0]["action"] == "override_result"
    assert log.json()[0]["pairing"] == "R1.1" and log.json()[0]["actor"] == "olga"


def test_a_failed_bot_match_is_run_again(db):
    event = event_with(bots(2), "single_elim")
    services.event_start(event=event)
    before = pairing(event, pairing_keys(event)[0])
    Match.objects.filter(pk=before.match_id).update(status=Match.Status.CANCELLED)
    olga = organiser("tournaments.change_pairing")

    response = olga.post(f"/api/events/{event.pk}/pairings/{before.key}/rerun")

    assert response.status_code == 200
    assert response.json()["match"] != before.match_id
    assert log_actions(event)[-1] == "rerun"


def pairing_keys(event):
    return list(event.pairings.order_by("round__number", "table").values_list("key", flat=True))


def test_a_match_decided_by_its_games_is_not_run_again(db):
    people = humans(2)
    event = event_with(people, "single_elim")
    services.event_start(event=event)
    key = pairing_keys(event)[0]

    response = organiser("tournaments.change_pairing").post(
        f"/api/events/{event.pk}/pairings/{key}/rerun"
    )

    assert response.status_code == 409 and response.json()["code"] == "not_bots"


# --- webhooks -------------------------------------------------------------------------------


def test_a_webhook_to_a_private_address_is_refused(world):
    event = world["running"]

    response = organiser("tournaments.add_webhook").post(
        f"/api/events/{event.pk}/webhooks", {"url": "https://127.0.0.1/hook"}
    )

    assert response.status_code == 400 and response.json()["code"] == "webhook_url_refused"
    assert "127.0.0.1" in response.json()["detail"]
    assert event.webhooks.count() == 1


def test_a_webhook_secret_is_shown_only_to_those_who_may_change_webhooks(world):
    event = world["running"]
    adder = organiser("tournaments.add_webhook")

    created = adder.post(f"/api/events/{event.pk}/webhooks", {"url": PUBLIC_URL + "/2"})
    listed_by_viewer = adder.get(f"/api/events/{event.pk}/webhooks")
    changer = client_of(staff("hank", "tournaments.change_webhook"))
    listed_by_changer = changer.get(f"/api/events/{event.pk}/webhooks")

    assert created.status_code == 201 and "secret" not in created.json()
    assert all("secret" not in hook for hook in listed_by_viewer.json())
    secrets = {hook["secret"] for hook in listed_by_changer.json()}
    assert secrets == set(event.webhooks.values_list("secret", flat=True))
    assert log_actions(event)[-1] == "add_webhook"


def test_a_delivery_is_listed_and_sent_again(world, django_capture_on_commit_callbacks):
    event, hook, delivery = world["running"], world["hook"], world["delivery"]
    olga = organiser("tournaments.change_webhookdelivery")

    listed = olga.get(f"/api/events/{event.pk}/webhooks/{hook.pk}/deliveries")
    with django_capture_on_commit_callbacks() as callbacks:
        resent = olga.post(
            f"/api/events/{event.pk}/webhooks/{hook.pk}/deliveries/{delivery.pk}/resend"
        )

    assert delivery.pk in [d["id"] for d in listed.json()]
    assert resent.status_code == 202 and resent.json()["status"] == "pending"
    assert callbacks  # the delivery task is queued on commit
    assert log_actions(event)[-1] == "resend_delivery"


def test_a_delivery_of_another_events_webhook_is_not_found(world):
    other = Webhook.objects.create(event=world["open"], url=PUBLIC_URL)
    olga = organiser("tournaments.change_webhookdelivery")

    response = olga.post(
        f"/api/events/{world['running'].pk}/webhooks/{other.pk}/deliveries/"
        f"{world['delivery'].pk}/resend"
    )

    assert response.status_code == 404


# --- /api/me --------------------------------------------------------------------------------


def test_a_staff_user_without_a_player_is_answered_with_their_rights(db):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("root", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="change_event"))
    user = type(user).objects.get(pk=user.pk)

    response = client_of(user).get("/api/me")

    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["username"], body["is_staff"]) == (None, "root", True)
    assert body["permissions"] == ["tournaments.change_event"]


def test_a_superuser_holds_every_organiser_permission(db):
    from accounts.api import ORGANISER_PERMISSIONS

    user = PlayerFactory(user__username="sue").user
    user.is_staff = user.is_superuser = True
    user.save()

    body = client_of(user).get("/api/me").json()

    assert body["name"] == "Sue" and body["permissions"] == list(ORGANISER_PERMISSIONS)


def test_a_player_is_told_no_permissions(alice_client):
    body = alice_client.get("/api/me").json()

    assert body["is_staff"] is False and "permissions" not in body


def test_me_needs_a_signed_in_user(client):
    assert client.get("/api/me").status_code == 401


# --- reinstating checks what entering checks -----------------------------------------------


def test_a_person_is_not_reinstated_into_a_running_duplicate_deals_event(alice):
    event = event_with([alice, *bots(4)], "swiss", swiss_rounds=3)
    entry = Entry.objects.get(event=event, player=alice)
    services.entry_withdraw(entry=entry)
    # Nobody active is a person any more: the event may now play duplicate deals.
    services.event_update(event=event, duplicate_deals=True)
    services.event_start(event=event)
    olga = organiser("tournaments.change_entry")

    response = olga.post(f"/api/events/{event.pk}/entries/{entry.pk}/reinstate")

    assert response.status_code == 400
    assert response.json()["code"] == "duplicate_deals_need_bots"
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN
    assert "reinstate" not in log_actions(event)


def test_a_person_is_not_reinstated_into_an_event_for_bots_only_before_the_start(alice):
    event = event_with([alice, *bots(2)], "swiss")
    entry = Entry.objects.get(event=event, player=alice)
    services.entry_withdraw(entry=entry)
    services.event_update(event=event, bots_only=True)

    with pytest.raises(services.TournamentError) as refused:
        services.entry_reinstate(entry=entry)

    assert refused.value.code == "bots_only" and refused.value.status == 403
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN


def test_a_house_bot_is_still_reinstated_into_a_duplicate_deals_event():
    gus, *others = bots(4)
    event = event_with([gus, *others], "swiss", duplicate_deals=True)
    entry = Entry.objects.get(event=event, player=gus)
    services.entry_withdraw(entry=entry)

    services.entry_reinstate(entry=entry)

    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_a_running_swiss_does_not_take_back_a_player_whose_place_a_late_entry_took():
    first, *others = humans(5, prefix="late")
    event = event_with(
        [first, *others[:3]], "swiss", swiss_rounds=4, late_registration=True, capacity=4
    )
    services.event_start(event=event)
    entry = Entry.objects.get(event=event, player=first)
    services.entry_withdraw(entry=entry)
    services.entry_add(event=event, player=others[3])  # the place they left

    response = organiser("tournaments.change_entry").post(
        f"/api/events/{event.pk}/entries/{entry.pk}/reinstate"
    )

    assert response.status_code == 409 and response.json()["code"] == "event_full"
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN
    assert event.entries.filter(status__in=Entry.ACTIVE).count() == 4
