"""The lobby, the match page's charts, the replay's move list and the home page as a user
sees them, at 1280 px and on a phone (390x844): the opponents grouped (bots by strength,
then people, no event filler bots), the last settings back after a reload, a chart point
per deal ending at the game's total, a move list that moves the board, each deal's result
and "Next deal" in the page, and the home page's live games, events and leaders."""

from __future__ import annotations

import json
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.models import Deal, Game, Match
from ladders import services as ladder_services
from ladders.models import Rating
from tests.e2e.helpers import browsing, open_event
from tests.factories import BotFactory, PlayerFactory
from tournaments import services as tournament_services


def shot(screenshots, name: str, size: str) -> str:
    return str(screenshots / (f"{name}.png" if size == "desktop" else f"{name}-phone.png"))


def inside_width(page, locator) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5, box


@pytest.fixture
def alice(transactional_db):
    return PlayerFactory(user__username="alice", name="Alice")


@pytest.fixture
def bob(transactional_db):
    return PlayerFactory(user__username="bob", name="Bob")


@pytest.fixture
def house_bots(transactional_db):
    return {
        "ada": BotFactory(name="Ada (expert)", bot_strategy="expert"),
        "greta": BotFactory(name="Greta (greedy)", bot_strategy="greedy"),
        "randy": BotFactory(name="Randy (random)", bot_strategy="random"),
    }


@pytest.fixture
def finished_bots_match(transactional_db) -> Match:
    """A finished best-of-3 between two greedy bots, played here (not by the worker)."""
    a = BotFactory(name="Gus (greedy)", bot_strategy="greedy")
    b = BotFactory(name="Bea (greedy)", bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, best_of=3, target=50, seed=42)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


# --- the lobby -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_lobby_groups_opponents_and_remembers_the_last_settings(
    browser, live, alice, bob, house_bots, size, screenshots
):
    event = tournament_services.event_create(name="Bot night", format="single_elim")
    fillers = [
        e.player.name for e in tournament_services.bots_add(event=event, count=4, strategy="greedy")
    ]
    with browsing(browser, live, alice.user, size) as page:
        page.goto("/lobby")
        page.locator("#custom-game summary").click()  # the full form, behind "Custom game"
        opponent = page.get_by_label("Opponent")
        groups = opponent.locator("optgroup")
        expect(groups).to_have_count(4)
        labels = [groups.nth(i).get_attribute("label") for i in range(4)]
        assert labels == [
            "Beginner bots: random play",
            "Club bots: greedy, knock at once",
            "Strong bots: expert, track the cards",
            "Players (they accept or decline)",
        ]
        names = opponent.locator("option").all_inner_texts()
        assert names == [
            "Choose an opponent…",
            "Randy (random)",
            "Greta (greedy)",
            "Ada (expert)",
            "Bob",
        ], names
        assert not set(fillers) & set(names)
        # No bot is chosen for you: Play asks for an opponent first.
        expect(opponent).to_have_value("")
        inside_width(page, opponent)
        page.screenshot(path=shot(screenshots, "lobby", size), full_page=True)
        # The sign-up story saves a lobby.png of its own: this one is also kept apart.
        page.screenshot(path=shot(screenshots, "lobby-opponents", size), full_page=True)
        page.get_by_role("button", name="Play").click()
        page.wait_for_timeout(300)
        assert page.url.endswith("/lobby") and not Match.objects.filter(player_a=alice).exists()
        assert opponent.evaluate("s => s.validity.valueMissing")

        opponent.select_option(label="Greta (greedy)")
        page.get_by_label("5 min + 5 s").check()
        page.get_by_label("Per-turn limit (timed games)").select_option("30")
        page.get_by_label("Rules").select_option("oklahoma")
        page.get_by_label("Game to").select_option("150")
        page.get_by_label("Match", exact=True).select_option("3")
        page.get_by_role("button", name="Play").click()
        expect(page).to_have_url(re.compile(r"/games/\d+$"))
        match = Match.objects.get(player_a=alice)
        assert (match.base_seconds, match.target, match.best_of) == (300, 150, 3)

        page.goto("/lobby")
        page.reload()
        expect(page.get_by_label("5 min + 5 s")).to_be_checked()
        expect(page.get_by_label("Per-turn limit (timed games)")).to_have_value("30")
        expect(page.get_by_label("Rules")).to_have_value("oklahoma")
        expect(page.get_by_label("Game to")).to_have_value("150")
        expect(page.get_by_label("Match", exact=True)).to_have_value("3")
        expect(opponent).to_have_value("")  # the opponent is chosen each time


