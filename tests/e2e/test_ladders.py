"""Ladders in a real browser: the leaderboard, a player's rating history chart, and joining and
leaving a queue from the lobby until the matchmaker pairs us."""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import expect

from ladders import services
from ladders.models import Rating
from tests.e2e.helpers import settle, sign_in
from tests.factories import BotFactory, PlayerFactory


@pytest.fixture
def ladder(transactional_db):
    """A quick ladder whose leaderboard ranks players after one rated match."""
    return services.ladder_create(
        name="Quick ladder",
        best_of=1,
        target=100,
        base_seconds=None,
        leaderboard_min_matches=1,
    )


@pytest.fixture
def rated_bots(ladder):
    """Six bots, each pair of them having played one rated ladder match."""
    bots = [BotFactory(name=f"Ladder bot {n}", bot_strategy="greedy") for n in range(1, 7)]
    seed = 0
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            seed += 1
            match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b, seed=seed)
            services.ladder_match_start(match_id=match.pk)  # played by the embedded worker
    settle()
    return bots


def test_the_leaderboard_ranks_rated_players_and_links_their_rating_history(
    page, ladder, rated_bots, screenshots
):
    ratings = list(Rating.objects.filter(ladder=ladder).order_by("-rating"))
    assert len(ratings) == 6 and all(r.matches_played == 5 for r in ratings)

    page.goto("/leaderboard")

    rows = page.locator("#board tbody tr")
    expect(rows).to_have_count(6)
    expect(page.locator("#board-summary")).to_contain_text("6 ranked players")
    expect(rows.first).to_contain_text(ratings[0].player.name)
    # The page rounds the API's rating (one decimal) as JavaScript does (half up), not as
    # Python's round() (half to even): 1554.46 is served as 1554.5 and shown as 1555.
    shown = math.floor(round(ratings[0].rating, 1) + 0.5)
    expect(rows.first.locator("td").nth(2)).to_contain_text(str(shown))
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)

    page.get_by_label("Players").select_option("human")
    expect(page.locator("#board-summary")).to_contain_text("nobody is ranked yet")
    page.get_by_label("Players").select_option("")
    expect(rows).to_have_count(6)

    rows.first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/players/{ratings[0].player_id}$"))
    chart = page.locator("svg.chart")
    expect(chart).to_be_visible()
    expect(chart).to_have_attribute("aria-label", re.compile(r"over 5 rated matches"))
    expect(chart.locator("circle")).to_have_count(5)
    page.screenshot(path=str(screenshots / "player.png"), full_page=True)


def test_joining_a_queue_shows_the_wait_and_leaving_it_works(page, context, live, ladder):
    alice = PlayerFactory(user__username="alice", name="Alice")
    sign_in(context, live, alice.user)

    page.goto("/lobby")
    widget = page.locator(f'.ladder[data-ladder="{ladder.pk}"]')
    widget.get_by_role("button", name="Join the queue").click()

    expect(widget.locator(".waiting")).to_contain_text(re.compile(r"Waiting \d+:\d\d"))
    widget.get_by_role("button", name="Leave the queue").click()
    expect(widget.get_by_role("button", name="Join the queue")).to_be_visible()


def test_a_queued_bot_is_paired_with_us_and_the_table_opens(page, context, live, ladder):
    alice = PlayerFactory(user__username="alice", name="Alice")
    bot = BotFactory(name="Queue bot", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=bot)
    sign_in(context, live, alice.user)

    page.goto("/lobby")
    page.locator(f'.ladder[data-ladder="{ladder.pk}"]').get_by_role(
        "button", name="Join the queue"
    ).click()

    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#title")).to_contain_text("Queue bot")
