"""What a socket may read, and how many sockets a client may hold.

A ``sync`` with nothing new is answered from what was sent (or what this process keeps for
a table's spectators, or its render of the event) without rendering again; every read on
a socket (opening it, ``sync``) draws on the REST API's read throttles under the same keys
as a ``GET`` of the same client; and one web process holds at most so many sockets per
client address and per user (one more is closed with 4429).
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from common.live import stats
from games import services
from tests.live import Socket, fresh_layer, published, run, token_for
from tests.play import active_game
from tests.tournaments import event_with, humans
from tournaments import consumers as event_consumers

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
HOME = ("203.0.113.7", 50000)
ELSEWHERE = ("198.51.100.9", 50000)


@pytest.fixture(autouse=True)
def _fresh_layer(monkeypatch):
    fresh_layer()
    event_consumers._feeds.clear()
    monkeypatch.setattr(event_consumers, "RENDER_INTERVAL", 0.0)


@pytest.fixture
def game(alice, bob):
    return active_game(services.match_create(player_a=alice, player_b=bob))


def a_move(game) -> None:
    """Whoever is to move makes their first legal move."""
    from games.engine.actions import Action
    from games.selectors import game_view

    game.refresh_from_db()
    for player in (game.match.player_a, game.match.player_b):
        view = game_view(game=game, viewer=player)
        if view["legal_actions"]:
            action = view["legal_actions"][0]
            services.action_submit(
                game_id=game.pk,
                player=player,
                ply=view["ply"],
                action=Action.from_parts(
                    action["type"], action.get("card") or None, action.get("melds")
                ),
            )
            return
    raise AssertionError("nobody is to move")


# --- syncs with nothing new -----------------------------------------------------------------


def test_a_sync_with_nothing_new_renders_nothing(game, alice):
    async def scenario():
        renders = stats["view_renders"]
        spectators = [await Socket.open(f"/ws/games/{game.pk}") for _ in range(5)]
        first = {}
        for socket in spectators:
            first[id(socket)] = await socket.receive("view")
        assert stats["view_renders"] == renders + 1  # one render for five spectators
        player = await Socket.open(f"/ws/games/{game.pk}", token=await db(token_for)(alice))
        first[id(player)] = await player.receive("view")
        renders = stats["view_renders"]
        for _ in range(4):
            for socket in [*spectators, player]:
                await socket.send({"type": "sync"})
                again = await socket.receive("view")
                assert again == first[id(socket)]
        assert stats["view_renders"] == renders  # 24 syncs, no render

        await db(a_move)(game)
        await db(published)()
        for socket in [*spectators, player]:
            pushed = await socket.receive("view")
            assert pushed["seq"] == first[id(socket)]["seq"] + 1
        renders = stats["view_renders"]
        for socket in spectators:
            await socket.send({"type": "sync"})
            assert (await socket.receive("view"))["seq"] == pushed["seq"]
        assert stats["view_renders"] == renders  # the push is what they had

        for socket in [*spectators, player]:
            await socket.close()

    run(scenario)


def test_a_sync_renders_when_the_game_changed_unseen(game, alice, monkeypatch):
    """A change whose push never came (a layer that lost it) is found by the sync."""
    from games.consumers import GameConsumer

    async def lost(self, event):
        return None

    async def scenario():
        spectator = await Socket.open(f"/ws/games/{game.pk}")
        seen = await spectator.receive("view")
        monkeypatch.setattr(GameConsumer, "game_view", lost)
        await db(a_move)(game)
        await db(published)()
        renders = stats["view_renders"]
        await spectator.send({"type": "sync"})
        assert (await spectator.receive("view"))["seq"] == seen["seq"] + 1
        assert stats["view_renders"] == renders + 1
        await spectator.send({"type": "sync"})
        assert (await spectator.receive("view"))["seq"] == seen["seq"] + 1
        assert stats["view_renders"] == renders + 1
        await spectator.close()

    run(scenario)


def test_an_event_sync_with_nothing_new_renders_nothing(alice):
    event = event_with(humans(8), "swiss")

    async def scenario():
        renders = stats["event_renders"]
        sockets = [await Socket.open(f"/ws/events/{event.pk}") for _ in range(4)]
        signed_in = await Socket.open(f"/ws/events/{event.pk}", token=await db(token_for)(alice))
        for socket in [*sockets, signed_in]:
            await socket.receive("event")
        assert stats["event_renders"] == renders + 1  # five sockets opening at once: one
        renders = stats["event_renders"]
        for _ in range(5):
            for socket in [*sockets, signed_in]:
                await socket.send({"type": "sync"})
                assert (await socket.receive("event"))["seq"] == event.seq
        assert stats["event_renders"] == renders  # 25 syncs, no render
        for socket in [*sockets, signed_in]:
            await socket.close()

    run(scenario)


# --- the REST API's read throttle -------------------------------------------------------------


def test_socket_reads_and_rest_reads_share_one_allowance(game, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "5/min")
    rest = APIClient(REMOTE_ADDR=HOME[0])

    async def scenario():
        for _ in range(2):
            assert (await db(rest.get)(f"/api/games/{game.pk}")).status_code == 200
        socket = await Socket.open(f"/ws/games/{game.pk}", client=HOME)  # the 3rd read
        assert socket.connected
        await socket.receive("view")
        for _ in range(2):  # the 4th and 5th
            await socket.send({"type": "sync"})
            assert (await socket.receive())["type"] == "view"
        await socket.send({"type": "sync"})
        refused = await socket.receive()
        assert refused["type"] == "error" and refused["code"] == "throttled"
        assert refused["retry_after_ms"] > 1000
        await socket.send({"type": "ping", "t": 1})  # not a read: answered
        assert (await socket.receive("pong"))["t"] == 1
        assert (await db(rest.get)(f"/api/games/{game.pk}")).status_code == 429
        late = await Socket.open(f"/ws/games/{game.pk}", client=HOME)
        told = await late.receive()
        assert told["type"] == "error" and told["code"] == "throttled"
        assert (await late.receive("closed"))["code"] == 4429
        other = await Socket.open(f"/ws/games/{game.pk}", client=ELSEWHERE)  # its own budget
        assert (await other.receive())["type"] == "view"
        await other.close()
        await socket.close()

    run(scenario)


def test_a_signed_in_socket_reads_on_the_users_allowance(game, alice, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "user", "3/min")
    token = token_for(alice)
    rest = APIClient(REMOTE_ADDR=ELSEWHERE[0])
    rest.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    async def scenario():
        assert (await db(rest.get)(f"/api/games/{game.pk}")).status_code == 200
        socket = await Socket.open(f"/ws/games/{game.pk}", token=token, client=HOME)
        await socket.receive("view")
        await socket.send({"type": "sync"})
        assert (await socket.receive())["type"] == "view"
        await socket.send({"type": "sync"})
        assert (await socket.receive())["code"] == "throttled"
        me = await Socket.open("/ws/me", token=token, client=HOME)
        assert (await me.receive())["code"] == "throttled"
        assert (await me.receive("closed"))["code"] == 4429
        await socket.close()

    run(scenario)


# --- sockets per address and per user ------------------------------------------------------


def test_sockets_per_client_address_are_capped(game, settings):
    settings.SOCKET_MAX_PER_ADDRESS = 3

    async def scenario():
        held = [await Socket.open(f"/ws/games/{game.pk}", client=HOME) for _ in range(3)]
        for socket in held:
            await socket.receive("view")
        extra = await Socket.open("/ws/events/999", client=HOME)
        told = await extra.receive()
        assert told["type"] == "error" and told["code"] == "too_many_sockets"
        assert "address" in told["detail"]
        assert (await extra.receive("closed"))["code"] == 4429
        other = await Socket.open(f"/ws/games/{game.pk}", client=ELSEWHERE)
        assert (await other.receive())["type"] == "view"
        await held.pop().close()
        again = await Socket.open(f"/ws/games/{game.pk}", client=HOME)
        assert (await again.receive())["type"] == "view"
        for socket in [*held, other, again]:
            await socket.close()

    run(scenario)


def test_sockets_per_user_are_capped_from_any_address(game, alice, bob, settings):
    settings.SOCKET_MAX_PER_USER = 2
    alice_token, bob_token = token_for(alice), token_for(bob)

    async def scenario():
        first = await Socket.open(f"/ws/games/{game.pk}", token=alice_token, client=HOME)
        second = await Socket.open("/ws/me", token=alice_token, client=ELSEWHERE)
        await first.receive("view")
        await second.receive("summary")
        third = await Socket.open("/ws/me", token=alice_token, client=("192.0.2.1", 1))
        told = await third.receive()
        assert told["code"] == "too_many_sockets" and "user" in told["detail"]
        assert (await third.receive("closed"))["code"] == 4429
        bobs = await Socket.open("/ws/me", token=bob_token, client=HOME)
        assert (await bobs.receive())["type"] == "summary"
        await second.close()
        again = await Socket.open("/ws/me", token=alice_token, client=HOME)
        assert (await again.receive())["type"] == "summary"
        for socket in (first, bobs, again):
            await socket.close()

    run(scenario)


def test_a_read_goes_on_when_the_throttles_cache_is_down(game, monkeypatch):
    def down(self, request, view):
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(SimpleRateThrottle, "allow_request", down)

    async def scenario():
        socket = await Socket.open(f"/ws/games/{game.pk}", client=HOME)
        assert (await socket.receive())["type"] == "view"
        await socket.send({"type": "sync"})
        assert (await socket.receive())["type"] == "view"
        await socket.close()

    run(scenario)
