"""The admin's event and ladder forms: rules and tiebreaks in fields, each format's options,
the links to the public pages, and the same refusals as the organiser API's."""

import json
import re

import pytest
from rest_framework.test import APIClient

from ladders import services as ladder_services
from ladders.models import Ladder
from tests.tournaments import event_with, humans
from tests.unit.test_tournament_admin import EVENT_FORM
from tournaments import services
from tournaments.admin import FORMAT_FIELDS, TIEBREAK_FIELDS
from tournaments.models import Event, EventLog

pytestmark = pytest.mark.django_db

ADD = "/admin/tournaments/event/add/"


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def form_errors(response) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.text, re.S))


def test_the_rules_are_a_preset_and_the_options_changed_from_it(admin_client):
    form = {**EVENT_FORM, "rules_preset": "oklahoma", "rule_gin_bonus": "30", "rule_shutout": ""}
    response = admin_client.post(ADD, form)
    assert response.status_code == 302, form_errors(response)
    event = Event.objects.get()
    assert event.rules == {"preset": "oklahoma", "gin_bonus": 30}
    rules = services.match_rules(event)
    assert rules["oklahoma"] is True and rules["gin_bonus"] == 30 and rules["target"] == 250


def test_the_standard_game_with_no_option_changed_is_stored_as_no_options(admin_client):
    assert admin_client.post(ADD, EVENT_FORM).status_code == 302
    assert Event.objects.get().rules == {}


def test_a_yes_no_option_can_be_left_to_the_preset_or_set(admin_client):
    form = {**EVENT_FORM, "rules_preset": "straight", "rule_fiftieth_card": "true"}
    assert admin_client.post(ADD, form).status_code == 302
    assert Event.objects.get().rules == {"preset": "straight", "fiftieth_card": True}


def test_an_option_out_of_range_is_refused_on_its_field_as_the_api_refuses_it(
    admin_client, admin_user
):
    response = admin_client.post(ADD, {**EVENT_FORM, "rule_knock_limit": "200"})
    assert response.status_code == 200
    assert not Event.objects.exists()
    api = api_client(admin_user).post(
        "/api/events",
        {"name": "x", "format": "single_elim", "rules": {"knock_limit": 200}},
        format="json",
    )
    assert api.status_code == 400
    message = api.json()["detail"]
    assert "knock_limit=200 is out of range" in message
    # The same words, on the option's own row.
    row = re.search(r"field-rule_knock_limit.*?</div>\s*</div>", response.text, re.S).group(0)
    assert message.replace("'", "&#x27;") in row


def test_the_tiebreaks_are_chosen_in_order(admin_client):
    places = {name: "" for name in TIEBREAK_FIELDS}
    form = {**EVENT_FORM, **places, "tiebreak_1": "margin", "tiebreak_3": "buchholz"}
    assert admin_client.post(ADD, form).status_code == 302
    assert Event.objects.get().tiebreaks == ["margin", "buchholz"]


def test_a_tiebreak_chosen_twice_is_refused_as_the_api_refuses_it(admin_client, admin_user):
    form = {**EVENT_FORM, "tiebreak_2": "buchholz"}  # tiebreak_1 is buchholz already
    response = admin_client.post(ADD, form)
    assert response.status_code == 200 and not Event.objects.exists()
    assert "tiebreak &#x27;buchholz&#x27; is listed twice" in form_errors(response)
    api = api_client(admin_user).post(
        "/api/events",
        {"name": "x", "format": "swiss", "tiebreaks": ["buchholz", "buchholz"]},
        format="json",
    )
    assert api.status_code == 400 and api.json()["detail"] == "tiebreak 'buchholz' is listed twice"


