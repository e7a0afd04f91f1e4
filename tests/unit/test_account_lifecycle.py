"""A person's account over its life: a password reset by e-mail, a change of password that
ends every other sign-in, and deleting the account while their matches and ratings stay."""

import re
import smtplib

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts import deletion
from accounts.models import Player
from accounts.services import bot_register, bot_token_issue, player_register
from games import services as play
from games.models import Match
from ladders.models import Rating, RatingChange
from tests.conftest import sign_in
from tests.factories import PASSWORD, PlayerFactory
from tests.ladders import make_ladder, play_ladder_match
from tests.tournaments import event_with
from tournaments import services as events
from tournaments.models import Entry

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a new and long passphrase 42"
User = get_user_model()


@pytest.fixture
def alice(db):
    player = PlayerFactory(user__username="alice", name="Alice")
    player.user.email = "alice@example.org"
    player.user.save()
    return player


def browser(username: str = "alice", password: str = PASSWORD) -> Client:
    client = Client()
    response = client.post("/login", {"username": username, "password": password})
    assert response.status_code == 302, response.content
    return client


def reset_link(client: Client, email: str = "alice@example.org") -> str:
    response = client.post("/password-reset", {"email": email})
    assert response.status_code == 302 and response["Location"] == "/password-reset/sent"
    assert len(mail.outbox) == 1
    found = re.search(r"https?://[^/\s]+(/password-reset/[^\s]+)", mail.outbox[0].body)
    assert found, mail.outbox[0].body
    return found.group(1)


def set_password(client: Client, link: str, password: str = NEW_PASSWORD):
    form = client.get(link)  # Django moves the token into the session, then redirects
    assert form.status_code == 302, form.status_code
    page = client.get(form["Location"])
    assert "Choose a new password" in page.text
    return client.post(form["Location"], {"new_password1": password, "new_password2": password})


# --- password reset -------------------------------------------------------------------------


def test_a_reset_link_by_e_mail_sets_a_new_password(alice):
    client = Client()
    link = reset_link(client)
    message = mail.outbox[0]
    assert message.to == ["alice@example.org"]
    assert "alice" in message.body and "Reset" in message.subject

    response = set_password(client, link)
    assert response.status_code == 302 and response["Location"] == "/password-reset/done"
    alice.user.refresh_from_db()
    assert alice.user.check_password(NEW_PASSWORD)
    assert browser("alice", NEW_PASSWORD)


def test_a_reset_link_works_once(alice):
    client = Client()
    link = reset_link(client)
    assert set_password(client, link).status_code == 302

    again = Client().get(link)
    assert again.status_code == 200
    assert "This link does not work" in again.text
    alice.user.refresh_from_db()
    assert alice.user.check_password(NEW_PASSWORD)


def test_an_expired_or_altered_reset_link_is_refused(alice, settings, monkeypatch):
    link = reset_link(Client())
    uid, token = link.rstrip("/").split("/")[-2:]
    altered = f"/password-reset/{uid}/{token[:-2]}xx"
    assert "This link does not work" in Client().get(altered).text

    # A day and a second later (the default timeout), the link is no good either.
    from django.contrib.auth.tokens import default_token_generator

    now = default_token_generator._now()
    monkeypatch.setattr(
        default_token_generator,
        "_now",
        lambda: now.replace(microsecond=0) + __import__("datetime").timedelta(hours=24, seconds=1),
    )
    assert "This link does not work" in Client().get(link, follow=True).text
    alice.user.refresh_from_db()
    assert alice.user.check_password(PASSWORD)


