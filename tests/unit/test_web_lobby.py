"""The lobby's first screen: the computer in one tap at three levels, the ranked ladders, a
person found by name, the full form behind "Custom game"; and, while a tournament match is
ready or in play, its notice with the way there instead of anything that starts a game."""

import json
import re

import pytest
from django.test import Client

from accounts.services import bot_register
from games import services as play
from games.models import Game, Match
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments import event_with, pairing
from tournaments import services as events
from web.views import QUICK_GAME

pytestmark = pytest.mark.django_db


def lobby(player, query: str = "") -> str:
    client = Client()
    client.force_login(player.user)
    response = client.get(f"/lobby{query}")
    assert response.status_code == 200
    return response.content.decode()


def levels(page: str) -> list[tuple[str, int]]:
    """(label, bot id) of each one-tap button, in order."""
    found = re.findall(
        r'<button type="button" class="button primary level" data-opponent="(\d+)"'
        r' data-level="\w+">(\w+)<small>',
        page,
    )
    return [(label, int(pk)) for pk, label in found]


@pytest.fixture
def house(db):
    """The demo's house bots: two random, two greedy, one expert (no master)."""
    return {
        "random": BotFactory(name="Randy (random)", bot_strategy="random"),
        "random2": BotFactory(name="Rita (random)", bot_strategy="random"),
        "greedy": BotFactory(name="Greta (greedy)", bot_strategy="greedy"),
        "greedy2": BotFactory(name="Gus (greedy)", bot_strategy="greedy"),
        "expert": BotFactory(name="Ada (expert)", bot_strategy="expert"),
    }


def test_easy_medium_and_hard_are_the_three_strongest_house_bots_weakest_first(alice, house):
    assert levels(lobby(alice)) == [
        ("Easy", house["random"].pk),
        ("Medium", house["greedy"].pk),
        ("Hard", house["expert"].pk),
    ]
    master = BotFactory(name="Magnus (master)", bot_strategy="master")
    assert levels(lobby(alice)) == [
        ("Easy", house["greedy"].pk),
        ("Medium", house["expert"].pk),
        ("Hard", master.pk),
    ]


def test_no_house_bot_no_level(alice):
    page = lobby(alice)
    assert levels(page) == [] and "No house bots yet" in page
    assert '<details id="custom-game" class="custom-game" open>' in page


def test_fewer_strategies_give_fewer_levels_and_event_fillers_are_not_played(alice):
    greta = BotFactory(name="Greta (greedy)", bot_strategy="greedy")
    filler = BotFactory(name="Expert bot 1", bot_strategy="expert")
    event = event_with([filler, BotFactory(name="Expert bot 2", bot_strategy="expert")], "swiss")
    assert event.entries.count() == 2
    assert levels(lobby(alice)) == [("Easy", greta.pk)]


def test_one_tap_posts_a_whole_game_one_game_to_100_on_a_clock(alice, alice_client, house):
    page = lobby(alice)
    quick = json.loads(
        re.search(r'<script id="quick-game" type="application/json">(.*?)</script>', page)[1]
    )
    assert quick == QUICK_GAME
    response = alice_client.post(
        "/api/matches", {**quick, "opponent": house["expert"].pk}, format="json"
    )
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.best_of, match.target, match.rules["name"]) == (1, 100, "standard")
    assert (match.base_seconds, match.increment_seconds) == (600, 5)
    assert match.status == Match.Status.ACTIVE
    assert Game.objects.filter(match=match, status=Game.Status.ACTIVE).exists()


def test_the_custom_game_is_behind_a_disclosure_opened_by_a_search_or_a_link(alice, bob, house):
    closed = lobby(alice)
    assert '<details id="custom-game" class="custom-game">' in closed
    assert '<form id="challenge-form"' in closed  # the whole form, one tap away
    assert '<details id="custom-game" class="custom-game" open>' in lobby(alice, "?find=bo")
    assert '<details id="custom-game" class="custom-game" open>' in lobby(
        alice, f"?opponent={bob.pk}"
    )


def test_ladders_for_bots_only_are_for_bot_owners(alice):
    assert 'data-bot-owner="false"' in lobby(alice)
    bot_register(owner=alice, name="Alice's bot")
    assert 'data-bot-owner="true"' in lobby(alice)


def test_a_challenge_reads_one_game_never_best_of_1(alice, bob):
    play.challenge_create(challenger=bob, opponent=alice, best_of=1, target=100)
    page = lobby(alice)
    assert "one game to 100" in page
    assert "best of 1 " not in page


@pytest.fixture
def dora(db):
    return PlayerFactory(user__username="dora", name="Dora")


def test_a_ready_tournament_match_is_the_first_screen_with_the_way_there(alice, dora, house):
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    match = pairing(event, "R1.1").match
    page = lobby(alice)
    notice = page[page.index('id="tournament-notice"') : page.index("</section>")]
    assert "Your tournament match is ready" in notice
    assert event.name in notice and "you v Dora" in notice
    assert f'data-deadline="{match.start_deadline.isoformat()}"' in notice
    assert f'href="/matches/{match.pk}">Go to your match</a>' in notice
    # Nothing that would start another game: no level, no custom game.
    assert levels(page) == []
    assert 'id="challenge-form"' not in page and 'id="play-computer"' not in page
    # Nobody else is held back.
    assert levels(lobby(PlayerFactory(user__username="erin"))) != []


def test_a_tournament_match_in_play_sends_the_player_to_its_table(alice, dora):
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    match = pairing(event, "R1.1").match
    events.match_ready(match=match, player=alice)
    events.match_ready(match=match, player=dora)
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    page = lobby(dora)
    assert "Your tournament match is on" in page
    assert f'href="/games/{game.pk}">Go to the table</a>' in page


def test_a_tournament_match_at_a_table_leaves_the_lobby_as_it_is(alice, dora, house):
    event = event_with([alice, dora], "single_elim", venue="tables")
    events.event_start(event=event)
    assert pairing(event, "R1.1").match.venue == Match.Venue.TABLE
    page = lobby(alice)
    assert 'id="tournament-notice"' not in page and levels(page) != []
