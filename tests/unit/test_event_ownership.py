"""An event belongs to its organisers: its creator and the co-organisers they name.

The cast: olga created the cup and organises it; otto is another organiser (staff holding
every permission of the tournaments but the one to manage every event); cora is staff whom
olga may name a co-organiser; mona may manage every event; pat is a player.

Every write of the organiser API on an event is found by walking the URL map (a route under
``/api/events/{id}`` that is not a player's own action), so a new one is covered or fails:
otto is refused each with 403 ``not_your_event`` and changes nothing, and the schema names
that code for it. The organiser pages of an event are found the same way.
"""

from __future__ import annotations

import functools
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.tournaments import event_with, humans
from tests.unit.test_api_contract import openapi
from tests.unit.test_security_authorization import allowed_methods, walk
from tournaments import services
from tournaments.models import Entry, Event, EventLog, Pairing, Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

schema = functools.cache(openapi)
PUBLIC_URL = "https://93.184.216.34/gin"
UNSAFE = ("post", "put", "patch", "delete")
#: Routes under /api/events/{id} whose writes are a player's own (on their own entry or match),
#: not an organiser's: the event's organisers have no say in them.
PLAYERS_OWN = {
    "event-register",
    "event-withdraw",
    "event-check-in",
    "event-arena-pause",
    "event-arena-rejoin",
    "event-match-berserk",
    "event-match-ready",
}
#: Each organiser page of an event, and a POST of it that changes something if allowed.
PAGE_POSTS = {
    "event": {"action": "cancel", "reason": "rain"},
    "edit": {"name": "Renamed", "format": "single_elim"},
    "entrants": {"action": "withdraw", "entry": "{entry}", "reason": "ill"},
    "check_in": {"action": "tap", "entry": "{entry}"},
    "start": {"action": "start"},
    "round": {"action": "override", "pairing": "R1.1", "winner": "{winner}", "reason": "judge"},
}


def staff(username: str, *, manager: bool = False, **extra):
    """Staff holding every permission of the tournaments (and games') but, unless ``manager``,
    the one to manage every event."""
    user = PlayerFactory(user__username=username, name=username.title()).user
    user.is_staff = True
    for name, value in extra.items():
        setattr(user, name, value)
    user.save()
    held = Permission.objects.filter(content_type__app_label__in=["tournaments", "games"])
    if not manager:
        held = held.exclude(codename="manage_all_events")
    user.user_permissions.set(held)
    return type(user).objects.get(pk=user.pk)  # permissions are cached on the user


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def web(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def cast(db):
    return {
        "olga": staff("olga"),
        "otto": staff("otto"),
        "cora": staff("cora"),
        "mona": staff("mona", manager=True),
    }


def running_cup(olga, **options) -> Event:
    """Olga's single elimination of four, started: entries, pairings, a webhook, a delivery."""
    cup = event_with(humans(4), "single_elim", created_by=olga, **options)
    services.event_start(event=cup, by=olga)
    hook = Webhook.objects.create(event=cup, url=PUBLIC_URL)
    WebhookDelivery.objects.create(
        webhook=hook, event_type="event.started", payload={}, status="failed", attempts=6
    )
    return Event.objects.get(pk=cup.pk)


@pytest.fixture
def cup(cast):
    return running_cup(cast["olga"])


def snapshot():
    return (
        list(Event.objects.order_by("pk").values_list()),
        list(Event.co_organisers.through.objects.order_by("pk").values_list()),
        list(Entry.objects.order_by("pk").values_list()),
        list(Pairing.objects.order_by("pk").values_list()),
        list(EventLog.objects.order_by("pk").values_list()),
        list(Webhook.objects.order_by("pk").values_list()),
        list(WebhookDelivery.objects.order_by("pk").values_list()),
    )


# --- the organiser API's writes, found in the URL map ----------------------------------------


def event_writes() -> list[tuple[str, str, str]]:
    """(route name, route, method) of every organiser write on one event."""
    found = []
    for route, name, _ in walk():
        if not route.startswith("api/events/<int:pk>") or name in PLAYERS_OWN:
            continue
        found += [(name, route, m) for m in allowed_methods(name) if m in UNSAFE]
    return sorted(found)


WRITES = event_writes()


def write_url(name: str, route: str, event: Event) -> str:
    hook = event.webhooks.get()
    ids = {
        "pk": event.pk,
        "entry_id": event.entries.order_by("pk").first().pk,
        "key": "R1.1",
        "webhook_id": hook.pk,
        "delivery_id": hook.deliveries.get().pk,
        "match_id": event.pairings.exclude(match=None).first().match_id,
    }
    return reverse(name, kwargs={k: v for k, v in ids.items() if f":{k}>" in route})


def test_the_walk_finds_the_organisers_writes():
    names = {name for name, _, _ in WRITES}

    assert {"event-detail", "event-start", "event-cancel", "event-entry-withdraw"} <= names
    assert {"event-pairing-override", "event-webhooks", "event-webhook-resend"} <= names
    assert not names & PLAYERS_OWN
    assert ("event-entry-check-in", "delete") in {(n, m) for n, _, m in WRITES}


@pytest.mark.parametrize(
    ("name", "route", "method"), WRITES, ids=[f"{m}-{n}" for n, _, m in WRITES]
)
def test_another_organiser_changes_nothing_of_an_event_not_theirs(cast, cup, name, route, method):
    url = write_url(name, route, cup)
    before = snapshot()

    response = getattr(api(cast["otto"]), method)(url, {"reason": "x"}, format="json")

    assert response.status_code == 403, (method, url, response.content[:300])
    assert response.json()["code"] == "not_your_event"
    assert "This event is not yours" in response.json()["detail"]
    assert "Olga" in response.json()["detail"]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "route", "method"), WRITES, ids=[f"{m}-{n}" for n, _, m in WRITES]
)
def test_the_schema_names_not_your_event_for_each_write(name, route, method):
    path = "/" + route.replace("<int:pk>", "{id}")
    for converter in ("int:", "str:"):
        path = path.replace(f"<{converter}", "{")
    path = path.replace(">", "}")

    codes = schema()["paths"][path][method]["responses"]["403"]["x-error-codes"]

    assert "not_your_event" in codes
    assert "permission_denied" in codes


