"""Preferences and comfort in a browser, on a desktop and a 390 px phone: the colours follow
the device's setting unless the player chose, the header is one line on a phone (a Menu
button), "confirm before discarding" asks for a second tap, the sounds are played only with
sounds on, every card shown has a name for screen readers, and a replay's move list follows
the current move."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from accounts.models import Player
from games import services
from games.engine.actions import Action
from games.models import Game
from games.selectors import game_view
from tests.e2e.helpers import (
    browsing,
    click_and_wait,
    play_one_turn,
    ply,
    sign_in,
    wait_for_my_turn,
)
from tests.factories import BotFactory, PlayerFactory
from tests.play import active_game, play_out

LIGHT_BG = "rgb(244, 241, 234)"  # --bg of the light theme
DARK_BG = "rgb(19, 22, 20)"  # --bg of the dark theme

#: Counts the tones the page makes (each sound is one or more oscillators) and the audio
#: contexts it opens, before any script of the page runs.
COUNT_SOUNDS = """
window.__tones = 0; window.__contexts = 0; window.__sounds = [];
const Original = window.AudioContext;
window.AudioContext = class extends Original {
  constructor(...args) { super(...args); window.__contexts += 1; }
  createOscillator() { window.__tones += 1; return super.createOscillator(); }
};
document.addEventListener("table-sound", (event) => window.__sounds.push(event.detail));
"""


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(transactional_db):
    return PlayerFactory(user__username="bob", name="Bob")


@pytest.fixture
def greta(transactional_db):
    return BotFactory(name="Greta (greedy)", bot_strategy="greedy")


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def no_sideways_scroll(page) -> None:
    assert page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    ), "the page scrolls sideways"


# --- colours ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_dark_theme_is_chosen_by_the_system_setting(browser, live, alice, screenshots, size):
    with browsing(browser, live, None, size, color_scheme="dark") as page:
        page.goto("/")
        assert background(page) == DARK_BG
        panel = page.evaluate(
            "getComputedStyle(document.querySelector('header.site')).color"
        )  # the header's ink stays light on its green
        assert panel == "rgb(245, 245, 239)"
        page.screenshot(path=str(screenshots / f"theme-dark-system-{size}.png"), full_page=True)
    with browsing(browser, live, None, size, color_scheme="light") as page:
        page.goto("/")
        assert background(page) == LIGHT_BG
    with browsing(browser, live, alice.user, size, color_scheme="dark") as page:
        page.goto("/account")
        assert background(page) == DARK_BG
        no_sideways_scroll(page)


def test_a_theme_chosen_on_the_account_page_wins_over_the_system_setting(
    browser, live, alice, screenshots
):
    with browsing(browser, live, alice.user, color_scheme="dark") as page:
        page.goto("/account")
        page.get_by_label("Light").check()
        page.get_by_role("button", name="Save the preferences").click()
        expect(page.locator(".messages")).to_contain_text("Your preferences are saved.")
        assert page.locator("html").get_attribute("data-theme") == "light"
        assert background(page) == LIGHT_BG
        page.goto("/lobby")
        assert background(page) == LIGHT_BG
    alice.refresh_from_db()
    assert alice.theme == "light"
    Player.objects.filter(pk=alice.pk).update(theme="dark")
    with browsing(browser, live, alice.user, color_scheme="light") as page:
        page.goto("/")
        assert background(page) == DARK_BG
        page.screenshot(path=str(screenshots / "theme-dark-chosen.png"))


# --- the header --------------------------------------------------------------------------------


def test_the_header_fits_a_phone_in_one_line_with_a_menu(browser, live, alice, screenshots):
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto("/lobby")
        header = page.locator("header.site").bounding_box()
        brand = page.locator("header.site .brand").bounding_box()
        menu = page.get_by_role("button", name="Menu")
        expect(menu).to_be_visible()
        button = menu.bounding_box()
        assert header["height"] < 64, header  # one line, not three
        assert abs((brand["y"] + brand["height"] / 2) - (button["y"] + button["height"] / 2)) < 6
        assert button["x"] + button["width"] <= 390
        expect(page.locator("header.site").get_by_role("link", name="Leaderboard")).to_be_hidden()
        no_sideways_scroll(page)
        page.screenshot(path=str(screenshots / "header-phone.png"))

        menu.click()
        nav = page.get_by_role("navigation", name="Main")
        for name in ("Lobby", "Events", "Leaderboard", "How to play", "Alice", "Account"):
            expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
        expect(nav.get_by_role("button", name="Sign out")).to_be_visible()
        page.screenshot(path=str(screenshots / "header-phone-menu.png"))
        no_sideways_scroll(page)
        page.keyboard.press("Escape")
        expect(page.locator("header.site").get_by_role("link", name="Leaderboard")).to_be_hidden()
        menu.click()
        nav.get_by_role("link", name="Account", exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Your account")


def test_the_header_shows_every_link_on_a_desktop(browser, live, alice):
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto("/lobby")
        expect(page.get_by_role("button", name="Menu")).to_be_hidden()
        nav = page.get_by_role("navigation", name="Main")
        for name in ("Lobby", "Events", "Leaderboard", "How to play", "Account"):
            expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
        assert page.locator("header.site").bounding_box()["height"] < 64


# --- the table: confirm before discarding, sounds, card names ---------------------------------


def game_against(alice, greta) -> Game:
    match = services.match_create(player_a=alice, player_b=greta, best_of=1, target=100)
    return active_game(match)


def to_my_discard(page) -> None:
    """Play on until the player holds eleven cards and must discard."""
    for _ in range(60):
        wait_for_my_turn(page)
        if (
            page.locator("#table").get_attribute("data-phase") == "discard"
            and page.locator("#seat-bottom .card.playable").count()
        ):
            return
        play_one_turn(page)
    raise AssertionError("never came to discard")


def test_confirm_before_discarding_asks_for_a_second_tap(browser, live, alice, greta, screenshots):
    Player.objects.filter(pk=alice.pk).update(confirm_discard=True)
    game = game_against(alice, greta)
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto(f"/games/{game.pk}")
        to_my_discard(page)
        before = ply(page)
        card = page.locator("#seat-bottom .card.playable").first
        code = card.get_attribute("data-card")
        chosen = page.locator(f'#seat-bottom .card[data-card="{code}"]')
        card.click()
        expect(chosen).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#actions .hint")).to_contain_text("Tap it again to discard it")
        page.wait_for_timeout(600)
        assert ply(page) == before, "one tap discarded"
        page.screenshot(path=str(screenshots / "confirm-discard-phone.png"))
        click_and_wait(page, chosen)
        expect(page.locator(f'#seat-bottom .card[data-card="{code}"]')).to_have_count(0)

    # Enter chooses, Esc puts it back, Enter twice discards (in the dark, for its picture).
    with browsing(browser, live, alice.user, "desktop", color_scheme="dark") as page:
        page.goto(f"/games/{game.pk}")
        to_my_discard(page)
        page.screenshot(path=str(screenshots / "table-dark-desktop.png"))
        before = ply(page)
        card = page.locator("#seat-bottom .card.playable").first
        code = card.get_attribute("data-card")
        card.focus()
        page.keyboard.press("Enter")
        chosen = page.locator(f'#seat-bottom .card[data-card="{code}"]')
        expect(chosen).to_have_attribute("aria-pressed", "true")
        page.keyboard.press("Escape")
        expect(chosen).to_have_attribute("aria-pressed", "false")
        chosen.focus()
        page.keyboard.press("Enter")
        expect(chosen).to_have_attribute("aria-pressed", "true")
        assert ply(page) == before
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => Number(document.getElementById('table').dataset.ply) > {before}"
        )


def test_without_the_confirmation_one_tap_discards(browser, live, alice, greta):
    game = game_against(alice, greta)
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto(f"/games/{game.pk}")
        to_my_discard(page)
        card = page.locator("#seat-bottom .card.playable").first
        code = card.get_attribute("data-card")
        expect(card).not_to_have_attribute("aria-pressed", "true")
        click_and_wait(page, card)
        expect(page.locator(f'#seat-bottom .card[data-card="{code}"]')).to_have_count(0)


@pytest.mark.parametrize("on", [True, False], ids=["sounds-on", "sounds-off"])
def test_the_sound_preference_is_honoured(browser, live, alice, greta, on):
    Player.objects.filter(pk=alice.pk).update(sounds=on)
    game = game_against(alice, greta)
    with browsing(browser, live, alice.user, "desktop") as page:
        page.add_init_script(COUNT_SOUNDS)
        page.goto(f"/games/{game.pk}")
        wait_for_my_turn(page)
        assert page.evaluate("window.__tones") == 0, "a sound before any gesture"
        for _ in range(6):  # the player's moves, the bot's replies, their turn again
            wait_for_my_turn(page)
            play_one_turn(page)
        wait_for_my_turn(page)
        sounds = page.evaluate("window.__sounds")
        tones = page.evaluate("window.__tones")
        contexts = page.evaluate("window.__contexts")
    if on:
        assert "turn" in sounds and "move" in sounds, sounds
        assert tones >= len(sounds) and contexts == 1
    else:
        assert (sounds, tones, contexts) == ([], 0, 0)


def test_a_card_known_to_be_held_has_its_name_for_screen_readers(browser, live, alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, best_of=1, target=100)
    game = active_game(match)
    taken = None
    for _ in range(4):  # Alice passes; Bob takes the upcard and throws another card
        game.refresh_from_db()
        if game.to_act == 0 and taken:
            break
        player = [alice, bob][game.to_act]
        data = game_view(game=game, viewer=player)
        types = {a["type"]: a for a in data["legal_actions"]}
        if player == bob and "take_upcard" in types:
            taken = data["deal"]["discard_pile"][-1]
            action = types["take_upcard"]
        elif player == bob:
            action = next(a for a in data["legal_actions"] if a["type"] == "discard")
        else:
            action = types.get("pass") or types["draw_stock"]
        services.action_submit(
            game_id=game.pk, player=player, ply=game.ply, action=Action.from_json(action)
        )
    assert taken, "Bob never took the upcard"
    rank = {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}.get(taken[0], taken[0])
    suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[taken[1]]
    with browsing(browser, live, alice.user, "phone") as page:
        page.goto(f"/games/{game.pk}")
        known = page.locator("#seat-top .known")
        expect(known.get_by_role("img", name=f"{rank} of {suit}")).to_be_visible()
        expect(page.locator("#seat-top .backs")).to_have_attribute("role", "img")
        hand = page.locator("#seat-bottom .hand").get_by_role("button")
        assert hand.count() >= 10
        for i in range(hand.count()):
            assert " of " in (hand.nth(i).get_attribute("aria-label") or "")


# --- wide screens, the replay ------------------------------------------------------------------


def test_cards_are_larger_on_a_wide_screen(browser, live, alice, greta):
    game = game_against(alice, greta)
    heights = {}
    for size, viewport in (
        ("wide", {"width": 1280, "height": 800}),
        ("narrow", {"width": 900, "height": 800}),
    ):
        context = browser.new_context(base_url=live, viewport=viewport)
        try:
            sign_in(context, live, alice.user)
            page = context.new_page()
            page.goto(f"/games/{game.pk}")
            expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()
            # Measured in one read: a pushed view may redraw the hand between two.
            heights[size] = page.evaluate(
                "document.querySelector('#seat-bottom .hand .card').getBoundingClientRect().height"
            )
        finally:
            context.close()
    assert heights["wide"] >= heights["narrow"] * 1.2, heights


def test_the_replays_move_list_follows_the_current_move(browser, live, alice, bob, screenshots):
    match = services.match_create(player_a=alice, player_b=bob, best_of=1, target=50)
    play_out(match, {0: alice, 1: bob}, random.Random(4))
    with browsing(browser, live, alice.user, "desktop") as page:
        moves = page.locator("#move-list .move")
        for deal in range(8):  # the first deal long enough to scroll the list
            page.goto(f"/matches/{match.pk}/replay?game=0&deal={deal}")
            expect(moves.first).to_be_visible()
            if page.evaluate(
                "(l) => l.scrollHeight > l.clientHeight + 100",
                page.locator("#move-list").element_handle(),
            ):
                break
        else:
            raise AssertionError("no deal long enough to scroll the list")
        page.get_by_role("button", name="End ▶|").click()
        current = page.locator("#move-list .move.current")
        expect(current).to_have_count(1)
        inside = """() => {
          const list = document.getElementById('move-list').getBoundingClientRect();
          const item = document.querySelector('#move-list .move.current').getBoundingClientRect();
          return item.top >= list.top - 1 && item.bottom <= list.bottom + 1;
        }"""
        assert page.evaluate(inside), "the last move is out of the list's sight"
        page.get_by_role("button", name="|◀ Start").click()
        page.keyboard.press("ArrowRight")
        for _ in range(15):
            page.keyboard.press("ArrowRight")
            assert page.evaluate(inside), "the current move is out of the list's sight"
        page.screenshot(path=str(screenshots / "replay-move-list.png"))
