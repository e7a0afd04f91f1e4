"""An organiser runs an event from the site's pages alone, on a desktop and on a phone: creates a
Swiss, adds three people (a search, a pasted list) and two named house bots, opens the
check-in desk and checks two people in (and the bots), seeds by rating, starts, and follows the
first round on the round control page. Screenshots of each page go to var/screenshots/."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import header_link, sign_in
from tests.factories import PlayerFactory
from tournaments.models import Entry, Event, EventLog, Pairing

SIZES = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 390, "height": 844},
}
ORGANISER_PERMISSIONS = ("add_event", "change_event", "change_entry", "change_pairing")


def organiser():
    user = PlayerFactory(user__username="olga", name="Olga").user
    user.is_staff = True
    user.save()
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="tournaments", codename__in=ORGANISER_PERMISSIONS
        )
    )
    return user


def fits(page) -> None:
    """Nothing is wider than the screen (no sideways scrolling)."""
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page is {wide}px wider than the screen"


@pytest.mark.parametrize("size", list(SIZES))
def test_an_organiser_runs_a_swiss_from_the_pages(browser, live, screenshots, size):
    olga = organiser()
    for name in ("Alice Archer", "Bob Baker", "Charlie Cole"):
        PlayerFactory(name=name)
    context = browser.new_context(base_url=live, viewport=SIZES[size])
    context.set_default_timeout(TIMEOUT_MS)
    sign_in(context, live, olga)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    shot = lambda name: page.screenshot(  # noqa: E731
        path=str(screenshots / f"organise-{name}-{size}.png"), full_page=True
    )
    try:
        # The header links the organiser's pages; a new event from there.
        page.goto("/")
        header_link(page, "Organise").click()
        page.get_by_role("link", name="New event").click()
        form = page.locator("#event-form")
        form.get_by_label("Name").fill("Thursday club night")
        form.get_by_label("Format").select_option("swiss")
        # Only the Swiss's own options show.
        expect(form.get_by_label("Swiss rounds")).to_be_visible()
        expect(form.get_by_label("Match for third place")).to_be_hidden()
        form.get_by_label("Best of (games)").fill("1")
        form.get_by_label("Game to (points)").fill("100")
        shot("new")
        fits(page)
        page.get_by_role("button", name="Create the event").click()

        # Entrants: one found by name, two from a pasted list, two named bots.
        expect(page.get_by_role("heading", name="Add entrants")).to_be_visible()
        page.get_by_label("Find a player by name").fill("alice")
        page.get_by_role("button", name="Search").click()
        page.get_by_role("button", name="Add Alice Archer").click()
        expect(page.locator(".messages")).to_contain_text("Alice Archer is entered.")
        page.locator("#import-csv").fill("Bob Baker\ncharlie cole\n")
        page.get_by_role("button", name="Import").click()
        expect(page.locator(".messages")).to_contain_text("2 entered from the list.")
        page.get_by_label("House bots").fill("2")
        page.get_by_label("Strength").select_option("expert")
        page.get_by_role("button", name="Add the bots").click()
        entrants = page.locator(".entrant-list")
        expect(entrants.locator(".entrant")).to_have_count(5)
        bot_names = [e.player.name for e in Entry.objects.filter(player__kind="bot")]
        assert len(bot_names) == 2 and all(n.endswith(" (expert)") for n in bot_names)
        assert not any(" bot " in n for n in bot_names)
        for name in bot_names:
            expect(entrants).to_contain_text(name)
        shot("entrants")
        fits(page)

        # The check-in desk: open it, tap two people, check the bots in.
        page.get_by_role("link", name="Check-in").click()
        page.get_by_role("button", name="Open check-in now (and registration)").click()
        expect(page.locator(".desk-count")).to_contain_text("5 missing")
        page.evaluate("window.sameDesk = true")  # a tap redraws the desk, not the page
        page.locator(".desk-button", has_text="Alice Archer").click()
        expect(page.locator(".desk-count")).to_contain_text("4 missing")
        page.locator(".desk-button", has_text="Bob Baker").click()
        expect(page.locator(".desk-count")).to_contain_text("3 missing")
        expect(page.locator(".desk-button", has_text="Bob Baker")).to_have_attribute(
            "aria-pressed", "true"
        )
        page.get_by_role("button", name="Check in all 2 bots").click()
        expect(page.locator(".desk-count")).to_contain_text("1 missing")
        assert page.evaluate("window.sameDesk === true")
        expect(page.locator(".desk-button", has_text="Charlie Cole")).to_have_attribute(
            "aria-pressed", "false"
        )
        shot("check-in")
        fits(page)

        # Seeding by rating, then the start.
        page.get_by_role("link", name="Seeding and start").click()
        page.get_by_label("By rating").check()
        page.get_by_role("button", name="Seed now").click()
        expect(page.locator(".messages")).to_contain_text("Seeded.")
        expect(page.get_by_text("1 who did not check in will be withdrawn")).to_be_visible()
        shot("start")
        fits(page)
        page.get_by_role("button", name="Start Thursday club night").click()

        # The round control: both matches of round 1, with their state and a link.
        expect(page.locator(".messages")).to_contain_text("has started")
        cards = page.locator(".table-card")
        expect(cards).to_have_count(2)
        event = Event.objects.get(name="Thursday club night")
        assert event.status == Event.Status.RUNNING
        charlie = event.entries.get(player__name="Charlie Cole")
        assert charlie.status == Entry.Status.WITHDRAWN  # did not check in
        pairings = Pairing.objects.filter(event=event, round__number=1)
        assert pairings.count() == 2
        for pairing in pairings:
            card = page.locator(f'[id="pairing-{pairing.key}"]')
            expect(card).to_contain_text(pairing.entry_a.player.name)
            expect(card).to_contain_text(pairing.entry_b.player.name)
        expect(page.get_by_role("link", name="Match page").first).to_be_visible()
        expect(page.locator(".table-card .state-label").first).not_to_be_empty()
        shot("round")
        fits(page)
        page.get_by_role("link", name="Overview").click()
        expect(page.get_by_role("heading", name="At a glance")).to_be_visible()
        shot("overview")
        fits(page)
        header_link(page, "Organise").click()
        expect(page.locator(".event-rows")).to_contain_text("Thursday club night")
        shot("events")
        fits(page)
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_seeds_are_put_in_order_by_dragging_and_by_the_keyboard(browser, live, screenshots):
    from tournaments import services

    olga = organiser()
    event = services.event_create(name="Seeded by hand", format="single_elim", created_by=olga)
    people = [PlayerFactory(name=name) for name in ("Ann", "Ben", "Cat", "Dov")]
    for player in people:
        services.entry_add(event=event, player=player)
    context = browser.new_context(base_url=live, viewport=SIZES["phone"], has_touch=True)
    context.set_default_timeout(TIMEOUT_MS)
    sign_in(context, live, olga)
    page = context.new_page()
    try:
        page.goto(f"/organise/{event.pk}/start")
        rows = page.locator(".seed-row")
        expect(rows.locator(".name")).to_have_text(["Ann", "Ben", "Cat", "Dov"])
        expect(rows.first.locator(".handle")).to_be_visible()  # numbers without a script

        # Dov dragged (by its handle) above Ann; then Ann one place down with the keyboard.
        handle = rows.nth(3).locator(".handle")
        target = rows.nth(0).bounding_box()
        box = handle.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + 5, target["y"] + 4, steps=8)
        page.mouse.up()
        expect(rows.locator(".name")).to_have_text(["Dov", "Ann", "Ben", "Cat"])
        expect(page.get_by_label("By hand")).to_be_checked()
        rows.nth(1).locator(".handle").press("ArrowDown")
        expect(rows.locator(".name")).to_have_text(["Dov", "Ben", "Ann", "Cat"])
        page.screenshot(
            path=str(screenshots / "organise-seeding-by-hand-phone.png"), full_page=True
        )
        page.get_by_role("button", name="Seed now").click()
        expect(page.locator(".messages")).to_contain_text("Seeded.")
    finally:
        context.close()
    seeds = dict(event.entries.values_list("player__name", "seed"))
    assert seeds == {"Dov": 1, "Ben": 2, "Ann": 3, "Cat": 4}


def test_times_are_read_in_the_organisers_own_time_zone(browser, live):
    context = browser.new_context(base_url=live, timezone_id="America/New_York")
    context.set_default_timeout(TIMEOUT_MS)
    sign_in(context, live, organiser())
    page = context.new_page()
    try:
        page.goto("/organise/new")
        expect(page.locator("[data-zone]")).to_have_text("America/New_York")  # drawn again
        page.get_by_label("Name").fill("Summer open")
        page.get_by_label("Registration opens").fill("2030-06-01T20:00")
        page.get_by_role("button", name="Create the event").click()
        expect(page.get_by_role("heading", name="Add entrants")).to_be_visible()
        page.get_by_role("link", name="Settings").click()
        expect(page.get_by_label("Registration opens")).to_have_value("2030-06-01T20:00")
    finally:
        context.close()
    event = Event.objects.get(name="Summer open")
    assert event.registration_opens_at.isoformat() == "2030-06-02T00:00:00+00:00"


def test_an_event_on_a_clock_starts_by_itself_and_pairs_only_those_checked_in(
    browser, live, screenshots
):
    """From the pages alone: a Swiss with a start time, three people and two named bots, two
    people checked in at the desk; the start moved to a few seconds ahead, the event page
    counts down, and the event starts by itself (the clock sweep), pairing the two people
    and the bots (who check in by themselves); the third is withdrawn. The round control
    then decides a match by an override with a reason."""
    from datetime import timedelta

    from django.utils import timezone

    olga = organiser()
    for name in ("Alice Archer", "Bob Baker", "Charlie Cole"):
        PlayerFactory(name=name)
    context = browser.new_context(
        base_url=live, viewport=SIZES["phone"], timezone_id="UTC", is_mobile=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    sign_in(context, live, olga)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    when = lambda delta: (timezone.now() + delta).strftime("%Y-%m-%dT%H:%M:%S")  # noqa: E731
    try:
        page.goto("/organise/new")
        form = page.locator("#event-form")
        form.get_by_label("Name").fill("Friday at eight")
        form.get_by_label("Format").select_option("swiss")
        form.get_by_label("Best of (games)").fill("1")
        form.get_by_label("Game to (points)").fill("100")
        form.get_by_label("Starts at").fill(when(timedelta(hours=1)))
        page.get_by_role("button", name="Create the event").click()

        expect(page.get_by_role("heading", name="Add entrants")).to_be_visible()
        page.locator("#import-csv").fill("Alice Archer\nBob Baker\nCharlie Cole\n")
        page.get_by_role("button", name="Import").click()
        expect(page.locator(".messages")).to_contain_text("3 entered from the list.")
        page.get_by_label("House bots").fill("2")
        page.get_by_label("Strength").select_option("greedy")
        page.get_by_role("button", name="Add the bots").click()
        expect(page.locator(".entrant-list .entrant")).to_have_count(5)

        page.get_by_role("link", name="Check-in").click()
        page.get_by_role("button", name="Open check-in now (and registration)").click()
        for name in ("Alice Archer", "Bob Baker"):
            page.locator(".desk-button", has_text=name).click()
            expect(page.locator(".desk-button", has_text=name)).to_have_attribute(
                "aria-pressed", "true"
            )

        # The start, moved to a few seconds from now: nobody presses Start.
        page.get_by_role("link", name="Settings").click()
        page.get_by_label("Starts at").fill(when(timedelta(seconds=8)))
        page.get_by_role("button", name="Save").click()
        event = Event.objects.get(name="Friday at eight")
        page.goto(f"/events/{event.pk}")
        expect(page.locator("[data-starts-in]")).to_be_visible()
        page.screenshot(path=str(screenshots / "event-countdown-phone.png"), full_page=True)
        fits(page)

        deadline = timezone.now() + timedelta(seconds=60)  # the sweep runs every 15 s
        while event.status != Event.Status.RUNNING:
            assert timezone.now() < deadline, f"not started by itself: {event.status}"
            page.wait_for_timeout(500)
            event.refresh_from_db()
        assert event.started_at >= event.starts_at
        entries = {e.player.name: e.status for e in event.entries.select_related("player")}
        assert entries["Charlie Cole"] == Entry.Status.WITHDRAWN  # did not check in
        assert [s for n, s in entries.items() if n != "Charlie Cole"] == [
            Entry.Status.CHECKED_IN
        ] * 4
        pairings = list(Pairing.objects.filter(event=event, round__number=1))
        paired = {p.entry_a.player.name for p in pairings} | {
            p.entry_b.player.name for p in pairings
        }
        assert len(pairings) == 2 and "Charlie Cole" not in paired

        # The round control: the two matches; one decided by an override, with a reason.
        page.goto(f"/organise/{event.pk}/round")
        cards = page.locator(".table-card")
        expect(cards).to_have_count(2)
        people = next(
            p for p in pairings if not (p.entry_a.player.is_bot and p.entry_b.player.is_bot)
        )
        card = page.locator(f'[id="pairing-{people.key}"]')
        card.get_by_text("Override the result").click()
        card.get_by_label(people.entry_a.player.name).check()
        card.get_by_label("Reason (in the audit log)").fill("Opponent left the club")
        card.get_by_role("button", name="Decide").click()
        expect(page.locator(".messages")).to_contain_text("decided by you")
        people.refresh_from_db()
        assert people.winner.player == people.entry_a.player
        assert EventLog.objects.filter(
            event=event, action="override_result", reason="Opponent left the club"
        ).exists()
        page.screenshot(path=str(screenshots / "organise-clock-round-phone.png"), full_page=True)
        fits(page)
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
