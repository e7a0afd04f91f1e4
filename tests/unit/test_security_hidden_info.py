"""Hidden information never leaves the server: properties over random games.

For random games (random seeds, rules and lengths, human against human and against a bot),
every answer a player, a spectator or an anonymous caller can get about them is searched by
``tests.hidden.Secrets`` for every secret of the live deal (the seeds, the stock, the hands
the viewer may not see) in every encoding it could take (card names, symbols and labels,
card indices in card fields, 52-bit masks, the seeds in decimal and hex): the REST API's
answers (``last_deal`` included), its refusals and errors, the socket messages of the table,
the event and the player, and the pages of the table, match, replay, event, player, lobby
and leaderboard. The replay of an unfinished match is refused outright.
"""

from __future__ import annotations

import random
import re
from itertools import count

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import selectors, services
from games.engine.actions import Action as EngineAction
from games.engine.cards import card_name, cards_of
from games.engine.match import Match as EngineMatch
from games.models import Deal, Game, Match
from tests.factories import BotFactory, PlayerFactory
from tests.hidden import Secrets, cards_in, hidden_cards, leaked
from tests.live import Socket, fresh_layer, run, token_for
from tests.play import pick
from tests.tournaments import event_with, pairing
from tournaments import services as events

__all__ = ["cards_in", "hidden_cards", "leaked"]  # the older tests' helpers live on here

pytestmark = pytest.mark.django_db

_names = count()


def play_moves(match: Match, players: dict, moves: int, rng) -> None:
    """Play up to ``moves`` quick legal moves of the humans (bots answer in-process); fewer
    if a deal ends in a pause (a knock as early as the second move of a deal: the player to
    act then has no move until both continue)."""
    for _ in range(moves):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        actor = players.get(game.to_act)
        if actor is None:
            return  # a bot's turn that did not come (not in embedded mode)
        if game.paused:
            return
        view = selectors.game_view(game=game, viewer=actor)
        action = EngineAction.from_json(pick(view["legal_actions"], rng, view["hand"]))
        services.action_submit(game_id=game.pk, player=actor, ply=game.ply, action=action)


def clients_of(players: dict) -> dict:
    """A client per viewer: each human player and the spectator signed in (token and session),
    None an anonymous API client, "web-anonymous" a browser without a session."""
    clients = {None: APIClient(), "web-anonymous": Client()}
    for index, player in players.items():
        if player.is_bot:
            continue
        client = APIClient()
        client.force_authenticate(user=player.user)
        client.force_login(player.user)  # the pages too, through a session
        clients[index] = client
    return clients


def viewer_of(index) -> int | None:
    return index if index in (0, 1) else None


def answers(client, match: Match, game: Game, player_ids: list[int]) -> list[tuple[str, str]]:
    """(what, body) of every answer about this match the client can get by GET."""
    paths = [
        f"/api/games/{game.pk}",
        f"/api/matches/{match.pk}",
        f"/api/matches/{match.pk}/replay",
        "/api/matches",
        "/api/matches?status=active&page_size=100",
        "/api/me",
        f"/games/{game.pk}",
        f"/matches/{match.pk}",
        f"/matches/{match.pk}/replay",
        "/lobby",
        "/leaderboard",
    ]
    for pk in player_ids:
        paths += [f"/api/matches?player={pk}", f"/players/{pk}"]
    out = []
    for path in paths:
        response = client.get(path)
        out.append((f"GET {path} -> {response.status_code}", response.content.decode()))
        if path.endswith("/replay") and match.status != Match.Status.FINISHED:
            assert response.status_code in (404, 409), (path, response.status_code)
    return out


def refusals(client, game: Game, secrets: Secrets) -> list[tuple[str, str, set]]:
    """(what, body, cards the request named) of refused moves and other errors."""
    out = []

    def post(what, path, body, sent=()):
        response = client.post(path, body, format="json")
        out.append((f"{what} -> {response.status_code}", response.content.decode(), set(sent)))

    actions = f"/api/games/{game.pk}/actions"
    post("stale ply", actions, {"ply": game.ply + 5, "type": "draw_stock"})
    post("malformed", actions, {"ply": game.ply, "type": "discard", "card": "ZZ"})
    post("no body", actions, {})
    post("continue", f"/api/games/{game.pk}/continue", {})
    for card in sorted(secrets.card_names)[:3]:
        body = {"ply": game.ply, "type": "discard", "card": card}
        post(f"discard {card}", actions, body, {card})
    for card in sorted(secrets.card_names)[:1]:
        body = {"ply": game.ply, "type": "knock", "card": card, "melds": [[card]]}
        post(f"knock {card}", actions, body, {card})
    response = client.get("/api/games/999999999")
    out.append((f"missing game -> {response.status_code}", response.content.decode(), set()))
    return out


