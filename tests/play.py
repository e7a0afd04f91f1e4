"""Helpers for play tests: start matches, read views, move through the API."""

from __future__ import annotations

import random

from games import services
from games.engine.actions import Action as EngineAction
from games.models import Game, Match


def active_game(match: Match) -> Game:
    return Game.objects.get(match=match, status=Game.Status.ACTIVE)


def view(client, game: Game) -> dict:
    response = client.get(f"/api/games/{game.pk}")
    assert response.status_code == 200, response.content
    return response.json()


def move(client, game: Game, ply: int, action: dict):
    return client.post(f"/api/games/{game.pk}/actions", {"ply": ply, **action}, format="json")


def pick(legal: list[dict], rng: random.Random, hand: list[str] | None = None) -> dict:
    """A quick legal move: end the deal whenever it may; with the hand, throw the best card.

    Keeps test games short: random discards almost never reach a knock.
    """
    endings = [a for a in legal if a["type"] in ("knock", "gin", "big_gin")]
    if endings:
        return rng.choice(endings)
    discards = [a for a in legal if a["type"] == "discard"]
    if hand and discards and rng.random() < 0.9:
        from games.engine.cards import card_name, mask_of, parse_cards
        from games.engine.melds import best_discard

        card, _ = best_discard(mask_of(parse_cards(hand)))
        if card is not None and {"type": "discard", "card": card_name(card)} in discards:
            return {"type": "discard", "card": card_name(card)}
    return rng.choice(legal)


def play_out(match: Match, players: dict, rng: random.Random, limit: int = 5000) -> Match:
    """Play a match to its end through the services, each human moving at random."""
    for _ in range(limit):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        game = active_game(match)
        player = players[game.to_act]
        from games.selectors import game_view

        data = game_view(game=game, viewer=player)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
    raise AssertionError("the match did not end")