def test_the_change_form_shows_the_stored_rules_and_tiebreaks_in_their_fields(admin_client):
    event = services.event_create(
        name="Cup",
        format="swiss",
        rules={"preset": "hollywood", "undercut_bonus": 20},
        tiebreaks=["games_won", "direct_encounter"],
    )
    page = admin_client.get(f"/admin/tournaments/event/{event.pk}/change/").text
    assert re.search(r'<option value="hollywood" selected>', page)
    assert re.search(r'name="rule_undercut_bonus" value="20"', page)
    assert re.search(r'name="tiebreak_1".*?<option value="games_won" selected>', page, re.S)
    assert re.search(r'name="tiebreak_2".*?<option value="direct_encounter" selected>', page, re.S)
    assert 'name="rules"' not in page and 'name="tiebreaks"' not in page  # no JSON boxes

    # Saved unchanged, the rules stay what they were and nothing is logged as edited.
    form = {
        **EVENT_FORM,
        "format": "swiss",
        "name": "Cup",
        "rules_preset": "hollywood",
        "rule_undercut_bonus": "20",
        **{name: "" for name in TIEBREAK_FIELDS},
        "tiebreak_1": "games_won",
        "tiebreak_2": "direct_encounter",
    }
    form.pop("bracket_reset")
    response = admin_client.post(f"/admin/tournaments/event/{event.pk}/change/", form)
    assert response.status_code == 302, form_errors(response)
    event.refresh_from_db()
    assert event.rules == {"preset": "hollywood", "undercut_bonus": 20}
    assert event.tiebreaks == ["games_won", "direct_encounter"]
    # Nothing of the rules or tiebreaks is logged as edited (other settings the form sent
    # differ from those the event was created with).
    log = EventLog.objects.get(event=event, action="edit")
    assert not {"rules", "tiebreaks"} & set(log.detail["fields"])
    assert not [name for name in log.detail["fields"] if name.startswith(("rule", "tiebreak_"))]


def test_an_edit_of_the_rules_is_logged_as_a_change_of_rules(admin_client):
    event = event_with(humans(2), "single_elim")
    form = {**EVENT_FORM, "name": event.name, "rule_line_bonus": "20"}
    response = admin_client.post(f"/admin/tournaments/event/{event.pk}/change/", form)
    assert response.status_code == 302, form_errors(response)
    fields = EventLog.objects.get(event=event, action="edit").detail["fields"]
    assert "rules" in fields and "tiebreaks" not in fields
    assert not [name for name in fields if name.startswith(("rule_", "tiebreak_"))]
    event.refresh_from_db()
    assert event.rules == {"line_bonus": 20, "preset": "standard"}


def test_the_format_select_names_each_formats_own_fields(admin_client):
    page = admin_client.get(ADD).text
    shows = json.loads(
        re.search(r'data-shows-fields="([^"]*)"', page).group(1).replace("&quot;", '"')
    )
    assert shows["single_elim"] == ["third_place"]
    assert shows["double_elim"] == ["bracket_reset"]
    assert "swiss_rounds" in shows["swiss"] and "tiebreak_1" in shows["swiss"]
    assert "swiss_rounds" not in shows["round_robin"]
    assert "games/admin/option-fields.js" in page
    for names in FORMAT_FIELDS.values():  # every format's fields are in the page to show
        for name in names:
            assert f"field-{name}" in page


