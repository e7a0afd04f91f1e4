"""Recurring events: a draft with an iCalendar repeat rule is a template; the clock's sweep (with
an injected ``now``) creates each occurrence, a copy of its settings, ``repeat_lead_minutes``
before its start, once however often it runs, at the same local time across summer time, only
the next one after an outage; a rule that cannot run is refused; emptying the rule stops it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from itertools import islice
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.unit.test_web_organise import ORGANISER, staff, web_client
from tournaments.models import Event
from tournaments.services import schedule

pytestmark = pytest.mark.django_db

LONDON = ZoneInfo("Europe/London")
#: A year to come, whatever today is: its dates are all in the future.
YEAR = timezone.now().year + 2
DAILY_20 = "FREQ=DAILY;BYHOUR=20;BYMINUTE=0"


@pytest.fixture
def olga_user(db):
    return staff("olga", *ORGANISER)


@pytest.fixture
def api(olga_user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=olga_user)
    return client


def london(month: int, day: int, hour: int = 20, minute: int = 0) -> datetime:
    return datetime(YEAR, month, day, hour, minute, tzinfo=LONDON)


def template(api, *, starts_at: datetime, rule: str = DAILY_20, **options) -> Event:
    body = {
        "name": "Nightly blitz",
        "format": "swiss",
        "best_of": 1,
        "target": 50,
        "starts_at": starts_at.isoformat(),
        "repeat_rule": rule,
        "repeat_timezone": "Europe/London",
        **options,
    }
    response = api.post("/api/events", body, format="json")
    assert response.status_code == 201, response.content
    return Event.objects.get(pk=response.json()["id"])


def occurrences(event: Event) -> list[Event]:
    return list(Event.objects.filter(template=event).order_by("starts_at"))


def test_a_daily_template_creates_its_occurrence_an_hour_before_once(api, olga_user):
    helper = staff("hugo", *ORGANISER)
    first = london(1, 10)
    event = template(api, starts_at=first, co_organisers=["hugo"], check_in_minutes=15)
    assert event.status == Event.Status.DRAFT and event.repeat_lead_minutes == 60

    assert schedule.clock_sweep(now=first - timedelta(minutes=61))["created"] == 0
    assert schedule.clock_sweep(now=first - timedelta(minutes=60))["created"] == 1
    again = schedule.clock_sweep(now=first - timedelta(minutes=59, seconds=45))
    assert again["created"] == 0

    [occurrence] = occurrences(event)
    assert occurrence.starts_at == first
    assert occurrence.name == f"Nightly blitz {YEAR}-01-10 20:00"
    assert occurrence.status == Event.Status.REGISTRATION
    assert occurrence.registration_opens_at == first - timedelta(minutes=60)
    assert (occurrence.format, occurrence.best_of, occurrence.target) == ("swiss", 1, 50)
    assert occurrence.check_in_opens_at == first - timedelta(minutes=15)
    assert occurrence.created_by == olga_user
    assert list(occurrence.co_organisers.all()) == [helper]
    assert occurrence.repeat_rule == "" and occurrence.template_id == event.pk
    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT  # the template is never opened nor started

    # The occurrence starts by the clock as any event on a clock does (here: nobody came).
    assert schedule.clock_sweep(now=first + timedelta(seconds=5))["cancelled"] == 1


def test_a_racing_sweeper_is_stopped_by_the_database_not_by_the_look_first(api):
    first = london(1, 10)
    event = template(api, starts_at=first)
    schedule.clock_sweep(now=first - timedelta(minutes=30))

    with mock.patch.object(schedule, "_created", return_value=False):
        assert schedule.occurrences_create(now=first - timedelta(minutes=29)) == 0

    assert len(occurrences(event)) == 1


@pytest.mark.parametrize(
    ("month", "day", "utc_hour"),
    [(3, 20, 20), (4, 5, 19), (10, 20, 19), (11, 5, 20)],
    ids=["march-gmt", "april-bst", "october-bst", "november-gmt"],
)
def test_the_local_start_stays_at_20_across_summer_time(api, month, day, utc_hour):
    event = template(api, starts_at=london(3, 1))
    start = london(month, day)

    schedule.clock_sweep(now=start - timedelta(minutes=45))

    [occurrence] = occurrences(event)
    assert occurrence.starts_at == start
    assert occurrence.starts_at.astimezone(ZoneInfo("UTC")).hour == utc_hour
    assert occurrence.starts_at.astimezone(LONDON).hour == 20


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"repeat_rule": "FREQ=MINUTELY;INTERVAL=5"}, "repeat_rule"),
        ({"repeat_rule": "every other tuesday"}, "repeat_rule"),
        ({"repeat_rule": "FREQ=FORTNIGHTLY"}, "repeat_rule"),
        ({"repeat_rule": DAILY_20, "starts_at": None}, "repeat_rule"),
        ({"repeat_rule": f"DTSTART:{YEAR}0101T000000\nRRULE:FREQ=DAILY"}, "repeat_rule"),
        ({"repeat_rule": DAILY_20, "repeat_timezone": "Mars/Olympus"}, "repeat_timezone"),
        ({"repeat_rule": DAILY_20, "check_in_minutes": 90}, "repeat_lead_minutes"),
    ],
    ids=[
        "every-5-minutes",
        "garbage",
        "unknown-freq",
        "no-start",
        "own-dtstart",
        "bad-zone",
        "check-in-before-creation",
    ],
)
def test_a_rule_that_cannot_run_is_refused_naming_it_and_nothing_is_saved(api, options, named):
    body = {
        "name": "Too often",
        "format": "swiss",
        "starts_at": london(1, 10).isoformat(),
        "repeat_timezone": "Europe/London",
        **options,
    }

    response = api.post("/api/events", body, format="json")

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_repeat_rule"
    assert response.json()["option"] == named
    assert not Event.objects.exists()


def test_a_patch_to_a_rule_too_frequent_is_refused_and_the_template_kept(api):
    event = template(api, starts_at=london(1, 10))

    response = api.patch(
        f"/api/events/{event.pk}", {"repeat_rule": "FREQ=MINUTELY;INTERVAL=5"}, format="json"
    )

    assert response.status_code == 400 and response.json()["option"] == "repeat_rule"
    event.refresh_from_db()
    assert event.repeat_rule == DAILY_20


def test_after_a_three_day_outage_only_the_next_occurrence_is_created(api):
    first = london(1, 10, 12)
    event = template(api, starts_at=first, rule="FREQ=HOURLY")
    schedule.clock_sweep(now=first - timedelta(minutes=30))
    assert len(occurrences(event)) == 1

    back = first + timedelta(days=3, minutes=20)  # 72 hourly starts missed meanwhile
    created = schedule.clock_sweep(now=back)["created"]

    assert created == 1
    assert [o.starts_at for o in occurrences(event)] == [first, first + timedelta(days=3, hours=1)]


def test_emptying_the_rule_stops_it_and_keeps_the_occurrences_created(api):
    first = london(1, 10)
    event = template(api, starts_at=first)
    schedule.clock_sweep(now=first - timedelta(minutes=30))

    response = api.patch(f"/api/events/{event.pk}", {"repeat_rule": ""}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["next_occurrence"] is None
    assert response.json()["repeat_stopped_at"] is not None
    for days in (1, 2, 7):
        schedule.clock_sweep(now=first + timedelta(days=days, minutes=-30))
    assert len(occurrences(event)) == 1


def test_a_change_to_the_template_shows_in_occurrences_created_after_it_only(api):
    """The occurrence is a copy made at its creation: nothing to carry over afterwards."""
    first = london(1, 10)
    event = template(api, starts_at=first)
    schedule.clock_sweep(now=first - timedelta(minutes=30))

    response = api.patch(f"/api/events/{event.pk}", {"target": 100}, format="json")
    assert response.status_code == 200, response.content
    schedule.clock_sweep(now=first + timedelta(days=1, minutes=-30))

    before, after = occurrences(event)
    assert (before.target, after.target) == (50, 100)


def test_the_api_shows_a_template_its_next_start_and_lists_templates(api):
    event = template(api, starts_at=london(1, 10))
    plain = Event.objects.create(name="Once", format="swiss")

    detail = api.get(f"/api/events/{event.pk}").json()
    listed = api.get("/api/events", {"repeats": "true"}).json()

    assert detail["repeat_rule"] == DAILY_20 and detail["repeat_timezone"] == "Europe/London"
    assert datetime.fromisoformat(detail["next_occurrence"]) == london(1, 10)
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [row["id"] for row in rows] == [event.pk]
    assert rows[0]["next_occurrence"] == detail["next_occurrence"]
    assert api.get(f"/api/events/{plain.pk}").json()["next_occurrence"] is None


@pytest.mark.parametrize("action", ["open-registration", "start"])
def test_a_template_is_not_opened_nor_started_by_hand(api, action):
    event = template(api, starts_at=london(1, 10))

    response = api.post(f"/api/events/{event.pk}/{action}")

    assert response.status_code == 409, response.content
    assert response.json()["code"] == "event_repeats"
    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT


def test_a_template_with_an_opening_time_is_not_opened_by_the_clock(api):
    first = london(1, 10)
    event = template(api, starts_at=first, registration_opens_at=london(1, 9).isoformat())

    schedule.clock_sweep(now=first - timedelta(minutes=90))

    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT


def test_the_organiser_form_offers_the_repeat_settings():
    from web.organise.forms import EventForm

    form = EventForm()

    assert {"repeat_rule", "repeat_timezone", "repeat_lead_minutes"} <= set(form.fields)
    assert form.fields["repeat_rule"].label == "Repeats (iCalendar rule)"


def test_emptying_the_rule_on_the_organiser_form_stops_the_repeats(api, olga_user):
    event = template(api, starts_at=london(1, 10))
    olga = web_client(olga_user)
    html = olga.get(f"/organise/{event.pk}/edit").content.decode()
    assert 'value="FREQ=DAILY;BYHOUR=20;BYMINUTE=0"' in html
    values = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', html))
    selects = dict(
        re.findall(
            r'<select name="(\w+)"[^>]*>(?:(?!</select>).)*?<option value="([^"]*)" selected',
            html,
            re.S,
        )
    )
    checks = re.findall(r'type="checkbox" name="(\w+)"[^>]*checked', html)
    data = {**values, **selects, **{name: "on" for name in checks}, "repeat_rule": ""}
    data.pop("csrfmiddlewaretoken", None)

    response = olga.post(f"/organise/{event.pk}/edit", data)

    assert response.status_code == 302, response.content.decode()
    event.refresh_from_db()
    assert event.repeat_rule == "" and event.repeat_stopped_at is not None


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=MINUTELY;INTERVAL=45",
        "FREQ=HOURLY;INTERVAL=5",
        DAILY_20,
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU;BYHOUR=14;BYMINUTE=0",
        "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=19;BYMINUTE=30",
        "FREQ=MONTHLY",
    ],
)
def test_counting_on_from_a_start_seen_gives_the_starts_counted_from_the_first(rule):
    """The sweep counts on from the last start it saw (a rule of every 15 minutes gives tens of
    thousands of starts a year): the same starts, across summer time and months."""
    from dateutil import rrule as dateutil_rrule

    from tournaments.services import repeat

    first = datetime(YEAR, 1, 31, 20, 0, tzinfo=LONDON)
    event = Event(
        name="x", format="swiss", repeat_rule=rule, repeat_timezone="Europe/London",
        starts_at=first,
    )  # fmt: skip
    truth = dateutil_rrule.rrulestr(rule, dtstart=first)
    repeat._ANCHORS.clear()
    moment = first - timedelta(days=1)
    for step in range(60):
        moment += timedelta(days=5, hours=step % 7, minutes=step * 13)
        counted = list(islice(repeat.starts_after(event, moment), 4))
        expected = [s.astimezone(ZoneInfo("UTC")) for s in truth.xafter(moment, count=4)]
        assert counted == expected, (rule, moment)
    assert repeat._ANCHORS  # it did count on from a start seen


def test_a_template_stopped_while_the_sweep_reads_it_gives_no_occurrence(api):
    first = london(1, 10)
    event = template(api, starts_at=first)
    read = schedule._template_locked

    def stopped_meanwhile(pk, rule):
        Event.objects.filter(pk=pk).update(repeat_rule="")
        return read(pk, rule)

    with mock.patch.object(schedule, "_template_locked", stopped_meanwhile):
        assert schedule.occurrences_create(now=first - timedelta(minutes=30)) == 0

    assert occurrences(event) == []


def test_the_organisers_start_page_refuses_to_start_a_template_in_words(api, olga_user):
    event = template(api, starts_at=london(1, 10))
    pages = web_client(olga_user)

    response = pages.post(f"/organise/{event.pk}/start", {"action": "start"})

    assert response.status_code == 409
    assert "repeat" in response.content.decode().lower()
    event.refresh_from_db()
    assert event.status == Event.Status.DRAFT
