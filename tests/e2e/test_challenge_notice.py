"""A challenge answered where it is seen, on a phone (390 px) and a desktop, in two browsers:
the challenged player's notice on any page names the challenger's rating, the clock and the
rules, and accepts (to the table) or declines there; the challenger withdraws from the
waiting page and the notice leaves the other screen at once; a refusal reads in words."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services as play
from games.models import Game, Match
from games.services import TimeControl
from ladders.models import Rating
from tests.e2e.helpers import open_event, sign_in
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import make_ladder
from tournaments import services as events

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def offer_of(page, match: Match):
    return page.locator(f'#live-notices [data-key="challenge-{match.pk}"]')


def fits(page, locator, width: int) -> None:
    """The notice and every one of its buttons are on the screen, none cut at its right."""
    for box in [locator.bounding_box()] + [
        b.bounding_box() for b in locator.get_by_role("button").all()
    ]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_challenge_is_accepted_declined_and_withdrawn_from_where_it_is_seen(
    browser, live, screenshots, viewport
):
    alice = PlayerFactory(user__username="alice", name="Alice")
    bob = PlayerFactory(user__username="bob", name="Bob")
    Rating.objects.create(
        ladder=make_ladder(name="Evening ladder"),
        player=alice,
        rating=1612.4,
        peak=1612.4,
        matches_played=12,
        provisional=False,
        last_active=timezone.now(),
    )
    name = "phone" if viewport is PHONE else "desktop"
    contexts = [browser.new_context(base_url=live, viewport=viewport) for _ in range(2)]
    errors: list[str] = []
    try:
        pages = []
        for context, player in zip(contexts, (alice, bob), strict=True):
            sign_in(context, live, player.user)
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            pages.append(page)
        alice_page, bob_page = pages

        # 1. Alice challenges Bob (as the lobby's form does) and waits on the match page; Bob
        # is on the home page.
        bob_page.goto("/")
        first = play.challenge_create(
            challenger=alice,
            opponent=bob,
            time_control=TimeControl(base_seconds=300, increment_seconds=5),
        )
        alice_page.goto(f"/matches/{first.pk}")
        expect(alice_page.locator("#awaiting")).to_contain_text("Waiting for Bob")
        # Her page's polling gets no answer now: only the push of the answer can open the table.
        alice_page.route(re.compile(r"/api/matches/\d+$"), lambda route: route.abort())

        offer = offer_of(bob_page, first)
        expect(offer).to_contain_text("Alice (1612 Evening ladder) challenges you: 5 min + 5 s")
        expect(offer).to_contain_text("Standard · knock at 10 or less")
        expect(offer).not_to_contain_text("Answer in the lobby")
        fits(bob_page, offer, viewport["width"])
        bob_page.screenshot(path=str(screenshots / f"challenge-notice-{name}.png"))
        offer.get_by_role("button", name="Accept").click()
        expect(bob_page).to_have_url(re.compile(r"/games/\d+$"))
        game = Game.objects.get(match=first, status=Game.Status.ACTIVE)
        assert bob_page.url.endswith(f"/games/{game.pk}")
        expect(alice_page).to_have_url(re.compile(rf"/games/{game.pk}$"))  # her waiting page
        alice_page.unroute(re.compile(r"/api/matches/\d+$"))

        # 2. A second challenge, declined from the notice.
        bob_page.goto("/events")
        second = play.challenge_create(challenger=alice, opponent=bob)
        offer = offer_of(bob_page, second)
        offer.get_by_role("button", name="Decline").click()
        expect(offer).to_have_text(re.compile("^You declined Alice's challenge."))
        second.refresh_from_db()
        assert second.status == Match.Status.DECLINED

        # 3. A third, withdrawn by Alice from her waiting page: it leaves Bob's screen at once.
        # Made before Bob opens the page: his notice comes from the summary of his socket.
        third = play.challenge_create(challenger=alice, opponent=bob, best_of=3, target=100)
        bob_page.goto("/leaderboard")
        offer = offer_of(bob_page, third)
        expect(offer.get_by_role("button", name="Accept")).to_be_visible()
        expect(offer).to_contain_text("best of 3 to 100")
        bob_page.evaluate("window.__stayed = true")
        alice_page.goto(f"/matches/{third.pk}")
        expect(alice_page.locator("#awaiting")).to_contain_text("Waiting for Bob")
        alice_page.screenshot(path=str(screenshots / f"challenge-waiting-{name}.png"))
        alice_page.get_by_role("button", name="Withdraw the challenge").click()
        expect(alice_page.locator("h1 + .meta")).to_contain_text("Cancelled")
        expect(offer.get_by_role("button", name="Accept")).to_have_count(0)
        expect(offer).to_have_text(re.compile("^Alice withdrew their challenge."))
        assert bob_page.evaluate("window.__stayed") is True  # pushed, not reloaded
        third.refresh_from_db()
        assert third.status == Match.Status.CANCELLED

        # 4. Bad input: Bob's tournament match is made ready while a fourth challenge waits;
        # accepting it is refused (409 in_tournament_match) in words, with the way there.
        fourth = play.challenge_create(challenger=alice, opponent=bob)
        offer = offer_of(bob_page, fourth)
        expect(offer.get_by_role("button", name="Accept")).to_be_visible()
        event = open_event(
            "Night cup", [bob, BotFactory(name="Cup bot", bot_strategy="greedy")], grace_seconds=600
        )
        events.event_start(event=event)
        expect(bob_page.locator("#match-banner")).to_be_visible()
        offer.get_by_role("button", name="Accept").click()
        problem = offer.locator(".problem")
        expect(problem).to_contain_text("your tournament match")
        expect(problem).not_to_contain_text("undefined")
        expect(problem.get_by_role("link", name="Go to your match")).to_have_attribute(
            "href", re.compile(r"^/matches/\d+$")
        )
        fourth.refresh_from_db()
        assert fourth.status == Match.Status.CHALLENGED
        fits(bob_page, offer, viewport["width"])
        bob_page.screenshot(path=str(screenshots / f"challenge-refused-{name}.png"))

        # 5. The fourth challenge withdrawn meanwhile: the challenged player's waiting page
        # (the match page) says so in words, never "undefined".
        bob_page.goto(f"/matches/{fourth.pk}")
        expect(bob_page.get_by_role("button", name="Accept")).to_be_visible()
        play.match_cancel(match=fourth, player=alice)
        bob_page.get_by_role("button", name="Decline").click()
        flash = bob_page.locator("#match-flash")
        expect(flash).to_have_text("this challenge was withdrawn")
    finally:
        for context in contexts:
            context.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"