@pytest.mark.parametrize(
    ("name", "route", "method"), WRITES, ids=[f"{m}-{n}" for n, _, m in WRITES]
)
@pytest.mark.parametrize("who", ["olga", "cora", "mona", "root"])
def test_its_organisers_and_managers_pass_on_every_write(cast, cup, name, route, method, who):
    if who == "cora":
        cup.co_organisers.add(cast["cora"])
    user = (
        staff("root", is_superuser=True) if who == "root" else cast[who]
    )  # a superuser holds every permission

    response = getattr(api(user), method)(write_url(name, route, cup), {}, format="json")

    assert response.status_code != 403 and response.status_code < 500, response.content[:300]


def test_a_reader_is_not_asked_whose_event_it_is(cast, cup):
    for path in ("log", "webhooks", f"webhooks/{cup.webhooks.get().pk}/deliveries"):
        assert api(cast["otto"]).get(f"/api/events/{cup.pk}/{path}").status_code == 200
    assert api(cast["otto"]).get(f"/api/events/{cup.pk}").status_code == 200


def test_staff_without_the_model_permission_are_told_that_first(cast, cup):
    vera = PlayerFactory(user__username="vera").user
    vera.is_staff = True
    vera.save()

    response = api(vera).post(f"/api/events/{cup.pk}/cancel", {"reason": "x"}, format="json")

    assert response.status_code == 403 and response.json()["code"] == "permission_denied"


# --- the creator, co-organisers, managers -----------------------------------------------------


def test_the_creator_organises_the_event_they_create(cast):
    olga = api(cast["olga"])

    created = olga.post("/api/events", {"name": "Spring", "format": "swiss"}, format="json")
    event = Event.objects.get(pk=created.json()["id"])
    renamed = olga.patch(f"/api/events/{event.pk}", {"name": "Spring Open"}, format="json")
    refused = api(cast["otto"]).patch(f"/api/events/{event.pk}", {"name": "Otto's"}, format="json")

    assert created.status_code == 201 and event.created_by == cast["olga"]
    assert created.json()["organisers"] == [
        {"id": cast["olga"].pk, "username": "olga", "name": "Olga"}
    ]
    assert renamed.status_code == 200
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_event"
    event.refresh_from_db()
    assert event.name == "Spring Open"