def assert_no_leak(secrets: Secrets, what: str, body, sent=()) -> None:
    found = secrets.leaks(body, sent=sent)
    assert not found, f"{what}: {found}"


@settings(
    max_examples=10,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # a failing example is shown as drawn
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=10**6, max_value=2**62),
    moves=st.integers(min_value=0, max_value=60),
    rules=st.sampled_from(["standard", "oklahoma", "straight", "hollywood"]),
    against_bot=st.booleans(),
    rng_seed=st.integers(min_value=0, max_value=1000),
)
def test_no_answer_gives_away_a_secret_of_the_live_deal(
    db, seed, moves, rules, against_bot, rng_seed
):
    cache.clear()  # throttling counters: every example asks a lot
    n = next(_names)
    a = PlayerFactory(user__username=f"hidden-a{n}")
    b = (
        BotFactory(name=f"Hidden bot {n}", bot_strategy="greedy")
        if against_bot
        else PlayerFactory(user__username=f"hidden-b{n}")
    )
    spectator = PlayerFactory(user__username=f"hidden-c{n}")
    match = services.match_create(player_a=a, player_b=b, rules=rules, seed=seed, best_of=3)
    play_moves(match, {0: a} if against_bot else {0: a, 1: b}, moves, random.Random(rng_seed))
    match.refresh_from_db()
    clients = clients_of({0: a, 1: b, "spectator": spectator})

    for index, client in clients.items():
        secrets = Secrets.of(match, viewer_of(index))
        game = Game.objects.filter(match=match).order_by("-number").first()
        for what, body in answers(client, match, game, [a.pk, b.pk]):
            assert_no_leak(secrets, f"{what} as {index}", body)
        live = Game.objects.filter(match=match, status=Game.Status.ACTIVE).first()
        if live is not None and index != "web-anonymous":
            for what, body, sent in refusals(client, live, secrets):
                assert_no_leak(secrets, f"{what} as {index}", body, sent)
        # Refusals wrote nothing.
        assert Match.objects.get(pk=match.pk).ply == match.ply


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", [1_000_003, 2_000_029, 3_000_017])
def test_no_socket_message_gives_away_a_secret_of_the_live_deal(seed):
    """Both players and a spectator on the table socket of a game played through several
    deals: every message (views with their ``last_deal``, acks, refusals of moves naming
    hidden cards, presence) is searched, after every move."""
    fresh_layer()
    n = next(_names)
    a = PlayerFactory(user__username=f"sock-a{n}")
    b = PlayerFactory(user__username=f"sock-b{n}")
    match = services.match_create(player_a=a, player_b=b, seed=seed, best_of=1, target=100)
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    players = {0: a, 1: b}
    tokens = {0: token_for(a), 1: token_for(b)}
    rng = random.Random(seed)

    def move() -> int | None:
        """A move of the player to act; the game's change number after it (None: over)."""
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return None
        player = players[game.to_act]
        data = selectors.game_view(game=game, viewer=player)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
        return Game.objects.values_list("seq", flat=True).get(pk=game.pk)

    def secrets_now() -> dict:
        return {index: Secrets.of(match, index) for index in (0, 1, None)}

    async def scenario():
        sockets = {
            index: await Socket.open(f"/ws/games/{game.pk}", token=tokens.get(index))
            for index in (0, 1, None)
        }
        secrets = await database_sync_to_async(secrets_now)()
        for index, socket in sockets.items():
            assert_no_leak(secrets[index], f"view on connect as {index}", await socket.receive())
        checked = revealed = 0
        for _ in range(120):
            seq = await database_sync_to_async(move)()
            if seq is None:
                break
            secrets = await database_sync_to_async(secrets_now)()
            for index, socket in sockets.items():
                # Every view up to the move's (one, unless a socket resynchronised: its
                # view then stands for the pushes it replaced).
                message = {"seq": -1}
                while message["seq"] < seq:
                    message = await socket.receive("view")
                    revealed += message["view"]["last_deal"] is not None
                    assert_no_leak(secrets[index], f"view {message['seq']} as {index}", message)
                    checked += 1
            for index in (0, 1) if checked % 15 == 3 else ():  # within the rate limit
                # A move naming a hidden card, and a stale one.
                hidden = sorted(secrets[index].card_names)
                for action in [{"type": "discard", "card": c} for c in hidden[:2]] + [
                    {"type": "draw_stock"}
                ]:
                    ply = message["view"]["ply"] + (0 if "card" in action else 3)
                    await sockets[index].send(
                        {"type": "move", "id": "x", "ply": ply, "action": action}
                    )
                    answer = await sockets[index].receive()
                    sent = {action["card"]} if "card" in action else set()
                    assert answer["type"] in ("error", "ack"), answer
                    assert_no_leak(secrets[index], f"{answer} as {index}", answer, sent)
        assert checked >= 60 and revealed, (checked, revealed)
        for index, socket in sockets.items():
            for message in socket.seen:  # the background messages too
                if message["type"] not in ("view", "error"):
                    assert_no_leak(secrets[index], f"{message['type']} as {index}", message)
            await socket.close()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_the_event_and_the_players_own_socket_and_pages_give_nothing_away():
    """Two people play their (timed) event match: during the pause after a deal (the next
    deal dealt but not shown) and in the next deal, the event's API, pages and socket, each
    player's own socket and the pages of the table, match and players are searched."""
    fresh_layer()
    a, b = (PlayerFactory(user__username=f"event-{x}{next(_names)}") for x in "ab")
    spectator = PlayerFactory(user__username=f"event-c{next(_names)}")
    event = event_with([a, b], "single_elim", target=200)
    events.event_start(event=event)
    match = pairing(event, "R1.1").match
    for player in (a, b):
        events.match_ready(match=match, player=player)
    # The pause between deals outlasts the search of every page (slow on a busy machine).
    Match.objects.filter(pk=match.pk).update(pause_seconds=3600)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    by_index = {match.index_of(a.pk): a, match.index_of(b.pk): b}
    clients = clients_of({**by_index, "spectator": spectator})
    tokens = {index: token_for(player) for index, player in by_index.items()}
    paths = [
        "/api/events",
        f"/api/events/{event.pk}",
        f"/api/events/{event.pk}/entries",
        f"/api/events/{event.pk}/bracket",
        f"/api/events/{event.pk}/standings",
        f"/api/events/{event.pk}/standings.csv",
        f"/api/events/{event.pk}/results.csv",
        "/events",
        f"/events/{event.pk}",
    ]

    def search_everything(moment: str) -> None:
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        ids = {"events": event.pk, "matches": match.pk, "games": game.pk, "players": a.pk}
        for index, client in clients.items():
            cache.clear()  # throttling counters: each viewer asks a lot
            secrets = Secrets.of(match, viewer_of(index))
            assert secrets.cards and secrets.seeds
            for path in paths + every_get_path(ids):
                response = client.get(path)
                assert_no_leak(secrets, f"{moment}: GET {path} as {index}", response.content)
            for what, body in answers(client, match, game, [a.pk, b.pk]):
                assert_no_leak(secrets, f"{moment}: {what} as {index}", body)
        secrets = {index: Secrets.of(match, index) for index in (0, 1, None)}

        async def scenario():
            for index in (0, 1, None):
                token = tokens.get(index)
                for path in [f"/ws/events/{event.pk}", f"/ws/games/{game.pk}"] + (
                    ["/ws/me"] if token else []
                ):
                    socket = await Socket.open(path, token=token)
                    assert socket.connected, (path, socket.close_code)
                    message = await socket.receive()
                    assert_no_leak(secrets[index], f"{moment}: {path} as {index}", message)
                    await socket.close()

        run(scenario)

    rng = random.Random(7)
    for _ in range(300):  # to the end of the first deal: the pause before the next
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        if game.paused:
            break
        play_moves(match, by_index, 1, rng)
    assert game.paused
    search_everything("paused")
    for player in (a, b):
        services.game_continue(game_id=game.pk, player=player)
    play_moves(match, by_index, 3, rng)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    search_everything("the second deal")


