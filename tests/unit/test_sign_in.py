"""Sign-in tokens: issued on sign-in, expiring, revocable; wrong tokens are refused."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.conftest import sign_in

pytestmark = pytest.mark.django_db


def test_sign_in_returns_a_token_that_expires_after_the_ttl(client, alice, password, settings):
    response = client.post("/api/auth/login", {"username": "alice", "password": password})

    assert response.status_code == 200
    body = response.json()
    assert body["player"]["name"] == "Alice"
    token = AuthToken.objects.get(user=alice.user)
    ttl = settings.REST_KNOX["TOKEN_TTL"]
    assert abs(token.expiry - (timezone.now() + ttl)) < timedelta(minutes=1)


def test_wrong_password_is_refused(client, alice):
    response = client.post("/api/auth/login", {"username": "alice", "password": "not-hers"})

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "non_field_errors": ["Unable to sign in with the given username and password."]
    }
    assert not AuthToken.objects.exists()


def test_inactive_user_cannot_sign_in(client, alice, password):
    alice.user.is_active = False
    alice.user.save()

    response = client.post("/api/auth/login", {"username": "alice", "password": password})

    assert response.status_code == 400


def test_wrong_token_is_a_401(client, alice):
    response = client.get("/api/me", HTTP_AUTHORIZATION="Token " + "0" * 64)

    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token.", "code": "authentication_failed"}
    assert response.headers["WWW-Authenticate"] == "Token"


def test_no_token_is_a_401(client):
    response = client.get("/api/me")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_expired_token_is_refused(alice_client, alice):
    AuthToken.objects.filter(user=alice.user).update(expiry=timezone.now() - timedelta(seconds=1))

    response = alice_client.get("/api/me")

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_an_expired_token_is_deleted_when_it_is_presented(alice_client, alice):
    AuthToken.objects.filter(user=alice.user).update(expiry=timezone.now() - timedelta(seconds=1))

    assert alice_client.get("/api/me").status_code == 401
    assert not AuthToken.objects.filter(user=alice.user).exists()


def test_signing_in_deletes_the_users_expired_tokens_and_keeps_the_others(alice, password):
    old, current = APIClient(), APIClient()
    sign_in(old, "alice", password)
    sign_in(current, "alice", password)
    expired = AuthToken.objects.filter(user=alice.user).order_by("created").first()
    AuthToken.objects.filter(pk=expired.pk).update(expiry=timezone.now() - timedelta(seconds=1))

    sign_in(APIClient(), "alice", password)

    assert not AuthToken.objects.filter(pk=expired.pk).exists()
    assert AuthToken.objects.filter(user=alice.user).count() == 2
    assert current.get("/api/me").status_code == 200


def test_a_token_with_the_right_key_but_the_wrong_secret_is_refused(alice_client, alice):
    token = alice_client._credentials["HTTP_AUTHORIZATION"].split()[1]
    forged = token[:-4] + ("0000" if token[-4:] != "0000" else "1111")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {forged}")

    response = client.get("/api/me")

    assert response.status_code == 401
    assert AuthToken.objects.filter(user=alice.user).count() == 1


def test_sign_out_revokes_only_the_current_token(alice, password):
    laptop, phone = APIClient(), APIClient()
    sign_in(laptop, "alice", password)
    sign_in(phone, "alice", password)

    assert laptop.post("/api/auth/logout").status_code == 204

    assert laptop.get("/api/me").status_code == 401
    assert phone.get("/api/me").status_code == 200


def test_sign_out_everywhere_revokes_every_token(alice, password):
    laptop, phone = APIClient(), APIClient()
    sign_in(laptop, "alice", password)
    sign_in(phone, "alice", password)

    assert phone.post("/api/auth/logoutall").status_code == 204

    assert laptop.get("/api/me").status_code == 401
    assert phone.get("/api/me").status_code == 401
    assert not AuthToken.objects.filter(user=alice.user).exists()


def test_sign_out_everywhere_ends_the_web_sessions_too(alice, bob, password):
    browser = Client()
    assert browser.post("/login", {"username": "alice", "password": password}).status_code == 302
    bobs_browser = Client()
    bobs_browser.force_login(bob.user)
    assert browser.get("/api/me").json()["name"] == "Alice"
    phone = APIClient()
    sign_in(phone, "alice", password)

    assert phone.post("/api/auth/logoutall").status_code == 204

    response = browser.get("/api/me")  # the same session cookie as before
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert browser.get("/lobby").status_code == 302  # to the sign-in page
    assert bobs_browser.get("/api/me").json()["name"] == "Bob"  # nobody else is signed out


def test_sign_out_needs_a_token(client):
    assert client.post("/api/auth/logout").status_code == 401


def test_a_stale_token_header_does_not_block_signing_in(client, alice, password):
    client.credentials(HTTP_AUTHORIZATION="Token stale")

    response = client.post("/api/auth/login", {"username": "alice", "password": password})

    assert response.status_code == 200


def test_sign_in_is_throttled(client, alice, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["sign-in"]
    for _ in range(int(rate.split("/")[0])):
        client.post("/api/auth/login", {"username": "alice", "password": "guess"})

    response = client.post("/api/auth/login", {"username": "alice", "password": "guess"})

    assert response.status_code == 429
    assert response.json()["code"] == "throttled"


def test_a_forged_forwarded_for_header_does_not_escape_the_throttle(client, alice, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["sign-in"]
    for n in range(int(rate.split("/")[0])):
        client.post(
            "/api/auth/login",
            {"username": "alice", "password": "guess"},
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}",
        )

    response = client.post(
        "/api/auth/login",
        {"username": "alice", "password": "guess"},
        HTTP_X_FORWARDED_FOR="10.9.9.9",
    )

    assert response.status_code == 429
