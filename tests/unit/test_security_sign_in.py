"""Sign-in lockout and sign-up throttling: guessing passwords or making accounts in bulk stops.

After ``AXES_FAILURE_LIMIT`` wrong passwords for one username from one address, every
sign-in for it from there is refused, the right password too, on the web sign-in page, the
admin's and the API's, until the cool-down has passed; after ``SIGN_IN_ADDRESS_FAILURE_LIMIT``
from one address, whatever the usernames, every sign-in from there is. The person whose
username is guessed still signs in from their own address. Mallory is the one guessing.
"""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import authenticate
from django.db.models import F
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.lockout import lockout_message
from accounts.models import Player
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "correct horse battery staple"
MALLORY = "203.0.113.66"  # an address from the documentation range
SIGN_IN_FORMS = {"web": "/login", "admin": "/admin/login/"}


@pytest.fixture
def limit(settings) -> int:
    assert settings.AXES_FAILURE_LIMIT == 5  # the documented default
    return settings.AXES_FAILURE_LIMIT


@pytest.fixture
def address_limit(settings) -> int:
    assert settings.SIGN_IN_ADDRESS_FAILURE_LIMIT == 20  # the documented default
    return settings.SIGN_IN_ADDRESS_FAILURE_LIMIT


def form_sign_in(where: str, username: str, password: str, address: str = MALLORY):
    """One sign-in on a sign-in page, from ``address``, in a browser of its own."""
    return Client(REMOTE_ADDR=address).post(
        SIGN_IN_FORMS[where], {"username": username, "password": password}
    )


def api_sign_in(username: str, password: str, address: str = MALLORY):
    return APIClient(REMOTE_ADDR=address).post(
        "/api/auth/login", {"username": username, "password": password}, format="json"
    )


def signed_in(response) -> bool:
    """Whether a sign-in page's answer signed the browser in (a redirect with a session)."""
    return response.status_code == 302 and "sessionid" in response.cookies


def age_failures(by: timedelta) -> None:
    """Move every counted failure ``by`` into the past, as if that much time had gone by."""
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - by)


# --- the lockout ----------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["web", "admin"])
def test_five_wrong_passwords_lock_the_right_one_out_on_the_sign_in_pages(where, alice, limit):
    if where == "admin":
        alice.user.is_staff = True
        alice.user.save()
    for _ in range(limit - 1):
        response = form_sign_in(where, "alice", "not-hers")
        assert response.status_code == 200 and not signed_in(response)  # the form again
    assert form_sign_in(where, "alice", "not-hers").status_code == 429  # the fifth locks

    response = form_sign_in(where, "alice", PASSWORD)

    assert response.status_code == 429
    assert not signed_in(response)
    assert lockout_message() in response.content.decode()
    assert "15 minutes" in lockout_message()
    assert response["Retry-After"] == "900"


def test_five_wrong_passwords_lock_the_right_one_out_on_the_api(alice, limit):
    for _ in range(limit - 1):
        assert api_sign_in("alice", "not-hers").status_code == 400
    assert api_sign_in("alice", "not-hers").json()["code"] == "locked_out"  # the fifth locks

    response = api_sign_in("alice", PASSWORD)

    assert response.status_code == 429
    assert response.json() == {"detail": lockout_message(), "code": "locked_out"}
    assert response["Retry-After"] == "900"
    assert not AuthToken.objects.exists()


def test_one_failure_fewer_still_lets_the_right_password_in(alice, limit):
    for _ in range(limit - 1):
        form_sign_in("web", "alice", "not-hers")

    assert signed_in(form_sign_in("web", "alice", PASSWORD))


def test_guesses_from_elsewhere_do_not_lock_the_person_out(alice, limit):
    for n in range(3):  # Mallory, and two more addresses of hers
        for _ in range(limit):
            form_sign_in("web", "alice", "not-hers", address=f"198.51.100.{n + 1}")
        assert (
            form_sign_in("web", "alice", PASSWORD, address=f"198.51.100.{n + 1}").status_code == 429
        )

    assert signed_in(form_sign_in("web", "alice", PASSWORD, address="192.0.2.10"))  # at home
    assert api_sign_in("alice", PASSWORD, address="192.0.2.10").status_code == 200


def test_a_locked_username_leaves_the_address_its_other_sign_ins(alice, bob, limit):
    for _ in range(limit):
        form_sign_in("web", "alice", "not-hers")

    assert form_sign_in("web", "alice", PASSWORD).status_code == 429
    assert signed_in(form_sign_in("web", "bob", PASSWORD))  # bob, behind the same address