def test_an_event_filler_bot_is_found_by_its_name(browser, live, alice, house_bots):
    event = tournament_services.event_create(name="Bot night", format="single_elim")
    filler = tournament_services.bots_add(event=event, count=2, strategy="random")[0].player
    with browsing(browser, live, alice.user, "desktop") as page:
        page.goto("/lobby")
        page.get_by_label("Find a person to challenge").fill(filler.name)
        page.get_by_role("button", name="Find").click()
        # The search is a new page: read its list once it is there, not the old one's.
        opponent = page.get_by_label("Opponent")
        expect(opponent.locator("option", has_text=filler.name)).to_have_count(1)
        options = opponent.locator("option").all_inner_texts()
        assert filler.name in options and "Greta (greedy)" not in options


# --- the match page's charts -----------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_each_game_has_a_chart_with_a_point_per_deal_ending_at_the_games_total(
    browser, live, finished_bots_match, size, screenshots
):
    match = finished_bots_match
    games = list(Game.objects.filter(match=match).order_by("number"))
    with browsing(browser, live, None, size) as page:
        page.goto(f"/matches/{match.pk}")
        charts = page.locator("figure.score-chart")
        expect(charts).to_have_count(len(games))
        for game, chart in zip(games, [charts.nth(i) for i in range(len(games))], strict=True):
            expect(chart).to_be_visible()
            inside_width(page, chart)
            deals = Deal.objects.filter(game=game, status=Deal.Status.FINISHED).count()
            total = page.request.get(f"/api/games/{game.pk}").json()["scores"]["hand_points"]
            for player, side in enumerate(("a", "b")):
                points = chart.locator(f"circle.pt.{side}")
                expect(points).to_have_count(deals)
                last = points.nth(deals - 1).get_attribute("data-score")
                assert int(last) == total[player], (game.number, side, last, total)
            expect(chart.locator("figcaption")).to_have_text(
                f"Game {game.number + 1}: running score by deal"
            )
        table = page.locator("table.grid").first.bounding_box()
        first = charts.first.bounding_box()
        if size == "desktop":  # beside the table of games
            assert first["x"] >= table["x"] + table["width"] - 1, (table, first)
        else:  # under it, on a phone
            assert first["y"] >= table["y"] + table["height"] - 1, (table, first)
        page.screenshot(path=shot(screenshots, "match-chart", size), full_page=True)


# --- the replay ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_replay_lists_the_moves_names_each_deals_result_and_goes_on_to_the_next_deal(
    browser, live, finished_bots_match, size, screenshots
):
    match = finished_bots_match
    first_game = Game.objects.get(match=match, number=0)
    deals = list(Deal.objects.filter(game=first_game).order_by("number"))
    with browsing(browser, live, None, size) as page:
        page.goto(f"/matches/{match.pk}/replay")
        data = json.loads(page.locator("#replay-data").text_content())
        moves = page.locator("#move-list .move")
        expect(moves).to_have_count(len(data["frames"]) - 1)

        pick = min(5, moves.count())
        moves.nth(pick - 1).click()
        expect(page.locator("#replay-position")).to_have_text(
            f"Move {pick} of {len(data['frames']) - 1}"
        )
        expect(moves.nth(pick - 1)).to_have_attribute("aria-current", "step")
        spoken = page.locator("#replay-action").inner_text()
        assert spoken in moves.nth(pick - 1).inner_text()
        assert data["frames"][pick]["action"].split(" ")[0] != ""

        # Each deal's result reads in the page, without a tooltip.
        results = page.locator(".deal-result")
        expect(results).to_have_count(Deal.objects.filter(game__match=match).count())
        first = deals[0]
        winner = [match.player_a.name, match.player_b.name][first.winner_index]
        expect(results.first).to_be_visible()
        expect(results.first).to_contain_text(f"{winner}, ")
        expect(results.first).to_contain_text(str(first.points))

        if size == "desktop":  # the moves beside the board
            board = page.locator("#replay-board").bounding_box()
            listed = page.locator(".move-list-panel").bounding_box()
            assert listed["x"] >= board["x"] + board["width"] - 1, (board, listed)
        inside_width(page, page.locator(".move-list-panel"))
        page.screenshot(path=shot(screenshots, "replay-moves", size), full_page=True)

        # At the end of the deal: its result, and Next deal.
        expect(page.get_by_role("link", name=re.compile("^Next deal"))).to_have_count(0)
        page.locator('[data-step="last"]').click()
        expect(page.locator("#replay-outcome .outcome")).to_be_visible()
        expect(moves.last).to_have_attribute("aria-current", "step")
        following = page.get_by_role("link", name=re.compile("^Next deal"))
        expect(following).to_be_visible()
        following.click()
        expect(page).to_have_url(re.compile(r"\?game=0&deal=1$"))
        expect(page.locator("#replay-title")).to_have_text("Game 1, deal 2")
        expect(page.locator("#replay-position")).to_have_text(re.compile(r"^Move 0 of \d+$"))


