"""An arena's page follows it live: standings, streaks and the time left, with no reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services as play
from tests.e2e.helpers import open_event, sign_in
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import Entry, Event, Pairing


def _win(event, winner) -> None:
    """``winner``'s match in play ends with the opponent resigning."""
    pairing = (
        Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING)
        .select_related("match__player_a", "match__player_b")
        .filter(match__player_a=winner)
        .first()
    ) or (
        Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING)
        .select_related("match__player_a", "match__player_b")
        .get(match__player_b=winner)
    )
    match = pairing.match
    loser = match.player_b if match.player_a == winner else match.player_a
    play.match_forfeit(match=match, loser=loser, reason="resigned", end_reason="resigned")


@pytest.fixture(autouse=True)
def _arenas_end(live):
    """Each test's arena is cancelled after it: its timed matches and its pairing passes
    would otherwise go on in the live server's worker while the next tests run."""
    yield
    for event in Event.objects.filter(format="arena").exclude(
        status__in=(Event.Status.FINISHED, Event.Status.CANCELLED)
    ):
        services.event_cancel(event=event, reason="the test is over")


def test_an_arenas_standings_update_live_as_matches_finish(page, context, live, screenshots):
    names = ["Alice", "Bob", "Charlie", "Dora"]
    players = [PlayerFactory(user__username=n.lower(), name=n) for n in names]
    alice = players[0]
    event = open_event("Evening arena", players, format="arena", arena_minutes=30)
    event.base_seconds = 300
    event.save(update_fields=["base_seconds"])
    sign_in(context, live, alice.user)
    page.goto(f"/events/{event.pk}")
    expect(page.locator("#event")).to_have_attribute("data-live", "socket")
    page.evaluate("window.__stayed = true")

    services.event_start(event=event)  # everyone is paired at once

    expect(page.locator("#event-meta")).to_contain_text("Arena")
    expect(page.locator("#event-meta")).to_contain_text("In play")
    clock = page.locator("#arena-clock")
    expect(clock).to_have_text(re.compile(r"^(30:00|29:\d\d)$"))
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(4)
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(page.locator("#your-match")).to_contain_text("Go to the table")

    _win(event, alice)
    alice_row = rows.filter(has_text="Alice")
    expect(alice_row).to_contain_text("2")
    expect(rows.first).to_contain_text("Alice")  # first with 2 points

    # Another win for each winner's side: Alice meets a fresh opponent, the streak grows.
    other = Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING).first()
    _win(event, other.match.player_a)
    expect(rows.filter(has_text="Alice").locator("td").nth(3)).to_have_text("2")  # the sheet
    expect(page.locator("#rounds tbody tr")).to_have_count(4)  # paired again, pushed
    page.screenshot(path=str(screenshots / "arena-standings.png"), full_page=True)

    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Rejoin")).to_be_visible()
    assert Entry.objects.get(event=event, player=alice).paused_at is not None
    assert page.evaluate("window.__stayed") is True


def test_berserk_at_the_table_halves_your_clock(page, context, live):
    alice, bob = (PlayerFactory(user__username=n.lower(), name=n) for n in ("Alice", "Bob"))
    event = open_event("Berserk arena", [alice, bob], format="arena")
    event.base_seconds = 300
    event.save(update_fields=["base_seconds"])
    services.event_start(event=event)
    match = Pairing.objects.get(event=event).match
    game = match.games.get(status="active")
    sign_in(context, live, alice.user)
    page.goto(f"/games/{game.pk}")
    expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Berserk").click()
    expect(page.locator("#berserk-box")).to_contain_text("Berserk: half your clock")
    match.refresh_from_db()
    index = match.index_of(alice.pk)
    assert (match.berserk_a, match.berserk_b)[index] is True
    game.refresh_from_db()
    assert game.clock_ms(index) == 150_000
