"""The organiser API for ladders: create, edit, open and close, queue the house bots.

The cast: olga holds the one ladder permission each action needs, vera is staff who may only
view, pat is a player.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from ladders import services
from ladders.models import Ladder, QueueEntry
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder

pytestmark = pytest.mark.django_db


def staff(username: str, *codenames: str):
    user = PlayerFactory(user__username=username).user
    user.is_staff = True
    user.save()
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = APIClient()
    client.force_authenticate(user=type(user).objects.get(pk=user.pk))
    return client


@pytest.fixture
def pat(db):
    client = APIClient()
    client.force_authenticate(user=PlayerFactory(user__username="pat").user)
    return client


@pytest.fixture
def ladder(db):
    return make_ladder()


ENDPOINTS = [
    ("post", lambda ladder: "/api/ladders", {"name": "Blitz"}, "add_ladder"),
    ("patch", lambda ladder: f"/api/ladders/{ladder.pk}", {"target": 150}, "change_ladder"),
    ("post", lambda ladder: f"/api/ladders/{ladder.pk}/close", {}, "change_ladder"),
    ("post", lambda ladder: f"/api/ladders/{ladder.pk}/open", {}, "change_ladder"),
    ("post", lambda ladder: f"/api/ladders/{ladder.pk}/queue-bots", {}, "change_ladder"),
]


@pytest.mark.parametrize("method,path,body,codename", ENDPOINTS, ids=lambda v: str(v)[:20])
def test_each_ladder_endpoint_needs_its_permission(ladder, pat, method, path, body, codename):
    other = "change_ladder" if codename == "add_ladder" else "add_ladder"
    refused_to = [staff("vera"), staff("nearly", other), pat]
    call = lambda client: getattr(client, method)(path(ladder), body, format="json")  # noqa: E731
    before = list(Ladder.objects.order_by("pk").values_list())

    refused = [call(client) for client in refused_to]
    after_refusals = list(Ladder.objects.order_by("pk").values_list())
    allowed = call(staff("olga", codename))

    assert [r.status_code for r in refused] == [403, 403, 403]
    assert {r.json()["code"] for r in refused} == {"permission_denied"}
    assert after_refusals == before
    assert allowed.status_code in (200, 201), allowed.content


def test_an_organiser_creates_a_glicko_ladder(db):
    response = staff("olga", "add_ladder").post(
        "/api/ladders",
        {"name": "Quick Gin", "rating_system": "glicko2", "best_of": 3, "target": 100},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert (body["slug"], body["best_of"], body["target"]) == ("quick-gin", 3, 100)
    assert body["rating_settings"]["system"] == "glicko2"


def test_a_ladder_with_a_taken_name_or_duplicate_deals_is_refused(ladder):
    olga = staff("olga", "add_ladder")

    taken = olga.post("/api/ladders", {"name": ladder.name}, format="json")
    duplicates = olga.post(
        "/api/ladders", {"name": "Twins", "rules": {"duplicate_deals": True}}, format="json"
    )

    assert taken.status_code == 400 and "name" in taken.json()["errors"]
    assert duplicates.status_code == 400
    assert duplicates.json()["code"] == "duplicate_deals_need_bots"
    assert Ladder.objects.count() == 1


def test_an_edit_that_breaks_a_rule_changes_nothing(ladder):
    olga = staff("olga", "change_ladder")

    response = olga.patch(
        f"/api/ladders/{ladder.pk}", {"name": "Renamed", "best_of": 4}, format="json"
    )

    assert response.status_code == 400
    ladder.refresh_from_db()
    assert ladder.name != "Renamed" and ladder.best_of != 4


def test_a_ladder_cannot_be_edited_into_duplicate_deals(ladder):
    response = staff("olga", "change_ladder").patch(
        f"/api/ladders/{ladder.pk}", {"rules": {"duplicate_deals": True}}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "duplicate_deals_need_bots"
    ladder.refresh_from_db()
    assert ladder.rules == {}


def test_closing_a_ladder_keeps_players_out_of_its_queue(ladder, alice):
    olga = staff("olga", "change_ladder")

    closed = olga.post(f"/api/ladders/{ladder.pk}/close")
    ladder.refresh_from_db()
    with pytest.raises(services.LadderError) as refused:
        services.queue_join(ladder=ladder, player=alice)
    opened = olga.post(f"/api/ladders/{ladder.pk}/open")
    ladder.refresh_from_db()

    assert closed.json()["is_open"] is False and refused.value.code == "ladder_closed"
    assert opened.json()["is_open"] is True
    assert services.queue_join(ladder=ladder, player=alice)


def test_the_house_bots_of_a_ladder_are_queued(ladder, alice):
    robots = [BotFactory(name=f"Robot {i}", bot_strategy="greedy") for i in range(2)]
    for robot in robots:
        services.membership_ensure(ladder=ladder, player=robot)
    services.membership_ensure(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=robots[1])

    response = staff("olga", "change_ladder").post(f"/api/ladders/{ladder.pk}/queue-bots")

    assert response.status_code == 200
    assert response.json()["queued"] == [robots[0].pk]
    assert [r["player"] for r in response.json()["refused"]] == [robots[1].pk]
    assert set(QueueEntry.objects.values_list("player", flat=True)) == {r.pk for r in robots}
