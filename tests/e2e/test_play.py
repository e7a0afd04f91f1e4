"""Stories at the table, in a real browser: sign up, challenge a bot, play a deal to its score;
bad input (an illegal card, a stale button, a double click, an expired session); keyboard play
on a phone-sized screen."""

from __future__ import annotations

import contextlib
import math
import re
import time

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from accounts.models import Player
from games import services
from games.engine.actions import Action
from games.models import Game, Match
from tests.e2e.helpers import (
    SocketLog,
    play_one_turn,
    ply,
    sign_in,
    wait_for_my_turn,
    wait_past,
)
from tests.factories import PASSWORD, BotFactory, PlayerFactory


@pytest.fixture
def greta(transactional_db):
    """A greedy bot: it knocks as soon as it may, so deals end quickly."""
    return BotFactory(name="Greta (greedy)", bot_strategy="greedy")


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


def start_match(challenger: Player, bot: Player, **kwargs) -> Game:
    match = services.challenge_create(challenger=challenger, opponent=bot, **kwargs)
    return Game.objects.get(match=match, status=Game.Status.ACTIVE)


def test_a_new_player_signs_up_plays_a_bot_through_a_deal_and_sees_the_score(
    page, greta, screenshots
):
    page.goto("/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Display name").fill("Newcomer")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create my account").click()

    expect(page).to_have_url(re.compile(r"/lobby$"))
    expect(page.get_by_text("Welcome, Newcomer!")).to_be_visible()
    page.screenshot(path=str(screenshots / "lobby.png"), full_page=True)
    page.locator("#custom-game summary").click()  # the full form, behind "Custom game"
    page.get_by_label("Opponent").select_option(label="Greta (greedy)")
    page.get_by_label("5 min + 5 s").check()
    page.get_by_label("Game to").select_option("100")
    page.get_by_role("button", name="Play").click()

    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#seat-bottom .hand .card")).to_have_count(10)
    expect(page.locator('[data-clock="0"] .time')).to_have_text(re.compile(r"^[45]:\d\d$"))
    page.screenshot(path=str(screenshots / "table.png"), full_page=True)

    for _ in range(60):  # a deal is over long before 60 turns of ours
        if page.locator("#reveal").is_visible():
            break
        wait_for_my_turn(page)
        if page.locator("#reveal").is_visible():
            break
        play_one_turn(page)
    reveal = page.locator("#reveal")
    expect(reveal).to_be_visible()
    expect(reveal.get_by_role("heading", name="Deal 1 result")).to_be_visible()
    outcome = reveal.locator(".outcome")
    expect(outcome).to_have_text(re.compile(r"knocked|gin|undercut|draw"))

    game = Game.objects.get(match__player_a__name="Newcomer")
    scores = page.locator(".seat .score")
    expect(scores.first).to_contain_text(f"{[game.score_a, game.score_b][1]} / 100 points")
    expect(scores.last).to_contain_text(f"{game.score_a} / 100 points")
    page.screenshot(path=str(screenshots / "table-deal-scored.png"), full_page=True)
    if game.status != Game.Status.ACTIVE:
        return  # the deal ended the game (100 points): no next deal to wait for

    # The pause between deals: no clock runs while the result is read; Continue deals on.
    expect(page.locator("#status")).to_contain_text("no clock runs meanwhile")
    expect(page.locator("#pause-left")).to_have_text(re.compile(r"Next deal in 1?\d s"))
    clocks = page.locator("[data-clock] .time")
    shown = clocks.all_inner_texts()
    page.wait_for_timeout(1500)
    assert clocks.all_inner_texts() == shown, "a clock ran during the pause"
    assert not page.locator("[data-clock].running").count()
    page.get_by_role("button", name=re.compile("Continue to the next deal")).click()
    expect(page.locator("#continue")).to_have_count(0)
    expect(page.locator("#seat-bottom .hand .card")).to_have_count(10)
    expect(page.locator("[data-clock].running")).to_have_count(1)
    game.refresh_from_db()
    assert not game.paused