def test_a_co_organiser_named_by_the_creator_may_and_stops_when_removed(cast):
    event = event_with(humans(2), "swiss", created_by=cast["olga"])
    olga, cora = api(cast["olga"]), api(cast["cora"])
    url = f"/api/events/{event.pk}"

    before = cora.post(f"{url}/close-registration", {}, format="json")
    named = olga.patch(url, {"co_organisers": ["cora"]}, format="json")
    closed = cora.post(f"{url}/close-registration", {}, format="json")
    # A co-organiser is an organiser: they may name others too, and answer for the event.
    cora_edits = cora.patch(url, {"co_organisers": ["cora", "otto"]}, format="json")
    removed = olga.patch(url, {"co_organisers": []}, format="json")
    after = cora.post(f"{url}/open-registration", {}, format="json")

    assert before.status_code == 403 and before.json()["code"] == "not_your_event"
    assert named.status_code == 200
    assert [o["name"] for o in named.json()["organisers"]] == ["Olga", "Cora"]
    assert closed.status_code == 200 and not closed.json()["registration_open"]
    assert cora_edits.status_code == 200
    assert [o["username"] for o in cora_edits.json()["organisers"]] == ["olga", "cora", "otto"]
    assert removed.status_code == 200 and len(removed.json()["organisers"]) == 1
    assert after.status_code == 403
    edits = EventLog.objects.filter(event=event, action="edit").order_by("pk")
    assert [e.detail["fields"] for e in edits] == [["co_organisers"]] * 3


def test_an_unknown_co_organiser_is_refused_naming_the_field(cast):
    event = event_with([], "swiss", created_by=cast["olga"])

    response = api(cast["olga"]).patch(
        f"/api/events/{event.pk}", {"co_organisers": ["cora", "nobody"]}, format="json"
    )

    assert response.status_code == 400
    assert "nobody" in response.json()["errors"]["co_organisers"][0]
    assert not event.co_organisers.exists()


def test_co_organisers_may_change_after_the_start(cast, cup):
    response = api(cast["olga"]).patch(
        f"/api/events/{cup.pk}", {"co_organisers": ["cora"]}, format="json"
    )

    assert response.status_code == 200
    assert list(cup.co_organisers.all()) == [cast["cora"]]


def test_organisers_usernames_are_for_staff_only(cast, cup):
    player = APIClient()
    player.force_authenticate(PlayerFactory(user__username="pat").user)

    seen = [APIClient().get(f"/api/events/{cup.pk}"), player.get(f"/api/events/{cup.pk}")]

    for response in seen:
        assert response.json()["organisers"] == [
            {"id": cast["olga"].pk, "username": None, "name": "Olga"}
        ]


def test_an_event_without_a_creator_is_for_managers_only(cast):
    event = services.event_create(name="Scripted", format="swiss")

    refused = api(cast["olga"]).patch(f"/api/events/{event.pk}", {"name": "x"}, format="json")
    managed = api(cast["mona"]).patch(f"/api/events/{event.pk}", {"name": "y"}, format="json")

    assert refused.status_code == 403 and "no organiser" in refused.json()["detail"]
    assert managed.status_code == 200 and managed.json()["organisers"] == []


# --- listing: yours first ----------------------------------------------------------------------


def test_the_api_lists_an_organisers_own_events_first(cast):
    mine = services.event_create(name="Mine", format="swiss", created_by=cast["olga"])
    theirs = services.event_create(name="Theirs", format="swiss", created_by=cast["otto"])
    shared = services.event_create(name="Shared", format="swiss", created_by=cast["otto"])
    shared.co_organisers.add(cast["olga"])
    newest = services.event_create(name="Newest", format="swiss")

    listed = api(cast["olga"]).get("/api/events").json()["results"]

    assert [e["name"] for e in listed] == ["Shared", "Mine", "Newest", "Theirs"]
    assert {mine.pk, theirs.pk, newest.pk} <= {e["id"] for e in listed}


def events_page(client) -> str:
    return client.get("/organise/").content.decode()


def test_the_organise_list_shows_a_plain_organiser_their_own_events_only(cast):
    services.event_create(name="Olgas draft", format="swiss", created_by=cast["olga"])
    shared = services.event_create(name="Shared draft", format="swiss", created_by=cast["otto"])
    shared.co_organisers.add(cast["olga"])
    services.event_create(name="Ottos draft", format="swiss", created_by=cast["otto"])

    html = events_page(web(cast["olga"]))

    assert "Olgas draft" in html and "Shared draft" in html
    assert "Ottos draft" not in html