def test_the_last_deal_of_the_match_leads_back_to_the_match(browser, live, finished_bots_match):
    match = finished_bots_match
    last_game = Game.objects.filter(match=match).order_by("number").last()
    last = Deal.objects.filter(game=last_game).order_by("number").last()
    with browsing(browser, live, None, "desktop") as page:
        page.goto(f"/matches/{match.pk}/replay?game={last_game.number}&deal={last.number}")
        page.keyboard.press("End")
        expect(page.get_by_role("link", name=re.compile("^Next deal"))).to_have_count(0)
        page.get_by_role("link", name="Back to the match").click()
        expect(page).to_have_url(re.compile(rf"/matches/{match.pk}$"))


# --- the home page ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_home_page_shows_live_games_events_and_the_top_of_the_ladder(
    browser, live, alice, bob, house_bots, size, screenshots
):
    carol = PlayerFactory(user__username="carol", name="Carol")
    dave = PlayerFactory(user__username="dave", name="Dave")
    playing = services.challenge_create(challenger=alice, opponent=house_bots["greta"])
    game = Game.objects.get(match=playing, status=Game.Status.ACTIVE)
    spring = open_event("Spring cup", [bob])
    running = open_event("Club night", [carol, dave])
    tournament_services.event_start(event=running)  # people's matches wait for them
    ladder = ladder_services.ladder_create(
        name="Quick ladder", slug="quick", leaderboard_min_matches=1
    )
    for player, rating in ((bob, 1620), (alice, 1580)):
        Rating.objects.create(
            ladder=ladder,
            player=player,
            rating=rating,
            peak=rating,
            matches_played=4,
            last_active=timezone.now(),
        )
    with browsing(browser, live, None, size) as page:
        page.goto("/")
        live_games = page.locator("#home-live")
        watch = live_games.get_by_role("link", name="Alice v Greta (greedy)")
        expect(watch).to_have_attribute("href", f"/games/{game.pk}")
        events = page.locator("#home-events")
        expect(
            events.locator("#home-events-open").get_by_role("link", name="Spring cup")
        ).to_have_attribute("href", f"/events/{spring.pk}")
        expect(
            events.locator("#home-events-running").get_by_role("link", name="Club night")
        ).to_have_attribute("href", f"/events/{running.pk}")
        leaders = page.locator("#home-leaders ol.leaders li")
        expect(leaders).to_have_count(2)
        expect(leaders.first).to_contain_text("Bob")
        expect(leaders.first).to_contain_text("1620")
        expect(leaders.first.get_by_role("link", name="Bob")).to_have_attribute(
            "href", f"/players/{bob.pk}"
        )
        for section in ("#home-live", "#home-events", "#home-leaders"):
            expect(page.locator(section)).to_be_visible()
            inside_width(page, page.locator(section))
            for href in page.locator(f"{section} a").evaluate_all("as => as.map(a => a.href)"):
                assert page.request.get(href).status == 200, href
        size_bytes = len(page.content().encode())
        assert size_bytes < 40_000, size_bytes
        page.screenshot(path=shot(screenshots, "home", size), full_page=True)

        # Watching shows the table as a spectator: no card of either hand.
        watch.click()
        expect(page).to_have_url(re.compile(rf"/games/{game.pk}$"))
        view = page.request.get(f"/api/games/{game.pk}").json()
        assert view["hand"] is None and view["you"] is None
        expect(page.locator("#seat-bottom .hand .card:not(.back)")).to_have_count(0)