def test_an_illegal_card_explains_the_rule_and_refreshes_the_table(
    page, context, live, alice, greta
):
    game = start_match(alice, greta)
    sign_in(context, live, alice.user)
    frames = SocketLog(page)
    page.goto(f"/games/{game.pk}")
    expect(page.locator("#table")).to_have_attribute("data-live", "socket")
    wait_for_my_turn(page)
    if page.locator("#table").get_attribute("data-phase") == "discard":
        play_one_turn(page)  # discard, so that the next click comes at the draw
        wait_for_my_turn(page)
    posts = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    moves, syncs = len(frames.sent_of("move")), len(frames.sent_of("sync"))

    page.locator("#seat-bottom .hand .card").first.click()

    flash = page.locator("#flash")
    expect(flash).to_be_visible()
    expect(flash).to_have_text(re.compile(r"Draw first|take the upcard or pass"))
    # One move went out on the socket; the refusal made the table ask for the view afresh.
    assert len(frames.sent_of("move")) == moves + 1 and not posts
    for _ in range(300):  # the table asks 50 ms after the refusal; a busy machine, later
        if len(frames.sent_of("sync")) > syncs:
            break
        page.wait_for_timeout(50)
    page.wait_for_timeout(300)
    assert len(frames.sent_of("sync")) == syncs + 1
    assert ply(page) == Game.objects.get(pk=game.pk).ply


def test_a_stale_button_says_the_table_changed_and_shows_the_new_table(
    page, context, live, alice, greta
):
    game = start_match(alice, greta)
    sign_in(context, live, alice.user)
    # Another tab of Alice's moves; this tab does not hear of it: its socket drops the pushes
    # until the tab moves again.
    deaf = {"on": False}

    def relay(socket) -> None:
        server = socket.connect_to_server()
        server.on_message(
            lambda m: None if deaf["on"] and '"type":"view"' in str(m) else socket.send(m)
        )

        def outgoing(m) -> None:
            if '"type":"move"' in str(m):
                deaf["on"] = False
            server.send(m)

        socket.on_message(outgoing)

    page.route_web_socket(re.compile(r"/ws/games/\d+$"), relay)
    page.goto(f"/games/{game.pk}")
    # Live before going deaf: a table still polling would see the other tab's move.
    expect(page.locator("#table")).to_have_attribute("data-live", "socket")
    wait_for_my_turn(page)
    deaf["on"] = True
    game.refresh_from_db()
    view_button = page.locator("#actions button").first
    action = view_button.get_attribute("data-action")
    services.action_submit(
        game_id=game.pk,
        player=alice,
        ply=game.ply,
        action=Action.parse("pass" if action in ("pass", "take_upcard") else "draw_stock"),
    )
    game.refresh_from_db()
    assert ply(page) < game.ply

    view_button.click()

    expect(page.locator("#flash")).to_have_text(re.compile(r"did not count: the table had already"))
    wait_past(page, game.ply - 1)  # the table shows the other tab's move


def test_a_double_click_on_a_card_sends_one_move(page, context, live, alice, greta):
    game = start_match(alice, greta)
    sign_in(context, live, alice.user)
    frames = SocketLog(page)
    page.goto(f"/games/{game.pk}")
    wait_for_my_turn(page)
    while page.locator("#table").get_attribute("data-phase") != "discard":
        play_one_turn(page)
        wait_for_my_turn(page)
    posts = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    moves = len(frames.sent_of("move"))

    page.locator("#seat-bottom .card.playable").first.dblclick()

    page.wait_for_function("() => !document.getElementById('table').classList.contains('busy')")
    page.wait_for_timeout(300)
    assert len(posts) + len(frames.sent_of("move")) - moves == 1, (posts, frames.sent)
    expect(page.locator("#flash")).to_be_hidden()


def test_an_expired_session_goes_to_sign_in_and_back_to_the_table(
    page, context, live, alice, greta
):
    game = start_match(alice, greta)
    sign_in(context, live, alice.user)
    page.goto(f"/games/{game.pk}")
    wait_for_my_turn(page)

    # The session ends on the server (expired or signed out elsewhere) and in the browser.
    Session.objects.all().delete()
    context.clear_cookies(name="sessionid")
    # The table may find the session gone on its own (its socket refused) and leave first.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.locator("#actions button").first.click(timeout=5_000)

    expect(page).to_have_url(re.compile(r"/login\?next=%2Fgames%2F\d+"))
    expect(page.get_by_text("Your session has expired")).to_be_visible()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(rf"/games/{game.pk}$"))
    expect(page.locator("#seat-bottom .hand .card").first).to_be_visible()


