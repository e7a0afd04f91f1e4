"""The admin's front page: what organisers use first, the internal sections for superusers."""

import re

import pytest
from django.contrib.auth.models import Permission

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def sections(client) -> list[str]:
    """The front page's app sections, top to bottom."""
    page = client.get("/admin/").content.decode()
    return re.findall(r'<caption>\s*<a href="/admin/([a-z_]+)/"', page)


def first_models(client) -> list[str]:
    """The front page's models, top to bottom."""
    page = client.get("/admin/").content.decode()
    return re.findall(r'<tr class="model-([a-z]+)">', page)


def test_a_superuser_sees_events_ladders_and_players_first_and_the_internals_last(client):
    boss = PlayerFactory(user__username="boss", user__is_staff=True, user__is_superuser=True)
    client.force_login(boss.user)

    shown = sections(client)

    assert shown[:4] == ["tournaments", "ladders", "accounts", "games"]
    assert {"axes", "knox", "auth"} <= set(shown[4:])
    models = first_models(client)
    assert models[0] == "event" and models.index("ladder") < models.index("player")


def test_staff_given_an_internal_model_for_one_job_do_not_see_it_on_the_front_page(client):
    olga = PlayerFactory(user__username="olga", user__is_staff=True).user
    for codename in ("view_event", "change_event", "view_accessattempt", "view_user"):
        olga.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(olga)

    shown = sections(client)

    assert shown == ["tournaments"]
    assert client.get("/admin/axes/accessattempt/").status_code == 200  # still reachable
