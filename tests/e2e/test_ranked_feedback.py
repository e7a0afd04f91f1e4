"""Ranked play in a browser, on a desktop and a 390 px phone: the ratings at the table, each
player's rating before and after at the end of a rated game (written a moment later by the
sweep too, without a reload), and "Play again" or "New opponent" back into the ladder."""

from __future__ import annotations

import random
import re
import threading

import pytest
from playwright.sync_api import expect

from games.models import Game, Match
from ladders import services
from ladders.services import rating
from tests.e2e.helpers import browsing, fits_the_width
from tests.factories import PlayerFactory
from tests.ladders import play_ladder_match
from tests.play import active_game, play_out

MINUS = "\u2212"  # a rating change reads +20, or 20 after a minus sign


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(transactional_db):
    return PlayerFactory(user__username="bob", name="Bob")


@pytest.fixture
def ladder(transactional_db):
    return services.ladder_create(
        name="Quick ladder", best_of=1, target=50, base_seconds=None, provisional_matches=5
    )


def ladder_game(ladder, a, b) -> tuple[Match, Game]:
    match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b)
    services.ladder_match_start(match_id=match.pk)
    match.refresh_from_db()
    return match, active_game(match)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_end_of_a_rated_game_shows_each_rating_before_and_after(
    browser, live, alice, bob, ladder, screenshots, size
):
    match, game = ladder_game(ladder, alice, bob)
    with browsing(browser, live, alice.user, size) as page:
        page.goto(f"/games/{game.pk}")
        # At the table: both ratings, provisional ("?") for newcomers.
        expect(page.locator("#seat-bottom .seat-rating")).to_have_text("rating 1500?")
        expect(page.locator("#seat-top .seat-rating")).to_have_text("rating 1500?")

        play_out(match, {0: alice, 1: bob}, random.Random(3))  # the game ends while we look

        match.refresh_from_db()
        won = match.winner == alice
        mine, bobs = ("+20", f"{MINUS}20") if won else (f"{MINUS}20", "+20")
        after = {"+20": "1520", f"{MINUS}20": "1480"}
        block = page.locator("#rating-change")
        expect(block.locator("h3")).to_have_text("Quick ladder rating")
        rows = block.locator(".rating-row")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_text(f"You 1500 → {after[mine]} ({mine}) provisional")
        expect(rows.nth(0)).to_have_class(re.compile("up" if won else "down"))
        expect(rows.nth(1)).to_have_text(f"Bob 1500 → {after[bobs]} ({bobs}) provisional")
        expect(block.locator(".rating-note")).to_have_text(
            "Provisional: a new rating moves fast for the first 5 rated matches "
            "(you have played 1, Bob has played 1)."
        )
        # The seats now show what the match left each player with.
        expect(page.locator("#seat-bottom .seat-rating")).to_have_text(f"rating {after[mine]}?")
        expect(page.locator("#play-again")).to_be_visible()
        expect(page.locator("#new-opponent")).to_be_visible()
        fits_the_width(page)
        page.locator("#result").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"table-rated-{size}.png"), full_page=True)

        # The match page says the same.
        page.goto(f"/matches/{match.pk}")
        changes = page.locator("#match-ratings li")
        expect(changes).to_have_count(2)
        expect(changes.nth(0)).to_contain_text(f"You 1500 → {after[mine]} ({mine})")
        fits_the_width(page)
        page.screenshot(path=str(screenshots / f"match-rated-{size}.png"), full_page=True)


def test_a_rating_written_late_reaches_the_table_without_a_reload(
    browser, live, alice, bob, ladder, monkeypatch
):
    # The rating fails in the finishing transaction and in the sweep until released: the
    # table says it is being worked out, then shows it when the sweep writes it.
    released = threading.Event()
    apply = rating.rating_apply

    def held(**kwargs):
        if not released.is_set():
            raise RuntimeError("the ratings are held by the test")
        return apply(**kwargs)

    monkeypatch.setattr(rating, "rating_apply", held)
    match, game = ladder_game(ladder, alice, bob)
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto(f"/games/{game.pk}")
        expect(page.locator("#seat-bottom .seat-rating")).to_be_visible()
        play_out(match, {0: alice, 1: bob}, random.Random(3))
        expect(page.locator("#rating-change")).to_have_text(
            "Quick ladder rating: being worked out…"
        )
        loads = []
        page.on("load", lambda _: loads.append(1))
        released.set()
        expect(page.locator("#rating-change .rating-row")).to_have_count(2)
        assert not loads, "the page was reloaded"


def test_play_again_and_new_opponent_queue_for_the_same_ladder(browser, live, alice, bob, ladder):
    match, game = ladder_game(ladder, alice, bob)
    play_out(match, {0: alice, 1: bob}, random.Random(3))
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto(f"/games/{game.pk}")
        page.locator("#new-opponent").click()
        expect(page.locator("#queue-note")).to_contain_text(
            "Waiting for a new opponent in Quick ladder"
        )
        services.queue_join(ladder=ladder, player=bob)
        services.matchmaker_pass(ladder_id=ladder.pk)
        assert not Match.objects.exclude(pk=match.pk).exists(), "paired with the last opponent"
        page.locator("#leave-queue").click()
        expect(page.locator("#play-again")).to_be_visible()

        page.locator("#play-again").click()  # bob is still waiting: a rematch is fine now
        page.wait_for_url(re.compile(rf"/games/(?!{game.pk}$)\d+$"))
        again = Match.objects.exclude(pk=match.pk).get()
        assert {again.player_a, again.player_b} == {alice, bob}
        assert again.source == Match.Source.LADDER
        expect(page.locator("#seat-top .seat-name")).to_contain_text("Bob")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_leaderboard_says_what_it_takes_and_where_the_reader_stands(
    browser, live, alice, bob, screenshots, size
):
    ladder = services.ladder_create(
        name="Club ladder", best_of=1, base_seconds=None, leaderboard_min_matches=3
    )
    play_ladder_match(ladder, alice, bob)
    with browsing(browser, live, alice.user, size) as page:
        page.goto("/leaderboard")
        expect(page.locator("#board-summary")).to_have_text(
            "Club ladder: nobody is ranked yet: a player is ranked after 3 rated matches, "
            "one of them in the last 30 days."
        )
        expect(page.locator("#board-you")).to_have_text(
            "You have played 1 of the 3 rated matches needed to be ranked: 2 more to go "
            "(rating 1520, provisional)."
        )
        fits_the_width(page)
        play_ladder_match(ladder, alice, bob)
        play_ladder_match(ladder, bob, alice)
        page.reload()
        expect(page.locator("#board-summary")).to_contain_text("Club ladder: 2 ranked players")
        you = page.locator("#board-you")
        expect(you).to_have_text(re.compile(r"^You are ranked (1st|2nd) with \d+, provisional"))
        expect(page.locator("#board tr.me")).to_contain_text("Alice")
        fits_the_width(page)
        page.screenshot(path=str(screenshots / f"leaderboard-you-{size}.png"), full_page=True)


def test_a_reader_without_a_rating_is_told_how_to_get_ranked(browser, live, alice, ladder):
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto("/leaderboard")
        expect(page.locator("#board-you")).to_have_text(
            "You have no rating in Quick ladder yet: play 10 rated matches to be ranked."
        )
