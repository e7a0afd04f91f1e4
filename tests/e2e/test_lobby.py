"""The lobby's first screen in a browser, on a 390 px phone and a desktop: one tap plays the
computer (the table opens and a card is played); a ladder's refusal shows the server's
reason; a player whose tournament match is ready sees it instead of anything that would
start another game, and the API answers 409 with the match."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from accounts.services import bot_register
from games import services
from games.models import Action, Game, Match
from ladders import services as ladder_services
from tests.e2e.helpers import SIZES, play_one_turn, sign_in, wait_for_my_turn
from tests.factories import BotFactory, PlayerFactory
from tournaments import services as tournament_services


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


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def house(transactional_db):
    """The demo's house bots: random, greedy, expert (Easy, Medium, Hard)."""
    return {
        strategy: BotFactory(name=name, bot_strategy=strategy)
        for name, strategy in [
            ("Randy (random)", "random"),
            ("Greta (greedy)", "greedy"),
            ("Ada (expert)", "expert"),
        ]
    }


def tap(size: str, locator) -> None:
    """A tap on a phone, a click on a desktop."""
    if size == "phone":
        locator.tap()
    else:
        locator.click()


def fits(page, size: str) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["viewport"]["width"], f"the page scrolls sideways ({width}px)"


def post_json(page, path: str, body: dict) -> dict:
    """POST from the page with its session and CSRF token, as its scripts do."""
    return page.evaluate(
        """async ([path, body]) => {
          const token = document.querySelector('meta[name="csrf-token"]').content;
          const r = await fetch(path, {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json", "X-CSRFToken": token},
            body: JSON.stringify(body)});
          return {status: r.status, body: await r.json()};
        }""",
        [path, body],
    )


def test_one_tap_plays_the_computer_and_a_card_is_played(sized, live, alice, house, screenshots):
    size, context, page = sized
    sign_in(context, live, alice.user)
    page.goto("/lobby")
    levels = page.locator("#play-computer button.level")
    expect(levels).to_have_count(3)
    assert levels.all_inner_texts() == [
        "Easy\nRandy (random)",
        "Medium\nGreta (greedy)",
        "Hard\nAda (expert)",
    ]
    # The first screen: the three levels in view without scrolling, the full form folded.
    for i in range(3):
        expect(levels.nth(i)).to_be_in_viewport()
    expect(page.locator("#custom-game")).not_to_have_attribute("open", "")
    expect(page.get_by_label("Opponent")).to_be_hidden()
    expect(page.locator("#ladders")).to_be_hidden()  # no ladder here
    fits(page, size)
    page.screenshot(
        path=str(screenshots / f"lobby-first-screen-{size}.png"), full_page=size == "desktop"
    )

    tap(size, page.get_by_role("button", name=re.compile(r"^Easy")))
    expect(page).to_have_url(re.compile(r"/games/\d+$"))
    game = Game.objects.get(match__player_a=alice, status=Game.Status.ACTIVE)
    match = game.match
    assert match.player_b_id == house["random"].pk
    assert (match.best_of, match.target, match.base_seconds, match.increment_seconds) == (
        1,
        100,
        600,
        5,
    )
    expect(page.locator("#seat-bottom .hand .card")).to_have_count(10)
    # A card is played: Alice's turns until one of them is a discard.
    discarded = Action.objects.filter(deal__game=game, player=alice, kind="discard")
    for _ in range(6):
        if discarded.exists():
            break
        wait_for_my_turn(page)
        play_one_turn(page)
    assert discarded.exists(), "no card was played"
    fits(page, size)


def test_a_ladders_refusal_shows_the_servers_detail_and_the_way_to_the_match(
    sized, live, alice, house, screenshots
):
    size, context, page = sized
    ladder = ladder_services.ladder_create(name="Quick ladder", best_of=1, target=100)
    bots_only = ladder_services.ladder_create(name="Bot ladder", bots_only=True)
    busy = services.challenge_create(challenger=alice, opponent=house["greedy"])
    sign_in(context, live, alice.user)
    page.goto("/lobby")
    ranked = page.locator("#ladders")
    expect(ranked.get_by_role("heading", name="Ranked")).to_be_visible()
    widget = ranked.locator(f'.ladder[data-ladder="{ladder.pk}"]')
    expect(widget).to_contain_text("one game to 100")
    # A ladder for bots only is for those who run a bot.
    expect(ranked.locator(f'.ladder[data-ladder="{bots_only.pk}"]')).to_have_count(0)
    expect(ranked).not_to_contain_text("For bots only")

    joining = re.compile(rf"/api/ladders/{ladder.pk}/queue$")
    with page.expect_response(
        lambda r: r.request.method == "POST" and joining.search(r.url)
    ) as answer:
        tap(size, widget.get_by_role("button", name="Join the queue"))
    refusal = answer.value
    assert refusal.status == 409 and refusal.json()["code"] == "match_in_progress"
    flash = page.locator("#lobby-flash")
    expect(flash).to_contain_text(f"Could not join the queue: {refusal.json()['detail']}")
    assert "undefined" not in flash.inner_text()
    go = flash.get_by_role("link", name="Go to your match")
    expect(go).to_have_attribute("href", f"/matches/{busy.pk}")
    fits(page, size)
    page.screenshot(path=str(screenshots / f"lobby-ranked-refused-{size}.png"), full_page=True)

    # Alice runs a bot of her own: the bot ladder is shown to her, played through it.
    bot_register(owner=alice, name="Alice's bot")
    page.reload()
    expect(ranked.locator(f'.ladder[data-ladder="{bots_only.pk}"]')).to_contain_text(
        "For bots only"
    )


