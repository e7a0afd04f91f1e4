"""The channel layer's Redis comes back empty in the middle of a game.

A real uvicorn server pushes through a redis-server of this test's own (the shared one is never
touched), with either layer (``CHANNEL_LAYER``: pub/sub, the default, or Channels' lists).
Under two connected players Redis either crashes and restarts or loses its data while its
connections stay up (a failover to an empty replica). With lists the sockets' group
memberships are gone and their pushes simply stop; with pub/sub a crash drops the server's
subscriptions until it subscribes again, and a flush loses nothing (subscriptions are not
data). The clients do what a client should (reconnect on a close, resync when the pushes
stop, resend an unanswered move with the same id) and play on. At the end each client's view
is exactly the REST API's, and the log holds every move once.
"""

from __future__ import annotations

import random

import pytest

from games import services
from games.models import Action, Game
from tests.integration.live import AsgiServer, RedisServer, TableClient, api
from tests.live import token_for
from tests.play import active_game, pick

pytestmark = pytest.mark.django_db(transaction=True)

MOVES_BEFORE, MOVES_AFTER = 8, 12


@pytest.fixture
def channel_redis(tmp_path):
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=["pubsub", "lists"])
def layer(request):
    return request.param


@pytest.fixture
def server(tmp_path, channel_redis, celery_worker, layer):
    web = AsgiServer(
        log_path=tmp_path / "uvicorn.log",
        channel_redis_url=channel_redis.url,
        env={"CHANNEL_LAYER": layer},
    )
    yield web.start()
    web.stop()


def subscribed(redis_url: str, game_id: int) -> int:
    """How many processes are subscribed to the table's player groups (pub/sub layer)."""
    import redis

    names = [f"ginrummy:live:0:__group__game.{game_id}.{i}" for i in (0, 1)]
    counts = redis.Redis.from_url(redis_url).pubsub_numsub(*names)
    return min(count for _, count in counts)


@pytest.mark.parametrize("fault", ["crash", "flush"])
def test_a_channel_layer_back_empty_loses_and_doubles_no_move(
    server, channel_redis, alice, bob, fault, layer
):
    game = active_game(services.match_create(player_a=alice, player_b=bob))
    tokens = {0: token_for(alice), 1: token_for(bob)}
    clients = {i: TableClient(server, game.pk, tokens[i], f"player {i}") for i in (0, 1)}
    sent: list[str] = []
    rng = random.Random(5)

    def play(moves: int) -> None:
        for _ in range(moves):
            seq = Game.objects.get(pk=game.pk).seq
            views = {i: c.wait_seq(seq, timeout=30) for i, c in clients.items()}
            mover = next(i for i, view in views.items() if view["your_turn"])
            view = views[mover]
            client_id = f"move-{len(sent)}"
            action = pick(view["legal_actions"], rng, view["hand"])
            answer = clients[mover].move(client_id, view["ply"], action, timeout=30)
            assert answer["type"] == "ack", answer
            sent.append(client_id)

    try:
        play(MOVES_BEFORE)
        before = {i: (c.reconnects, c.resyncs) for i, c in clients.items()}
        channel_redis.restart() if fault == "crash" else channel_redis.flush()
        play(MOVES_AFTER)

        seq = Game.objects.get(pk=game.pk).seq
        for i, client in clients.items():
            final = client.wait_seq(seq, timeout=30)
            status, rest = api(server, "GET", f"/api/games/{game.pk}", tokens[i])
            assert status == 200, rest
            assert final == rest, f"player {i}'s last view is not the REST API's"
        # Every move in the log exactly once, in the order sent (client ids).
        logged = Action.objects.filter(deal__game=game).order_by("deal__number", "ply")
        assert list(logged.values_list("client_id", flat=True)) == sent
        assert len(sent) == MOVES_BEFORE + MOVES_AFTER
        after = {i: (c.reconnects, c.resyncs) for i, c in clients.items()}
        print(f"(reconnects, resyncs) before the {fault} {before}, at the end {after}")
        if layer == "lists":
            # The fault was felt: after it, each client reconnected or resynchronised.
            assert all(after[i] != before[i] for i in clients), (before, after)
        else:
            # The Redis the server ends on (a new process after a crash) carries its
            # subscriptions: the pushes above came through them.
            assert subscribed(channel_redis.url, game.pk) == 1
    finally:
        for client in clients.values():
            client.close()