def test_an_address_is_locked_whichever_accounts_it_guesses(alice, bob, limit, address_limit):
    for n in range(address_limit - 1):
        form_sign_in("web", f"someone{n}", "guess")  # each username fewer times than the limit
    assert signed_in(form_sign_in("web", "bob", PASSWORD))  # one failure to go

    form_sign_in("web", "someone-else", "guess")

    assert form_sign_in("web", "bob", PASSWORD).status_code == 429  # from Mallory's address
    assert api_sign_in("bob", PASSWORD).status_code == 429
    assert signed_in(form_sign_in("web", "bob", PASSWORD, address="192.0.2.20"))  # elsewhere


def test_guesses_on_the_api_and_on_the_page_count_together(alice, limit):
    for n in range(limit):
        if n % 2:
            api_sign_in("alice", "not-hers")
        else:
            form_sign_in("web", "alice", "not-hers")

    assert form_sign_in("web", "alice", PASSWORD).status_code == 429
    assert api_sign_in("alice", PASSWORD).status_code == 429


def test_a_forged_forwarded_for_header_does_not_escape_the_lockout(alice, limit):
    for n in range(limit):
        Client(REMOTE_ADDR=MALLORY, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").post(
            "/login", {"username": "alice", "password": "guess"}
        )

    response = Client(REMOTE_ADDR=MALLORY, HTTP_X_FORWARDED_FOR="10.9.9.9").post(
        "/login", {"username": "alice", "password": PASSWORD}
    )

    assert response.status_code == 429


def test_the_lockout_ends_after_the_cool_down(alice, limit, settings):
    for _ in range(limit):
        form_sign_in("web", "alice", "not-hers")
    cool_off = settings.AXES_COOLOFF_TIME

    age_failures(cool_off - timedelta(minutes=1))
    assert form_sign_in("web", "alice", PASSWORD).status_code == 429  # a minute to go

    age_failures(timedelta(minutes=1, seconds=1))
    assert signed_in(form_sign_in("web", "alice", PASSWORD))
    assert api_sign_in("alice", PASSWORD).status_code == 200


def test_sign_ins_during_the_lockout_do_not_extend_it(alice, limit, settings):
    for _ in range(limit):
        form_sign_in("web", "alice", "not-hers")
    age_failures(settings.AXES_COOLOFF_TIME - timedelta(seconds=30))

    assert form_sign_in("web", "alice", "still-not-hers").status_code == 429

    age_failures(timedelta(seconds=31))
    assert signed_in(form_sign_in("web", "alice", PASSWORD))


def test_a_sign_in_checked_in_code_without_a_request_still_works(alice, limit):
    for _ in range(limit):
        form_sign_in("web", "alice", "not-hers")

    # No client to count or refuse (a test, the shell): Django's contract holds.
    assert authenticate(username="alice", password=PASSWORD) == alice.user
    assert authenticate(username="alice", password="not-hers") is None


# --- sign-ups -------------------------------------------------------------------------------


def sign_up(client: Client, n: int):
    return client.post(
        "/signup",
        {
            "username": f"sockpuppet{n}",
            "name": f"Sock puppet {n}",
            "password": GOOD_PASSWORD,
            "password_again": GOOD_PASSWORD,
        },
    )


def register(client: APIClient, n: int):
    return client.post(
        "/api/auth/register",
        {"username": f"sockpuppet{n}", "password": GOOD_PASSWORD},
        format="json",
    )


def test_web_sign_ups_are_throttled_like_the_apis_registration(settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"]
    allowed = int(rate.split("/")[0])
    for n in range(allowed):
        assert sign_up(Client(REMOTE_ADDR=MALLORY), n).status_code == 302  # signed up and in

    response = sign_up(Client(REMOTE_ADDR=MALLORY), allowed)

    assert response.status_code == 429
    assert "Too many sign-ups from your address" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert Player.objects.count() == allowed
    # Somebody else, elsewhere, signs up as usual.
    assert sign_up(Client(REMOTE_ADDR="192.0.2.30"), allowed).status_code == 302


def test_the_page_and_the_api_share_one_allowance(settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"]
    allowed = int(rate.split("/")[0])
    for n in range(allowed):
        assert register(APIClient(REMOTE_ADDR=MALLORY), n).status_code == 201

    assert sign_up(Client(REMOTE_ADDR=MALLORY), allowed).status_code == 429


def test_a_throttled_sign_up_keeps_what_was_typed(settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"]
    for n in range(int(rate.split("/")[0])):
        register(APIClient(REMOTE_ADDR=MALLORY), n)

    page = sign_up(Client(REMOTE_ADDR=MALLORY), 99).content.decode()

    assert 'value="sockpuppet99"' in page
    assert GOOD_PASSWORD not in page
