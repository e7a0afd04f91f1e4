"""The lobby's opponents, the home page's summary, the match page's score charts and the
replay's deal results, as the views build them (no browser)."""

import json
import random
import re

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import services
from games.engine.actions import Action as EngineAction
from games.models import Game, Match
from games.selectors import game_view
from ladders import services as ladder_services
from ladders.models import Rating
from tests.factories import BotFactory
from tests.play import pick
from tournaments import services as tournament_services
from web import selectors as web_selectors
from web.replay import deal_index, next_deal

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_web(alice) -> Client:
    client = Client()
    client.force_login(alice.user)
    return client


@pytest.fixture
def house_bots(db) -> dict[str, Player]:
    return {
        "ada": BotFactory(name="Ada (expert)", bot_strategy="expert"),
        "greta": BotFactory(name="Greta (greedy)", bot_strategy="greedy"),
        "randy": BotFactory(name="Randy (random)", bot_strategy="random"),
    }


@pytest.fixture
def fillers(db) -> list[Player]:
    """Bots an organiser added by the dozen to fill a bot event."""
    event = tournament_services.event_create(name="Bot night", format="single_elim")
    entries = tournament_services.bots_add(event=event, count=3, strategy="greedy")
    return [entry.player for entry in entries]


def opponent_options(page: str) -> list[tuple[str, list[str]]]:
    """The lobby's ``(group label, [names])`` in page order."""
    select = page.split('<select id="opponent"')[1].split("</select>")[0]
    return [
        (label, re.findall(r"<option value=\"\d+\"[^>]*>([^<]+)</option>", body))
        for label, body in re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', select, re.S)
    ]


# --- the lobby ------------------------------------------------------------------------------


def test_the_lobby_groups_bots_weakest_first_then_people(alice_web, house_bots, bob):
    page = alice_web.get("/lobby").content.decode()

    assert opponent_options(page) == [
        ("Beginner bots: random play", ["Randy (random)"]),
        ("Club bots: greedy, knock at once", ["Greta (greedy)"]),
        ("Strong bots: expert, track the cards", ["Ada (expert)"]),
        ("Players (they accept or decline)", ["Bob"]),
    ]


def test_the_lobby_preselects_no_opponent(alice_web, house_bots):
    page = alice_web.get("/lobby").content.decode()

    select = page.split('<select id="opponent"')[1].split("</select>")[0]
    assert re.findall(r"<option[^>]* selected[^>]*>([^<]*)<", select) == ["Choose an opponent…"]


def test_event_filler_bots_are_left_out_of_the_lobby_but_found_by_name(
    alice_web, house_bots, fillers
):
    page = alice_web.get("/lobby").content.decode()
    listed = [name for _, names in opponent_options(page) for name in names]
    assert "Greta (greedy)" in listed
    assert not [f.name for f in fillers if f.name in listed]

    found = alice_web.get("/lobby", {"find": fillers[0].name}).content.decode()
    assert fillers[0].name in [n for _, names in opponent_options(found) for n in names]
    linked = alice_web.get("/lobby", {"opponent": fillers[1].pk}).content.decode()
    assert f'<option value="{fillers[1].pk}" selected>' in linked


def test_a_filler_bot_played_outside_events_is_listed_again(alice, house_bots, fillers):
    services.challenge_create(challenger=alice, opponent=fillers[0])
    ladder = ladder_services.ladder_create(name="Quick", slug="quick")
    Rating.objects.create(ladder=ladder, player=fillers[1], is_bot=True, rating=1500, peak=1500)

    assert set(web_selectors.event_filler_bots()) == {fillers[2]}


def test_a_house_bot_entered_in_an_event_stays_listed_while_it_has_a_ladder_life(house_bots):
    greta = house_bots["greta"]
    ladder = ladder_services.ladder_create(name="Quick", slug="quick")
    Rating.objects.create(ladder=ladder, player=greta, is_bot=True, rating=1500, peak=1500)
    event = tournament_services.event_create(name="Cup", format="single_elim")
    tournament_services.entry_add(event=event, player=greta)

    assert greta not in web_selectors.event_filler_bots()


# --- the home page -----------------------------------------------------------------------------


def test_the_home_page_lists_live_games_events_and_the_top_of_the_ladder(alice, bob, house_bots):
    live = services.challenge_create(challenger=alice, opponent=house_bots["greta"])
    game = Game.objects.get(match=live, status=Game.Status.ACTIVE)
    private = services.challenge_create(challenger=alice, opponent=bob)  # not accepted
    done = services.challenge_create(challenger=bob, opponent=house_bots["randy"])
    services.match_forfeit(match=done, loser=bob, reason="resigned")
    spring = tournament_services.event_create(name="Spring cup", format="single_elim")
    tournament_services.event_open_registration(event=spring)
    tournament_services.event_create(name="Hidden draft", format="single_elim")
    ladder = ladder_services.ladder_create(
        name="Quick ladder", slug="quick", leaderboard_min_matches=1
    )
    now = timezone.now()
    for player, rating in ((alice, 1610), (bob, 1580)):
        Rating.objects.create(
            ladder=ladder,
            player=player,
            rating=rating,
            peak=rating,
            matches_played=3,
            last_active=now,
        )

    page = Client().get("/").content.decode()

    live_part = page.split('id="home-live"')[1].split("</section>")[0]
    assert f'href="/games/{game.pk}"' in live_part and "Alice v Greta (greedy)" in live_part
    assert f"/matches/{private.pk}" not in page and f"/games/{done.pk}" not in live_part
    events_part = page.split('id="home-events"')[1].split("</section>")[0]
    assert f'href="/events/{spring.pk}"' in events_part and "Hidden draft" not in page
    leaders = page.split('id="home-leaders"')[1].split("</section>")[0]
    assert f'href="/leaderboard?ladder={ladder.pk}"' in leaders
    assert leaders.index(f'href="/players/{alice.pk}"') < leaders.index(f'href="/players/{bob.pk}"')
    # A spectator's link shows no card: the page names no hand, no seed.
    assert str(live.seed) not in page


