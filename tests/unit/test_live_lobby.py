"""The lobby socket ws/lobby: the open games on connect and after every change, to everyone;
the poster of a taken game hears which table to open (nobody else does); a poster's lobby
socket closing cancels their open games."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import seeks
from games.models import Seek
from tests.live import Socket, fresh_layer, published, run, token_for

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


async def lobby(player=None) -> Socket:
    """A lobby socket (signed in as ``player``, or anonymous), past its first list."""
    token = None if player is None else await db(token_for)(player)
    socket = await Socket.open("/ws/lobby", token=token)
    assert socket.connected, socket.close_code
    socket.first = await socket.receive("seeks")
    return socket


def ids(message: dict) -> list[int]:
    return [seek["id"] for seek in message["seeks"]]


def test_everyone_sees_a_posted_game_and_the_poster_hears_who_took_it(alice, bob, charlie):
    async def scenario():
        waiting = await db(seeks.seek_create)(poster=charlie)
        a, b, watcher = await lobby(alice), await lobby(bob), await lobby()
        assert ids(watcher.first) == [waiting.pk]
        assert watcher.first["seeks"][0]["poster"] == {
            "id": charlie.pk,
            "name": "Charlie",
            "kind": "human",
            "rating": 1500,
        }
        posted = await db(seeks.seek_create)(poster=alice, target=100)
        for socket in (a, b, watcher):
            assert ids(await socket.receive("seeks")) == [waiting.pk, posted.pk]
        taken = await db(seeks.seek_join)(seek=posted, player=bob)
        await db(published)()
        told = await a.receive("seek_taken")
        assert (told["seek"], told["match"]) == (posted.pk, taken.match_id)
        assert told["url"] == f"/games/{told['game']}" and told["opponent"]["id"] == bob.pk
        assert ids(await watcher.receive("seeks")) == [waiting.pk]
        await a.close()
        await watcher.close()
        # Last: a receive that times out ends the socket's application.
        assert await b.nothing("seek_taken"), "only the poster is told"

    run(scenario)


def test_the_posters_lobby_socket_closing_cancels_their_games(alice, bob):
    async def scenario():
        a, b = await lobby(alice), await lobby(bob)
        mine = await db(seeks.seek_create)(poster=alice)
        theirs = await db(seeks.seek_create)(poster=bob)
        assert ids(await b.receive("seeks")) == [mine.pk]
        assert ids(await b.receive("seeks")) == [mine.pk, theirs.pk]
        await a.close()
        await db(published)()
        assert ids(await b.receive("seeks")) == [theirs.pk]
        await b.close()

    run(scenario)
    assert Seek.objects.get(poster=alice).status == Seek.Status.CANCELLED
    assert Seek.objects.get(poster=bob).status == Seek.Status.CANCELLED, "bob left too"


def test_an_anonymous_watcher_leaving_cancels_nothing(alice):
    async def scenario():
        await db(seeks.seek_create)(poster=alice)
        watcher = await lobby()
        assert len(watcher.first["seeks"]) == 1
        await watcher.close()

    run(scenario)
    assert Seek.objects.get(poster=alice).status == Seek.Status.OPEN
