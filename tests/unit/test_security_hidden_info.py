"""Hidden information never leaves the server: a property test over random games.

For random games (random seeds, rules and lengths, human against human and against a bot),
every endpoint a player can call is asked by each player, by a spectator and anonymously, and
every answer (successes, refusals and errors alike) is searched for the cards that viewer
may not know: the opponent's hand (but for the cards known to have been picked up from the
pile) and the whole stock, for a spectator both hands. The replay of an unfinished match is
refused outright.
"""

from __future__ import annotations

import re
from itertools import count

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import selectors, services
from games.engine.actions import Action as EngineAction
from games.engine.cards import card_name, cards_of
from games.engine.match import Match as EngineMatch
from games.models import Game, Match
from tests.factories import BotFactory, PlayerFactory

pytestmark = pytest.mark.django_db

#: A card in any text: rank and suit as the API writes them ("TS", "7H"), standing alone.
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC])(?![A-Za-z0-9])")


def hidden_cards(match: Match, viewer_index: int | None) -> set[str]:
    """The cards of the deal in play that this viewer may not know.

    ``viewer_index`` is 0 or 1 for player A or B, None for anyone else.
    """
    match.refresh_from_db()
    if match.state is None or match.status != Match.Status.ACTIVE:
        return set()
    engine = EngineMatch.from_snapshot(match.state)
    if engine.is_over:
        return set()
    game = engine.game
    deal = game.deal
    mask = 0
    for seat in (0, 1):
        if viewer_index is not None and seat == viewer_index ^ game.deal_swap:
            continue  # the viewer's own hand
        mask |= deal.hands[seat] & ~deal.known[seat]
    for card in deal.stock:
        mask |= 1 << card
    return {card_name(c) for c in cards_of(mask)}


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def leaked(text: str, hidden: set[str], sent: set[str] = frozenset()) -> set[str]:
    """Hidden cards named in ``text``, but for those the caller named itself."""
    return (cards_in(text) & hidden) - set(sent)


def without_last_deal(body: dict) -> dict:
    """A game view without the reveal of the last finished deal (a different, older deal)."""
    return {k: v for k, v in body.items() if k != "last_deal"}


_names = count()


def play_moves(match: Match, players: dict, moves: int, rng) -> None:
    """Play up to ``moves`` random legal moves of the humans (bots answer in-process)."""
    for _ in range(moves):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        actor = players.get(game.to_act)
        if actor is None:
            return  # a bot's turn that did not come (not in embedded mode)
        view = selectors.game_view(game=game, viewer=actor)
        action = EngineAction.from_json(rng.choice(view["legal_actions"]))
        services.action_submit(game_id=game.pk, player=actor, ply=game.ply, action=action)


def answers(match: Match, clients: dict, index: int | None, world: dict) -> list[tuple[str, str]]:
    """(what, text) of every answer this viewer gets from the endpoints about this game."""
    client = clients[index]
    game = Game.objects.filter(match=match).order_by("-number").first()
    out = []
    for path in (
        f"/api/games/{game.pk}",
        f"/api/matches/{match.pk}",
        f"/api/matches/{match.pk}/replay",
        "/api/matches",
        f"/api/matches?player={world['a']}",
        "/api/matches?status=active&page_size=100",
        f"/games/{game.pk}",
        f"/matches/{match.pk}",
        f"/matches/{match.pk}/replay",
    ):
        response = client.get(path)
        text = response.content.decode(errors="replace")
        if path == f"/api/games/{game.pk}" and response.status_code == 200:
            import json

            text = json.dumps(without_last_deal(response.json()))
        out.append((f"GET {path} -> {response.status_code}", text))
        if path.endswith("/replay") and path.startswith("/api/") and match.status != "finished":
            assert response.status_code in (404, 409), text
    return out


def error_answers(match: Match, client, game: Game, hidden: set[str]) -> list[tuple[str, str, set]]:
    """Refused moves: a stale ply, and a discard of each of a few hidden cards."""
    out = []
    body = {"ply": game.ply + 5, "type": "draw_stock"}
    response = client.post(f"/api/games/{game.pk}/actions", body, format="json")
    out.append((f"stale ply -> {response.status_code}", response.content.decode(), set()))
    for card in sorted(hidden)[:3]:
        body = {"ply": game.ply, "type": "discard", "card": card}
        response = client.post(f"/api/games/{game.pk}/actions", body, format="json")
        out.append((f"discard {card} -> {response.status_code}", response.content.decode(), {card}))
    return out


@settings(
    max_examples=15,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=2**62),
    moves=st.integers(min_value=0, max_value=60),
    rules=st.sampled_from(["standard", "oklahoma", "straight", "hollywood"]),
    against_bot=st.booleans(),
    rng_seed=st.integers(min_value=0, max_value=1000),
)
def test_no_answer_names_a_card_its_viewer_may_not_know(
    db, seed, moves, rules, against_bot, rng_seed
):
    import random

    from django.core.cache import cache

    cache.clear()  # throttling counters: every example asks a lot
    n = next(_names)
    a = PlayerFactory(user__username=f"hidden-a{n}")
    b = (
        BotFactory(name=f"Hidden bot {n}", bot_strategy="greedy")
        if against_bot
        else (PlayerFactory(user__username=f"hidden-b{n}"))
    )
    spectator = PlayerFactory(user__username=f"hidden-c{n}")
    match = services.match_create(player_a=a, player_b=b, rules=rules, seed=seed, best_of=3)
    play_moves(match, {0: a} if against_bot else {0: a, 1: b}, moves, random.Random(rng_seed))
    match.refresh_from_db()

    clients = {None: APIClient()}
    for index, player in ((0, a), (1, b), ("spectator", spectator)):
        if player.is_bot:
            continue
        client = APIClient()
        client.force_authenticate(user=player.user)
        # The web pages too, through a session.
        client.force_login(player.user)
        clients[index] = client
    web_anonymous = Client()
    clients["web-anonymous"] = web_anonymous
    world = {"a": a.pk}

    for index, client in clients.items():
        viewer = index if index in (0, 1) else None
        hidden = hidden_cards(match, viewer)
        for what, text in answers(match, clients, index, world):
            assert not leaked(text, hidden), (
                f"{what} as {index} names hidden {leaked(text, hidden)}"
            )
        game = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if game is not None and index is not None and index != "web-anonymous":
            for what, text, sent in error_answers(match, client, game, hidden):
                found = leaked(text, hidden, sent)
                assert not found, f"{what} as {index} names hidden {found}"
        # Refusals wrote nothing.
        assert Match.objects.get(pk=match.pk).ply == match.ply


def test_the_checker_finds_a_leak():
    """The property above would see a hand in any answer: its checker is not blind."""
    text = '{"hand": ["TS", "7H", "AC"], "id": 12, "name": "ASH"}'
    assert leaked(text, {"7H", "KD"}) == {"7H"}
    assert leaked(text, {"7H"}, sent={"7H"}) == set()
