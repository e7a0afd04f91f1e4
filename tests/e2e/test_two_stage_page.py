"""A groups-then-playoffs event's page: the group tables, the group rounds, and the playoff
drawn as a bracket (the event page's bracket drawing, fed the playoff's rounds)."""

from __future__ import annotations

import pytest
from django.db.models import Q
from django.test import Client
from playwright.sync_api import expect

from games.models import Match
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import open_event, settle, sign_in
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments import decide, humans
from tournaments import services
from tournaments.models import Entry, Event, Pairing

pytestmark = pytest.mark.e2e


def test_the_page_shows_group_tables_and_draws_the_playoff_as_a_bracket(browser, live, screenshots):
    players = [BotFactory(name=f"Group bot {n}", bot_strategy="greedy") for n in range(1, 9)]
    event = open_event("Spring groups", players, "two_stage", group_count=2)
    services.event_start(event=event)
    settle()
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED

    context = browser.new_context(base_url=live, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/events/{event.pk}")

    # The group tables: two groups of four, the two who went on marked.
    tables = page.locator("#groups-section table.group-table")
    expect(tables).to_have_count(2)
    expect(tables.locator("caption")).to_have_text(["Group A", "Group B"])
    expect(tables.nth(0).locator("tbody tr")).to_have_count(4)
    expect(page.locator("#groups-section tr.qualified")).to_have_count(4)

    # The playoff as a bracket: semifinals and the final, joined by lines.
    bracket = page.locator("#bracket")
    expect(bracket.locator(".pairing")).to_have_count(3)
    keys = bracket.locator(".pairing").evaluate_all("(nodes) => nodes.map((n) => n.dataset.key)")
    assert sorted(keys) == ["R1.1", "R1.2", "R2.1"]
    expect(bracket.locator("svg.connectors path.connector")).to_have_count(2)
    champion = Entry.objects.select_related("player").get(event=event, final_rank=1).player
    expect(bracket).to_contain_text(champion.name)

    # The group rounds as rounds (three of a round robin of four), not in the bracket.
    expect(page.locator("#rounds table.pairings")).to_have_count(3)
    expect(page.locator("#rounds")).to_contain_text("Groups, round 1")
    page.screenshot(path=str(screenshots / "two-stage-event.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]
)
def test_a_double_elimination_playoff_plays_up_to_its_reset(browser, live, viewport):
    """Three group rounds, then a double elimination of four: four rounds and the grand
    final, and its reset only if the losers-bracket champion wins the grand final."""
    event = open_event("Autumn groups", humans(8), "two_stage", group_count=2)
    event.playoff_format = "double_elim"
    event.save(update_fields=["playoff_format"])
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == 3 + 5

    context = browser.new_context(base_url=live, viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/events/{event.pk}")
    expect(page.locator("#event-summary")).to_have_text("8 players · up to 8 rounds")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport["width"]
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_a_player_who_did_not_qualify_reads_that_they_are_out(browser, live):
    """Once the playoff is drawn, a player left in their group reads that they are out, with
    their group and place, not that a next match is coming."""
    alice = PlayerFactory(user__username="alice", name="Alice")
    bob = PlayerFactory(user__username="bob", name="Bob")  # goes on: the playoff waits for him
    bots = [BotFactory(name=f"Group bot {n}", bot_strategy="greedy") for n in range(6)]
    event = open_event("Summer groups", [alice, bob, *bots], "two_stage", group_count=2)
    services.event_start(event=event)
    for _ in range(10):  # Alice loses each of her group matches, Bob wins his; bots play
        settle()
        ours = Pairing.objects.filter(
            Q(entry_a__player__in=(alice, bob)) | Q(entry_b__player__in=(alice, bob)),
            event=event,
            match__status__in=(Match.Status.SCHEDULED, Match.Status.ACTIVE),
        )
        for pairing in ours:
            a, b = pairing.entry_a.player, pairing.entry_b.player
            winner = bob if bob in (a, b) else (b if a == alice else a)
            decide(event, pairing.key, winner)
        if Entry.objects.filter(event=event, playoff_seed__isnull=False).exists():
            break
    settle()
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    row = next(
        r
        for r in Client().get(f"/api/events/{event.pk}/standings").json()["rows"]
        if r["player"]["id"] == alice.pk
    )
    assert row["reached"].startswith("Group ") and row["rank"] > 4

    for viewport in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
        context = browser.new_context(base_url=live, viewport=viewport)
        context.set_default_timeout(TIMEOUT_MS)
        sign_in(context, live, alice.user)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.goto(f"/events/{event.pk}")
        yours = page.locator("#your-match")
        expect(yours).to_have_attribute("data-state", "out")
        expect(yours).to_contain_text(
            f"You are out of the event. Reached: {row['reached']}; place {row['rank']}."
        )
        expect(page.get_by_role("button", name="Withdraw")).to_have_count(0)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= viewport["width"]
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
