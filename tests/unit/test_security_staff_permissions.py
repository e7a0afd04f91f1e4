"""Staff who may only view change nothing: not by an admin action, an admin page or the API.

The cast: vera is staff with every view permission and nothing else; olga is staff with every
permission (a superuser); pat is a player, not staff. The walks discover what they walk (the
admin's registry, each admin's URLs, the API schema), so a new action, admin page or endpoint
is walked the day it is added, and a new staff endpoint must be named in STAFF_OPERATIONS.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.core.cache import cache
from django.db import transaction
from django.test import Client, RequestFactory
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from knox.models import AuthToken
from rest_framework.test import APIClient

from games import services as play
from ladders import services as ladder_services
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tests.tournaments import event_with, humans, pairing
from tournaments import services
from tournaments.models import Event, Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

#: Admin actions that only read, offered to those who may view: (model label, action name).
VIEW_ONLY_ACTIONS: set[tuple[str, str]] = set()

#: API writes only staff may make, each with the model permission it needs (an operation not
#: in the schema yet is passed over: it is checked from the day it is added).
STAFF_OPERATIONS = {
    ("POST", "/api/matches/{id}/analysis"): "games.add_matchanalysis",
    ("POST", "/api/events"): "tournaments.add_event",
    ("POST", "/api/ladders/{id}/seasons"): "ladders.add_season",
    ("POST", "/api/ladders"): "ladders.add_ladder",
    ("PATCH", "/api/ladders/{id}"): "ladders.change_ladder",
    ("POST", "/api/ladders/{id}/open"): "ladders.change_ladder",
    ("POST", "/api/ladders/{id}/close"): "ladders.change_ladder",
    ("POST", "/api/ladders/{id}/queue-bots"): "ladders.change_ladder",
    ("PATCH", "/api/events/{id}"): "tournaments.change_event",
    ("POST", "/api/events/{id}/open-registration"): "tournaments.change_event",
    ("POST", "/api/events/{id}/close-registration"): "tournaments.change_event",
    ("POST", "/api/events/{id}/players"): "tournaments.change_event",
    ("POST", "/api/events/{id}/guests"): "tournaments.change_event",
    ("POST", "/api/players/{id}/invitation"): "tournaments.change_event",
    ("POST", "/api/events/{id}/bots"): "tournaments.change_event",
    ("POST", "/api/events/{id}/import"): "tournaments.change_event",
    ("POST", "/api/events/{id}/seed"): "tournaments.change_event",
    ("POST", "/api/events/{id}/start"): "tournaments.change_event",
    ("POST", "/api/events/{id}/cancel"): "tournaments.change_event",
    ("POST", "/api/events/{id}/entries/{entry_id}/withdraw"): "tournaments.change_entry",
    ("POST", "/api/events/{id}/entries/{entry_id}/disqualify"): "tournaments.change_entry",
    ("POST", "/api/events/{id}/entries/{entry_id}/reinstate"): "tournaments.change_entry",
    ("POST", "/api/events/{id}/entries/{entry_id}/check-in"): "tournaments.change_entry",
    ("DELETE", "/api/events/{id}/entries/{entry_id}/check-in"): "tournaments.change_entry",
    ("POST", "/api/events/{id}/pairings/{key}/override"): "tournaments.change_pairing",
    ("POST", "/api/events/{id}/pairings/{key}/rerun"): "tournaments.change_pairing",
    ("POST", "/api/events/{id}/pairings/{key}/table"): "tournaments.change_pairing",
    # Table matches: their players enter hands and confirm; organisers too, with a reason.
    ("POST", "/api/matches/{id}/hands"): "games.change_match",
    ("DELETE", "/api/matches/{id}/hands/last"): "games.change_match",
    ("PUT", "/api/matches/{id}/hands/{number}"): "games.change_match",
    ("POST", "/api/matches/{id}/confirm"): "games.change_match",
    ("POST", "/api/events/{id}/webhooks"): "tournaments.add_webhook",
    (
        "POST",
        "/api/events/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/resend",
    ): "tournaments.change_webhookdelivery",
}

#: API reads where staff see more than a player: draft events (reads, for every staff user).
STAFF_READS = {("GET", "/api/events"), ("GET", "/api/events/{id}")}

#: Rows that a request writes whoever makes it (the session, the admin's own history).
NOT_STATE = {"sessions.session", "admin.logentry"}

#: Bodies that pass validation, so that what stops a write is the permission, not a 400.
BODIES = {
    ("POST", "/api/events"): {"name": "Walked in", "format": "swiss"},
}

#: What the organiser's own admin pages are given, so that nothing but the permission stops them.
ADMIN_PAGE_DATA = {
    "tournaments_event_add_bots": {"count": 2, "strategy": "greedy"},
    "tournaments_pairing_override": lambda world: {
        "winner": world["pairing"].entry_a.player_id,
        "reason": "walked",
    },
    "auth_user_password_change": {"password1": "n3w-Passw0rd!", "password2": "n3w-Passw0rd!"},
}

STANDARD_ADMIN_PAGES = ("changelist", "add", "history", "delete", "change")


# --- the cast and the world -----------------------------------------------------------------


def staff(username: str, *, superuser: bool = False):
    user = PlayerFactory(user__username=username).user
    user.is_staff = True
    user.is_superuser = superuser
    user.save()
    if not superuser:
        user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    return user


@pytest.fixture
def vera(db):
    return staff("vera")


@pytest.fixture
def olga(db):
    return staff("olga", superuser=True)


@pytest.fixture
def pat(db):
    return PlayerFactory(user__username="pat").user


@pytest.fixture
def world(alice, bob, charlie):
    """At least one row of every model an admin action can act on, in a state it would change."""
    draft = services.event_create(name="Draft", format="swiss")
    open_event = event_with([alice, bob], "single_elim", check_in_opens_at=timezone.now())
    running = event_with(humans(4), "single_elim")
    services.event_start(event=running)
    hook = Webhook.objects.create(event=running, url="https://hooks.example.com/gin")
    WebhookDelivery.objects.create(
        webhook=hook, event_type="event.started", payload={}, status="failed", attempts=6
    )
    withdrawn = open_event.entries.get(player=bob)
    services.entry_withdraw(entry=withdrawn)
    live = play.match_create(player_a=alice, player_b=charlie)
    robots = [BotFactory(name=f"Walker {i}", bot_strategy="greedy") for i in range(3)]
    bot_match = play.match_create(player_a=robots[0], player_b=robots[1], start=False)
    ladder = make_ladder()
    play_ladder_match(ladder, alice, bob)
    ladder_services.queue_join(ladder=ladder, player=robots[2])
    Group.objects.create(name="Organisers")
    return {
        "draft": draft,
        "open": open_event,
        "running": running,
        "pairing": pairing(running, "R1.1"),
        "live": live,
        "bot_match": bot_match,
        "ladder": ladder,
        "alice": alice,
    }


def expired_lockout() -> None:
    """A lockout record past its cool-down: the lockouts' clean-up action would delete it.

    Made after the sign-ins: signing in cleans up expired records itself."""
    attempt = AccessAttempt.objects.create(
        username="mallory", ip_address="192.0.2.7", user_agent="", failures_since_start=3
    )
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=timezone.now() - timedelta(days=30)
    )


def snapshot(*, skip: frozenset[str] = frozenset()) -> dict[str, list]:
    """Every row of every model (but sessions and the admin's history), to compare."""
    rows = {}
    for model in apps.get_models():
        label = model._meta.label_lower
        if label in NOT_STATE or label in skip:
            continue
        rows[label] = list(model._base_manager.order_by("pk").values_list())
    return rows


def changed(before: dict, after: dict) -> list[str]:
    return [label for label in before if before[label] != after[label]]


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def request_of(user):
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


# --- admin actions --------------------------------------------------------------------------


def every_action() -> list[tuple[type, str]]:
    return [
        (model, name)
        for model, model_admin in admin.site._registry.items()
        for _, name, _ in model_admin._get_base_actions()
    ]


def test_every_admin_action_is_refused_to_staff_who_may_only_view(world, vera, olga):
    browser = signed_in(vera)
    expired_lockout()
    failures = []
    for model, name in every_action():
        model_admin = admin.site._registry[model]
        label = model._meta.label_lower
        pks = list(model._base_manager.values_list("pk", flat=True))
        offered = name in model_admin.get_actions(request_of(vera))
        read_only = (model._meta.label, name) in VIEW_ONLY_ACTIONS
        acts = name != "delete_selected" and name in model_admin.get_actions(request_of(olga))
        if acts and not pks:
            failures.append(f"{label}.{name}: no {label} in the world to walk it on")
        if offered != read_only:
            failures.append(f"{label}.{name}: offered to view-only staff: {offered}")
        before = snapshot()
        response = browser.post(
            f"/admin/{model._meta.app_label}/{model._meta.model_name}/",
            # "apply" and a reason: the actions that ask for one go through at once.
            {"action": name, "_selected_action": pks, "apply": 1, "reason": "walked", "post": 1},
        )
        if response.status_code >= 500:
            failures.append(f"{label}.{name}: {response.status_code}")
        if not read_only and (what := changed(before, snapshot())):
            failures.append(f"{label}.{name} by view-only staff changed {what}")
    assert not failures, "\n".join(failures)


def test_the_walk_would_see_an_action_go_through(world, olga):
    # The walk's own check: the same post as a superuser does change the world.
    event = world["draft"]

    signed_in(olga).post(
        "/admin/tournaments/event/",
        {"action": "open_registration", "_selected_action": [event.pk]},
    )

    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


# --- admin pages ----------------------------------------------------------------------------


def admin_pages() -> list[tuple[type, str, str]]:
    """(model, url name, route) of every page an admin adds to Django's standard five."""
    standard = {
        f"{model._meta.app_label}_{model._meta.model_name}_{page}"
        for model in admin.site._registry
        for page in STANDARD_ADMIN_PAGES
    }
    return [
        (model, pattern.name, str(pattern.pattern))
        for model, model_admin in admin.site._registry.items()
        for pattern in model_admin.get_urls()
        if pattern.name and pattern.name not in standard
    ]


def page_url(model, route: str) -> str:
    pk = model._base_manager.order_by("pk").values_list("pk", flat=True).first()
    path = re.sub(r"<(?:\w+:)?\w+>", str(pk), route)
    return f"/admin/{model._meta.app_label}/{model._meta.model_name}/{path}"


def test_every_page_an_admin_adds_is_refused_to_staff_who_may_only_view(world, vera, olga):
    pages = admin_pages()
    assert {name for _, name, _ in pages} >= set(ADMIN_PAGE_DATA)  # the walk finds them
    browser, organiser = signed_in(vera), signed_in(olga)
    failures = []
    for model, name, route in pages:
        url = page_url(model, route)
        data = ADMIN_PAGE_DATA.get(name, {})
        data = data(world) if callable(data) else data
        assert organiser.get(url).status_code == 200, url
        before = snapshot()
        statuses = (browser.get(url).status_code, browser.post(url, data).status_code)
        if statuses != (403, 403):
            failures.append(f"{name} {url}: {statuses} for view-only staff")
        if what := changed(before, snapshot()):
            failures.append(f"{name} by view-only staff changed {what}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("model", list(admin.site._registry), ids=lambda m: m._meta.label)
def test_staff_who_may_only_view_cannot_add_change_or_delete(world, vera, model):
    browser = signed_in(vera)
    base = f"/admin/{model._meta.app_label}/{model._meta.model_name}"
    pk = model._base_manager.order_by("pk").values_list("pk", flat=True).first()
    before = snapshot()

    statuses = {"add": browser.post(f"{base}/add/", {}).status_code}
    if pk is not None:
        statuses["change"] = browser.post(f"{base}/{pk}/change/", {}).status_code
        statuses["delete"] = browser.post(f"{base}/{pk}/delete/", {"post": "yes"}).status_code

    assert set(statuses.values()) == {403}, statuses
    assert not changed(before, snapshot())


# --- webhook secrets ------------------------------------------------------------------------


def test_a_webhook_secret_is_shown_only_to_those_who_may_change_webhooks(world, vera, olga):
    hook = Webhook.objects.get()
    pages = [
        f"/admin/tournaments/webhook/{hook.pk}/change/",
        f"/admin/tournaments/event/{hook.event_id}/change/",  # the webhooks inline
        "/admin/tournaments/webhook/",
    ]
    hook_changer = staff("hank")
    hook_changer.user_permissions.add(Permission.objects.get(codename="change_webhook"))

    for page in pages:
        assert hook.secret not in signed_in(vera).get(page).content.decode(), page
    assert hook.secret in signed_in(olga).get(pages[0]).content.decode()
    assert hook.secret in signed_in(hook_changer).get(pages[0]).content.decode()
    assert hook.secret in signed_in(olga).get(pages[1]).content.decode()


# --- the API --------------------------------------------------------------------------------


def operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    ]


def api_path(path: str, world: dict) -> str:
    """The path with its ids: somebody else's match, game, bot and player, a public event."""
    live = world["live"]
    ids = {
        "events": world["open"].pk,
        "matches": live.pk,
        "games": live.games.get().pk,
        "ladders": world["ladder"].pk,
        "players": world["alice"].pk,
        "bots": world["bot_match"].player_a_id,
    }
    prefix = path.split("/")[2]
    path = path.replace("{id}", str(ids.get(prefix, 1)))
    path = path.replace("{match_id}", str(world["pairing"].match_id))
    path = path.replace("{player_id}", str(world["alice"].pk))
    path = path.replace("{key}", "0" * 8)
    return re.sub(r"\{\w+\}", "1", path)


#: A request may refresh or revoke its own sign-in token, whoever makes it.
OWN_TOKENS = frozenset({"knox.authtoken"})


def answer(user, method: str, path: str, world: dict) -> tuple[int, list[str]]:
    """(status, the models it changed) of one request signed in with a token, rolled back."""
    cache.clear()  # the throttles count every caller afresh
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    with transaction.atomic():
        before = snapshot(skip=OWN_TOKENS)
        response = client.generic(
            method,
            api_path(path, world),
            data=json.dumps(BODIES.get((method, path), {})),
            content_type="application/json",
        )
        what = changed(before, snapshot(skip=OWN_TOKENS))
        transaction.set_rollback(True)
    return response.status_code, what


def test_the_api_gives_staff_who_may_only_view_nothing_a_player_lacks(world, vera, olga, pat):
    failures = []
    permitted_by: dict[str, object] = {}
    writes = [(m, p) for m, p in operations() if m != "GET"]
    assert ("POST", "/api/events") in writes
    for method, path in writes:
        player, viewer, organiser = (answer(u, method, path, world) for u in (pat, vera, olga))
        if (method, path) in STAFF_OPERATIONS:
            app_label, codename = STAFF_OPERATIONS[method, path].split(".")
            if codename not in permitted_by:  # one user a permission: names are unique
                permitted_by[codename] = staff(f"may-{codename}")
                permitted_by[codename].user_permissions.add(
                    Permission.objects.get(content_type__app_label=app_label, codename=codename),
                    # The world's events are nobody's: a manager of every event may change
                    # them (whose event it is: tests/unit/test_event_ownership.py).
                    Permission.objects.get(codename="manage_all_events"),
                )
            permitted = permitted_by[codename]
            if viewer != (403, []):
                failures.append(f"{method} {path}: view-only staff got {viewer}")
            for who, got in (
                ("a superuser", organiser),
                ("staff with the permission", answer(permitted, method, path, world)),
            ):
                if got[0] in (401, 403):
                    failures.append(f"{method} {path}: {who} is refused: {got}")
        else:
            if viewer[0] != player[0] or bool(viewer[1]) != bool(player[1]):
                failures.append(f"{method} {path}: view-only staff {viewer}, a player {player}")
            if organiser[0] != player[0]:
                failures.append(
                    f"{method} {path}: staff are answered {organiser[0]}, a player {player[0]}:"
                    " a staff endpoint? Name it in STAFF_OPERATIONS with its permission"
                )
    assert not failures, "\n".join(failures)


def test_creating_an_event_needs_the_add_permission(vera):
    client = APIClient()
    client.force_authenticate(user=vera)

    refused = client.post("/api/events", BODIES[("POST", "/api/events")], format="json")
    vera.user_permissions.add(Permission.objects.get(codename="add_event"))
    vera = type(vera).objects.get(pk=vera.pk)  # permissions are cached on the user
    client.force_authenticate(user=vera)
    allowed = client.post("/api/events", BODIES[("POST", "/api/events")], format="json")

    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert allowed.status_code == 201
    assert list(Event.objects.values_list("name", flat=True)) == ["Walked in"]


def test_staff_who_may_only_view_read_drafts(world, vera, pat):
    draft = world["draft"]
    viewer, player = APIClient(), APIClient()
    viewer.force_authenticate(user=vera)
    player.force_authenticate(user=pat)

    assert viewer.get(f"/api/events/{draft.pk}").status_code == 200
    assert player.get(f"/api/events/{draft.pk}").status_code == 404
    assert draft.pk in [e["id"] for e in viewer.get("/api/events").json()["results"]]
    assert draft.pk not in [e["id"] for e in player.get("/api/events").json()["results"]]
    assert set(operations()) >= STAFF_READS


def test_organisers_clean_up_expired_lockouts(olga):
    browser = signed_in(olga)
    expired_lockout()

    response = browser.post(
        "/admin/axes/accessattempt/",
        {
            "action": "cleanup_expired_attempts",
            "_selected_action": list(AccessAttempt.objects.values_list("pk", flat=True)),
        },
    )

    assert response.status_code == 302
    assert not AccessAttempt.objects.exists()