def test_the_organise_list_shows_a_manager_every_event_their_own_first(cast):
    services.event_create(name="Monas draft", format="swiss", created_by=cast["mona"])
    services.event_create(name="Ottos draft", format="swiss", created_by=cast["otto"])

    html = events_page(web(cast["mona"]))

    assert html.index("Monas draft") < html.index("Ottos draft")


# --- the organiser pages -----------------------------------------------------------------------


def event_pages() -> list[str]:
    found = []
    for route, name, _ in walk():
        if name.startswith("organise:") and "<int:pk>" in route:
            found.append(name.split(":", 1)[1])
    return sorted(found)


PAGES = event_pages()


def test_every_page_of_an_event_has_a_post_to_try():
    assert set(PAGES) == set(PAGE_POSTS), "add the new page and an action to PAGE_POSTS"


def page_post(page: str, event: Event) -> dict:
    entry = event.entries.order_by("pk").first()
    fill = {"{entry}": str(entry.pk), "{winner}": str(entry.player_id)}
    return {k: fill.get(v, v) for k, v in PAGE_POSTS[page].items()}


@pytest.mark.parametrize("page", PAGES)
def test_another_organiser_is_shown_a_page_saying_the_event_is_not_theirs(cast, page):
    # An open event for the pages before the start, a running one for the round.
    event = running_cup(cast["olga"]) if page == "round" else None
    if event is None:
        event = event_with(humans(4), "swiss", created_by=cast["olga"], check_in_opens_at=None)
    url = reverse(f"web:organise:{page}", args=[event.pk])
    otto = web(cast["otto"])
    before = snapshot()

    shown = otto.get(url)
    posted = otto.post(url, page_post(page, event))

    for response in (shown, posted):
        assert response.status_code == 403
        assert "This event is not yours" in response.content.decode()
        assert "Olga" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("who", ["olga", "cora", "mona"])
def test_its_organisers_and_managers_see_every_page(cast, cup, page, who):
    cup.co_organisers.add(cast["cora"])

    response = web(cast[who]).get(reverse(f"web:organise:{page}", args=[cup.pk]))

    assert response.status_code == 200


def as_shown(html: str) -> dict:
    """The form's values as the page shows them (what a browser would send back)."""
    values = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', html))
    selects = re.findall(
        r'<select name="(\w+)"[^>]*>(?:(?!</select>).)*?<option value="([^"]*)" selected',
        html,
        re.S,
    )
    checks = re.findall(r'type="checkbox" name="(\w+)"[^>]*checked', html)
    data = {**values, **dict(selects), **{name: "on" for name in checks}}
    data.pop("csrfmiddlewaretoken", None)
    return data


def test_the_creator_names_co_organisers_on_the_event_form(cast):
    event = event_with([], "swiss", created_by=cast["olga"])
    olga = web(cast["olga"])
    url = reverse("web:organise:edit", args=[event.pk])
    form = olga.get(url).content.decode()

    saved = olga.post(url, {**as_shown(form), "co_organisers": "cora, otto"})
    refused = olga.post(url, {**as_shown(form), "co_organisers": "nobody"})

    assert 'name="co_organisers"' in form
    assert saved.status_code == 302
    assert sorted(u.username for u in event.co_organisers.all()) == ["cora", "otto"]
    assert refused.status_code == 400 and "nobody" in refused.content.decode()
    assert 'value="cora, otto"' in olga.get(url).content.decode()
    assert web(cast["cora"]).get(url).status_code == 200


def test_the_event_page_links_its_organiser_pages_for_its_organisers_only(cast):
    event = event_with(humans(2), "swiss", created_by=cast["olga"])
    event.co_organisers.add(cast["cora"])
    link = f'href="/organise/{event.pk}"'

    for who, linked in (("olga", True), ("cora", True), ("mona", True), ("otto", False)):
        html = web(cast[who]).get(f"/events/{event.pk}").content.decode()
        assert (link in html) is linked, who
    assert 'href="/organise/"' in web(cast["otto"]).get(f"/events/{event.pk}").content.decode()
