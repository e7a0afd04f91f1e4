"""The admin's "Add player": every kind it offers, with what each needs, and a form error (never
a 500 from the database's check) for a combination that does not fit the kind."""

import itertools
import re

import pytest

from accounts.deletion import account_delete
from accounts.models import Player
from tests.factories import BotFactory, UserFactory

pytestmark = pytest.mark.django_db

ADD = "/admin/accounts/player/add/"
BLANK = {"user": "", "bot_strategy": "", "owner": "", "description": "", "auto_accept": "nobody"}


def form_errors(response) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.text, re.S))


def add(admin_client, **fields):
    return admin_client.post(ADD, {**BLANK, **fields})


def test_the_add_form_offers_every_kind_and_says_what_each_needs(admin_client):
    page = admin_client.get(ADD).text

    for kind in ("human", "guest", "bot", "external"):
        assert f'<option value="{kind}"' in page
    assert "Guest: a name only" in page
    assert "Human: a user" in page
    assert "Bot: a strategy" in page
    assert "External bot: a user (holding its API tokens) and an owner" in page


def test_a_guest_needs_a_name_only(admin_client):
    response = add(admin_client, kind="guest", name="Walk In")

    assert response.status_code == 302, form_errors(response)
    guest = Player.objects.get(name="Walk In")
    assert guest.is_guest and guest.user is None


def test_a_human_needs_a_user(admin_client):
    refused = add(admin_client, kind="human", name="Dora")

    assert refused.status_code == 200
    assert "A human needs a user" in form_errors(refused)
    assert not Player.objects.filter(name="Dora").exists()

    user = UserFactory(username="dora")
    response = add(admin_client, kind="human", name="Dora", user=user.pk)
    assert response.status_code == 302, form_errors(response)
    assert Player.objects.get(name="Dora").user == user


def test_a_house_bot_needs_a_strategy_and_no_user(admin_client):
    refused = add(admin_client, kind="bot", name="Randy")
    assert refused.status_code == 200
    assert "A house bot needs a strategy" in form_errors(refused)

    with_user = add(
        admin_client, kind="bot", name="Randy", bot_strategy="random", user=UserFactory().pk
    )
    assert with_user.status_code == 200
    assert "A bot has no user" in form_errors(with_user)
    assert not Player.objects.filter(name="Randy").exists()

    response = add(admin_client, kind="bot", name="Randy", bot_strategy="random")
    assert response.status_code == 302, form_errors(response)
    assert Player.objects.get(name="Randy").is_bot


def test_an_external_bot_needs_a_user_and_a_human_owner(admin_client, alice):
    no_owner = add(admin_client, kind="external", name="Robo", user=UserFactory().pk)
    assert no_owner.status_code == 200
    assert "An external bot needs an owner" in form_errors(no_owner)

    bot_owner = add(
        admin_client, kind="external", name="Robo", user=UserFactory().pk, owner=BotFactory().pk
    )
    assert bot_owner.status_code == 200
    assert "The owner of an external bot is a human" in form_errors(bot_owner)
    assert not Player.objects.filter(name="Robo").exists()

    response = add(
        admin_client, kind="external", name="Robo", user=UserFactory().pk, owner=alice.pk
    )
    assert response.status_code == 302, form_errors(response)
    assert Player.objects.get(name="Robo").owner == alice


def test_a_guest_with_a_strategy_a_user_or_an_owner_is_a_form_error(admin_client, alice):
    for extra, message in [
        ({"bot_strategy": "random"}, "Only a house bot has a strategy"),
        ({"user": UserFactory().pk}, "A guest has no user"),
        ({"owner": alice.pk}, "Only an external bot has an owner"),
    ]:
        response = add(admin_client, kind="guest", name="Walk In", **extra)
        assert response.status_code == 200, extra
        assert message in form_errors(response)
    assert not Player.objects.filter(name="Walk In").exists()


@pytest.mark.parametrize(
    ("kind", "user", "strategy", "owner"),
    list(itertools.product(["human", "guest", "bot", "external"], [0, 1], [0, 1], [0, 1])),
)
def test_no_combination_of_fields_answers_500(admin_client, alice, kind, user, strategy, owner):
    fields = {"kind": kind, "name": "Someone"}
    if user:
        fields["user"] = UserFactory().pk
    if strategy:
        fields["bot_strategy"] = "random"
    if owner:
        fields["owner"] = alice.pk

    response = add(admin_client, **fields)

    assert response.status_code in (200, 302)
    assert (response.status_code == 302) == Player.objects.filter(name="Someone").exists()


def test_a_deleted_persons_player_can_still_be_renamed(admin_client, alice):
    player = account_delete(user=alice.user)
    url = f"/admin/accounts/player/{player.pk}/change/"

    response = admin_client.post(url, {**BLANK, "kind": "human", "name": "Gone"})

    assert response.status_code == 302, form_errors(response)
    player.refresh_from_db()
    assert player.name == "Gone" and player.user is None