def every_get_path(ids: dict[str, int]) -> list[str]:
    """Every route of the API and of the pages, its ids filled in from ``ids`` (keyed by the
    route's first word: ``events``, ``matches``, ``games``, ``players``, ``ladders``)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    paths = []
    for route in walk(get_resolver().url_patterns):
        if route.startswith(("admin/", "^", "api/schema", "api/docs", "static")):
            continue
        route = route.replace("^", "").replace("$", "")  # the router's regex routes
        words = [w for w in route.split("/") if w and w != "api"]
        kind = words[0] if words else ""
        if kind in ("login", "logout", "signup", "auth") or route.endswith("logout"):
            continue
        if kind == "how-to-play":  # the rules' worked examples: fixed deals, none of a game's
            continue
        path = re.sub(r"<int:match_id>", str(ids.get("matches", 0)), route)
        path = re.sub(r"<int:player_id>", str(ids.get("players", 0)), path)
        path = re.sub(r"<int:[a-z_]+>|\(\?P<pk>[^)]*\)", str(ids.get(kind, 0)), path)
        if "<" not in path:
            paths.append("/" + path)
    return paths


# --- the checker is not blind, and not jumpy ---------------------------------------------------


@pytest.fixture
def live(alice, bob):
    """Alice v Bob, a few moves into their first deal; the live deal from the engine."""
    match = services.match_create(player_a=alice, player_b=bob, seed=987_654_321)
    play_moves(match, {0: alice, 1: bob}, 3, random.Random(1))
    match.refresh_from_db()
    engine = EngineMatch.from_snapshot(match.state)
    return match, engine.game


def test_the_checker_finds_every_encoding_of_a_hidden_card(live):
    match, game = live
    deal, swap = game.deal, game.deal_swap
    secrets = Secrets.of(match, 0)  # Alice's secrets
    theirs = cards_of(deal.hands[1 ^ swap] & ~deal.known[1 ^ swap])
    card = theirs[0]
    name = card_name(card)
    rank = {"T": "10"}.get(name[0], name[0])
    symbol = rank + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[name[1]]
    assert secrets.leaks({"opponent": {"hand": [name]}})
    assert secrets.leaks(f"<p>{symbol}</p>")
    assert secrets.leaks(f'<span class="sr-only">{_label(name)}</span>')
    assert secrets.leaks({"opponent": {"cards": [card]}})  # an index in a card field
    assert secrets.leaks({"deal": {"stock": [deal.stock[0]]}})
    assert secrets.leaks(f'<div data-card="{card}"></div>')
    mine = cards_of(deal.hands[0 ^ swap])
    assert not secrets.leaks({"hand": [card_name(c) for c in mine], "cards": mine})
    assert not secrets.leaks({"error": f"{name} is not in your hand"}, sent={name})
    assert secrets.leaks({"error": f"{name} is not in your hand"})


def test_the_checker_finds_seeds_and_masks_in_decimal_hex_and_binary(live):
    match, game = live
    deal, swap = game.deal, game.deal_swap
    secrets = Secrets.of(match, 0)
    opponent = deal.hands[1 ^ swap]
    stock = sum(1 << c for c in deal.stock)
    for body in (
        f'<p class="meta">seed <code>{match.seed}</code></p>',
        {"seed": str(match.seed)},
        {"deal_seed": deal.seed},
        {"game": hex(game.seed)},
        f"<!-- {deal.seed:X} -->",
        {"opponent_mask": opponent},
        {"stock": f"{stock:#x}"},
        {"bits": f"{opponent:052b}"},
    ):
        assert secrets.leaks(body), body
    own = deal.hands[0 ^ swap]
    assert not secrets.leaks({"mask": own})  # the viewer's own hand is no secret to them


def test_the_checker_leaves_numbers_outside_card_fields_alone(live):
    match, _ = live
    secrets = Secrets.of(match, 0)
    hidden = sorted(secrets.cards)
    body = {
        "id": hidden[0],
        "ply": hidden[1],
        "scores": {"hand_points": hidden[:2], "games_won": [0, 1]},
        "deal": {"hand_sizes": [10, 11], "stock_size": hidden[2], "number": hidden[3]},
        "opponent": {"card_count": hidden[4]},
        "created_at": "2026-12-01T15:46:07Z",
        "seed_commitment": match.seed_commitment,
    }
    assert secrets.leaks(body) == []
    assert secrets.leaks(f'<a href="/games/{hidden[0]}" data-game="{hidden[1]}">x</a>') == []


def test_the_checker_holds_last_deal_to_the_finished_deal_it_shows(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, seed=55_555_555, target=200)
    rng = random.Random(3)
    while not Deal.objects.filter(game__match=match, status=Deal.Status.FINISHED).exists():
        play_moves(match, {0: alice, 1: bob}, 1, rng)
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    view = selectors.game_view(game=game, viewer=alice)
    secrets = Secrets.of(match, 0)
    assert view["last_deal"]["hands"] and secrets.leaks(view) == []
    live_deal = EngineMatch.from_snapshot(match.state).game.deal
    now = [[card_name(c) for c in cards_of(live_deal.hands[s])] for s in (0, 1)]
    forged = {**view, "last_deal": {**view["last_deal"], "hands": now}}
    assert secrets.leaks(forged)
    # A finished deal dealt from the live deal's seed (a duplicate deal) is searched whole.
    duplicate = Secrets(cards=secrets.cards, duplicate_reveals=secrets.reveals, reveals=frozenset())
    shown = {c for hand in view["last_deal"]["hands"] for c in hand}
    assert (not shown & secrets.card_names) or duplicate.leaks(view)


def test_a_finished_match_has_no_secrets_left(alice):
    bot = BotFactory(name="Finisher", bot_strategy="greedy")
    match = services.match_create(player_a=alice, player_b=bot, seed=123_456_789)
    services.match_forfeit(match=match, loser=alice, reason="resigned")
    secrets = Secrets.of(match, None)
    assert secrets.leaks({"seed": str(match.seed), "hand": ["AS"]}) == []


def _label(name: str) -> str:
    ranks = {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
    return f"{ranks.get(name[0], name[0])} of {suits[name[1]]}"
