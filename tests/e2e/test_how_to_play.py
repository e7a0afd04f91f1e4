"""The rules page in a browser, on a desktop and a 390 px phone: reached from the header, its
worked examples are the engine's own scores (worked out here again, from the same cards and
score-pad entries); and a refusal from the API shown in its own words, never "undefined"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import (
    OKLAHOMA,
    STANDARD,
    Action,
    Deal,
    EnteredHand,
    HandKind,
    card_index,
    parse_cards,
)
from games.engine.game import Game
from ladders import services as ladder_services
from tests.e2e.helpers import SIZES, header_link, sign_in
from tests.factories import BotFactory, PlayerFactory


@pytest.fixture(params=list(SIZES))
def sized(request, browser, live):
    """A page at the parametrised size; fails on a script error."""
    context = browser.new_context(base_url=live, **SIZES[request.param])
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield request.param, context, page
    context.close()
    assert not errors, errors


def played(knocker: str, defender: str, upcard: str, *actions: str):
    """A deal set up by hand: the knocker (seat 1, first to act) plays ``actions``."""
    deal = Deal.arranged(
        hands=(parse_cards(defender), parse_cards(knocker)), upcard=card_index(upcard)
    )
    for text in actions:
        deal.apply(Action.parse(text))
    return deal.outcome


def shown(page, name: str) -> str:
    return page.locator(f'[data-example="{name}"]').inner_text()


def test_the_rules_pages_worked_examples_are_the_engines_scores(sized, screenshots):
    size, _context, page = sized
    page.goto("/lobby" if size == "desktop" else "/")
    header_link(page, "How to play").click()
    expect(page).to_have_url(re.compile(r"/how-to-play$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Gin Rummy")

    hand = "AS 2S 3S 4H 5H 6H KD KC KS 9C"
    knock = played(hand, "7H 8H QC QH JD 3C 5C 5D 9D TS", "2D", "take_upcard", "knock 9C")
    undercut = played(hand, "7D 8D 9D QC QH QS 2C 3D AH 7H", "8C", "take_upcard", "knock 9C")
    gin = played(hand, "7D 8D 9D QC QH QS 3C 5C 2H TS", "7H", "take_upcard", "gin 9C")
    big_gin = played(
        "AS 2S 3S 4H 5H 6H KD KC KS 7H", "7D 8D 9D QC QH QS 3C 5C 2H TS", "8H", "take_upcard",
        "big_gin",
    )  # fmt: skip
    assert knock.termination.value == "knock" and undercut.termination.value == "undercut"
    expected = {
        "knock-knocker": knock.knocker_points,
        "knock-defender": knock.defender_points,
        "knock-points": knock.points,
        "undercut-knocker": undercut.knocker_points,
        "undercut-defender": undercut.defender_points,
        "undercut-points": undercut.points,
        "gin-defender": gin.defender_points,
        "gin-points": gin.points,
        "big-gin-points": big_gin.points,
        "undercut-bonus": STANDARD.undercut_bonus,
        "gin-bonus": STANDARD.gin_bonus,
        "big-gin-bonus": STANDARD.big_gin_bonus,
        "knock-limit": STANDARD.knock_limit,
        "target": STANDARD.target,
        "best-of": STANDARD.best_of,
        "games-to-win": STANDARD.games_to_win,
    }
    for name, hand_ in {
        "knock": EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 31)),
        "undercut": EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(8, 5)),
        "gin": EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 12)),
        "big_gin": EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 12)),
    }.items():
        expected[f"entered-{name}"] = hand_.score(STANDARD).points
    spade = EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(3, 20), upcard=card_index("4S"))
    expected["oklahoma-points"] = spade.score(OKLAHOMA).points
    expected["oklahoma-limit"] = OKLAHOMA.knock_limit_for(card_index("4S"))
    # The shutout: three hands entered into a game to 250, scored by the engine.
    game = Game.new(seed=1, first_dealer=1, rules=STANDARD)
    for entered in (
        EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 70)),
        EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 63)),
        EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(4, 70)),
    ):
        game.enter(entered)
    (shutout,) = game.results
    assert shutout.shutout
    expected["shutout-margin"] = shutout.margin
    for name, value in expected.items():
        assert shown(page, name) == str(value), name
    sheet = page.locator('table[data-game="shutout"]')
    expect(sheet.locator('tr[data-row="total"] td')).to_have_text(
        [str(shutout.final[0]), str(shutout.final[1])]
    )
    expect(sheet.locator('tr[data-row="shutout"] td').first).to_have_text(
        f"+{shutout.hand_points[0] // 2}"
    )
    expect(sheet.locator('tr[data-row="box-bonus"] td').first).to_have_text(
        f"{shutout.hands_won[0]} \u00d7 {STANDARD.line_bonus} = {shutout.line_bonus[0]}"
    )

    page.locator("#faq-pause summary").click()
    expect(page.locator("#faq-pause")).to_contain_text("no clock runs")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["viewport"]["width"], f"the page scrolls sideways ({width}px)"
    page.screenshot(path=str(screenshots / f"how-to-play-{size}.png"), full_page=True)


def test_a_refused_ladder_join_shows_the_servers_reason(sized, live):
    size, context, page = sized
    alice = PlayerFactory(user__username="alice", name="Alice")
    greta = BotFactory(name="Greta (greedy)", bot_strategy="greedy")
    ladder = ladder_services.ladder_create(name="Quick ladder", best_of=1, target=100)
    services.challenge_create(challenger=alice, opponent=greta)  # a match in progress
    sign_in(context, live, alice.user)

    page.goto("/lobby")
    widget = page.locator(f'.ladder[data-ladder="{ladder.pk}"]')
    joining = re.compile(rf"/api/ladders/{ladder.pk}/queue$")
    with page.expect_response(
        lambda r: r.request.method == "POST" and joining.search(r.url)
    ) as answer:
        widget.get_by_role("button", name="Join the queue").click()
    refusal = answer.value
    assert refusal.status == 409 and refusal.json()["code"] == "match_in_progress"
    flash = page.locator("#lobby-flash")
    expect(flash).to_contain_text(f"Could not join the queue: {refusal.json()['detail']}")
    assert "undefined" not in flash.inner_text()
    assert size in SIZES
