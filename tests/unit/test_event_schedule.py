"""Events on a clock: the start time, the check-in window in minutes and the description as the
API and the organiser's form take them (and refuse them), the sweep that opens registration and
starts events at their time (late after an outage, once however often it runs), the check-in
at the start, and the public event page (start time, countdown, description, organiser, rules).
"""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from common import periodic
from tests.factories import PlayerFactory
from tests.tournaments import QUICK, bots, humans
from tests.unit.test_web_organise import ORGANISER, field_block, form_data, page, staff
from tournaments import services
from tournaments.models import Entry, Event, EventLog
from tournaments.services import schedule

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga_user(db):
    return staff("olga", *ORGANISER)


@pytest.fixture
def api(olga_user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=olga_user)
    return client


def iso(moment) -> str:
    return moment.isoformat()


def soon(minutes: float = 120):
    return timezone.now() + timedelta(minutes=minutes)


def on_a_clock(*, starts_in: float = 120, opens_in: float | None = None, **options) -> Event:
    """A draft on a clock (its registration opening ``opens_in`` minutes from now, if given)."""
    opens = None if opens_in is None else soon(opens_in)
    return services.event_create(
        name="Clockwork",
        format="swiss",
        starts_at=soon(starts_in),
        registration_opens_at=opens,
        **{**QUICK, **options},
    )


def actions(event: Event) -> list[str]:
    return list(
        EventLog.objects.filter(event=event).order_by("pk").values_list("action", flat=True)
    )


# --- the API takes the clock, and refuses what cannot run ------------------------------------


def test_the_api_takes_a_start_a_check_in_window_and_a_description(api):
    starts = soon(180).replace(microsecond=0)
    response = api.post(
        "/api/events",
        {
            "name": "Friday cup",
            "format": "swiss",
            "starts_at": iso(starts),
            "check_in_minutes": 30,
            "registration_opens_at": iso(soon(10)),
            "description": "Bring a friend.\n\nPrizes: https://example.org/prizes",
        },
        format="json",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["check_in_minutes"] == 30
    assert body["description"].startswith("Bring a friend.")
    event = Event.objects.get()
    assert event.starts_at == starts
    assert event.check_in_opens_at == starts - timedelta(minutes=30)  # derived, one truth


def test_moving_the_start_moves_the_check_in_and_clearing_the_minutes_clears_it(api, olga_user):
    event = on_a_clock(starts_in=180, check_in_minutes=30, created_by=olga_user)
    later = soon(240).replace(microsecond=0)

    response = api.patch(f"/api/events/{event.pk}", {"starts_at": iso(later)}, format="json")

    assert response.status_code == 200, response.content
    event.refresh_from_db()
    assert event.check_in_opens_at == later - timedelta(minutes=30)
    detail = EventLog.objects.filter(event=event, action="edit").last().detail
    assert set(detail["fields"]) == {"starts_at", "check_in_opens_at"}

    api.patch(f"/api/events/{event.pk}", {"check_in_minutes": None}, format="json")
    event.refresh_from_db()
    assert event.check_in_minutes is None and event.check_in_opens_at is None


def refusal(response) -> tuple[int, str, str]:
    body = response.json()
    named = body.get("option") or next(iter(body.get("errors", {})), "")
    return response.status_code, body["code"], named


REFUSED = [
    ({"starts_at": -5}, ("start_in_past", "starts_at")),
    (
        {"starts_at": 60, "registration_opens_at": 90},
        ("registration_after_start", "registration_opens_at"),
    ),
    ({"starts_at": 20, "check_in_minutes": 30}, ("check_in_too_long", "check_in_minutes")),
    (
        {"starts_at": 120, "registration_opens_at": 100, "check_in_minutes": 30},
        ("check_in_before_registration", "check_in_minutes"),
    ),
    ({"check_in_minutes": 30}, ("check_in_needs_start", "check_in_minutes")),
    ({"description": "x" * 10_001}, ("invalid", "description")),
    ({"starts_at": "2030-05-01T19:00:00"}, ("invalid", "starts_at")),  # no UTC offset
    ({"check_in_minutes": 0}, ("invalid", "check_in_minutes")),
]


def body_of(change: dict) -> dict:
    """Minutes from now as ISO times; anything else as given."""
    out = {}
    for name, value in change.items():
        if name in ("starts_at", "registration_opens_at") and isinstance(value, int):
            value = iso(soon(value))
        out[name] = value
    return out


@pytest.mark.parametrize("change,expected", REFUSED)
def test_a_clock_that_cannot_run_is_refused_naming_the_field_and_nothing_is_saved(
    api, change, expected
):
    response = api.post(
        "/api/events", {"name": "X", "format": "swiss", **body_of(change)}, format="json"
    )

    assert response.status_code == 400, response.content
    assert refusal(response)[1:] == expected
    assert not Event.objects.exists()


def test_an_edit_that_breaks_the_clock_is_refused_and_changes_nothing(api, olga_user):
    event = on_a_clock(starts_in=60, created_by=olga_user)

    response = api.patch(f"/api/events/{event.pk}", {"check_in_minutes": 90}, format="json")

    assert refusal(response) == (400, "check_in_too_long", "check_in_minutes")
    assert "longer than the time left before the start" in response.json()["detail"]
    event.refresh_from_db()
    assert event.check_in_minutes is None and event.check_in_opens_at is None


def test_a_check_in_time_that_disagrees_with_the_minutes_is_refused(api):
    response = api.post(
        "/api/events",
        {
            "name": "X",
            "format": "swiss",
            "starts_at": iso(soon(120)),
            "check_in_minutes": 30,
            "check_in_opens_at": iso(soon(10)),
        },
        format="json",
    )
    assert refusal(response) == (400, "check_in_conflict", "check_in_opens_at")


def test_renaming_an_event_whose_start_has_passed_is_not_refused(api, olga_user):
    event = on_a_clock(starts_in=60, created_by=olga_user)
    Event.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(minutes=5))

    response = api.patch(f"/api/events/{event.pk}", {"name": "Renamed"}, format="json")

    assert response.status_code == 200, response.content