def test_live_games_put_peoples_games_before_bots_games(alice, house_bots):
    people = services.challenge_create(challenger=alice, opponent=house_bots["greta"])
    bots_only = services.match_create(player_a=house_bots["ada"], player_b=house_bots["randy"])
    bots_game = Game.objects.create(match=bots_only, number=0, seed=7, first_dealer=0)
    finished = services.challenge_create(challenger=alice, opponent=house_bots["randy"])
    services.match_forfeit(match=finished, loser=alice, reason="resigned")

    found = web_selectors.live_games()

    assert [m.pk for m in found] == [people.pk, bots_only.pk]
    assert found[1].current_game == bots_game.pk and found[0].event is None
    assert [m.pk for m in web_selectors.live_games(limit=1)] == [people.pk]


# --- the match page's charts ---------------------------------------------------------------------


@pytest.fixture
def bot_match(db) -> Match:
    a = BotFactory(name="Ada", bot_strategy="greedy")
    b = BotFactory(name="Bea", bot_strategy="greedy")
    match = services.match_create(player_a=a, player_b=b, best_of=3, target=50, seed=42)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def test_each_games_chart_has_a_point_per_deal_ending_at_the_games_total(bot_match):
    games = list(bot_match.games.order_by("number"))
    charts = web_selectors.score_charts(match=bot_match, games=games)

    assert [c["game_id"] for c in charts] == [g.pk for g in games]
    client = Client()
    for game, chart in zip(games, charts, strict=True):
        deals = game.deals.filter(status="finished").count()
        assert len(chart["points"]) == deals
        total = client.get(f"/api/games/{game.pk}").json()["scores"]["hand_points"]
        last = chart["points"][-1]
        assert [last["a"], last["b"]] == total
        # each point is the running total of the deals so far (a shutout doubles the last)
        running = [0, 0]
        for deal, point in zip(game.deals.filter(status="finished"), chart["points"], strict=True):
            running[deal.winner_index] += deal.points
            if point is not last or not game.results[-1]["shutout"]:
                assert [point["a"], point["b"]] == running


def test_a_game_in_play_charts_its_finished_deals_up_to_the_views_scores(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, best_of=1, target=250, seed=5)
    players = {0: alice, 1: bob}
    rng = random.Random(3)
    game = Game.objects.get(match=match)
    while game.deals.filter(status="finished").count() < 2:
        data = game_view(game=game, viewer=players[game.to_act])
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        mover = players[game.to_act]
        services.action_submit(game_id=game.pk, player=mover, ply=game.ply, action=action)
        game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE

    (chart,) = web_selectors.score_charts(match=match, games=[game])

    assert len(chart["points"]) == 2
    client = Client()
    client.force_login(alice.user)
    total = client.get(f"/api/games/{game.pk}").json()["scores"]["hand_points"]
    assert [chart["points"][-1]["a"], chart["points"][-1]["b"]] == total


def test_the_match_page_draws_the_charts_beside_the_games(bot_match):
    page = Client().get(f"/matches/{bot_match.pk}").content.decode()

    games = list(bot_match.games.order_by("number"))
    assert page.count('<figure class="score-chart"') == len(games)
    first = page.split(f'data-game="{games[0].pk}"')[1].split("</figure>")[0]
    assert first.count('<circle class="pt a"') == games[0].deals.filter(status="finished").count()


def test_a_shutout_ends_the_chart_at_the_doubled_total():
    class FakeGame:
        status = Game.Status.FINISHED
        results = [{"hand_points": [0, 120], "shutout": True}]

    class FakeDeal:
        def __init__(self, winner, points):
            self.winner_index, self.points = winner, points

    points, note = web_selectors._running_scores(
        FakeGame(), [FakeDeal(1, 30), FakeDeal(1, 30)], hollywood=False
    )
    assert points == [(0, 30), (0, 120)] and "shutout" in note


# --- the replay -----------------------------------------------------------------------------------


def test_the_replay_names_each_deals_result_and_the_next_deal(bot_match):
    page = Client().get(f"/matches/{bot_match.pk}/replay?game=0&deal=0").content.decode()

    from games.selectors import match_log

    index = deal_index(match_log(match=bot_match))
    results = re.findall(r'<span class="deal-result">([^<]+)</span>', page)
    assert len(results) == sum(len(g["deals"]) for g in index)
    first = index[0]["deals"][0]
    winner = "Ada" if first["winner"] == 0 else "Bea"
    assert results[0].strip() == f"{winner}, {first['result']} {first['points']}"

    start = page.index('<script id="replay-data" type="application/json">') + 49
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["next"] == next_deal(index, 0, 0) and data["match"] == bot_match.pk


def test_the_next_deal_goes_on_to_the_next_game_and_ends_after_the_last():
    index = [
        {"number": 0, "deals": [{}, {}]},
        {"number": 1, "deals": []},
        {"number": 2, "deals": [{}]},
    ]
    assert next_deal(index, 0, 0) == {"game": 0, "deal": 1}
    assert next_deal(index, 0, 1) == {"game": 2, "deal": 0}
    assert next_deal(index, 2, 0) is None


@pytest.mark.parametrize("query", ["game=-1", "deal=-1", "game=0&deal=-2"])
def test_a_replay_counted_from_the_end_is_not_found(bot_match, query):
    assert Client().get(f"/matches/{bot_match.pk}/replay?{query}").status_code == 404
