"""The database keeps humans, guests and bots apart and names unique regardless of case."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.models import Player
from accounts.services import bot_create
from tests.factories import BotFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_names_are_unique_ignoring_case(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        BotFactory(name="aLiCe")


@pytest.mark.parametrize(
    ("kind", "with_user", "strategy"),
    [
        ("human", True, "random"),  # a human with a strategy
        ("human", False, ""),  # a human with no user
        ("bot", True, "random"),  # a bot with a user could sign in
        ("bot", False, ""),  # a bot with no strategy
        ("guest", True, ""),  # a guest with a user could sign in
        ("guest", False, "random"),  # a guest with a strategy
        ("alien", False, "random"),
    ],
)
def test_kind_rules_are_enforced_by_the_database(kind, with_user, strategy):
    user = UserFactory() if with_user else None

    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(name="X", kind=kind, user=user, bot_strategy=strategy)


def test_bot_create_service_validates():
    with pytest.raises(ValidationError) as caught:
        bot_create(name="", strategy="")
    assert set(caught.value.message_dict) == {"name", "bot_strategy"}
    assert bot_create(name="Ada (expert)", strategy="expert").is_bot


def test_a_human_player_signs_in_but_a_bot_cannot(client, password):
    PlayerFactory(user__username="dora", name="Dora")
    BotFactory(name="Randy")

    signed_in = client.post("/api/auth/login", {"username": "dora", "password": password})
    assert signed_in.status_code == 200
    response = client.post("/api/auth/login", {"username": "Randy", "password": ""})
    assert response.status_code == 400


def test_a_guest_is_a_name_alone_and_a_person_for_rated_play():
    guest = Player.objects.create(name="Walk In", kind=Player.Kind.GUEST)

    assert guest.is_guest and not guest.is_bot and not guest.is_any_bot
    assert guest.stable_id == guest.pk  # a person of their own, never one stable with another


def test_a_guest_has_no_owner(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(name="Owned", kind=Player.Kind.GUEST, owner=alice)


def test_a_guest_cannot_sign_in(client):
    guest = Player.objects.create(name="Walk In", kind=Player.Kind.GUEST)

    for username in (guest.name, "walk in", str(guest.pk)):
        response = client.post("/api/auth/login", {"username": username, "password": ""})
        assert response.status_code == 400
    page = client.post("/login", {"username": guest.name, "password": "x"})
    assert page.status_code == 200 and "_auth_user_id" not in client.session
