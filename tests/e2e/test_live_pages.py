"""Pages that listen to sockets: the tournament match banner on every page (ws/me), and the
event page following its event (ws/events/<id>) with no reload."""

from __future__ import annotations

import re

from django.db.models import Q
from playwright.sync_api import expect

from games import services as play
from games.models import Match
from tests.e2e.helpers import open_event, sign_in
from tests.factories import BotFactory, PlayerFactory
from tournaments import services
from tournaments.models import Pairing


def test_a_player_sees_the_banner_with_a_countdown_on_another_page_and_it_opens_the_table(
    page, context, live
):
    alice = PlayerFactory(user__username="alice", name="Alice")
    bot = BotFactory(name="Cup bot", bot_strategy="greedy")
    event = open_event("Evening cup", [alice, bot], grace_seconds=600)
    sign_in(context, live, alice.user)
    page.goto("/leaderboard")
    expect(page.locator("#match-banner")).to_be_hidden()
    page.evaluate("window.__stayed = true")

    services.event_start(event=event)  # the match waits for Alice now

    banner = page.get_by_role("alert").filter(has_text="tournament match is ready")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Evening cup")
    expect(banner).to_contain_text("Cup bot")
    countdown = banner.locator(".countdown")
    expect(countdown).to_have_text(re.compile(r"^(10:00|9:\d\d)$"))
    first = countdown.text_content()
    expect(countdown).not_to_have_text(first)  # it counts down
    assert page.evaluate("window.__stayed") is True  # pushed, not reloaded

    banner.get_by_role("link", name="Go to the table").click()
    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()
    match = Pairing.objects.get(event=event).match
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_a_page_opened_later_shows_the_banner_from_the_summary(page, context, live):
    alice = PlayerFactory(user__username="alice", name="Alice")
    event = open_event("Late cup", [alice, BotFactory(name="Cup bot", bot_strategy="greedy")])
    services.event_start(event=event)
    sign_in(context, live, alice.user)
    page.goto("/events")
    banner = page.get_by_role("alert").filter(has_text="tournament match is ready")
    expect(banner).to_be_visible()
    expect(banner.locator(".countdown")).to_have_text(re.compile(r"^\d+:\d\d$"))


def test_the_event_page_moves_from_registration_to_the_first_round_without_a_reload(page):
    players = [PlayerFactory(user__username=f"p{n}", name=f"Player {n}") for n in range(1, 5)]
    event = open_event("Spring open", players)
    page.goto(f"/events/{event.pk}")
    expect(page.locator("#event-meta")).to_contain_text("Registration open")
    expect(page.locator("#event")).to_have_attribute("data-live", "socket")
    expect(page.locator("#bracket-section")).to_be_hidden()
    page.evaluate("window.__stayed = true")

    services.event_start(event=event)

    expect(page.locator("#event-meta")).to_contain_text("In play")
    bracket = page.locator("#bracket")
    expect(bracket.locator(".round > h3")).to_have_text(["Semifinals", "Final"])
    expect(bracket.locator(".round").first.locator(".pairing")).to_have_count(2)

    # A match finishing moves its winner on, still without a reload.
    first = Pairing.objects.select_related("match__player_a").get(event=event, key="R1.1")
    winner = first.match.player_b
    play.match_forfeit(
        match=first.match, loser=first.match.player_a, reason="resigned", end_reason="resigned"
    )
    semifinal = bracket.locator('.pairing[data-key="R1.1"]')
    expect(semifinal.locator(".slot.winner")).to_contain_text(winner.name)
    final = bracket.locator(".round").nth(1)
    expect(final).to_contain_text(winner.name)
    standings = page.locator("#standings tbody tr")
    expect(standings).to_have_count(4)
    assert page.evaluate("window.__stayed") is True
    assert not Pairing.objects.filter(Q(result="") & Q(key="R1.1")).exists()