def test_a_ready_tournament_match_is_the_lobbys_first_screen_and_the_api_says_409(
    sized, live, alice, house, screenshots
):
    size, context, page = sized
    dora = PlayerFactory(user__username="dora", name="Dora")
    sign_in(context, live, alice.user)
    # The lobby is open when the event starts: a tap on a level is refused with the way there.
    page.goto("/lobby")
    event = tournament_services.event_create(
        name="Friday cup", format="single_elim", best_of=1, target=100, base_seconds=None
    )
    tournament_services.event_open_registration(event=event)
    for player in (alice, dora):
        tournament_services.entry_add(event=event, player=player)
    tournament_services.event_start(event=event)
    match = Match.objects.get(source=Match.Source.TOURNAMENT)
    assert match.status == Match.Status.SCHEDULED

    # The live banner of the match arrives on the socket and pushes the page down: a tap
    # made as it arrives lands where the button was, not on it.
    expect(page.locator("#match-banner")).to_be_visible()
    tap(size, page.get_by_role("button", name=re.compile(r"^Medium")))
    flash = page.locator("#lobby-flash")
    expect(flash).to_contain_text(
        f"The game did not start: your tournament match {match.pk} is ready: play it first"
    )
    go = flash.get_by_role("link", name="Go to your match")
    expect(go).to_have_attribute("href", f"/matches/{match.pk}")
    assert not Match.objects.filter(player_b=house["greedy"]).exists()
    tap(size, go)
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}$"))
    expect(page.get_by_role("button", name=re.compile("I am here"))).to_be_visible()

    # Opened again, the lobby says so first and offers nothing that starts a game. The live
    # banner of every page (me.js) shows the match with its countdown and the way there; the
    # lobby's own copy of it steps back to the reason, so it is said once.
    page.goto("/lobby")
    banner = page.locator("#match-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Your tournament match is ready")
    expect(banner).to_contain_text("Friday cup")
    expect(banner.locator(".countdown")).to_have_text(re.compile(r"^[45]:\d\d$"))
    expect(banner.get_by_role("link", name="Go to the table")).to_have_attribute(
        "href", f"/matches/{match.pk}"
    )
    notice = page.locator("#tournament-notice")
    expect(notice.locator(".wait")).to_have_text(
        "New games wait until your tournament match is over."
    )
    expect(notice.locator(".wait")).to_be_in_viewport()
    expect(notice.locator(".tournament-match")).to_be_hidden()
    expect(notice.locator(".tournament-match")).to_contain_text("you v Dora")  # without a socket
    expect(page.locator("button.level")).to_have_count(0)
    expect(page.locator("#challenge-form")).to_have_count(0)
    fits(page, size)
    page.screenshot(path=str(screenshots / f"lobby-tournament-ready-{size}.png"))

    # The API refuses another game with the match and its page.
    answer = post_json(page, "/api/matches", {"opponent": house["expert"].pk})
    assert answer["status"] == 409
    assert answer["body"]["code"] == "in_tournament_match"
    assert (answer["body"]["match"], answer["body"]["url"]) == (match.pk, f"/matches/{match.pk}")
    assert answer["body"]["detail"] == f"your tournament match {match.pk} is ready: play it first"
    assert list(Match.objects.values_list("pk", flat=True)) == [match.pk], "nothing else began"


def test_a_refusal_is_shown_in_words_never_markup_nor_undefined(page, context, live, alice, house):
    """The shared fetch helper (api.js): a proxy's error page reads as its status, a 400
    names its fields, and the buttons are given back."""
    sign_in(context, live, alice.user)
    page.goto("/lobby")
    flash = page.locator("#lobby-flash")
    easy = page.get_by_role("button", name=re.compile(r"^Easy"))

    def answer(status: int, body: str, content_type: str):
        page.unroute("**/api/matches")
        page.route(
            "**/api/matches",
            lambda route: route.fulfill(status=status, body=body, content_type=content_type),
        )

    answer(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
    easy.click()
    expect(flash).to_have_text("The game did not start: The server answered 502.")
    assert "<" not in flash.inner_text() and "undefined" not in flash.inner_text()
    expect(easy).to_be_enabled()

    invalid = {
        "detail": "Invalid input.",
        "code": "invalid",
        "errors": {
            "time_control.base_seconds": ["Ensure this value is less than or equal to 10800."]
        },
    }
    answer(400, json.dumps(invalid), "application/json")
    easy.click()
    expect(flash).to_have_text(
        "The game did not start: time_control.base_seconds: "
        "Ensure this value is less than or equal to 10800."
    )
    expect(easy).to_be_enabled()

    # A message about the whole body reads without a field's name.
    whole = {
        "detail": "Invalid input.",
        "code": "invalid",
        "errors": {"non_field_errors": ["Pick one."]},
    }
    answer(400, json.dumps(whole), "application/json")
    easy.click()
    expect(flash).to_have_text("The game did not start: Pick one.")
    assert not Match.objects.exists()