def test_keyboard_play_on_a_phone_sized_screen(browser, live, alice, greta, screenshots):
    game = start_match(alice, greta)
    context = browser.new_context(
        base_url=live, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        sign_in(context, live, alice.user)
        page = context.new_page()
        page.goto(f"/games/{game.pk}")
        wait_for_my_turn(page)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"

        while page.locator("#table").get_attribute("data-phase") not in ("draw", "first_draw"):
            key = "p" if page.locator('#actions [data-action="pass"]').count() else None
            if key is None:
                play_one_turn(page)
            else:
                before = ply(page)
                page.keyboard.press(key)
                wait_past(page, before)
            wait_for_my_turn(page)
        before = ply(page)
        page.keyboard.press("s")  # draw from the stock
        wait_past(page, before)
        expect(page.locator("#seat-bottom .hand .card")).to_have_count(11)
        page.locator("#seat-bottom .hand .card.playable").first.focus()
        page.keyboard.press("ArrowRight")
        focused = page.evaluate("() => document.activeElement.dataset.card")
        page.keyboard.press("Enter")  # discard the focused card
        wait_past(page, before + 1)
        assert focused not in [
            c.get_attribute("data-card") for c in page.locator("#seat-bottom .card").all()
        ]
        page.screenshot(path=str(screenshots / "table-phone.png"), full_page=True)
    finally:
        context.close()


def test_a_clock_counts_down_and_the_timeout_is_shown(
    page, context, live, alice, greta, screenshots
):
    # Ten seconds: time for a busy machine to sign in and open the table before it runs out.
    game = start_match(alice, greta, best_of=1, time_control=services.TimeControl(base_seconds=10))
    sign_in(context, live, alice.user)
    page.goto(f"/games/{game.pk}")
    clock = page.locator('[data-clock="0"]')
    expect(clock).to_have_class(re.compile(r"\brunning\b"))

    def shown_ms() -> int:
        text = clock.locator(".time").inner_text()
        minutes, seconds = text.split(":")
        return int((int(minutes) * 60 + float(seconds)) * 1000)

    started = time.monotonic()
    first = shown_ms()
    page.wait_for_timeout(1200)
    second = shown_ms()
    # It runs: down by the 1.2 s waited, give or take a tick, and by no more than the time
    # that passed between the readings (longer on a busy machine), plus a second.
    passed_ms = (time.monotonic() - started) * 1000
    assert 700 <= first - second <= passed_ms + 1000, (first, second, passed_ms)

    timeout = page.locator("#result .timeout")
    expect(timeout).to_have_text(re.compile(r"You ran out of time"))
    expect(clock).to_have_class(re.compile(r"\bflagged\b"))
    expect(clock).to_contain_text("out of time")
    expect(page.locator("#result .match-result")).to_contain_text("You lose the match")
    page.screenshot(path=str(screenshots / "table-timeout.png"), full_page=True)
    match = Match.objects.get(pk=game.match_id)
    assert match.end_reason == Match.EndReason.TIMEOUT


def test_a_per_turn_limit_chosen_in_the_lobby_counts_down_beside_the_clock(
    page, context, live, alice, greta
):
    sign_in(context, live, alice.user)
    page.goto("/lobby")
    page.locator("#custom-game summary").click()
    page.get_by_label("Opponent").select_option(label="Greta (greedy)")
    page.get_by_label("5 min + 5 s").check()
    page.get_by_label("Per-turn limit (timed games)").select_option("30")
    page.get_by_role("button", name="Play").click()
    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#subtitle")).to_contain_text("5 min + 5 s, 30 s a turn")
    wait_for_my_turn(page)
    turn = page.locator('[data-clock="0"] .turn')
    expect(turn).to_have_text(re.compile(r"\(this turn 0:[0-3]\d\)"))

    def shown_seconds() -> int:
        return int(re.search(r"0:(\d\d)", turn.inner_text()).group(1))

    started = time.monotonic()
    first = shown_seconds()
    page.wait_for_timeout(2100)
    later = shown_seconds()
    # It counts down a second a second: at least one tick in 2.1 s, and no more than the
    # seconds that passed between the readings (more than 2.1 on a busy machine), plus one.
    assert 1 <= first - later <= math.ceil(time.monotonic() - started) + 1, (first, later)
    expect(page.locator('[data-clock="0"] .time')).to_have_text(re.compile(r"^[45]:\d\d$"))
    expect(page.locator('[data-clock="1"] .turn')).to_have_text("")  # the bot's clock is stopped
    assert Match.objects.get(player_a=alice).turn_limit_seconds == 30


def test_two_people_a_challenge_from_the_lobby_accepted_each_sees_the_others_move_pushed(
    browser, live, alice, greta
):
    bob = PlayerFactory(user__username="bob", name="Bob")
    contexts = [browser.new_context(base_url=live) for _ in range(2)]
    try:
        pages = {}
        for context, player in zip(contexts, (alice, bob), strict=True):
            sign_in(context, live, player.user)
            pages[player.pk] = context.new_page()
        alice_page, bob_page = pages[alice.pk], pages[bob.pk]

        # Bob challenges Alice from his lobby (people are listed beside the bots) and waits.
        bob_page.goto("/lobby")
        bob_page.locator("#custom-game summary").click()
        bob_page.get_by_label("Opponent").select_option(label="Alice")
        bob_page.get_by_label("5 min + 5 s").check()
        bob_page.get_by_role("button", name="Play").click()
        expect(bob_page).to_have_url(re.compile(r"/matches/\d+$"))
        expect(bob_page.locator("#awaiting")).to_contain_text("Waiting for Alice to accept")
        match = Match.objects.get(player_a=bob, player_b=alice)
        assert match.status == Match.Status.CHALLENGED and match.base_seconds == 300

        alice_page.goto("/lobby")
        invitation = alice_page.locator(f'li[data-match="{match.pk}"]')
        expect(invitation).to_contain_text("Bob challenges you")
        invitation.get_by_role("button", name="Accept").click()
        expect(alice_page).to_have_url(re.compile(r"/games/\d+$"))
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        # Bob's waiting page opens the table by itself (it looks every 2 s; the wait allows
        # for a busy machine).
        expect(bob_page).to_have_url(re.compile(rf"/games/{game.pk}$"))
        # Both tables listen on their socket, and from now on neither polls the game.
        polls = []
        for page in (alice_page, bob_page):
            expect(page.locator("#table")).to_have_attribute("data-live", "socket")
            page.on(
                "request",
                lambda r: polls.append(r.url) if "/api/games/" in r.url else None,
            )

        for _ in range(4):  # two turns each: the upcard offer, then draws and discards
            game.refresh_from_db()
            mover = pages[match.players[game.to_act]]
            watcher = pages[match.players[1 - game.to_act]]
            wait_for_my_turn(mover)
            before = ply(watcher)
            play_one_turn(mover)
            # Only a push can show it: the tables do not poll (below). How soon it comes is
            # bench/live.py's figure (move sent -> the opponent's socket has the view), not a
            # bound that a busy machine would break here.
            wait_past(watcher, before)
        assert polls == [], f"the tables polled or posted instead of using the socket: {polls}"
    finally:
        for context in contexts:
            context.close()


def test_finding_a_person_in_the_lobby_and_challenging_from_their_page(
    page, context, live, alice, greta, screenshots
):
    PlayerFactory(user__username="dora", name="Dora Bobbins")
    far = PlayerFactory(user__username="far", name="Far Away")
    sign_in(context, live, alice.user)

    page.goto("/lobby")
    page.get_by_label("Find a person to challenge").fill("bobb")
    page.get_by_role("button", name="Find").click()
    expect(page).to_have_url(re.compile(r"/lobby\?find=bobb$"))
    expect(page.get_by_label("Opponent")).to_have_value(
        str(Player.objects.get(name="Dora Bobbins").pk)
    )
    page.screenshot(path=str(screenshots / "lobby-find.png"), full_page=True)
    page.get_by_label("Find a person to challenge").fill("nobody here")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#find-none")).to_contain_text("nobody here")

    page.goto(f"/players/{far.pk}")
    page.get_by_role("link", name="Challenge Far Away").click()
    expect(page.get_by_label("Opponent")).to_have_value(str(far.pk))
    page.get_by_role("button", name="Play").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+$"))
    match = Match.objects.get(player_a=alice)
    assert (match.player_b_id, match.status) == (far.pk, Match.Status.CHALLENGED)
