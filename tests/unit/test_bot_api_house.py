"""The house strategies as external bots (clients/python, ginrummy_bot.house): over the API a
strategy sees what it sees in the server and makes the same decision, move after move.

The cast: bob plays the bot Robo (owned by alice); both sides' decisions are compared.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from accounts import services as accounts
from games import selectors
from games import services as play
from games.engine.actions import Action
from games.engine.bots import make_bot
from games.engine.match import Match as EngineMatch
from games.engine.views import view_for
from games.models import Game, Match

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from ginrummy_bot.house import HouseBot, engine_view

pytestmark = pytest.mark.django_db


def in_server_view(match: Match, index: int):
    """The engine's own view of the deal for the player at ``index``, as the server has it."""
    engine = EngineMatch.from_snapshot(match.state)
    g = engine.game
    return view_for(g.deal, index ^ g.deal_swap)


@pytest.mark.parametrize("strategy", ["greedy", "expert", "random"])
def test_a_house_strategy_decides_over_the_api_as_in_the_server(alice, bob, strategy):
    robo = accounts.bot_register(owner=alice, name="Robo")
    # A set deal (random moves end some deals within a few moves: not this one).
    match = play.match_create(player_a=bob, player_b=robo, best_of=1, target=60, seed=1)
    rng = random.Random(5)
    adapter = type("Adapter", (HouseBot,), {"strategy": strategy})(seed=11)
    adapter.game_begin({"game": None, "match": {"rules": match.rules}})
    compared = 0
    for _ in range(60):
        match.refresh_from_db()
        game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if game is None or match.status != Match.Status.ACTIVE:
            break
        index = game.to_act
        player = (bob, robo)[index]
        api_view = selectors.game_view(game=game, viewer=player)
        server_view = in_server_view(match, index)
        assert sorted(a.to_json()["type"] for a in server_view.legal_actions) == sorted(
            a["type"] for a in api_view["legal_actions"]
        )
        adapter.rules[api_view["id"]] = adapter.rules[None]
        # The same seeds on both sides: a strategy that draws random numbers draws the same.
        in_server = make_bot(strategy, 11).choose(server_view)
        adapter.engine_bot = make_bot(strategy, 11)
        over_api = adapter.choose(api_view)
        rebuilt = engine_view(api_view, adapter.rules[None])
        assert rebuilt.hand == server_view.hand and rebuilt.discards == server_view.discards
        assert Action.from_json(over_api) == in_server, (strategy, api_view["ply"])
        compared += 1
        # Play on with a random legal move, so the comparison sees many kinds of positions.
        move = rng.choice(api_view["legal_actions"])
        play.action_submit(
            game_id=game.pk, player=player, ply=api_view["ply"], action=Action.from_json(move)
        )
    assert compared >= 30
