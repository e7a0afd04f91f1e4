"""E-mail to entrants: "the event you entered is about to start" when its check-in opens (once,
never after the start), "your match is ready" when they are not on the site, only to people
with an address who did not turn it off, and the one-click link in every mail that turns it
off (a signed token: a GET asks, a POST turns off; a forged or expired one is a 400)."""

from __future__ import annotations

import re
import time
from datetime import UTC, timedelta
from unittest import mock
from urllib.parse import urlsplit

import pytest
from channels.db import database_sync_to_async
from django.core import mail as outbox
from django.core import signing
from django.test import Client
from django.utils import timezone

from accounts import deletion, mail, presence
from accounts.models import Mail, Player
from accounts.services import guest_create
from games.models import Match
from tests.factories import BotFactory, PlayerFactory
from tests.live import Socket, fresh_layer, run, token_for
from tests.tournaments import QUICK, event_with, pairing
from tournaments import services
from tournaments.models import Event
from tournaments.services import reminders, schedule

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _nobody_on_the_site():
    presence._store.cache_clear()
    yield
    presence._store.cache_clear()


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks):
    """Run what each step queues on commit (the mails' tasks, inline) as a commit would."""

    def run(step, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return step(*args, **kwargs)

    return run


def soon(minutes: float):
    return timezone.now() + timedelta(minutes=minutes)


def person(name: str, email: str = "", **player) -> Player:
    return PlayerFactory(user__username=name, user__email=email, **player)


def cup(players, *, starts_in: float = 120, check_in: int | None = 30, **options) -> Event:
    """An event open for registration, starting ``starts_in`` minutes from now, with a
    check-in window of ``check_in`` minutes (None: none), ``players`` entered."""
    event = services.event_create(
        name="Friday Cup",
        format="swiss",
        starts_at=soon(starts_in),
        check_in_minutes=check_in,
        **{**QUICK, **options},
    )
    services.event_open_registration(event=event)
    for player in players:
        services.entry_add(event=event, player=player)
    event.refresh_from_db()
    return event


def sent_to() -> list[str]:
    return [address for message in outbox.outbox for address in message.to]


def link_in(text: str, path: str) -> str:
    found = re.search(rf"https?://\S+{path}\S*", text)
    assert found, text
    return found.group(0)


# --- "about to start" ------------------------------------------------------------------------


def test_entrants_are_mailed_once_when_the_check_in_window_opens(run_on_commit, settings):
    settings.SITE_URL = "https://rummy.example.org"
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org", email_events=False)  # turned it off
    charlie = person("charlie")  # gave no address
    event = cup([alice, bob, charlie, guest_create(name="Gus")], venue="mixed")

    assert run_on_commit(schedule.clock_sweep, now=soon(89))["reminded"] == 0
    assert outbox.outbox == []
    assert run_on_commit(schedule.clock_sweep, now=soon(91))["reminded"] == 1
    assert sent_to() == ["alice@example.org"]
    for minute in (92, 100, 110):  # later passes, while the window is open
        assert run_on_commit(schedule.clock_sweep, now=soon(minute))["reminded"] == 0
    assert len(outbox.outbox) == 1

    message = outbox.outbox[0]
    assert message.subject == "Friday Cup is about to start"
    starts = event.starts_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    assert f"It starts at {starts}." in message.body
    assert "Check-in is open" in message.body
    assert f"https://rummy.example.org/events/{event.pk}" in message.body
    unsubscribe = link_in(message.body, "/unsubscribe/")
    assert unsubscribe.startswith("https://rummy.example.org/unsubscribe/")
    assert message.extra_headers["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    sent = Mail.objects.get(player=alice)
    assert (sent.kind, sent.about, sent.status) == ("event_starting", event.pk, "sent")


def test_without_a_check_in_window_entrants_are_mailed_half_an_hour_before_the_start(
    run_on_commit,
):
    alice = person("alice", "alice@example.org")
    cup([alice], check_in=None)
    assert timedelta(minutes=30) == reminders.LEAD
    assert run_on_commit(reminders.event_reminders_queue, now=soon(89)) == 0
    assert outbox.outbox == []
    run_on_commit(reminders.event_reminders_queue, now=soon(90.5))
    assert sent_to() == ["alice@example.org"]
    assert "Be on the site at the start" in outbox.outbox[0].body


def test_a_sweep_late_after_an_outage_mails_nothing_about_an_event_that_started(run_on_commit):
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    event = cup([alice, bob], check_in=None)
    # The sweeper was down from before the reminder until after the start: its first pass
    # starts the event, and tells nobody it is about to.
    counts = run_on_commit(schedule.clock_sweep, now=soon(121))
    assert counts["reminded"] == 0 and counts["started"] == 1
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    assert [m.subject for m in outbox.outbox if "about to start" in m.subject] == []
    # Nor does the reminder step alone, for an event still open but past its start.
    late = cup([alice], starts_in=60)
    assert run_on_commit(reminders.event_reminders_queue, now=soon(61)) == 0
    assert not Mail.objects.filter(kind="event_starting", about=late.pk).exists()


def test_a_mail_not_sent_before_the_start_is_dropped_not_sent_late(run_on_commit):
    alice = person("alice", "alice@example.org")
    event = cup([alice])
    reminders.event_reminders_queue(now=soon(91))  # queued; its task never ran
    queued = Mail.objects.get(player=alice)
    assert queued.status == Mail.Status.QUEUED and queued.expires_at == event.starts_at
    assert mail.mail_deliver(mail_id=queued.pk, now=soon(121)) is False
    queued.refresh_from_db()
    assert (queued.status, queued.reason) == (Mail.Status.DROPPED, "expired")
    assert outbox.outbox == []


def test_a_failed_send_stays_queued_and_a_later_pass_sends_it(run_on_commit):
    alice = person("alice", "alice@example.org")
    cup([alice])

    def sweep_at(minute: float) -> dict:
        moment = soon(minute)
        with mock.patch.object(timezone, "now", return_value=moment):
            return run_on_commit(schedule.clock_sweep, now=moment)

    with mock.patch("django.core.mail.EmailMessage.send", side_effect=OSError("no server")):
        sweep_at(91)
    queued = Mail.objects.get(player=alice)
    assert queued.status == Mail.Status.QUEUED and outbox.outbox == []
    # Queued again once RETRY_AFTER has passed since the failure, and only then.
    assert sweep_at(92)["mails_retried"] == 0
    assert sweep_at(93.5)["mails_retried"] == 1
    assert sent_to() == ["alice@example.org"]
    assert sweep_at(97)["mails_retried"] == 0
    assert len(outbox.outbox) == 1


def test_mail_turned_off_after_it_was_queued_is_not_sent(run_on_commit):
    alice = person("alice", "alice@example.org")
    cup([alice])
    reminders.event_reminders_queue(now=soon(91))
    mail.email_events_set(player=alice, on=False)
    queued = Mail.objects.get(player=alice)
    assert mail.mail_deliver(mail_id=queued.pk) is False
    queued.refresh_from_db()
    assert queued.status == Mail.Status.DROPPED and outbox.outbox == []


def test_a_mail_is_sent_once_however_often_its_task_runs(run_on_commit):
    alice = person("alice", "alice@example.org")
    cup([alice])
    reminders.event_reminders_queue(now=soon(91))
    queued = Mail.objects.get(player=alice)
    assert mail.mail_deliver(mail_id=queued.pk) is True
    assert mail.mail_deliver(mail_id=queued.pk) is False
    assert len(outbox.outbox) == 1
    again = mail.mail_create(
        player=alice, kind="event_starting", about=queued.about, subject="", body=""
    )
    assert again is None


def test_someone_who_enters_once_the_window_is_open_is_not_told_it_opened(run_on_commit):
    alice = person("alice", "alice@example.org")
    event = cup([alice])
    run_on_commit(schedule.clock_sweep, now=soon(91))
    late = person("lena", "lena@example.org")
    with mock.patch.object(timezone, "now", return_value=soon(95)):
        services.entry_add(event=event, player=late)
    run_on_commit(schedule.clock_sweep, now=soon(96))
    assert sent_to() == ["alice@example.org"]


# --- "your match is ready" --------------------------------------------------------------------


def test_players_away_from_the_site_are_mailed_once_when_their_match_is_ready(run_on_commit):
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    event = event_with([alice, bob], "single_elim")
    run_on_commit(services.event_start, event=event)
    match = pairing(event, "R1.1").match
    assert match.status == Match.Status.SCHEDULED
    assert sorted(sent_to()) == ["alice@example.org", "bob@example.org"]
    to_alice = next(m for m in outbox.outbox if m.to == ["alice@example.org"])
    assert to_alice.subject == f"Your match in {event.name} is ready"
    deadline = match.start_deadline.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    assert "against Bob" in to_alice.body and f"Show up by {deadline}" in to_alice.body
    assert f"/events/{event.pk}" in to_alice.body and "/unsubscribe/" in to_alice.body
    assert to_alice.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    # Bob shows up: both are told again on the site, nobody is mailed a second time.
    run_on_commit(services.match_ready, match=match, player=bob)
    assert len(outbox.outbox) == 2


def test_a_player_on_the_site_sees_the_banner_and_gets_no_mail(run_on_commit):
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    presence.site_join(alice.pk, "alice-tab")
    event = event_with([alice, bob], "single_elim")
    run_on_commit(services.event_start, event=event)
    assert sent_to() == ["bob@example.org"]
    # She closes the site; when the match is told again (Bob shows up) she is mailed.
    presence.site_leave(alice.pk, "alice-tab")
    run_on_commit(services.match_ready, match=pairing(event, "R1.1").match, player=bob)
    assert sorted(sent_to()) == ["alice@example.org", "bob@example.org"]


def test_nobody_is_mailed_about_a_match_that_has_started_or_a_guest_bot_or_player_without_mail(
    run_on_commit,
):
    alice = person("alice", "alice@example.org")
    quiet = person("quentin", "q@example.org", email_events=False)
    event = event_with([alice, BotFactory(bot_strategy="greedy")], "single_elim")
    other = event_with([quiet, person("nomail")], "single_elim")
    run_on_commit(services.event_start, event=event)
    run_on_commit(services.event_start, event=other)
    assert sent_to() == ["alice@example.org"]  # not a bot, nobody who turned it off or has none
    run_on_commit(services.match_ready, match=pairing(event, "R1.1").match, player=alice)
    assert pairing(event, "R1.1").match.status == Match.Status.ACTIVE
    assert sent_to() == ["alice@example.org"]


def test_a_failure_to_send_never_breaks_the_pairing(run_on_commit):
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    event = event_with([alice, bob], "single_elim")
    with mock.patch("django.core.mail.EmailMessage.send", side_effect=OSError("no server")):
        run_on_commit(services.event_start, event=event)
    assert pairing(event, "R1.1").match.status == Match.Status.SCHEDULED
    assert outbox.outbox == []
    assert set(Mail.objects.values_list("status", flat=True)) == {Mail.Status.QUEUED}


def test_the_match_ready_mail_is_decided_after_the_commit_not_in_the_pairing():
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    event = event_with([alice, bob], "single_elim")
    with mock.patch("accounts.tasks.mail_if_away.apply_async") as queued:
        services.event_start(event=event)  # the test's transaction never commits
    queued.assert_not_called()
    assert outbox.outbox == [] and not Mail.objects.exists()


# --- turning it off ---------------------------------------------------------------------------


def unsubscribe_path(player: Player) -> str:
    return "/unsubscribe/" + mail.unsubscribe_token(player=player)


def test_the_link_asks_first_then_turns_the_mail_off_without_a_sign_in():
    alice = person("alice", "alice@example.org")
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(unsubscribe_path(alice))
    assert page.status_code == 200
    assert b"Stop e-mails about your events?" in page.content
    alice.refresh_from_db()
    assert alice.email_events is True  # a GET (a mail scanner following links) changes nothing
    done = browser.post(unsubscribe_path(alice))
    assert done.status_code == 200 and b"E-mails turned off" in done.content
    alice.refresh_from_db()
    assert alice.email_events is False


def test_a_mail_client_one_click_unsubscribe_post_turns_it_off():
    alice = person("alice", "alice@example.org")
    response = Client(enforce_csrf_checks=True).post(
        unsubscribe_path(alice),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.email_events is False


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_link_is_a_400_page_and_changes_nothing(method):
    alice = person("alice", "alice@example.org")
    bob = person("bob", "bob@example.org")
    token = mail.unsubscribe_token(player=alice)
    value, signature = token.split(":", 1)
    forged = signing.dumps(bob.pk, salt="another.salt", compress=False)
    for bad in (f"{value}x:{signature}", "nonsense", forged, token[:-2]):
        response = getattr(Client(), method)(f"/unsubscribe/{bad}")
        assert response.status_code == 400, bad
        assert b"This link is not valid" in response.content
    for player in (alice, bob):
        player.refresh_from_db()
        assert player.email_events is True


def test_an_expired_link_is_a_400_page_and_changes_nothing():
    alice = person("alice", "alice@example.org")
    path = unsubscribe_path(alice)
    later = mail.UNSUBSCRIBE_MAX_AGE + timedelta(minutes=1)
    with mock.patch(
        "django.core.signing.time.time", return_value=time.time() + later.total_seconds()
    ):
        response = Client().post(path)
    assert response.status_code == 400 and b"This link has expired" in response.content
    alice.refresh_from_db()
    assert alice.email_events is True


def test_the_link_from_a_sent_mail_turns_it_off_and_no_more_mail_comes(run_on_commit):
    alice = person("alice", "alice@example.org")
    cup([alice])
    event = cup([alice], starts_in=240)
    run_on_commit(schedule.clock_sweep, now=soon(91))
    assert sent_to() == ["alice@example.org"]
    link = link_in(outbox.outbox[0].body, "/unsubscribe/")
    assert Client().post(urlsplit(link).path).status_code == 200
    run_on_commit(schedule.clock_sweep, now=soon(211))
    assert sent_to() == ["alice@example.org"]
    assert not Mail.objects.filter(about=event.pk).exists()


def test_the_account_page_turns_the_mail_off_and_on(alice, password):
    browser = Client()
    browser.force_login(alice.user)
    page = browser.get("/account")
    assert b"E-mail me about my events" in page.content
    assert re.search(rb'name="email_events"[^>]*checked', page.content)
    response = browser.post("/account/e-mail-me", {})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.email_events is False
    assert not re.search(rb'name="email_events"[^>]*checked', browser.get("/account").content)
    browser.post("/account/e-mail-me", {"email_events": "on"})
    alice.refresh_from_db()
    assert alice.email_events is True


def test_the_api_shows_and_changes_the_preference(alice_client, alice):
    assert alice_client.get("/api/me").json()["email_events"] is True
    answer = alice_client.patch("/api/me", {"email_events": False}, format="json")
    assert answer.status_code == 200 and answer.json()["email_events"] is False
    alice.refresh_from_db()
    assert alice.email_events is False
    refused = alice_client.patch("/api/me", {"email_events": "maybe"}, format="json")
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] and body["detail"]
    alice.refresh_from_db()
    assert alice.email_events is False


# --- who is on the site -------------------------------------------------------------------------


def test_a_player_is_on_the_site_while_a_socket_of_theirs_lives():
    presence.site_join(7, "tab-1")
    presence.site_join(7, "tab-2")
    assert presence.on_site(7) and not presence.on_site(8)
    presence.site_leave(7, "tab-1")
    assert presence.on_site(7)
    presence.site_leave(7, "tab-2")
    assert not presence.on_site(7)
    presence.site_join(7, "tab-3")  # its web process dies: no leave, no refresh
    with mock.patch("accounts.presence.time.time", return_value=time.time() + presence.TTL + 1):
        assert not presence.on_site(7)


def test_a_mail_whose_task_was_lost_is_queued_again_once_per_retry_period():
    alice = person("alice", "alice@example.org")
    cup([alice])
    reminders.event_reminders_queue(now=soon(91))  # queued; its task lost (never committed)
    created = Mail.objects.get(player=alice).created_at
    assert mail.mails_retry(now=created + timedelta(minutes=1)) == []
    later = created + mail.RETRY_AFTER + timedelta(seconds=1)
    assert len(mail.mails_retry(now=later)) == 1
    # The next passes leave it to the task just queued, until that one is overdue too.
    assert mail.mails_retry(now=later + timedelta(seconds=15)) == []
    assert len(mail.mails_retry(now=later + mail.RETRY_AFTER)) == 1


@pytest.mark.django_db(transaction=True)
def test_the_players_own_socket_counts_them_on_the_site_while_it_is_open():
    fresh_layer()
    alice = person("alice", "alice@example.org")

    async def scenario():
        token = await database_sync_to_async(token_for)(alice)
        socket = await Socket.open("/ws/me", token=token)
        await socket.receive("summary")
        assert presence.on_site(alice.pk)
        await socket.close()
        assert not presence.on_site(alice.pk)

    run(scenario)


def test_deleting_the_account_deletes_the_mails_about_its_events(run_on_commit):
    alice = person("alice", "alice@example.org")
    event = cup([alice])
    run_on_commit(schedule.clock_sweep, now=soon(91))
    assert Mail.objects.filter(player=alice).exists()
    services.entry_withdraw(entry=event.entries.get(player=alice))
    deletion.account_delete(user=alice.user)
    assert not Mail.objects.filter(player=alice).exists()
