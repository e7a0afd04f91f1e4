"""A view's deal history names who made each move, in the match's player order, and what
kind of move it was, never a card drawn from the stock: for both players and a
spectator, after every move of a match."""

import random

import pytest

from games.models import Action, Deal, Game
from games.services import match_create
from tests.unit.test_kept_engines import fresh, play_one, views_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_history_names_each_moves_player_and_kind(alice, bob):
    match = match_create(player_a=alice, player_b=bob, seed=11, best_of=1, target=100)
    index = {alice.pk: 0, bob.pk: 1}
    rng = random.Random(11)
    players_seen, checked = set(), 0
    game = fresh(Game.objects.get(match=match).pk)
    while game is not None and checked < 300:
        deal = Deal.objects.filter(game=game).order_by("-number").first()
        moves = list(Action.objects.filter(deal=deal).order_by("ply"))
        for view in views_of(game):
            if view["deal"] is None:
                continue  # between deals: no deal in play is shown
            history = view["deal"]["history"]
            assert [h["player"] for h in history] == [index[m.player_id] for m in moves]
            assert [h["type"] for h in history] == [m.kind for m in moves]
            assert all(h["card"] is None for h in history if h["type"] == "draw_stock")
            players_seen.update(h["player"] for h in history)
            checked += 1
        game = play_one(match, rng)
    assert checked >= 100 and players_seen == {0, 1}
