"""A timed game's clock charges a bot for its own time, not the server's.

The server's delay on a move (from the last charge to the hand-over of the bot's view, from
the move's arrival to its application) is credited back within the lag bank, like the
network lag measured on a person's socket; a hand-over noted after the move arrived counts
nothing. The cast: alice owns the external bot Robo; bob plays it.
"""

from __future__ import annotations

import functools
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services as accounts
from games import delivery, services
from games.engine.actions import Action as EngineAction
from games.models import Action, Game
from games.selectors import game_view
from tests.play import active_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_notes():
    delivery._store.cache_clear()
    yield
    delivery._store.cache_clear()


@pytest.fixture
def robo(alice):
    return accounts.bot_register(owner=alice, name="Robo")


def bot_on_move(bob, robo) -> Game:
    """A timed game of bob v Robo with Robo to act (bob moves first if he must)."""
    match = services.match_create(
        player_a=bob, player_b=robo, time_control=services.TimeControl(base_seconds=30)
    )
    game = active_game(match)
    while game.to_act != 1:
        view = game_view(game=game, viewer=bob)
        services.action_submit(
            game_id=game.pk,
            player=bob,
            ply=view["ply"],
            action=EngineAction.from_json(view["legal_actions"][0]),
        )
        game.refresh_from_db()
    return game


def robo_moves(game: Game, robo, **timing) -> Action:
    view = game_view(game=game, viewer=robo)
    services.action_submit(
        game_id=game.pk,
        player=robo,
        ply=view["ply"],
        action=EngineAction.from_json(view["legal_actions"][0]),
        **timing,
    )
    return Action.objects.filter(deal__game=game, player=robo).order_by("-pk").first()


def test_the_server_time_before_the_hand_over_and_after_the_arrival_is_credited(bob, robo):
    game = bot_on_move(bob, robo)
    charged, before = game.clock_charged_at, game.clock_ms(1)
    now = charged + timedelta(seconds=1)
    action = robo_moves(
        game,
        robo,
        now=now,
        delivered_at=(charged + timedelta(milliseconds=300)).timestamp(),
        arrived_at=(now - timedelta(milliseconds=100)).timestamp(),
    )
    game.refresh_from_db()
    assert action.lag_ms == 400  # 300 ms to hand the view over, 100 ms in the server
    if game.to_act == 1:  # still Robo's turn: charged 1 s less the credit
        assert game.clock_ms(1) == before - 1000 + 400


def test_a_hand_over_after_the_move_arrived_counts_nothing(bob, robo):
    game = bot_on_move(bob, robo)
    charged = game.clock_charged_at
    now = charged + timedelta(seconds=1)
    arrived = now - timedelta(milliseconds=100)
    action = robo_moves(
        game,
        robo,
        now=now,
        # Noted after the move arrived: the bot answered another copy of its view.
        delivered_at=(arrived + timedelta(milliseconds=50)).timestamp(),
        arrived_at=arrived.timestamp(),
    )
    assert action.lag_ms == 100


def test_a_hand_over_before_the_last_charge_counts_nothing(bob, robo):
    game = bot_on_move(bob, robo)
    charged = game.clock_charged_at
    action = robo_moves(
        game,
        robo,
        now=charged + timedelta(seconds=1),
        delivered_at=(charged - timedelta(milliseconds=500)).timestamp(),
    )
    assert action.lag_ms == 0


def test_the_credit_stays_within_the_lag_bank(bob, robo):
    game = bot_on_move(bob, robo)
    charged = game.clock_charged_at
    action = robo_moves(
        game,
        robo,
        now=charged + timedelta(seconds=5),
        delivered_at=(charged + timedelta(seconds=4)).timestamp(),
    )
    assert action.lag_ms == services.LAG_QUOTA_MS


def test_a_bot_gets_the_lag_measured_on_its_socket_like_a_person(bob, robo):
    game = bot_on_move(bob, robo)
    action = robo_moves(game, robo, now=game.clock_charged_at + timedelta(seconds=1), lag_ms=200)
    assert action.lag_ms == 200


def test_the_api_charges_a_bot_from_the_hand_over_and_notes_its_answer(bob, robo):
    game = bot_on_move(bob, robo)
    # Robo's view was handed over 250 ms after its clock was last charged, 2 s ago.
    charged = timezone.now() - timedelta(seconds=2)
    Game.objects.filter(pk=game.pk).update(clock_charged_at=charged)
    view = game_view(game=game, viewer=robo)
    handed = charged + timedelta(milliseconds=250)
    delivery.delivered_sync(game.pk, robo.pk, view["ply"], at=handed.timestamp())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.bot_token_issue(bot=robo)[1]}")
    take = next(a for a in view["legal_actions"] if a["type"] in ("take_upcard", "draw_stock"))
    response = client.post(
        f"/api/games/{game.pk}/actions", {"ply": view["ply"], **take}, format="json"
    )
    assert response.status_code == 200, response.content
    assert Action.objects.get(deal__game=game, ply=view["ply"]).lag_ms == 250
    answer = response.json()
    assert answer["your_turn"]  # a draw: the discard is Robo's too
    # The answer handed Robo its next view: its discard is charged from then.
    noted = delivery.delivered_at(game.pk, robo.pk, answer["ply"])
    assert noted is not None and abs(noted - timezone.now().timestamp()) < 5


def test_a_person_is_charged_in_full_without_a_note(bob, alice):
    match = services.match_create(
        player_a=alice, player_b=bob, time_control=services.TimeControl(base_seconds=30)
    )
    game = active_game(match)
    mover = alice if game.to_act == 0 else bob
    view = game_view(game=game, viewer=mover)
    # A note for a person is never read: only a bot's game stream and answers write them.
    delivery.delivered_sync(game.pk, mover.pk, view["ply"], at=timezone.now().timestamp())
    client = APIClient()
    client.force_authenticate(mover.user)
    Game.objects.filter(pk=game.pk).update(clock_charged_at=timezone.now() - timedelta(seconds=1))
    response = client.post(
        f"/api/games/{game.pk}/actions",
        {"ply": view["ply"], **view["legal_actions"][0]},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert Action.objects.get(deal__game=game, ply=view["ply"]).lag_ms == 0


def test_a_note_store_that_is_down_charges_in_full_and_refuses_nothing(bob, robo, monkeypatch):
    down = delivery._Redis("redis://127.0.0.1:1/0")  # nothing listens there
    monkeypatch.setattr(delivery, "_store", functools.cache(lambda: down))
    game = bot_on_move(bob, robo)
    view = game_view(game=game, viewer=robo)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.bot_token_issue(bot=robo)[1]}")
    take = next(a for a in view["legal_actions"] if a["type"] in ("take_upcard", "draw_stock"))
    response = client.post(
        f"/api/games/{game.pk}/actions", {"ply": view["ply"], **take}, format="json"
    )
    assert response.status_code == 200, response.content  # the answer's note failed quietly
    assert Action.objects.get(deal__game=game, ply=view["ply"]).lag_ms == 0