def test_the_organiser_form_shows_the_refusal_next_to_the_field(olga_user):
    olga = Client()
    olga.force_login(olga_user)
    starts = (timezone.now() + timedelta(minutes=20)).strftime("%Y-%m-%dT%H:%M")

    response = olga.post(
        "/organise/new", form_data(starts_at=starts, check_in_minutes="45", swiss_rounds="3")
    )

    assert response.status_code == 400
    block = field_block(page(response), "id_check_in_minutes")
    assert 'class="error"' in block
    assert "is longer than the time left before the start" in block
    assert not Event.objects.exists()


def test_the_form_sets_and_clears_the_description(olga_user):
    olga = Client()
    olga.force_login(olga_user)
    olga.post("/organise/new", form_data(description="Bring a friend."))
    event = Event.objects.get()
    assert event.description == "Bring a friend."

    response = olga.post(f"/organise/{event.pk}/edit", {**form_data(), "description": ""})

    assert response.status_code == 302, page(response)
    event.refresh_from_db()
    assert event.description == ""


def test_a_start_in_the_past_on_the_form_is_refused_next_to_the_start(olga_user):
    olga = Client()
    olga.force_login(olga_user)
    past = (timezone.now() - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")

    response = olga.post("/organise/new", form_data(starts_at=past))

    assert response.status_code == 400
    assert "the start is in the past" in field_block(page(response), "id_starts_at")
    assert not Event.objects.exists()


# --- the sweep -------------------------------------------------------------------------------


def test_the_sweep_opens_registration_when_its_time_comes_and_not_before():
    event = on_a_clock(starts_in=120, opens_in=30)

    assert schedule.clock_sweep(now=soon(29))["opened"] == 0
    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT

    assert schedule.clock_sweep(now=soon(31))["opened"] == 1
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    line = EventLog.objects.get(event=event, action="open_registration")
    assert line.actor is None and line.reason.startswith("by the schedule")


def test_the_sweep_starts_the_event_at_its_time_with_an_audit_line():
    event = on_a_clock(starts_in=60, opens_in=1)
    schedule.clock_sweep(now=soon(2))
    for bot in bots(4):
        services.entry_add(event=event, player=bot)

    assert schedule.clock_sweep(now=soon(59))["started"] == 0
    assert schedule.clock_sweep(now=soon(60.1))["started"] == 1

    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    line = EventLog.objects.get(event=event, action="start")
    assert line.actor is None and line.reason.startswith("by the schedule: the start time")
    assert "late" not in line.reason


def test_after_downtime_a_due_event_starts_late_and_only_once():
    event = on_a_clock(starts_in=60, opens_in=1)
    for bot in bots(2):
        # Entered before registration opened (an organiser may): the sweep opens, then starts.
        services.entry_add(event=event, player=bot)
    much_later = soon(60 + 3 * 60)  # the service was down for three hours

    first = schedule.clock_sweep(now=much_later)
    second = schedule.clock_sweep(now=much_later + timedelta(seconds=15))

    assert (first["opened"], first["started"]) == (1, 1)
    assert second == {
        "created": 0,
        "opened": 0,
        "reminded": 0,
        "started": 0,
        "cancelled": 0,
        "refused": 0,
        "mails_retried": 0,
    }
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING and event.started_at == much_later
    assert actions(event).count("start") == 1
    assert "180 minutes late" in EventLog.objects.get(event=event, action="start").reason


def test_an_event_with_too_few_players_at_its_start_is_cancelled_with_the_reason():
    event = on_a_clock(starts_in=60, opens_in=1)
    services.entry_add(event=event, player=bots(1)[0])

    assert schedule.clock_sweep(now=soon(61))["cancelled"] == 1
    assert schedule.clock_sweep(now=soon(62))["cancelled"] == 0

    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED
    assert "too few players" in event.cancel_reason
    assert actions(event).count("cancel") == 1


def test_a_start_refused_for_another_reason_is_logged_once_and_retried():
    event = on_a_clock(starts_in=60, opens_in=1)
    schedule.clock_sweep(now=soon(2))
    ada, ben = bots(2)
    services.entry_add(event=event, player=ada)
    services.entry_add(event=event, player=ben)
    ben.bot_strategy = "retired"  # a strategy the engine no longer has
    ben.save(update_fields=["bot_strategy"])

    for minute in (61, 62, 63):
        assert schedule.clock_sweep(now=soon(minute))["refused"] == 1
    assert actions(event).count("start_refused") == 1
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION

    ben.bot_strategy = "greedy"
    ben.save(update_fields=["bot_strategy"])
    assert schedule.clock_sweep(now=soon(64))["started"] == 1


def test_a_draft_is_never_started_by_its_clock_alone():
    event = on_a_clock(starts_in=60)  # no registration time: the organiser opens it
    for bot in bots(2):
        services.entry_add(event=event, player=bot)

    assert schedule.clock_sweep(now=soon(90)) == {
        "created": 0,
        "opened": 0,
        "reminded": 0,
        "started": 0,
        "cancelled": 0,
        "refused": 0,
        "mails_retried": 0,
    }
    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT


def test_the_sweep_is_a_beat_task_and_runs_in_the_embedded_sweeper(settings):
    from tournaments import tasks

    entry = periodic.beat_schedule()["sweep-event-clock"]
    assert entry["task"] == tasks.clock_sweep.name == "tournaments.clock_sweep"
    assert 15 <= entry["schedule"] <= 30
    with mock.patch("tournaments.services.schedule.clock_sweep", return_value={}) as sweep:
        tasks.clock_sweep()
    sweep.assert_called_once_with()


def test_the_on_time_pass_opens_and_starts_what_is_due_and_nothing_else():
    """Each pass is given its moment (soon() reads the clock again at every call)."""
    template = on_a_clock(starts_in=30, opens_in=None)  # its first occurrence is due now
    Event.objects.filter(pk=template.pk).update(repeat_rule="FREQ=DAILY", repeat_lead_minutes=60)
    event = on_a_clock(starts_in=60, opens_in=30)
    for bot in bots(2):
        services.entry_add(event=event, player=bot)
    start = event.starts_at
    opens = event.registration_opens_at
    second = timedelta(seconds=1)

    assert schedule.clock_due(now=opens - second) == {
        "opened": 0,
        "started": 0,
        "cancelled": 0,
        "refused": 0,
    }
    assert schedule.clock_due(now=opens)["opened"] == 1
    assert schedule.clock_due(now=start - second / 10)["started"] == 0
    assert schedule.clock_due(now=start)["started"] == 1
    assert schedule.clock_due(now=start + second)["started"] == 0  # once
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING and event.started_at == start
    assert actions(event).count("start") == 1
    assert not Event.objects.filter(template=template).exists()  # the whole sweep's work


def test_the_on_time_pass_runs_every_second_on_beat(settings):
    """The start comes within a second or two of its time, not a whole sweep's period late."""
    from tournaments import tasks

    entry = periodic.beat_schedule()["event-clock-on-time"]
    assert entry["task"] == tasks.clock_due.name == "tournaments.clock_due"
    assert entry["schedule"] <= 2
    with mock.patch("tournaments.services.schedule.clock_due", return_value={}) as due:
        tasks.clock_due()
    due.assert_called_once_with()


# --- check-in at the start -------------------------------------------------------------------


def test_at_the_start_those_who_did_not_check_in_are_withdrawn_and_told_and_bots_check_in():
    event = on_a_clock(starts_in=60, opens_in=1, check_in_minutes=30)
    schedule.clock_sweep(now=soon(2))
    alice, bob, carol = humans(3)
    house = bots(1)[0]
    for player in (alice, bob, carol):
        services.entry_register(event=event, player=player, now=soon(3))
    services.entry_add(event=event, player=house)
    for player in (alice, bob):
        services.entry_check_in(entry=Entry.objects.get(event=event, player=player), now=soon(40))

    with mock.patch("tournaments.live.player_tell") as tell:
        assert schedule.clock_sweep(now=soon(60.5))["started"] == 1

    carol_entry = Entry.objects.get(event=event, player=carol)
    assert carol_entry.status == Entry.Status.WITHDRAWN
    assert carol_entry.note == "did not check in"
    told = [c for c in tell.call_args_list if c.args[1]["type"] == "entry_withdrawn"]
    assert [(c.args[0], c.args[1]["reason"]) for c in told] == [(carol.pk, "did not check in")]
    assert EventLog.objects.filter(event=event, action="no_check_in", entry=carol_entry).exists()
    bot_entry = Entry.objects.get(event=event, player=house)
    assert bot_entry.status == Entry.Status.CHECKED_IN
    bot_line = EventLog.objects.get(event=event, action="check_in", entry=bot_entry)
    assert bot_line.reason == "a house bot checks in itself"
    event.refresh_from_db()
    assert event.entrants_count == 3  # alice, bob and the bot are paired

    client = Client()
    client.force_login(carol.user)
    html = client.get(f"/events/{event.pk}").content.decode()
    assert 'id="event-withdrawn"' in html and "You did not check in" in html


# --- the public page -------------------------------------------------------------------------


def test_the_event_page_shows_the_start_countdown_description_organiser_and_rules():
    organiser = PlayerFactory(user__username="orla", name="Orla Organiser")
    event = services.event_create(
        name="Spring open",
        format="single_elim",
        created_by=organiser.user,
        starts_at=soon(90),
        check_in_minutes=20,
        description="Line one\nLine two <script>alert(1)</script> https://example.org/rules",
        rules={"preset": "oklahoma"},
        best_of=3,
        target=100,
    )
    services.event_open_registration(event=event)

    html = Client().get(f"/events/{event.pk}").content.decode()

    assert f'<time datetime="{event.starts_at.isoformat()}' in html
    assert "data-starts-in=" in html and "event_clock.js" in html
    assert 'id="event-check-in"' in html
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Line one<br>Line two" in html
    assert '<a href="https://example.org/rules" rel="nofollow">' in html
    assert "Organised by Orla Organiser" in html
    assert "Oklahoma" in html and "best of 3 to 100" in html
    assert "Knockout: lose a match and you are out" in html


def test_a_page_without_a_start_time_shows_no_countdown():
    event = services.event_open_registration(
        event=services.event_create(name="Anytime", format="swiss")
    )
    html = Client().get(f"/events/{event.pk}").content.decode()
    assert "data-starts-in" not in html and 'id="event-rules"' in html
