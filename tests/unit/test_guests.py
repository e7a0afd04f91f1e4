"""Walk-in players: an organiser enters a guest by name, and later the person behind it takes it
over with an account from an invitation link, results and ratings included.

The cast: olga organises (staff holding ``tournaments.change_event``, and managing every
event: the events here are nobody's), pat is a player, dora
walks in without an account and is entered as the guest "Dora".
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from accounts import invitations, services
from accounts.models import Player
from games.models import Match
from ladders import services as ladders
from ladders.models import QueueEntry
from tests.factories import PlayerFactory
from tournaments import services as events
from tournaments.models import Entry, EventLog, Pairing

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "long enough and not common 42"


def staff(username: str, *permissions: str):
    user = PlayerFactory(user__username=username).user
    user.is_staff = True
    user.save()
    for name in permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return type(user).objects.get(pk=user.pk)  # permissions are cached on the user


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


@pytest.fixture
def olga(db) -> APIClient:
    return client_of(staff("olga", "tournaments.change_event", "tournaments.manage_all_events"))


@pytest.fixture
def browser() -> Client:
    """A visitor of the web pages (forms posted as a browser posts them)."""
    return Client()


@pytest.fixture
def pat(db) -> APIClient:
    return client_of(PlayerFactory(user__username="pat").user)


def club_night(venue: str = "tables", **options):
    event = events.event_create(name="Club night", format="swiss", venue=venue, **options)
    events.event_open_registration(event=event)
    return event


def enter_guest(client, event, name="Dora"):
    return client.post(f"/api/events/{event.pk}/guests", {"name": name}, format="json")


def guest(name: str = "Dora") -> Player:
    return services.guest_create(name=name)


def invitation_path(player: Player) -> str:
    token, _ = invitations.invitation_issue(guest=player)
    return f"/join/{token}"


def claim_form(username: str = "dora", **fields) -> dict:
    return {
        "username": username,
        "name": fields.pop("name", "Dora"),
        "email": "",
        "password": GOOD_PASSWORD,
        "password_again": GOOD_PASSWORD,
        **fields,
    }


# --- entering a walk-in -----------------------------------------------------------------------


def test_an_organiser_enters_a_walk_in_by_name(olga):
    event = club_night()

    response = enter_guest(olga, event, name="  Dora  ")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["player"]["name"] == "Dora" and body["player"]["kind"] == "guest"
    dora = Player.objects.get(pk=body["player"]["id"])
    assert dora.is_guest and dora.user is None
    assert Entry.objects.get(pk=body["id"]).player == dora
    assert EventLog.objects.filter(event=event, action="add_entry", actor__username="olga").exists()


def test_a_mixed_event_takes_guests_too(olga):
    assert enter_guest(olga, club_night("mixed")).status_code == 201


def test_a_guest_is_always_seated_at_a_table_in_a_mixed_event(olga):
    event = club_night("mixed")
    for name in ("Dora", "Eve"):
        assert enter_guest(olga, event, name=name).status_code == 201
    for name in ("pat", "quinn"):
        events.entry_add(event=event, player=PlayerFactory(user__username=name))

    events.event_start(event=event)

    matches = [p.match for p in Pairing.objects.filter(event=event).select_related("match")]
    with_guest = [m for m in matches if m.player_a.is_guest or m.player_b.is_guest]
    assert with_guest
    assert all(m.venue == Match.Venue.TABLE and m.start_deadline is None for m in with_guest)
    people = [m for m in matches if m not in with_guest]
    assert all(m.venue == Match.Venue.ONLINE for m in people)  # the organiser's choice


@pytest.mark.parametrize("first", ["guest", "bot"])
def test_guests_and_bots_are_not_entered_in_one_event(olga, first):
    """A bot plays only on the site and a guest only at a table: they could never be paired."""
    event = club_night("mixed")
    add_guest = lambda: enter_guest(olga, event)  # noqa: E731
    add_bot = lambda: olga.post(  # noqa: E731
        f"/api/events/{event.pk}/bots", {"strategy": "expert", "count": 1}, format="json"
    )
    first_add, second_add = (add_guest, add_bot) if first == "guest" else (add_bot, add_guest)
    assert first_add().status_code == 201

    refused = second_add()

    assert refused.status_code == 409 and refused.json()["code"] == "guests_and_bots"
    assert event.entries.count() == 1
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == (first == "guest")


def test_a_name_in_use_is_refused_whatever_its_case(olga, pat):
    event = club_night()

    response = enter_guest(olga, event, name="PAT")

    assert response.status_code == 400
    assert response.json()["code"] == "name_taken"
    assert "name" in response.json()["errors"]
    assert not Entry.objects.filter(event=event).exists()


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("B0b", "name_confusable"),  # looks like Bob
        ("Ada (expert)", "name_reserved"),
        ("<script>", "invalid"),
        ("", "invalid"),
    ],
)
def test_a_name_a_person_could_not_take_is_refused_with_its_code(olga, bob, name, code):
    event = club_night()

    response = enter_guest(olga, event, name=name)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == 0


def test_an_online_event_refuses_guests_and_leaves_none_behind(olga):
    event = club_night("online")

    response = enter_guest(olga, event)

    assert response.status_code == 409
    assert response.json()["code"] == "guests_need_tables"
    assert "cannot play online" in response.json()["detail"]
    assert not Player.objects.filter(name="Dora").exists()


def test_an_existing_guest_cannot_be_entered_into_an_online_event_by_id_either(olga):
    event = club_night("online")
    dora = guest()

    response = olga.post(f"/api/events/{event.pk}/players", {"player": dora.pk}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "guests_need_tables"


def test_an_event_with_guests_entered_cannot_move_online(olga):
    event = club_night()
    enter_guest(olga, event)

    response = olga.patch(f"/api/events/{event.pk}", {"venue": "online"}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "guests_need_tables"
    event.refresh_from_db()
    assert event.venue == "tables"
    assert (
        olga.patch(f"/api/events/{event.pk}", {"venue": "mixed"}, format="json").status_code == 200
    )


def test_an_event_that_takes_no_more_entries_refuses_and_creates_no_guest(olga):
    full = club_night(capacity=2)
    enter_guest(olga, full, name="First")
    enter_guest(olga, full, name="Second")
    cancelled = club_night()
    events.event_cancel(event=cancelled, reason="rain")

    too_many = enter_guest(olga, full, name="Third")
    too_late = enter_guest(olga, cancelled, name="Fourth")

    assert (too_many.status_code, too_many.json()["code"]) == (409, "event_full")
    assert (too_late.status_code, too_late.json()["code"]) == (409, "event_over")
    assert not Player.objects.filter(name__in=["Third", "Fourth"]).exists()


def test_only_organisers_enter_guests(pat):
    event = club_night()
    viewer = client_of(staff("vera", "tournaments.view_event"))

    assert enter_guest(pat, event).status_code == 403
    assert enter_guest(viewer, event).status_code == 403
    assert enter_guest(APIClient(), event).status_code == 401
    assert not Player.objects.filter(name="Dora").exists()


def test_the_api_shows_a_guest_as_a_guest(olga, client):
    event = club_night()
    dora_id = enter_guest(olga, event).json()["player"]["id"]

    assert client.get(f"/api/players/{dora_id}").json()["kind"] == "guest"
    listed = client.get("/api/players", {"kind": "guest"}).json()["results"]
    assert [p["id"] for p in listed] == [dora_id]
    standings = client.get(f"/api/events/{event.pk}/standings").json()
    assert standings["rows"][0]["player"]["kind"] == "guest"


# --- what a guest cannot do -------------------------------------------------------------------


def test_a_guest_cannot_sign_in_with_any_password(client):
    dora = guest()

    response = client.post("/api/auth/login", {"username": dora.name, "password": ""})

    assert response.status_code == 400
    assert get_user_model().objects.count() == 0


def test_a_guest_cannot_be_challenged_online(pat):
    dora = guest()

    response = pat.post("/api/matches", {"opponent": dora.pk}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "opponent_is_guest"


def test_a_guest_cannot_join_a_ladder_queue():
    ladder = ladders.ladder_create(name="Main")
    dora = guest()

    with pytest.raises(ladders.LadderError) as refused:
        ladders.queue_join(ladder=ladder, player=dora)

    assert refused.value.code == "guest_cannot_queue" and refused.value.status == 403
    assert not QueueEntry.objects.exists()


def test_the_lobby_offers_no_guest_to_challenge(client, alice):
    guest("Dora")
    client.force_login(alice.user)

    page = client.get("/lobby").content.decode()

    assert ">Dora<" not in page


# --- the invitation -------------------------------------------------------------------------


def test_an_organiser_gets_a_guests_invitation_link(olga):
    dora = guest()

    response = olga.post(f"/api/players/{dora.pk}/invitation")

    assert response.status_code == 200
    body = response.json()
    assert body["player"] == dora.pk and body["name"] == "Dora"
    assert body["url"].startswith("http://testserver/join/")
    assert invitations.invitation_guest(token=body["url"].rsplit("/", 1)[1]) == dora


def test_only_a_guest_is_invited_and_only_by_organisers(olga, pat, alice):
    dora = guest()

    refused = olga.post(f"/api/players/{alice.pk}/invitation")

    assert (refused.status_code, refused.json()["code"]) == (409, "not_a_guest")
    assert pat.post(f"/api/players/{dora.pk}/invitation").status_code == 403
    assert APIClient().post(f"/api/players/{dora.pk}/invitation").status_code == 401
    assert olga.post("/api/players/999999/invitation").status_code == 404


def test_the_invitation_page_offers_the_sign_up_form_with_the_guests_name(browser):
    dora = guest()

    response = browser.get(invitation_path(dora))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Your results as Dora" in page
    for field in ("username", "password", "password_again", "email"):
        assert f'name="{field}"' in page
    assert 'name="name" value="Dora"' in page


def test_signing_up_from_the_link_takes_the_guest_over_with_its_results(browser, olga):
    event = club_night(rated=True)
    entry_id = enter_guest(olga, event).json()["id"]
    dora = Player.objects.get(name="Dora")
    rating = ladders.membership_ensure(ladder=ladders.rated_events_pool(), player=dora)

    response = browser.post(invitation_path(dora), claim_form(email="dora@example.com"))

    assert response.status_code == 302
    assert response["Location"] == f"/players/{dora.pk}"
    dora.refresh_from_db()
    assert dora.kind == Player.Kind.HUMAN and dora.user.username == "dora"
    assert dora.user.email == "dora@example.com"
    assert Player.objects.count() == 2  # olga and dora: no new player row
    assert Entry.objects.get(pk=entry_id).player_id == dora.pk
    rating.refresh_from_db()
    assert rating.player_id == dora.pk
    assert int(browser.session["_auth_user_id"]) == dora.user.pk  # signed in
    signed_in = APIClient().post(
        "/api/auth/login", {"username": "dora", "password": GOOD_PASSWORD}, format="json"
    )
    assert signed_in.status_code == 200 and signed_in.json()["player"]["id"] == dora.pk


def test_the_display_name_may_change_as_the_guest_is_taken_over(browser, alice):
    dora = guest()

    taken = browser.post(invitation_path(dora), claim_form(name="alice"))
    assert taken.status_code == 400
    assert "already exists" in taken.content.decode()

    response = browser.post(invitation_path(dora), claim_form(name="Dora K."))
    assert response.status_code == 302
    dora.refresh_from_db()
    assert dora.name == "Dora K." and not dora.is_guest


def test_a_form_with_errors_leaves_the_guest_a_guest(browser, alice):
    dora = guest()
    path = invitation_path(dora)

    for form in (
        claim_form(password_again="something else entirely"),
        claim_form(password="password", password_again="password"),  # too common
        claim_form(username="ALICE"),  # taken, ignoring case
    ):
        response = browser.post(path, form)
        assert response.status_code == 400, form
        dora.refresh_from_db()
        assert dora.is_guest and dora.user is None
    assert get_user_model().objects.count() == 1  # alice's


def test_a_used_link_says_so(browser):
    dora = guest()
    path = invitation_path(dora)
    assert browser.post(path, claim_form()).status_code == 302
    browser.logout()

    again = browser.get(path)
    twice = Client().post(path, claim_form(username="mallory"))

    assert again.status_code == 410
    assert "This invitation has been used" in again.content.decode()
    assert twice.status_code == 410
    assert not get_user_model().objects.filter(username="mallory").exists()


def test_an_expired_link_says_so(browser, monkeypatch):
    dora = guest()
    path = invitation_path(dora)
    later = time.time() + invitations.INVITATION_MAX_AGE.total_seconds() + 60
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)

    response = browser.get(path)
    posted = browser.post(path, claim_form())

    assert response.status_code == 410
    assert "This invitation has expired" in response.content.decode()
    assert posted.status_code == 410
    dora.refresh_from_db()
    assert dora.is_guest


@pytest.mark.parametrize(
    "mangle",
    [
        lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),  # the signature altered
        lambda token: "OTk5" + token[token.index(":") :],  # another id, the same signature
        lambda token: "nothing-signed-here",
        lambda token: "é" * 300,
    ],
)
def test_a_forged_link_says_so_and_never_fails(browser, mangle):
    dora = guest()
    token, _ = invitations.invitation_issue(guest=dora)

    response = browser.get(f"/join/{mangle(token)}")
    posted = browser.post(f"/join/{mangle(token)}", claim_form())

    assert response.status_code == 404
    assert "This is not a valid invitation link" in response.content.decode()
    assert posted.status_code == 404
    dora.refresh_from_db()
    assert dora.is_guest


def test_a_link_of_a_removed_guest_says_it_is_used(browser):
    dora = guest()
    path = invitation_path(dora)
    dora.delete()

    assert browser.get(path).status_code == 410


def test_a_signed_in_visitor_is_asked_to_sign_out_first(browser, alice):
    dora = guest()
    path = invitation_path(dora)
    browser.force_login(alice.user)

    page = browser.get(path)
    posted = browser.post(path, claim_form())

    assert page.status_code == 200
    assert "Sign out to claim Dora" in page.content.decode()
    assert 'name="password"' not in page.content.decode()
    assert posted.status_code == 409
    dora.refresh_from_db()
    assert dora.is_guest
    assert (
        alice.user.username == "alice"
        and not get_user_model().objects.filter(username="dora").exists()
    )


def test_taking_over_from_the_link_counts_against_the_sign_up_allowance(settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"]
    address = "203.0.113.66"
    for n in range(int(rate.split("/")[0])):
        registered = APIClient(REMOTE_ADDR=address).post(
            "/api/auth/register",
            {"username": f"sock{n}", "password": GOOD_PASSWORD},
            format="json",
        )
        assert registered.status_code == 201
    dora = guest()

    response = Client(REMOTE_ADDR=address).post(invitation_path(dora), claim_form())

    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    dora.refresh_from_db()
    assert dora.is_guest


def test_two_claims_of_one_guest_make_one_account():
    dora = guest()
    services.guest_claim(guest=dora, username="dora", password=GOOD_PASSWORD)

    with pytest.raises(services.NotAGuest):
        services.guest_claim(guest=dora, username="dora2", password=GOOD_PASSWORD)

    assert list(get_user_model().objects.values_list("username", flat=True)) == ["dora"]
