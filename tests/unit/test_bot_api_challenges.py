"""External bots challenge and answer through the same endpoints as people, may accept at
once (from bots only, or from anyone), queue on ladders, and lose on time like anyone.

The cast: alice owns the bots Robo and Rita; bob is a person.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import Player
from games import services as play
from games.models import Game, Match
from tests.ladders import make_ladder

pytestmark = pytest.mark.django_db


def token_client(bot: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.bot_token_issue(bot=bot)[1]}")
    return client


@pytest.fixture
def robo(alice) -> Player:
    return accounts.bot_register(owner=alice, name="Robo")


@pytest.fixture
def rita(alice) -> Player:
    return accounts.bot_register(owner=alice, name="Rita")


def challenge(client: APIClient, opponent: Player, **extra) -> dict:
    response = client.post("/api/matches", {"opponent": opponent.pk, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_bot_answers_a_challenge_with_its_token(robo, bob_client):
    robo_client = token_client(robo)
    offered = challenge(bob_client, robo)
    assert offered["status"] == "challenged"
    response = robo_client.post(f"/api/matches/{offered['id']}/accept")
    assert response.status_code == 200 and response.json()["status"] == "active"
    declined = challenge(bob_client, robo)
    response = robo_client.post(f"/api/matches/{declined['id']}/decline")
    assert response.status_code == 200 and response.json()["status"] == "declined"


def test_a_bot_challenges_a_person_who_answers(robo, bob, bob_client):
    offered = challenge(token_client(robo), bob)
    assert offered["status"] == "challenged" and offered["player_a"]["id"] == robo.pk
    response = bob_client.post(f"/api/matches/{offered['id']}/accept")
    assert response.json()["status"] == "active"


def test_a_bot_set_to_accept_from_anyone_starts_a_persons_challenge_at_once(robo, bob_client):
    accounts.bot_update(bot=robo, auto_accept=Player.AutoAccept.ANYONE)
    assert challenge(bob_client, robo)["status"] == "active"


def test_a_bot_set_to_accept_from_bots_waits_for_a_person_but_not_for_a_bot(robo, rita, bob_client):
    accounts.bot_update(bot=robo, auto_accept=Player.AutoAccept.BOTS)
    assert challenge(bob_client, robo)["status"] == "challenged"
    assert challenge(token_client(rita), robo)["status"] == "active"


def test_a_bot_that_accepts_nobody_at_once_waits_for_its_answer(robo, rita):
    assert challenge(token_client(rita), robo)["status"] == "challenged"


def test_a_bot_busy_with_a_ranked_match_leaves_the_challenge_open(robo, rita, bob):
    accounts.bot_update(bot=robo, auto_accept=Player.AutoAccept.ANYONE)
    ladder = make_ladder()
    from ladders import services as ladders

    ladders.ladder_match_create(ladder=ladder, player_a=robo, player_b=bob)
    offered = challenge(token_client(rita), robo)
    assert offered["status"] == "challenged"


def test_a_bot_queues_on_a_ladder(robo):
    ladder = make_ladder()
    response = token_client(robo).post(f"/api/ladders/{ladder.pk}/queue")
    assert response.status_code == 201, response.content


def test_a_bot_that_does_not_move_within_its_budget_loses_on_time(robo, bob, bob_client):
    """30 seconds a game, no increment: the budget of the Gin Rummy AI challenge."""
    accounts.bot_update(bot=robo, auto_accept=Player.AutoAccept.ANYONE)
    match = challenge(
        bob_client,
        robo,
        best_of=1,
        time_control={"base_seconds": 30, "increment_seconds": 0, "pause_seconds": 0},
    )
    game = Game.objects.get(pk=match["current_game"])
    while game.to_act == 0:  # bob's turn: he moves at once, then the bot is on the clock
        view = bob_client.get(f"/api/games/{game.pk}").json()
        bob_client.post(
            f"/api/games/{game.pk}/actions",
            {"ply": view["ply"], **view["legal_actions"][0]},
            format="json",
        )
        game.refresh_from_db()
    assert game.to_act == 1 and game.clock_b_ms == 30_000 and match["time_control"]
    play.clock_settle(match_id=match["id"], now=timezone.now() + timedelta(seconds=29))
    assert Match.objects.get(pk=match["id"]).status == Match.Status.ACTIVE
    play.clock_settle(match_id=match["id"], now=timezone.now() + timedelta(seconds=31))
    finished = Match.objects.get(pk=match["id"])
    assert finished.status == Match.Status.FINISHED
    assert finished.winner_id == bob.pk and finished.end_reason == Match.EndReason.TIMEOUT
