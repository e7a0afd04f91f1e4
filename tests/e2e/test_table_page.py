"""The table as a player sees it, at 1280 px and on a phone (390x844): everything to play
inside the first screen, the final totals once a game ends, a per-turn limit that runs out,
what to do after the match; recent-match rows; and no failed request on any page."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game, Match
from ladders import services as ladder_services
from tests.e2e.helpers import browsing, open_event, play_one_turn, ply, wait_for_my_turn, wait_past
from tests.factories import BotFactory, PlayerFactory
from tests.play import active_game, play_out

DASH = "\u2013"  # scores read 3-1 with an en dash


@pytest.fixture
def greta(transactional_db):
    """A greedy bot: it knocks as soon as it may, so deals end quickly."""
    return BotFactory(name="Greta (greedy)", bot_strategy="greedy")


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(transactional_db):
    return PlayerFactory(user__username="bob", name="Bob")


#: Reads every element's box for each CSS selector given, in one task of the page.
BOXES = """(selectors) => Object.fromEntries(Object.entries(selectors).map(([name, css]) =>
  [name, [...document.querySelectorAll(css)].map((n) => {
    const r = n.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  })]))"""


def boxes(page, **selectors: str) -> dict[str, list[dict]]:
    """The boxes of the elements each selector finds, all read in one go in the page.

    A view pushed meanwhile re-draws the table: boxes read one call at a time (or a locator's
    elements found in one call and measured in the next) can look at cards the page has
    already replaced, which measure 0 x 0. One synchronous read sees one drawing."""
    return page.evaluate(BOXES, selectors)


def assert_inside_the_first_screen(page, found: list[dict], what: str) -> None:
    """Every box lies inside the viewport."""
    viewport = page.viewport_size
    assert found, f"no {what} shown"
    for b in found:
        assert b["width"] > 0 and b["height"] > 0, (what, "is not shown", b)
        assert b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"] + 0.5, (what, b)
        assert b["y"] >= 0 and b["y"] + b["height"] <= viewport["height"] + 0.5, (what, b)


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_whole_table_fits_the_first_screen_with_the_opponent_on_top(
    browser, live, alice, greta, screenshots, size
):
    match = services.challenge_create(
        challenger=alice,
        opponent=greta,
        target=100,
        time_control=services.TimeControl(base_seconds=300, increment_seconds=2),
    )
    game = active_game(match)
    with browsing(browser, live, alice.user, size) as page:
        page.goto(f"/games/{game.pk}")
        # Play on to a draw from the stock: the new card is marked, eleven cards are held.
        for _ in range(30):
            wait_for_my_turn(page)
            stock = page.locator('#actions button[data-action="draw_stock"]')
            if stock.count():
                break
            play_one_turn(page)
        else:
            pytest.fail("no draw from the stock in 30 turns")
        before_draw = boxes(page, buttons="#actions .button", hand="#seat-bottom .hand .card")
        assert_inside_the_first_screen(page, before_draw["buttons"], "draw buttons")
        assert_inside_the_first_screen(page, before_draw["hand"], "hand")
        before = ply(page)
        stock.click()
        wait_past(page, before)
        expect(page.locator("#seat-bottom .hand .card")).to_have_count(11)
        expect(page.locator("#seat-bottom .card.new")).to_have_count(1)

        seen = boxes(
            page,
            hand="#seat-bottom .hand .card",
            moves="#actions > *",
            opponent="#seat-top .seat-name",
            pile="#centre .pile",
            top="#seat-top",
            piles="#centre .piles",
            mine="#seat-bottom .hand",
            new="#seat-bottom .card.new",
            badge="#seat-bottom .card.new .badge",
            others="#seat-bottom .card:not(.new)",
        )
        assert len(seen["hand"]) == 11
        assert_inside_the_first_screen(page, seen["hand"], "the hand of eleven")
        assert_inside_the_first_screen(page, seen["moves"], "the moves")
        assert_inside_the_first_screen(page, seen["opponent"], "opponent")
        assert_inside_the_first_screen(page, seen["pile"], "discard pile")
        top, piles, mine = seen["top"][0], seen["piles"][0], seen["mine"][0]
        assert top["y"] < piles["y"] < mine["y"], "opponent, piles, your hand: top to bottom"
        for card in seen["hand"]:
            assert card["width"] >= 34 and card["height"] >= 48, f"too small to tap: {card}"

        # The NEW badge stays on its card and covers no other card.
        (badge,), (own,) = seen["badge"], seen["new"]
        assert own["x"] <= badge["x"] and badge["x"] + badge["width"] <= own["x"] + own["width"]
        assert own["y"] <= badge["y"] and badge["y"] + badge["height"] <= own["y"] + own["height"]
        for other in seen["others"]:
            assert not overlap(badge, other), "the NEW badge covers another card"

        hint = page.locator("#actions .hint")
        table_text = page.locator("#table").inner_text()
        if size == "phone":
            expect(hint).to_have_text("Tap a card to discard it.")
            assert "Click" not in table_text
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390, f"the page scrolls sideways ({width}px)"
        else:
            expect(hint).to_contain_text("Click a card")
        page.screenshot(path=str(screenshots / f"table-first-screen-{size}.png"))


def finished_match(alice, bob) -> Match:
    """Bob challenged Alice and they played one game to its end (through the services)."""
    match = services.match_create(player_a=bob, player_b=alice, best_of=1, target=50)
    return play_out(match, {0: bob, 1: alice}, random.Random(4))


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_finished_game_shows_the_final_totals_and_offers_a_rematch(
    browser, live, alice, bob, screenshots, size
):
    match = finished_match(alice, bob)
    game = Game.objects.get(match=match)
    (result,) = game.results
    with browsing(browser, live, alice.user, size) as page:
        page.goto(f"/games/{game.pk}")
        expect(page.locator("#result")).to_be_visible()
        scores = page.request.get(f"/api/games/{game.pk}").json()["scores"]
        assert scores["hand_points"] == result["hand_points"]
        assert scores["hands_won"] == result["hands_won"]
        for seat, index in (("#seat-bottom", 1), ("#seat-top", 0)):
            hands = scores["hands_won"][index]
            # Toward the target: the hand points before a shutout doubled them.
            points = scores["hand_points"][index]
            if result["shutout"] and result["winner"] == index:
                points //= 2
            expect(page.locator(f"{seat} .score")).to_contain_text(
                f"{points} / 50 points · {hands} hand{'' if hands == 1 else 's'} won"
            )
        # The score sheet: Alice's column first, each number beside what it is for.
        sheet = page.locator("#result .score-sheet")
        expect(sheet.locator("thead th")).to_have_text(["You", "Bob"])
        total = sheet.locator("tr.total td")
        expect(total).to_have_text([str(result["final"][1]), str(result["final"][0])])
        box = sheet.locator("tr", has_text="Box bonus").locator("td")
        for cell, index in zip((0, 1), (1, 0), strict=True):
            won = result["hands_won"][index]
            text = f"{won} \u00d7 25 = {result['line_bonus'][index]}" if won else "0"
            expect(box.nth(cell)).to_have_text(text)
        verb = "win" if result["winner"] == 1 else "lose"
        expect(page.locator("#result .winner")).to_have_text(
            f"You {verb} the game {result['final'][1]} to {result['final'][0]}."
        )
        reveal = page.locator("#reveal")
        if reveal.locator(".spreads").count():
            expect(reveal.locator(".spreads dt").last).to_have_text(re.compile(r", defender$"))
            assert "(defender)" not in reveal.inner_text()
        assert not re.search(r": (You|\w+) scores? ", reveal.inner_text())

        expect(page.locator("#resign")).to_have_count(0)
        expect(page.locator("#back-to-event")).to_have_count(0)
        page.screenshot(path=str(screenshots / f"table-finished-{size}.png"), full_page=True)
        page.locator("#rematch").click()
        expect(page.locator("#flash")).to_contain_text("Rematch offered")
    rematch = Match.objects.exclude(pk=match.pk).get()
    assert (rematch.player_a, rematch.player_b) == (alice, bob), "seats swapped"
    assert rematch.status == Match.Status.CHALLENGED
    assert (rematch.best_of, rematch.target, rematch.rules) == (1, 50, match.rules)


def test_recent_matches_say_who_won_by_how_much(browser, live, alice, bob, screenshots):
    match = finished_match(alice, bob)
    won = match.winner == alice
    mine, theirs = (match.games_won_b, match.games_won_a)
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto("/lobby")
        row = page.locator(".matches li").first
        verb = "Won" if won else "Lost"
        expect(row.locator(".result")).to_have_text(f"{verb} {mine}{DASH}{theirs}")
        assert "majority" not in row.inner_text()
        page.goto(f"/matches/{match.pk}")
        # Alice's side first, as on every page ("You lost 0-1"), never the winner's.
        expect(page.locator(".match-result")).to_have_text(
            f"You {verb.lower()} {mine}{DASH}{theirs}."
        )
        page.screenshot(path=str(screenshots / "recent-matches-lobby.png"))


def test_a_per_turn_limit_that_runs_out_keeps_the_main_clock(
    browser, live, alice, bob, screenshots
):
    timed = services.TimeControl(base_seconds=600, increment_seconds=0, turn_limit_seconds=15)
    match = services.match_create(player_a=alice, player_b=bob, best_of=3, time_control=timed)
    game = active_game(match)
    loser = [alice, bob][game.to_act]
    services.clock_settle(match_id=match.pk, now=game.turn_began_at + timedelta(seconds=15))
    with browsing(browser, live, loser.user, "phone") as page:
        page.goto(f"/games/{game.pk}")
        expect(page.locator("#result .timeout")).to_have_text("⚑ You ran out of time for the turn.")
        clock = page.locator("#seat-bottom [data-clock]")
        expect(clock.locator(".time")).to_have_text("9:45")
        expect(clock).not_to_have_class(re.compile(r"\bflagged\b"))
        expect(page.locator("#result")).to_contain_text("Next game")
        page.screenshot(path=str(screenshots / "table-turn-limit.png"), full_page=True)


def test_a_tournament_table_leads_back_to_the_event(browser, live, alice, bob, screenshots):
    event = open_event("Spring Cup", [alice, bob])
    from tournaments import services as events

    events.event_start(event=event)
    match = Match.objects.get(source=Match.Source.TOURNAMENT)
    services.match_forfeit(match=match, loser=bob, reason="resigned", end_reason="resigned")
    game = Game.objects.get(match=match)
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto(f"/games/{game.pk}")
        back = page.locator("#back-to-event")
        expect(back).to_have_text("Back to the event")
        expect(page.locator("#rematch")).to_have_count(0)
        expect(page.locator("#resign")).to_have_count(0)
        page.screenshot(path=str(screenshots / "table-tournament-over.png"), full_page=True)
        back.click()
        page.wait_for_url(re.compile(rf"/events/{event.pk}$"))
        page.goto(f"/players/{alice.pk}")
        row = page.locator(".matches li").first
        expect(row).to_contain_text(f"Won 1{DASH}0")
        expect(row.get_by_role("link", name="Spring Cup")).to_be_visible()


def test_no_page_has_a_failed_request_and_each_has_the_icon(browser, live, alice, bob, greta):
    ladder_services.ladder_create(name="Open ladder")  # a ladder neither is rated in
    match = finished_match(alice, bob)
    game = Game.objects.get(match=match)
    pages = [
        "/",
        "/lobby",
        "/events",
        "/leaderboard",
        f"/players/{alice.pk}",
        f"/players/{greta.pk}",
        f"/matches/{match.pk}",
        f"/matches/{match.pk}/replay",
        f"/games/{game.pk}",
    ]
    with browsing(browser, live, alice.user, "desktop") as page:
        for path in pages:
            page.goto(path)
            page.wait_for_load_state("networkidle")
            icon = page.locator('link[rel="icon"]').get_attribute("href")
            assert page.request.get(icon).status == 200, path
        assert page.request.get("/favicon.ico").status == 200


def test_when_the_match_ends_at_the_table_resign_goes_and_a_rematch_starts(
    browser, live, alice, greta, screenshots
):
    match = services.challenge_create(challenger=alice, opponent=greta, best_of=3, target=100)
    game = active_game(match)
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto(f"/games/{game.pk}")
        expect(page.locator("#resign")).to_be_visible()
        wait_for_my_turn(page)
        services.match_forfeit(match=match, loser=alice, reason="resigned", end_reason="resigned")
        expect(page.locator("#result .match-result")).to_contain_text("You lose the match")
        expect(page.locator("#resign")).to_have_count(0)
        page.screenshot(path=str(screenshots / "table-match-over.png"), full_page=True)
        page.locator("#rematch").click()
        page.wait_for_url(re.compile(rf"/games/(?!{game.pk}$)\d+$"))  # another table
        rematch = Match.objects.exclude(pk=match.pk).get()
        assert page.url.endswith(f"/games/{active_game(rematch).pk}")
        assert (rematch.best_of, rematch.target, rematch.rules) == (3, 100, match.rules)
        expect(page.locator("#seat-bottom .hand .card")).to_have_count(10)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_organisers_decision_is_said_once_and_nobody_forfeited(
    browser, live, alice, bob, screenshots, size
):
    """An organiser decides a tournament match in play for Alice: Bob's table says so once,
    with the reason, says of no one that they forfeited or ran out of time, and doubles no
    hand points for a game in which nobody won a hand."""
    from tournaments import services as tournaments

    event = open_event("Cup decided", [alice, bob])
    tournaments.event_start(event=event)
    pairing = event.pairings.get(key="R1.1")
    tournaments.pairing_override(pairing=pairing, winner=alice, reason="Bob left in time")
    game = Game.objects.get(match=pairing.match)
    with browsing(browser, live, bob.user, size) as page:
        page.goto(f"/games/{game.pk}")
        result = page.locator("#result")
        expect(result.locator(".decided")).to_have_text(
            "Decided by an organiser: Bob left in time."
        )
        expect(result.locator(".winner")).to_have_text("You lose the game 0 to 100.")
        expect(result.locator(".match-result")).to_have_text(f"You lose the match 0{DASH}1.")
        text = result.inner_text()
        assert text.lower().count("decided by an organiser") == 1, text
        assert "forfeited" not in text and "ran out of time" not in text
        expect(result.locator(".score-sheet tr", has_text="Shutout")).to_have_count(0)
        expect(page.locator("[data-clock].flagged")).to_have_count(0)
        page.screenshot(
            path=str(screenshots / f"table-organiser-decided-{size}.png"), full_page=True
        )
        # The bracket says it in the printed bracket's word.
        page.goto(f"/events/{event.pk}")
        expect(page.locator('.pairing[data-key="R1.1"] .foot a')).to_have_text("decided")
        page.goto(f"/events/{event.pk}/print/bracket")
        expect(page.locator('.bracket-match[data-key="R1.1"] .foot')).to_have_text("R1.1 · decided")


def test_after_the_demo_a_newcomer_joins_its_ladder_and_plays_a_bot_at_once(
    browser, live, alice, screenshots
):
    from io import StringIO

    from django.core.management import call_command

    from ladders.models import Ladder

    call_command("demo", stdout=StringIO())
    ladder = Ladder.objects.get(slug="quick")
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto("/lobby")
        widget = page.locator(f'.ladder[data-ladder="{ladder.pk}"]')
        expect(widget).to_contain_text("Quick ladder")
        page.screenshot(path=str(screenshots / "lobby-demo-ladder.png"), full_page=True)
        widget.get_by_role("button", name="Join the queue").click()
        page.wait_for_url(re.compile(r"/games/\d+$"))
        opponent = page.locator("#seat-top .seat-name")
        expect(opponent).to_contain_text(re.compile(r"\((random|greedy|expert)\)"))
        expect(page.locator("[data-clock]")).to_have_count(2)
