"""The organiser's pages (/organise/...) without a browser: who may see and do what (the
organiser API's rule), each action through the API's serializer and service, each refusal in
the API's own words next to its field, and nothing written when an action is refused.

The cast: olga organises (staff holding the permissions the organiser API asks for, and the
right to manage every event: whose event it is, is tests/unit/test_event_ownership.py's
concern), vera is staff who may only view, pat is a player; alice, bob and charlie play.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Player
from games import tables
from games.models import Match
from tests.factories import PlayerFactory
from tests.tournaments import bots, event_with
from tournaments import services
from tournaments.models import Entry, Event, EventLog, Pairing

pytestmark = pytest.mark.django_db

ORGANISER = ("add_event", "change_event", "change_entry", "change_pairing", "manage_all_events")
API_WORDS = "Only staff with the permission to change this may do it."


def staff(username: str, *codenames: str):
    user = PlayerFactory(user__username=username, name=username.title()).user
    user.is_staff = True
    user.save()
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="tournaments", codename__in=codenames)
    )
    return type(user).objects.get(pk=user.pk)  # permissions are cached on the user


def web_client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def olga_user(db):
    return staff("olga", *ORGANISER)


@pytest.fixture
def olga(olga_user) -> Client:
    return web_client(olga_user)


@pytest.fixture
def vera(db) -> Client:
    return web_client(staff("vera", "view_event", "view_entry"))


@pytest.fixture
def pat(db) -> Client:
    return web_client(PlayerFactory(user__username="pat", name="Pat").user)


@pytest.fixture
def swiss(alice, bob) -> Event:
    return event_with([alice, bob], "swiss")


def page(response) -> str:
    return response.content.decode()


def field_block(html: str, field_id: str) -> str:
    """The form row holding the input ``field_id`` (its label, input, help and errors)."""
    at = html.index(f'id="{field_id}"')
    start = html.rindex('<div class="field', 0, at)
    end = html.index("</div>", at)
    return html[start:end]


def api_refusal(user, method: str, path: str, body: dict) -> dict:
    """What the organiser API answers the same request (rolled back by the caller's check)."""
    client = APIClient()
    client.force_authenticate(user=user)
    return getattr(client, method)(path, body, format="json").json()


# --- who may --------------------------------------------------------------------------------


PAGES = ["", "/edit", "/entrants", "/check-in", "/start", "/round"]


@pytest.mark.parametrize(
    "path", ["/organise/", "/organise/new", *(f"/organise/{{}}{p}" for p in PAGES)]
)
def test_each_page_is_for_organisers_only(path, swiss, olga, vera, pat):
    url = path.format(swiss.pk)

    anonymous = web_client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login?next=")
    for refused in (pat, vera):
        response = refused.get(url)
        assert response.status_code == 403 and API_WORDS in page(response)
    assert olga.get(url).status_code == 200


def test_a_post_is_refused_like_a_get_and_changes_nothing(swiss, vera, pat):
    entry = swiss.entries.first()
    for client in (vera, pat):
        response = client.post(
            f"/organise/{swiss.pk}/entrants",
            {"action": "withdraw", "entry": entry.pk, "reason": "ill"},
        )
        assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_each_action_needs_the_permission_its_api_endpoint_needs(swiss, charlie):
    # Staff who may change events but not entries: they add players, not withdraw them.
    nearly = web_client(staff("nearly", "change_event", "manage_all_events"))
    entry = swiss.entries.first()

    added = nearly.post(
        f"/organise/{swiss.pk}/entrants", {"action": "add_player", "player": charlie.pk}
    )
    withdrawn = nearly.post(
        f"/organise/{swiss.pk}/entrants", {"action": "withdraw", "entry": entry.pk, "reason": "x"}
    )

    assert added.status_code == 302 and swiss.entries.filter(player=charlie).exists()
    assert withdrawn.status_code == 403 and API_WORDS in page(withdrawn)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_the_header_and_the_event_page_link_the_pages_for_organisers_only(swiss, olga, pat):
    services.event_open_registration(event=swiss)

    for client, linked in ((olga, True), (pat, False)):
        home = page(client.get("/"))
        event_page = page(client.get(f"/events/{swiss.pk}"))
        assert ('href="/organise/"' in home) is linked
        assert (f'href="/organise/{swiss.pk}"' in event_page) is linked


# --- the events -------------------------------------------------------------------------------


def test_events_are_grouped_by_state_with_yours_first(olga, olga_user):
    theirs = services.event_create(name="Their draft", format="swiss")
    mine = services.event_create(name="My draft", format="swiss", created_by=olga_user)
    running = event_with(bots(2), "swiss")
    services.event_start(event=running)

    html = page(olga.get("/organise/"))

    drafts = html[html.index(">Drafts") : html.index(">Open for registration")]
    assert drafts.index(mine.name) < drafts.index(theirs.name)
    assert "yours" in drafts[: drafts.index(theirs.name)]
    assert running.name in html[html.index(">Running") : html.index(">Finished")]


# --- the event form ---------------------------------------------------------------------------


def form_data(**changes) -> dict:
    """The new event form as it comes, filled in."""
    data = {
        "name": "Thursday club night",
        "format": "swiss",
        "venue": "online",
        "rules_preset": "standard",
        "best_of": "3",
        "target": "100",
        "base_seconds": "600",
        "increment_seconds": "5",
        "timeout_policy": "forfeit",
        "grace_seconds": "300",
        "seeding": "rating",
        "tiebreak_1": "sonneborn_berger",
        "tiebreak_2": "buchholz",
        "tiebreak_unplayed": "fide",
        "group_format": "round_robin",
        "advance_per_group": "2",
        "playoff_format": "single_elim",
        "swiss_rounds": "4",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_an_event_is_created_from_the_form(olga, olga_user):
    response = olga.post(
        "/organise/new",
        form_data(rules_preset="oklahoma", rule_gin_bonus="30", base_seconds=""),
    )

    event = Event.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/organise/{event.pk}/entrants"
    assert (event.name, event.format, event.status) == ("Thursday club night", "swiss", "draft")
    assert event.rules == {"preset": "oklahoma", "gin_bonus": 30}
    assert (event.best_of, event.target, event.swiss_rounds) == (3, 100, 4)
    assert event.base_seconds is None  # empty: untimed
    assert event.tiebreaks == ["sonneborn_berger", "buchholz"]
    assert event.created_by == olga_user
    assert EventLog.objects.filter(event=event, action="create", actor=olga_user).exists()


def test_the_form_marks_each_formats_own_options_and_ignores_another_formats(olga):
    html = page(olga.get("/organise/new"))
    assert 'data-formats="swiss two_stage"' in field_block(html, "id_swiss_rounds")
    assert 'data-formats="single_elim two_stage"' in field_block(html, "id_third_place")
    assert "data-formats" not in field_block(html, "id_best_of")

    olga.post("/organise/new", form_data(third_place="on", double_round_robin="on"))

    event = Event.objects.get()
    assert not event.third_place and not event.double_round_robin  # not a Swiss's options


BAD_FORMS = [
    # (the form's change, the field whose row shows the refusal, the API's body for it)
    ({"best_of": "0"}, "id_best_of", {"best_of": 0}),
    ({"best_of": "4"}, "id_best_of", {"best_of": 4}),
    ({"capacity": "1"}, "id_capacity", {"capacity": 1}),
    ({"name": ""}, "id_name", {"name": ""}),
    ({"rule_knock_limit": "200"}, "id_rule_knock_limit", {"rules": {"knock_limit": 200}}),
    (
        {
            "registration_opens_at": "2030-05-01T20:00",
            "registration_closes_at": "2030-05-01T19:00",
        },
        "id_registration_closes_at",
        {
            "registration_opens_at": "2030-05-01T20:00:00Z",
            "registration_closes_at": "2030-05-01T19:00:00Z",
        },
    ),
    ({"tiebreak_2": "sonneborn_berger"}, "id_tiebreak_2", {"tiebreaks": ["sonneborn_berger"] * 2}),
]


@pytest.mark.parametrize("change,field,api_body", BAD_FORMS)
def test_the_form_refuses_what_the_api_refuses_in_its_words_and_saves_nothing(
    olga, olga_user, change, field, api_body
):
    answer = api_refusal(
        olga_user, "post", "/api/events", {"name": "X", "format": "swiss", **api_body}
    )
    words = [m for ms in answer.get("errors", {}).values() for m in ms] or [answer["detail"]]
    assert not Event.objects.exists()

    response = olga.post("/organise/new", form_data(**change))

    assert response.status_code == 400
    block = field_block(page(response), field)
    assert 'class="error"' in block
    for message in words:
        assert str(message).replace("'", "&#x27;") in block
    assert not Event.objects.exists()


def test_editing_sends_only_what_changed(olga, olga_user):
    event = services.event_create(
        name="Club night", format="swiss", swiss_rounds=3, tiebreaks=["buchholz"]
    )
    html = page(olga.get(f"/organise/{event.pk}/edit"))
    values = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', html))
    selects = dict(
        re.findall(
            r'<select name="(\w+)"[^>]*>(?:(?!</select>).)*?<option value="([^"]*)" selected',
            html,
            re.S,
        )
    )
    checks = re.findall(r'type="checkbox" name="(\w+)"[^>]*checked', html)
    data = {**values, **selects, **{name: "on" for name in checks}}
    data.pop("csrfmiddlewaretoken", None)
    data.update(name="Club night, Thursday", swiss_rounds="5")

    response = olga.post(f"/organise/{event.pk}/edit", data)

    assert response.status_code == 302, page(response)
    event.refresh_from_db()
    assert (event.name, event.swiss_rounds) == ("Club night, Thursday", 5)
    edit = EventLog.objects.get(event=event, action="edit")
    assert sorted(edit.detail["fields"]) == ["name", "swiss_rounds"] and edit.actor == olga_user


def test_a_started_event_offers_its_name_only(olga, swiss):
    services.event_start(event=swiss)

    html = page(olga.get(f"/organise/{swiss.pk}/edit"))
    response = olga.post(f"/organise/{swiss.pk}/edit", {"name": "Renamed", "best_of": "7"})

    assert 'name="name"' in html and 'name="best_of"' not in html
    assert response.status_code == 302
    swiss.refresh_from_db()
    assert swiss.name == "Renamed" and swiss.best_of == 1


# --- registration and cancelling ------------------------------------------------------------


def test_registration_opens_and_closes_from_the_overview(olga):
    event = services.event_create(name="Cup", format="swiss")
    url = f"/organise/{event.pk}"

    olga.post(url, {"action": "open_registration"})
    assert Event.objects.get(pk=event.pk).status == Event.Status.REGISTRATION
    olga.post(url, {"action": "close_registration"})
    assert not services.registration_open(Event.objects.get(pk=event.pk))
    refused = olga.post(url, {"action": "cancel", "reason": ""})
    assert refused.status_code == 400 and "This field may not be blank." in page(refused)
    assert Event.objects.get(pk=event.pk).status != Event.Status.CANCELLED
    olga.post(url, {"action": "cancel", "reason": "the hall is flooded"})
    assert Event.objects.get(pk=event.pk).cancel_reason == "the hall is flooded"


# --- entrants -----------------------------------------------------------------------------------


def test_a_player_is_found_by_name_and_added(olga, swiss, charlie):
    html = page(olga.get(f"/organise/{swiss.pk}/entrants", {"find": "char"}))
    assert "Charlie" in html[html.index('aria-label="Players found"') :]
    listed = html[
        html.index('aria-label="Players found"') : html.index(
            "</ul>", html.index('aria-label="Players found"')
        )
    ]
    assert "Alice" not in listed  # already entered

    response = olga.post(
        f"/organise/{swiss.pk}/entrants?find=char", {"action": "add_player", "player": charlie.pk}
    )

    assert response.status_code == 302
    assert swiss.entries.filter(player=charlie, status=Entry.Status.REGISTERED).exists()
    assert "Charlie is entered." in page(olga.get(response["Location"]))


def test_adding_a_player_already_entered_is_refused_in_the_api_words(olga, olga_user, swiss, alice):
    words = api_refusal(olga_user, "post", f"/api/events/{swiss.pk}/players", {"player": alice.pk})

    response = olga.post(
        f"/organise/{swiss.pk}/entrants", {"action": "add_player", "player": alice.pk}
    )

    assert response.status_code == 409 and words["detail"] in page(response)
    assert swiss.entries.count() == 2


def test_a_list_of_names_is_imported(olga, swiss, charlie):
    dora = PlayerFactory(name="Dora Dee")

    response = olga.post(
        f"/organise/{swiss.pk}/entrants", {"action": "import", "csv": "charlie\nDora Dee\n"}
    )

    assert response.status_code == 302
    assert set(swiss.entries.values_list("player", flat=True)) >= {charlie.pk, dora.pk}


def test_an_import_naming_nobody_lists_those_lines_and_enters_nobody(olga, swiss, charlie):
    response = olga.post(
        f"/organise/{swiss.pk}/entrants",
        {"action": "import", "csv": "Nobody\ncharlie\nZed Zed\n"},
    )

    block = field_block(page(response), "import-csv")
    assert response.status_code == 400
    assert "line 2: no player is named &#x27;Nobody&#x27;" in block
    assert "line 4: no player is named &#x27;Zed Zed&#x27;" in block
    assert "Nobody\ncharlie\nZed Zed" in block  # kept to correct
    assert not swiss.entries.filter(player=charlie).exists()


def test_named_house_bots_are_added_by_strength(olga, swiss):
    response = olga.post(
        f"/organise/{swiss.pk}/entrants", {"action": "bots", "count": "3", "strategy": "expert"}
    )

    names = list(
        swiss.entries.filter(player__kind=Player.Kind.BOT).values_list("player__name", flat=True)
    )
    assert response.status_code == 302
    assert len(names) == 3 and all(n.endswith(" (expert)") for n in names)
    assert len(set(names)) == 3 and not [n for n in names if re.search(r"bot \d", n, re.I)]


@pytest.mark.parametrize(
    "count,strategy,field,words",
    [
        ("0", "expert", "count", "Ensure this value is greater than or equal to 1."),
        ("two", "expert", "count", "A valid integer is required."),
        ("2", "psychic", "strategy", '"psychic" is not a valid choice.'),
    ],
)
def test_bots_are_refused_in_the_api_words(olga, swiss, count, strategy, field, words):
    response = olga.post(
        f"/organise/{swiss.pk}/entrants", {"action": "bots", "count": count, "strategy": strategy}
    )

    assert response.status_code == 400
    assert words.replace('"', "&quot;") in field_block(
        page(response), f"bots-{'count' if field == 'count' else 'strength'}"
    )
    assert not Player.objects.filter(kind=Player.Kind.BOT).exists()


def test_a_walk_in_is_entered_as_a_guest_in_an_event_at_tables(olga):
    club = event_with([], "swiss", venue="tables")

    response = olga.post(f"/organise/{club.pk}/entrants", {"action": "guest", "name": "Dora Dee"})

    assert response.status_code == 302
    guest = Player.objects.get(name="Dora Dee")
    assert guest.kind == Player.Kind.GUEST and club.entries.filter(player=guest).exists()


def test_a_guest_is_refused_in_an_online_event_and_nothing_is_left(olga, olga_user, swiss, alice):
    words = api_refusal(olga_user, "post", f"/api/events/{swiss.pk}/guests", {"name": "Dora Dee"})
    assert words["code"] == "guests_need_tables"

    online = olga.post(f"/organise/{swiss.pk}/entrants", {"action": "guest", "name": "Dora Dee"})
    taken = olga.post(f"/organise/{swiss.pk}/entrants", {"action": "guest", "name": "alice"})

    assert online.status_code == 409
    assert words["detail"] in field_block(page(online), "guest-name")
    assert taken.status_code == 400 and 'class="error"' in field_block(page(taken), "guest-name")
    assert not Player.objects.filter(kind=Player.Kind.GUEST).exists()


def test_an_entrant_is_withdrawn_with_a_reason_disqualified_and_reinstated(olga, swiss, alice, bob):
    url = f"/organise/{swiss.pk}/entrants"
    a, b = swiss.entries.get(player=alice), swiss.entries.get(player=bob)

    no_reason = olga.post(url, {"action": "withdraw", "entry": a.pk, "reason": ""})
    assert no_reason.status_code == 400 and "This field may not be blank." in page(no_reason)
    assert Entry.objects.get(pk=a.pk).status == Entry.Status.REGISTERED

    olga.post(url, {"action": "withdraw", "entry": a.pk, "reason": "ill"})
    olga.post(url, {"action": "disqualify", "entry": b.pk, "reason": "marked cards"})
    assert Entry.objects.get(pk=a.pk).status == Entry.Status.WITHDRAWN
    assert Entry.objects.get(pk=b.pk).note == "marked cards"

    olga.post(url, {"action": "reinstate", "entry": a.pk})
    refused = olga.post(url, {"action": "reinstate", "entry": b.pk})
    assert Entry.objects.get(pk=a.pk).status == Entry.Status.REGISTERED
    assert refused.status_code == 409 and "the entry is disqualified" in page(refused)
    assert Entry.objects.get(pk=b.pk).status == Entry.Status.DISQUALIFIED


def test_an_entry_of_another_event_is_not_found(olga, swiss):
    other = event_with(bots(2), "swiss")

    response = olga.post(
        f"/organise/{swiss.pk}/entrants",
        {"action": "withdraw", "entry": other.entries.first().pk, "reason": "x"},
    )

    assert response.status_code == 404


# --- the check-in desk -------------------------------------------------------------------------


def test_the_desk_opens_check_in_early_on_an_event_whose_window_is_in_minutes(olga, alice):
    from datetime import timedelta

    from django.utils import timezone

    start = timezone.now() + timedelta(hours=2)
    event = services.event_create(name="Cup", format="swiss", starts_at=start, check_in_minutes=30)
    services.entry_add(event=event, player=alice)
    url = f"/organise/{event.pk}/check-in"

    opened = olga.post(url, {"action": "open"})

    assert opened.status_code in (200, 302), page(opened)
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    assert event.check_in_opens_at < start - timedelta(minutes=30)  # now, not the window's
    assert event.check_in_minutes is None and event.starts_at == start
    olga.post(url, {"action": "tap", "entry": event.entries.get().pk})
    assert event.entries.get().status == Entry.Status.CHECKED_IN


def test_the_desk_opens_check_in_and_counts_who_is_missing(olga, alice, bob):
    event = services.event_create(name="Cup", format="swiss")
    for player in (alice, bob, *bots(2)):
        services.entry_add(event=event, player=player)
    url = f"/organise/{event.pk}/check-in"
    a = event.entries.get(player=alice)

    early = olga.post(url, {"action": "tap", "entry": a.pk})
    assert early.status_code == 409 and "check-in is only before the start" in page(early)

    olga.post(url, {"action": "open"})
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION and event.check_in_opens_at is not None

    olga.post(url, {"action": "tap", "entry": a.pk})
    olga.post(url, {"action": "bots"})
    html = page(olga.get(url))
    assert "<strong>1</strong> missing" in html
    assert Entry.objects.get(pk=a.pk).status == Entry.Status.CHECKED_IN
    assert event.entries.filter(status=Entry.Status.CHECKED_IN).count() == 3

    olga.post(url, {"action": "tap", "entry": a.pk, "undo": "1"})
    assert Entry.objects.get(pk=a.pk).status == Entry.Status.REGISTERED
    assert EventLog.objects.filter(event=event, action="undo_check_in", entry=a).exists()


def test_an_event_without_check_in_refuses_a_tap_in_the_api_words(olga, olga_user, swiss, alice):
    entry = swiss.entries.get(player=alice)
    words = api_refusal(
        olga_user, "post", f"/api/events/{swiss.pk}/entries/{entry.pk}/check-in", {}
    )

    response = olga.post(f"/organise/{swiss.pk}/check-in", {"action": "tap", "entry": entry.pk})

    assert response.status_code == 409 and words["detail"] in page(response)
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.REGISTERED


# --- seeding and the start ------------------------------------------------------------------------


def test_entrants_are_seeded_by_hand_in_the_order_given(olga, swiss, charlie):
    services.entry_add(event=swiss, player=charlie)
    a, b, c = (swiss.entries.get(player__name=n) for n in ("Alice", "Bob", "Charlie"))

    response = olga.post(
        f"/organise/{swiss.pk}/start",
        {
            "action": "seed",
            "seeding": "manual",
            f"place-{a.pk}": "3",
            f"place-{b.pk}": "1",
            f"place-{c.pk}": "2",
        },
    )

    assert response.status_code == 302
    seeds = dict(swiss.entries.values_list("player__name", "seed"))
    assert seeds == {"Bob": 1, "Charlie": 2, "Alice": 3}
    assert Event.objects.get(pk=swiss.pk).seeding == "manual"


def test_a_place_that_is_no_number_is_refused_and_nothing_is_seeded(olga, swiss):
    a, b = swiss.entries.all()

    response = olga.post(
        f"/organise/{swiss.pk}/start",
        {"action": "seed", "seeding": "manual", f"place-{a.pk}": "first", f"place-{b.pk}": "2"},
    )

    assert response.status_code == 400 and "A place is a whole number." in page(response)
    assert Event.objects.get(pk=swiss.pk).seeding != "manual"


def test_seeding_by_rating_then_the_start_opens_the_round(olga, swiss):
    olga.post(f"/organise/{swiss.pk}/start", {"action": "seed", "seeding": "rating"})

    response = olga.post(f"/organise/{swiss.pk}/start", {"action": "start"})

    assert response.status_code == 302 and response["Location"] == f"/organise/{swiss.pk}/round"
    swiss.refresh_from_db()
    assert swiss.status == Event.Status.RUNNING and swiss.seeding == "rating"
    html = page(olga.get(response["Location"]))
    assert "Alice" in html and "Bob" in html and "Waiting to start" in html


def test_a_start_the_api_refuses_is_refused_in_its_words(olga, olga_user, alice):
    event = event_with([alice], "swiss")
    words = api_refusal(olga_user, "post", f"/api/events/{event.pk}/start", {})

    response = olga.post(f"/organise/{event.pk}/start", {"action": "start"})

    assert response.status_code == 400 and words["detail"] in page(response)
    assert Event.objects.get(pk=event.pk).status == Event.Status.REGISTRATION


# --- the round ----------------------------------------------------------------------------------


def test_the_round_shows_each_match_with_its_state_and_link(olga, alice, bob):
    event = event_with([alice, bob, *bots(2)], "swiss", seeding="manual")
    services.event_start(event=event)

    html = page(olga.get(f"/organise/{event.pk}/round"))

    for pairing in Pairing.objects.filter(event=event, round__number=1):
        card = html[html.index(f'id="pairing-{pairing.key}"') :]
        card = card[: card.index("</article>")]
        assert f'href="/matches/{pairing.match_id}"' in card
        state = "Waiting to start" if not pairing.match.is_bot_match else ""
        assert state in card


def test_an_override_needs_a_reason_and_decides_the_match(olga, alice, bob):
    event = event_with([alice, bob], "swiss")
    services.event_start(event=event)
    pairing = Pairing.objects.get(event=event, round__number=1)
    url = f"/organise/{event.pk}/round"

    refused = olga.post(
        url, {"action": "override", "pairing": pairing.key, "winner": bob.pk, "reason": ""}
    )
    assert refused.status_code == 400 and "This field may not be blank." in page(refused)
    assert Pairing.objects.get(pk=pairing.pk).winner is None

    done = olga.post(
        url,
        {
            "action": "override",
            "pairing": pairing.key,
            "winner": bob.pk,
            "reason": "scored on paper",
        },
    )

    pairing.refresh_from_db()
    assert done.status_code == 302
    assert pairing.winner.player == bob and pairing.result == Pairing.Result.OVERRIDE
    log = EventLog.objects.get(event=event, action="override_result")
    assert log.reason == "scored on paper"


def test_a_failed_bot_match_is_played_again_and_a_sound_one_is_not(olga, alice, bob):
    robo1, robo2 = bots(2, prefix="Robo")
    # Seeds 1 and 3 meet, 2 and 4: the bots play each other, and so do the people.
    event = event_with([robo1, alice, robo2, bob], "swiss", seeding="manual")
    services.event_start(event=event)
    bot_pairing = next(
        p
        for p in Pairing.objects.filter(event=event).select_related("match")
        if p.match.is_bot_match
    )
    people = Pairing.objects.filter(event=event).exclude(pk=bot_pairing.pk).get()
    Match.objects.filter(pk=bot_pairing.match_id).update(status=Match.Status.CANCELLED)
    url = f"/organise/{event.pk}/round"
    assert "Play this bot match again" in page(olga.get(url))

    refused = olga.post(url, {"action": "rerun", "pairing": people.key})
    done = olga.post(url, {"action": "rerun", "pairing": bot_pairing.key})

    assert refused.status_code == 409 and "only a bot match is re-run" in page(refused)
    assert done.status_code == 302
    bot_pairing.refresh_from_db()
    assert bot_pairing.match_id is not None and bot_pairing.match.status != Match.Status.CANCELLED
    assert EventLog.objects.filter(event=event, action="rerun").count() == 1


# --- taking a check-in back, in the organiser API too -------------------------------------------


def test_the_api_takes_a_check_in_back_before_the_start_only(olga_user, alice, bob):
    event = event_with([alice, bob], "swiss")
    services.event_update(event=event, check_in_opens_at=event.created_at)
    entry = services.entry_check_in(entry=event.entries.get(player=alice))
    url = f"/api/events/{event.pk}/entries/{entry.pk}/check-in"
    olga, vera = APIClient(), APIClient()
    olga.force_authenticate(user=olga_user)
    vera.force_authenticate(user=staff("vera", "view_entry"))

    assert vera.delete(url).status_code == 403
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.CHECKED_IN
    undone = olga.delete(url)
    assert undone.status_code == 200 and undone.json()["status"] == "registered"
    assert undone.json()["checked_in_at"] is None
    for each in event.entries.all():
        services.entry_check_in(entry=each)
    services.event_start(event=event)
    late = olga.delete(url)
    assert late.status_code == 409 and late.json()["code"] == "check_in_closed"
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.CHECKED_IN


# --- table matches: confirming their results, moving a match to a table -------------------------


def table_night(players, **options) -> Event:
    """A Swiss at tables, started: the first two players meet at table 1."""
    event = event_with(players, "swiss", venue="tables", seeding="manual", **options)
    services.event_start(event=event)
    return event


def test_a_table_result_is_confirmed_by_an_organiser_with_a_reason(olga_user, alice, bob):
    olga_user.user_permissions.add(Permission.objects.get(codename="change_match"))
    olga = web_client(type(olga_user).objects.get(pk=olga_user.pk))
    event = table_night([alice, bob])
    pairing = Pairing.objects.select_related("match").get(event=event)
    url = f"/organise/{event.pk}/round"
    in_play = page(olga.get(url))
    assert "Table 1" in in_play and "In play" in in_play
    tables.hand_enter(
        match_id=pairing.match_id,
        player=alice,
        user=alice.user,
        kind="gin",
        knocker=alice.pk,
        deadwood={bob.pk: 40},
    )

    waiting = page(olga.get(url))
    no_reason = olga.post(url, {"action": "confirm", "pairing": pairing.key, "reason": ""})
    done = olga.post(url, {"action": "confirm", "pairing": pairing.key, "reason": "seen the pad"})

    assert "Waiting for confirmation" in waiting and "Confirm: Alice wins" in waiting
    assert no_reason.status_code == 400
    assert "needs a reason for the audit log" in field_block(
        page(no_reason), f"confirm-{pairing.key}"
    )
    assert done.status_code == 302
    pairing.refresh_from_db()
    assert pairing.match.status == Match.Status.FINISHED and pairing.winner.player == alice
    assert pairing.result == Pairing.Result.PLAYED


def test_confirming_a_table_result_needs_the_apis_organiser_permission(olga, alice, bob):
    event = table_night([alice, bob])
    pairing = Pairing.objects.get(event=event)
    tables.hand_enter(
        match_id=pairing.match_id,
        player=alice,
        user=alice.user,
        kind="gin",
        knocker=alice.pk,
        deadwood={bob.pk: 40},
    )

    response = olga.post(
        f"/organise/{event.pk}/round", {"action": "confirm", "pairing": pairing.key, "reason": "ok"}
    )

    assert response.status_code == 403  # olga may not change matches (games.change_match)
    assert Match.objects.get(pk=pairing.match_id).status == Match.Status.ACTIVE


def test_a_mixed_events_match_moves_to_a_table_and_an_online_ones_does_not(olga, alice, bob):
    mixed = event_with([alice, bob], "swiss", venue="mixed")
    online = event_with([PlayerFactory(name="Cleo"), PlayerFactory(name="Dan")], "swiss")
    for event in (mixed, online):
        services.event_start(event=event)
    moved, kept = (Pairing.objects.get(event=e) for e in (mixed, online))
    assert "Play it at a table" in page(olga.get(f"/organise/{mixed.pk}/round"))
    assert "Play it at a table" not in page(olga.get(f"/organise/{online.pk}/round"))

    done = olga.post(f"/organise/{mixed.pk}/round", {"action": "to_table", "pairing": moved.key})
    refused = olga.post(f"/organise/{online.pk}/round", {"action": "to_table", "pairing": kept.key})

    assert done.status_code == 302 and Match.objects.get(pk=moved.match_id).at_table
    assert refused.status_code == 409 and "only a mixed event moves single matches" in page(refused)
    assert not Match.objects.get(pk=kept.match_id).at_table


@pytest.mark.parametrize(
    ("format", "options", "planned"),
    [
        ("single_elim", {"third_place": True}, "3 rounds planned"),
        ("double_elim", {}, "up to 7 rounds planned"),
        ("double_elim", {"bracket_reset": False}, "6 rounds planned"),
    ],
)
def test_the_overview_counts_a_brackets_rounds_as_players_live_them(olga, format, options, planned):
    # The third-place match is played beside the final; a grand final's reset only if needed.
    event = event_with(bots(8), format, **options)
    services.event_start(event=event)
    text = " ".join(re.sub(r"<[^>]+>", " ", page(olga.get(f"/organise/{event.pk}"))).split())
    assert f" · {planned}" in text
    if not planned.startswith("up to"):
        assert "up to" not in text
