"""The score pad of a table match, without a browser: who gets the pad's controls, who reads
the sheet only, and which addresses answer 404.

The cast: alice and bob play at table 3; carol plays in the same event at another table; eve
only watches; olga organises (staff who may change matches); stan is staff without that right.
"""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from games import services, tables
from games.models import Game, Match
from tests.factories import PlayerFactory
from tests.tournaments import event_with
from tournaments import services as event_services
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db


def browser(player=None, user=None) -> Client:
    client = Client()
    if player is not None or user is not None:
        client.force_login(user or player.user)
    return client


def staff(username: str, *permissions: str):
    user = PlayerFactory(user__username=username, name=username.capitalize()).user
    user.is_staff = True
    user.save()
    for name in permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def cast(db):
    people = {
        name: PlayerFactory(user__username=name, name=name.capitalize())
        for name in ("alice", "bob", "carol", "dave", "eve")
    }
    people["olga"] = staff("olga", "games.change_match")
    people["stan"] = staff("stan")
    return people


def at_table(a, b, rules="standard", table: int = 3) -> Match:
    return tables.table_match_create(
        player_a=a, player_b=b, rules={"name": rules, "best_of": 1, "target": 50}, table=table
    )


def page(client: Client, match: Match) -> str:
    response = client.get(f"/matches/{match.pk}/pad")
    assert response.status_code == 200
    return response.content.decode()


def embedded_sheet(html: str) -> dict:
    found = re.search(r'<script id="pad-sheet" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page embeds the sheet for pad.js"
    return json.loads(found.group(1))


def test_a_player_gets_the_pad_to_enter_hands(cast):
    match = at_table(cast["alice"], cast["bob"])

    html = page(browser(cast["alice"]), match)

    assert 'data-you="0"' in html and 'data-may-enter="true"' in html
    assert 'id="entry"' in html and 'id="take-back"' in html and 'id="confirm"' in html
    for kind in ("knock", "gin", "big_gin", "drawn"):
        assert f'data-kind="{kind}"' in html
    assert html.count('class="key" data-digit=') == 10  # the number pad for deadwood
    assert "Table 3" in html and "web/js/pad.js" in html
    assert 'data-organiser="false"' in html and 'id="pad-reason"' not in html


def test_the_second_player_gets_the_pad_too(cast):
    match = at_table(cast["alice"], cast["bob"])
    html = page(browser(cast["bob"]), match)
    assert 'data-you="1"' in html and 'id="entry"' in html


@pytest.mark.parametrize("who", ["eve", "carol", "stan", None])
def test_anyone_else_reads_the_sheet_without_the_pads_controls(cast, who):
    match = at_table(cast["alice"], cast["bob"])
    client = browser() if who is None else browser(user=getattr(cast[who], "user", cast[who]))

    html = page(client, match)

    assert 'data-may-enter="false"' in html and 'data-you=""' in html
    controls = ('id="entry"', 'id="take-back"', 'id="confirm"', 'id="dispute-form"', "data-digit")
    for control in controls:
        assert control not in html, control
    assert "read only" in html and 'id="sheet"' in html


def test_an_organiser_gets_the_pad_and_is_asked_for_a_reason(cast):
    match = at_table(cast["alice"], cast["bob"])

    html = page(browser(user=cast["olga"]), match)

    assert 'data-organiser="true"' in html and 'data-may-enter="true"' in html
    assert 'id="entry"' in html and 'id="pad-reason"' in html
    assert "you act as an organiser" in html


def test_the_page_embeds_the_sheet_the_api_answers(cast):
    match = at_table(cast["alice"], cast["bob"])
    tables.hand_enter(
        match_id=match.pk,
        player=cast["alice"],
        user=cast["alice"].user,
        kind="knock",
        knocker=cast["alice"].pk,
        deadwood={cast["alice"].pk: 4, cast["bob"].pk: 30},
    )

    sheet = embedded_sheet(page(browser(cast["eve"]), match))
    api = browser(cast["eve"]).get(f"/api/matches/{match.pk}/sheet").json()

    assert sheet["hands"][0]["points"] == 26 and sheet["next_hand"] == 1
    for row in sheet["hands"] + api["hands"]:
        row.pop("entered_at")  # the same moment, written by two JSON encoders
    assert sheet == api


def test_the_page_lists_the_games_whose_sockets_it_follows(cast):
    match = at_table(cast["alice"], cast["bob"])
    games = list(Game.objects.filter(match=match).values_list("pk", flat=True))

    html = page(browser(cast["alice"]), match)

    found = re.search(r'<script id="pad-games" type="application/json">(.*?)</script>', html)
    assert found and json.loads(found.group(1)) == games


def test_oklahoma_asks_for_the_upcard_with_a_card_picker(cast):
    oklahoma = at_table(cast["alice"], cast["bob"], rules="oklahoma")
    standard = at_table(cast["carol"], cast["dave"], table=4)

    with_upcard = page(browser(cast["alice"]), oklahoma)
    without = page(browser(cast["carol"]), standard)

    assert 'id="step-upcard"' in with_upcard and with_upcard.count("data-rank=") == 13
    assert with_upcard.count("data-suit=") == 4 and 'data-oklahoma="true"' in with_upcard
    assert 'id="step-upcard"' not in without and 'data-oklahoma="false"' in without


def test_hollywood_is_said_so_for_the_three_columns(cast):
    match = at_table(cast["alice"], cast["bob"], rules="hollywood")
    html = page(browser(cast["alice"]), match)
    assert 'data-hollywood="true"' in html


def test_the_table_of_a_table_match_is_its_pad(cast):
    match = at_table(cast["alice"], cast["bob"])
    game = Game.objects.get(match=match)

    response = browser(cast["alice"]).get(f"/games/{game.pk}")

    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/pad"


def test_an_online_match_has_no_pad(cast):
    online = services.match_create(player_a=cast["alice"], player_b=cast["bob"], best_of=1)
    assert browser(cast["alice"]).get(f"/matches/{online.pk}/pad").status_code == 404


def test_no_such_match_has_no_pad(cast):
    assert browser(cast["alice"]).get("/matches/987654/pad").status_code == 404


def test_someone_elses_challenge_has_no_pad(cast):
    challenge = services.challenge_create(challenger=cast["alice"], opponent=cast["bob"])
    response = browser(cast["eve"]).get(f"/matches/{challenge.pk}/pad")
    assert response.status_code == 404 and "Alice" not in response.content.decode()


def test_an_event_match_at_a_table_names_its_event_and_the_match_page_links_the_pad(cast):
    people = [cast["alice"], cast["bob"], cast["carol"], cast["dave"]]
    event = event_with(people, "swiss", venue="tables")
    event_services.event_start(event=event)
    pairing = Pairing.objects.filter(event=event, match__isnull=False).select_related("match")
    match = pairing.order_by("table").first().match

    pad = page(browser(cast["eve"]), match)
    match_page = browser().get(f"/matches/{match.pk}").content.decode()

    assert event.name in pad and f"Table {match.table}" in pad
    assert f'href="/matches/{match.pk}/pad"' in match_page
    assert "The score sheet" in match_page