def test_a_reset_for_an_unknown_address_says_the_same_and_sends_nothing(alice):
    response = Client().post("/password-reset", {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"] == "/password-reset/sent"
    assert mail.outbox == []


def test_a_bad_address_is_refused_with_the_form_again(alice):
    response = Client().post("/password-reset", {"email": "not an address"})
    assert response.status_code == 200
    assert "Enter a valid email address" in response.text
    assert mail.outbox == []


def test_reset_requests_are_rate_limited_per_address(alice, settings):
    client = Client()
    for _ in range(5):
        assert client.post("/password-reset", {"email": "x@example.org"}).status_code == 302
    refused = client.post("/password-reset", {"email": "alice@example.org"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many reset requests" in refused.text
    assert mail.outbox == []


def test_a_reset_ends_every_sign_in(alice):
    elsewhere = browser()
    api = APIClient()
    sign_in(api, "alice")
    client = Client()
    assert set_password(client, reset_link(client)).status_code == 302

    assert elsewhere.get("/account").status_code == 302  # back to the sign-in page
    assert api.get("/api/me").status_code == 401
    assert not AuthToken.objects.filter(user=alice.user).exists()


# --- a change of password -------------------------------------------------------------------


def test_a_change_of_password_ends_the_other_sign_ins_and_keeps_this_one(alice):
    here, elsewhere = browser(), browser()
    api = APIClient()
    sign_in(api, "alice")

    response = here.post(
        "/account/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == "/account"
    assert here.get("/account").status_code == 200  # still signed in
    assert elsewhere.get("/account").status_code == 302
    assert api.get("/api/me").status_code == 401
    assert not AuthToken.objects.filter(user=alice.user).exists()
    mine = [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id")]
    assert len(mine) == 1


def test_a_change_with_the_wrong_old_password_changes_nothing(alice):
    here, elsewhere = browser(), browser()
    response = here.post(
        "/account/password",
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "Your old password was entered incorrectly" in response.text
    assert elsewhere.get("/account").status_code == 200
    alice.user.refresh_from_db()
    assert alice.user.check_password(PASSWORD)


def test_the_api_changes_the_password_and_answers_a_new_token(alice, alice_client):
    old_token = AuthToken.objects.get(user=alice.user)
    other = APIClient()
    sign_in(other, "alice")
    response = alice_client.post(
        "/api/auth/password",
        {"old_password": PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert other.get("/api/me").status_code == 401
    assert not AuthToken.objects.filter(pk=old_token.pk).exists()
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert fresh.get("/api/me").json()["username"] == "alice"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"old_password": "wrong", "new_password": NEW_PASSWORD}, "password"),
        ({"old_password": PASSWORD, "new_password": "123"}, "new_password"),
        ({"old_password": PASSWORD}, "new_password"),
        ({"old_password": 5, "new_password": NEW_PASSWORD}, "old_password"),
    ],
)
def test_a_bad_change_of_password_is_a_400_naming_the_field(alice, alice_client, body, field):
    response = alice_client.post("/api/auth/password", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    alice.user.refresh_from_db()
    assert alice.user.check_password(PASSWORD)
    assert alice_client.get("/api/me").status_code == 200


# --- deleting the account -------------------------------------------------------------------


def test_deleting_the_account_removes_the_person_and_keeps_their_matches_and_ratings(
    alice, bob, alice_client
):
    ladder = make_ladder()
    match = play_ladder_match(ladder, alice, bob)
    rating = Rating.objects.get(ladder=ladder, player=alice)
    changes = RatingChange.objects.filter(player=alice).count()
    robo = bot_register(owner=alice, name="Robo")
    bot_token_issue(bot=robo)
    elsewhere = browser()
    user_id = alice.user_id
    AccessAttempt.objects.create(
        username="alice", ip_address="10.0.0.1", failures_since_start=1, get_data="", post_data=""
    )

    response = alice_client.delete("/api/me", {"password": PASSWORD}, format="json")

    assert response.status_code == 204, response.content
    assert not User.objects.filter(pk=user_id).exists()
    assert not User.objects.filter(email="alice@example.org").exists()
    assert not AuthToken.objects.filter(user_id=user_id).exists()
    assert not AuthToken.objects.filter(user=robo.user).exists()  # their bot cannot play
    assert not AccessAttempt.objects.filter(username="alice").exists()
    assert elsewhere.get("/account").status_code == 302
    assert alice_client.get("/api/me").status_code == 401
    player = Player.objects.get(pk=alice.pk)
    assert player.name == f"deleted-{alice.pk}" and player.user is None and player.is_deleted
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner_id == alice.pk
    assert Rating.objects.get(pk=rating.pk).rating == rating.rating
    assert RatingChange.objects.filter(player=player).count() == changes
    # The public pages still show the match, under the neutral name.
    assert f"deleted-{alice.pk}" in Client().get(f"/matches/{match.pk}").text
    profile = browser("bob").get(f"/players/{alice.pk}")
    assert profile.status_code == 200 and "account deleted" in profile.text
    assert 'id="challenge"' not in profile.text
    assert f"deleted-{alice.pk}" in str(bob_view_of_matches(bob))


def bob_view_of_matches(bob):
    client = APIClient()
    sign_in(client, "bob")
    return client.get("/api/matches").json()


def test_a_finished_event_keeps_its_standings_after_an_entrant_deletes_their_account(alice, bob):
    event = event_with([alice, bob], "single_elim")
    events.event_start(event=event)
    from tests.tournaments import decide

    decide(event, event.pairings.get().key, alice)
    event.refresh_from_db()
    assert event.status == event.Status.FINISHED and event.champion_id == alice.pk

    deletion.account_delete(user=alice.user)

    event.refresh_from_db()
    assert event.champion_id == alice.pk
    standings = APIClient().get(f"/api/events/{event.pk}/standings").json()
    assert f"deleted-{alice.pk}" in str(standings)
    assert Entry.objects.filter(event=event).count() == 2


def test_deleting_is_refused_while_playing_a_match(alice, bob, alice_client):
    match = play.challenge_create(challenger=alice, opponent=bob)
    play.challenge_answer(match=match, player=bob, accept=True)
    response = alice_client.delete("/api/me", {"password": PASSWORD}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "account_busy" and body["match"] == match.pk
    assert f"match {match.pk}" in body["detail"]
    assert User.objects.filter(username="alice").exists()
    assert alice_client.get("/api/me").status_code == 200


def test_deleting_is_refused_while_entered_in_an_event(alice, bob, alice_client):
    event = event_with([alice, bob], "swiss")
    response = alice_client.delete("/api/me", {"password": PASSWORD}, format="json")
    assert response.status_code == 409
    assert response.json()["event"] == event.pk and event.name in response.json()["detail"]
    assert User.objects.filter(username="alice").exists()


def test_open_challenges_go_with_the_account(alice, bob, charlie):
    sent = play.challenge_create(challenger=alice, opponent=bob)
    received = play.challenge_create(challenger=charlie, opponent=alice)
    deletion.account_delete(user=alice.user)
    sent.refresh_from_db()
    received.refresh_from_db()
    assert sent.status == Match.Status.CANCELLED
    assert received.status == Match.Status.DECLINED
    with pytest.raises(play.PlayError) as refused:
        play.challenge_create(challenger=bob, opponent=Player.objects.get(pk=alice.pk))
    assert refused.value.code == "player_deleted"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"password": "wrong"}, 400, "wrong_password"),
        ({}, 400, None),
        ({"password": ["x"]}, 400, None),
    ],
)
def test_deleting_with_a_bad_password_is_refused_and_changes_nothing(
    alice, alice_client, body, status, code
):
    response = alice_client.delete("/api/me", body, format="json")
    assert response.status_code == status, response.content
    if code:
        assert response.json()["code"] == code
    assert User.objects.filter(username="alice").exists()
    assert Player.objects.get(pk=alice.pk).name == "Alice"


def test_wrong_passwords_for_deleting_count_towards_the_lockout(alice, alice_client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        alice_client.delete("/api/me", {"password": "wrong"}, format="json")
    response = alice_client.delete("/api/me", {"password": PASSWORD}, format="json")
    assert response.status_code == 429 and response.json()["code"] == "locked_out"
    assert User.objects.filter(username="alice").exists()


def test_staff_and_strangers_cannot_delete_through_the_api(alice, client):
    assert client.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 401
    alice.user.is_staff = True
    alice.user.save()
    staff = APIClient()
    sign_in(staff, "alice")
    assert staff.delete("/api/me", {"password": PASSWORD}, format="json").status_code == 403
    assert User.objects.filter(username="alice").exists()


def test_a_bots_token_cannot_delete_its_owners_account(alice):
    robo = bot_register(owner=alice, name="Robo")
    _, token = bot_token_issue(bot=robo)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api.delete("/api/me", {"password": PASSWORD}, format="json")
    assert response.status_code == 403
    assert User.objects.filter(username="alice").exists()


def test_the_deletion_page_asks_for_the_password(alice):
    client = browser()
    page = client.get("/account/delete")
    assert page.status_code == 200 and f"deleted-{alice.pk}" in page.text
    wrong = client.post("/account/delete", {"password": "wrong"})
    assert wrong.status_code == 400 and "That is not your password" in wrong.text
    assert User.objects.filter(username="alice").exists()
    done = client.post("/account/delete", {"password": PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/"
    assert not User.objects.filter(username="alice").exists()
    assert client.get("/account").status_code == 302


def test_the_deletion_page_says_why_it_cannot_delete_yet(alice, bob):
    event = event_with([alice, bob], "swiss")
    response = browser().post("/account/delete", {"password": PASSWORD})
    assert response.status_code == 409
    assert "withdraw from it first" in response.text and event.name in response.text


def test_nobody_registers_a_deleted_accounts_name(db):
    with pytest.raises(Exception) as refused:
        player_register(username="sneaky", password=NEW_PASSWORD, name="Deleted-12")
    assert "kept for deleted accounts" in str(refused.value)


# --- the e-mail address ---------------------------------------------------------------------


def test_the_account_page_sets_the_e_mail_address_a_reset_goes_to(bob):
    client = browser("bob")
    response = client.post("/account", {"email": "bob@example.org", "password": PASSWORD})
    assert response.status_code == 302
    bob.user.refresh_from_db()
    assert bob.user.email == "bob@example.org"
    assert mail.outbox == []  # there was no address to tell
    assert client.post("/account", {"email": "nope", "password": PASSWORD}).status_code == 400
    bob.user.refresh_from_db()
    assert bob.user.email == "bob@example.org"


@pytest.mark.parametrize(
    "password", [None, "", "not-hers"], ids=["no password", "empty", "wrong password"]
)
def test_a_session_without_the_password_cannot_move_the_reset_address(alice, password):
    stolen = browser()
    form = {"email": "mallory@example.org"}
    if password is not None:
        form["password"] = password

    response = stolen.post("/account", form)

    assert response.status_code == 400
    assert "That is not your password" in response.text or "This field is required" in response.text
    alice.user.refresh_from_db()
    assert alice.user.email == "alice@example.org"
    # So the reset Mallory asks for next goes nowhere.
    Client().post("/password-reset", {"email": "mallory@example.org"})
    assert mail.outbox == []


def test_a_change_of_address_is_told_to_the_old_address(alice):
    client = browser()

    response = client.post("/account", {"email": "alice@new.example", "password": PASSWORD})

    assert response.status_code == 302
    alice.user.refresh_from_db()
    assert alice.user.email == "alice@new.example"
    [notice] = mail.outbox
    assert notice.to == ["alice@example.org"]
    assert notice.subject == "Your Gin Rummy e-mail address was changed"
    assert "Hello alice," in notice.body and "If you did not" in notice.body
    assert "alice@new.example" not in notice.body  # whoever changed it learns nothing back
    assert "A notice went to alice@example.org" in client.get("/account").text


def test_removing_the_address_is_told_to_it_too(alice):
    response = browser().post("/account", {"email": "", "password": PASSWORD})

    assert response.status_code == 302
    alice.user.refresh_from_db()
    assert alice.user.email == ""
    [notice] = mail.outbox
    assert notice.to == ["alice@example.org"] and "no address any more" in notice.body


def test_saving_the_same_address_sends_nothing(alice):
    response = browser().post("/account", {"email": "alice@example.org", "password": PASSWORD})

    assert response.status_code == 302
    assert mail.outbox == []


class BrokenMail(BaseEmailBackend):
    """An SMTP server that is down."""

    def send_messages(self, email_messages):
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


def test_when_the_old_address_cannot_be_told_nothing_changes(alice, settings):
    settings.EMAIL_BACKEND = f"{__name__}.BrokenMail"

    response = browser().post("/account", {"email": "alice@new.example", "password": PASSWORD})

    assert response.status_code == 503
    assert "could not be sent, so nothing is changed" in response.text
    alice.user.refresh_from_db()
    assert alice.user.email == "alice@example.org"


def test_wrong_passwords_for_the_address_count_towards_the_lockout(alice, settings):
    client = browser()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/account", {"email": "mallory@example.org", "password": "not-hers"})

    response = client.post("/account", {"email": "mallory@example.org", "password": PASSWORD})

    assert response.status_code == 429 and "Too many failed sign-ins" in response.text
    alice.user.refresh_from_db()
    assert alice.user.email == "alice@example.org"


def test_sign_up_takes_an_optional_e_mail_address(db):
    response = APIClient().post(
        "/api/auth/register",
        {"username": "dora", "password": NEW_PASSWORD, "email": "dora@example.org"},
        format="json",
    )
    assert response.status_code == 201
    assert User.objects.get(username="dora").email == "dora@example.org"
    bad = APIClient().post(
        "/api/auth/register",
        {"username": "eve", "password": NEW_PASSWORD, "email": "eve"},
        format="json",
    )
    assert bad.status_code == 400 and "email" in str(bad.json())


def test_wrong_old_passwords_on_the_change_page_count_towards_the_lockout(alice, settings):
    here = browser()
    form = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        here.post("/account/password", {**form, "old_password": "wrong"})
    response = here.post("/account/password", {**form, "old_password": PASSWORD})
    assert response.status_code == 429 and "Too many failed sign-ins" in response.text
    alice.user.refresh_from_db()
    assert alice.user.check_password(PASSWORD)


def test_the_deletion_page_refuses_staff(alice):
    alice.user.is_staff = True
    alice.user.save()
    client = browser()
    assert client.get("/account/delete").status_code == 403
    response = client.post("/account/delete", {"password": PASSWORD})
    assert response.status_code == 403 and "removed by an administrator" in response.text
    assert User.objects.filter(username="alice").exists()
