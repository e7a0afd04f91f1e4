"""POST /api/auth/register: a new account, its human player, and a token."""

import re

import pytest

from accounts.models import Player

pytestmark = pytest.mark.django_db

URL = "/api/auth/register"
GOOD_PASSWORD = "correct horse battery staple"


def test_registration_creates_user_player_and_token(client):
    response = client.post(URL, {"username": "dora", "password": GOOD_PASSWORD, "name": "Dora"})

    assert response.status_code == 201
    body = response.json()
    assert body["token"] and body["expiry"]
    assert body["player"]["name"] == "Dora"
    assert body["player"]["kind"] == "human"
    assert body["player"]["username"] == "dora"
    player = Player.objects.get(name="Dora")
    assert player.user.username == "dora"
    assert player.user.check_password(GOOD_PASSWORD)
    # The token works at once.
    me = client.get("/api/me", HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.json()["name"] == "Dora"


def test_without_a_display_name_the_player_gets_one_that_is_not_the_username(client):
    response = client.post(URL, {"username": "dora", "password": GOOD_PASSWORD})

    assert response.status_code == 201
    name = response.json()["player"]["name"]
    assert re.fullmatch(r"Player \d{6}", name)
    assert "dora" not in name.casefold()
    # Where others see the player, the username does not show.
    player = Player.objects.get(user__username="dora")
    assert client.get(f"/api/players/{player.pk}").json()["name"] == name
    assert "dora" not in client.get(f"/players/{player.pk}").content.decode()


def test_each_unnamed_player_gets_a_name_of_their_own(client):
    for n in range(3):
        body = {"username": f"dora{n}", "password": GOOD_PASSWORD}
        assert client.post(URL, body).status_code == 201

    assert len({p.name for p in Player.objects.all()}) == 3


def test_taken_name_is_refused_whatever_its_case(client, alice):
    response = client.post(URL, {"username": "dora", "password": GOOD_PASSWORD, "name": "ALICE"})

    assert response.status_code == 400
    assert response.json() == {
        "detail": "Invalid input.",
        "code": "invalid",
        "errors": {"name": ["A player with this name already exists."]},
    }
    assert not Player.objects.filter(user__username="dora").exists()


def test_taken_username_is_refused(client, alice):
    response = client.post(URL, {"username": "Alice", "password": GOOD_PASSWORD, "name": "Al"})

    assert response.status_code == 400
    assert response.json()["errors"] == {"username": ["A user with this username already exists."]}


def test_weak_password_is_refused_with_every_reason(client):
    response = client.post(URL, {"username": "dora", "password": "12345"})

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["errors"]["password"] == [
        "This password is too short. It must contain at least 8 characters.",
        "This password is too common.",
        "This password is entirely numeric.",
    ]


def test_password_like_the_username_is_refused(client):
    response = client.post(URL, {"username": "dorathea", "password": "dorathea1"})

    assert response.status_code == 400
    assert "too similar to the username" in response.json()["errors"]["password"][0]


def test_all_field_problems_are_reported_at_once(client, alice):
    response = client.post(URL, {"username": "bad name!", "password": "x", "name": "Alice"})

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"username", "password", "name"}


def test_missing_fields_are_named(client):
    response = client.post(URL, {})

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "username": ["This field is required."],
        "password": ["This field is required."],
    }


def test_malformed_json_is_a_400_in_the_error_shape(client):
    response = client.post(
        URL, data='{"username": "dora", "password":', content_type="application/json"
    )

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "parse_error"
    assert body["detail"].startswith("JSON parse error")
    assert not Player.objects.exists()


def test_names_with_odd_characters_are_refused(client):
    response = client.post(URL, {"username": "dora", "password": GOOD_PASSWORD, "name": "<b>x"})

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["name"]


def test_registration_is_throttled(client, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"]
    allowed = int(rate.split("/")[0])
    for n in range(allowed):
        client.post(URL, {"username": f"user{n}", "password": GOOD_PASSWORD})

    response = client.post(URL, {"username": "onemore", "password": GOOD_PASSWORD})

    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert "Retry-After" in response.headers