def test_a_started_event_shows_only_its_formats_options_read_only(admin_client):
    event = event_with(humans(4), "swiss", rules={"preset": "oklahoma"})
    services.event_start(event=event)
    page = admin_client.get(f"/admin/tournaments/event/{event.pk}/change/").text
    assert "field-swiss_rounds" in page and "field-tiebreaks" in page
    assert "field-third_place" not in page and "field-bracket_reset" not in page
    assert 'name="rules_preset"' not in page

    # Renaming it keeps its rules (the rule selects are not in a started event's form).
    response = admin_client.post(
        f"/admin/tournaments/event/{event.pk}/change/",
        {
            "name": "Renamed",
            "entries-TOTAL_FORMS": 0,
            "entries-INITIAL_FORMS": 0,
            "webhooks-TOTAL_FORMS": 0,
            "webhooks-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, form_errors(response)
    event.refresh_from_db()
    assert event.name == "Renamed" and event.rules == {"preset": "oklahoma"}


def test_each_event_links_to_its_public_page(admin_client):
    event = event_with(humans(2), "single_elim")
    change = admin_client.get(f"/admin/tournaments/event/{event.pk}/change/").text
    assert f'href="/events/{event.pk}"' in change
    assert "View on site" in change
    listing = admin_client.get("/admin/tournaments/event/").text
    assert f'href="/events/{event.pk}"' in listing


def test_the_sidebar_says_matches(admin_client):
    page = admin_client.get("/admin/").text
    assert "Matches" in page and "Ladder matches" in page
    assert "Matchs" not in page


# --- ladders --------------------------------------------------------------------------------

LADDER_FORM = {
    "name": "Evening ladder",
    "slug": "evening-ladder",
    "kind": "ladder",
    "is_open": "on",
    "rules_preset": "standard",
    "best_of": 3,
    "target": 100,
    "base_seconds": 300,
    "increment_seconds": 5,
    "timeout_policy": "forfeit",
    "rating_system": "glicko2",
    "initial_rating": 1500,
    "k_provisional": 40,
    "provisional_matches": 30,
    "k_established": 20,
    "k_top": 10,
    "top_threshold": 2400,
    "scoring": "match",
    "human_bot_factor": 1,
    "glicko_deviation": 350,
    "glicko_volatility": 0.06,
    "glicko_tau": 0.5,
    "glicko_period_days": 7,
    "provisional_deviation": 110,
    "leaderboard_min_matches": 10,
    "leaderboard_active_days": 30,
    "window_initial": 50,
    "window_step": 25,
    "window_step_seconds": 10,
    "window_max": 1000,
    "window_deviation_factor": 1,
    "season_pull": 0,
    "divisions": 1,
    "division_size": 50,
    "promotion": 2,
    "bot_requeue_seconds": 10,
}


def test_staff_create_a_ladder_with_the_rules_in_fields(admin_client):
    form = {**LADDER_FORM, "rules_preset": "oklahoma", "rule_big_gin_bonus": "40"}
    response = admin_client.post("/admin/ladders/ladder/add/", form)
    assert response.status_code == 302, form_errors(response)
    ladder = Ladder.objects.get(slug="evening-ladder")
    assert ladder.rules == {"preset": "oklahoma", "big_gin_bonus": 40}
    assert ladder.is_glicko


def test_a_ladders_bad_rules_are_refused_as_the_api_refuses_them(admin_client, admin_user):
    response = admin_client.post(
        "/admin/ladders/ladder/add/", {**LADDER_FORM, "rule_oklahoma_spade_multiplier": "11"}
    )
    assert response.status_code == 200
    assert not Ladder.objects.filter(slug="evening-ladder").exists()
    api = api_client(admin_user).post(
        "/api/ladders",
        {"name": "x", "rules": {"oklahoma_spade_multiplier": 11}},
        format="json",
    )
    assert api.status_code == 400
    assert api.json()["detail"].replace("'", "&#x27;") in form_errors(response)


def test_the_rating_system_select_names_each_systems_own_fields(admin_client):
    ladder = ladder_services.ladder_create(name="Board", rules={"preset": "straight"})
    page = admin_client.get(f"/admin/ladders/ladder/{ladder.pk}/change/").text
    shows = json.loads(
        re.search(r'data-shows-fields="([^"]*)"', page).group(1).replace("&quot;", '"')
    )
    assert "glicko_tau" in shows["glicko2"] and "glicko_tau" not in shows["elo"]
    assert "k_top" in shows["elo"]
    assert re.search(r'<option value="straight" selected>', page)
    assert 'href="/leaderboard?ladder=' in page


def test_a_new_event_starts_with_the_default_rules_and_tiebreaks(admin_client):
    page = admin_client.get(ADD).text
    assert re.search(r'<option value="standard" selected>', page)
    for place, name in enumerate(["buchholz", "sonneborn_berger", "games_won", "margin"], 1):
        assert re.search(rf'name="tiebreak_{place}".*?<option value="{name}" selected>', page, re.S)
    fifth = re.search(r'name="tiebreak_5".*?</select>', page, re.S).group(0)
    assert re.search(r'<option value="\w+" selected>', fifth) is None  # the empty one is
