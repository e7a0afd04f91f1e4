"""Event pages in a real browser: a finished 8-bot bracket, Swiss standings with tiebreaks, and
a player who shows up for a tournament match and is seen live in the bracket."""

from __future__ import annotations

import re

import pytest
from django.db.models import Q
from playwright.sync_api import expect

from games.models import Match
from tests.e2e.helpers import open_event, settle, sign_in
from tests.factories import BotFactory, PlayerFactory
from tournaments import services
from tournaments.models import Event, Pairing


def run_event(name: str, format: str, players, **options) -> Event:
    """Create, fill and start an event; its bot matches are played by the embedded worker,
    waited for here."""
    event = open_event(name, players, format, **options)
    services.event_start(event=event)
    settle()
    event.refresh_from_db()
    return event


@pytest.fixture
def bots(transactional_db):
    return [BotFactory(name=f"Cup bot {n}", bot_strategy="greedy") for n in range(1, 9)]


def test_a_finished_eight_bot_event_is_drawn_as_a_bracket(page, bots, screenshots):
    event = run_event("Autumn bot cup", "single_elim", bots)
    assert event.status == Event.Status.FINISHED
    champion = event.champion.name

    page.goto("/events")
    page.get_by_role("link", name="Autumn bot cup").click()

    bracket = page.locator("#bracket")
    expect(bracket).to_be_visible()
    rounds = bracket.locator(".round")
    expect(rounds).to_have_count(3)
    expect(rounds.locator("> h3")).to_have_text(["Quarterfinals", "Semifinals", "Final"])
    expect(rounds.nth(0).locator(".pairing")).to_have_count(4)
    expect(rounds.nth(1).locator(".pairing")).to_have_count(2)
    expect(rounds.nth(2).locator(".pairing")).to_have_count(1)
    for pairing in bracket.locator(".pairing").all():
        expect(pairing.locator(".slot.winner")).to_have_count(1)
    for bot in bots:
        expect(rounds.nth(0).get_by_role("link", name=bot.name, exact=True)).to_have_count(1)
    expect(rounds.nth(2).locator(".slot.winner")).to_contain_text(champion)
    expect(page.locator("#event-summary .champion")).to_contain_text(champion)

    standings = page.locator("#standings tbody tr")
    expect(standings).to_have_count(8)
    expect(standings.first).to_contain_text(champion)
    expect(standings.first).to_contain_text("Champion")
    page.screenshot(path=str(screenshots / "bracket.png"), full_page=True)

    # Every pairing links to its match, and the match to its replay.
    final = Pairing.objects.get(event=event, round__number=3)
    rounds.nth(2).get_by_role("link", name="match").click()
    expect(page).to_have_url(re.compile(rf"/matches/{final.match_id}$"))
    page.get_by_role("link", name="Replay the deals").click()
    expect(page.locator("#replay-position")).to_have_text(re.compile(r"^Move 0 of \d+$"))
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_have_text(re.compile(r"^Move 1 of \d+$"))
    page.keyboard.press("End")
    expect(page.locator("#replay-outcome .outcome")).to_be_visible()
    page.screenshot(path=str(screenshots / "replay.png"), full_page=True)


def test_swiss_standings_show_rounds_and_tiebreak_columns(page, bots):
    event = run_event("Swiss night", "swiss", bots[:6], swiss_rounds=3)
    assert event.status == Event.Status.FINISHED

    page.goto(f"/events/{event.pk}")

    expect(page.locator("#rounds table")).to_have_count(3)
    expect(page.locator("#rounds caption").first).to_contain_text("Round 3")
    header = page.locator("#standings thead")
    expect(header).to_contain_text("Points")
    for tiebreak in event.tiebreaks:
        label = {"buchholz": "Buchholz", "median_buchholz": "Median Buchholz"}.get(tiebreak)
        if label:
            expect(header).to_contain_text(label)
    expect(page.locator("#standings tbody tr")).to_have_count(6)
    expect(page.locator("#bracket-section")).to_be_hidden()


def test_a_player_shows_up_for_a_tournament_match_and_the_bracket_shows_it_live(
    page, context, live, bots
):
    alice = PlayerFactory(user__username="alice", name="Alice")
    event = run_event("Open cup", "single_elim", [alice, *bots[:3]], grace_seconds=600)
    pairing = Pairing.objects.get(
        Q(entry_a__player=alice) | Q(entry_b__player=alice), event=event, round__number=1
    )
    assert pairing.match.status == Match.Status.SCHEDULED
    sign_in(context, live, alice.user)

    page.goto(f"/matches/{pairing.match_id}")
    page.get_by_role("button", name="I am here: start the match").click()

    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()
    page.goto(f"/events/{event.pk}")
    live_pairing = page.locator(f'.pairing[data-key="{pairing.key}"]')
    expect(live_pairing).to_have_class(re.compile(r"\bin-play\b"))
    watch = live_pairing.locator('a[href^="/games/"]')
    expect(watch).to_contain_text(re.compile(r"live · game 1: \d+\u2013\d+"))
    watch.click()
    expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()
