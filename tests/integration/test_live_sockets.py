"""The table socket over the wire: real ASGI servers, a Redis channel layer, real clients.

Every server here is a subprocess (uvicorn, or gunicorn with its uvicorn workers as deploy/
runs it) on the test database; pushes travel through the Redis channel layer, so they reach a
socket whichever process made the change: a web process (a socket's move or a REST one) or
the Celery worker (a bot's reply). The clients never ask for a resync here: every view they
get was pushed.
"""

from __future__ import annotations

import json
import random

import pytest
from django.conf import settings

from games import services
from games.models import Action, Game
from tests.factories import BotFactory
from tests.integration.live import AsgiServer, TableClient, api, close_code, open_socket
from tests.live import token_for
from tests.play import active_game, pick

pytestmark = pytest.mark.django_db(transaction=True)

#: Seconds a pushed view may take; a client that waits this long never resyncs (see wait_seq).
PUSH_SECONDS = 10


@pytest.fixture
def servers(tmp_path, celery_worker):
    """Start ASGI servers (``servers("uvicorn")``, ``servers("gunicorn")``); stopped after.

    Their channel layer is the Redis this process (and so the session worker) publishes to.
    """
    started: list[AsgiServer] = []

    def start(kind: str = "uvicorn") -> AsgiServer:
        server = AsgiServer(
            log_path=tmp_path / f"{kind}-{len(started)}.log",
            channel_redis_url=settings.CHANNEL_REDIS_URL,
            kind=kind,
        )
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def table(alice, bob):
    """Alice (player A) v Bob, untimed, started."""
    return active_game(services.match_create(player_a=alice, player_b=bob))


def pushed(client: TableClient, seq: int) -> dict:
    """The view at ``seq``, which must arrive as a push (the client never resyncs)."""
    return client.wait_seq(seq, timeout=PUSH_SECONDS, quiet=PUSH_SECONDS)


def a_move(view: dict, rng: random.Random) -> tuple[int, dict]:
    return view["ply"], pick(view["legal_actions"], rng, view["hand"])


def rest_move(server: AsgiServer, game_id: int, token: str, ply: int, action: dict) -> None:
    status, body = api(
        server, "POST", f"/api/games/{game_id}/actions", token, {"ply": ply, **action}
    )
    assert status in (200, 201), body


def hidden_cards(view: dict) -> set[str]:
    """The player's cards the opponent has not seen (known cards were shown at the table)."""
    me = view["you"]
    known = set(view["deal"]["known"][me])
    return set(view["hand"]) - known


def assert_blind(view: dict, opponents_view: dict) -> None:
    """``view`` holds none of the opponent's hidden cards (the last deal is revealed)."""
    assert view["hand"] != opponents_view["hand"]
    text = json.dumps({k: v for k, v in view.items() if k != "last_deal"})
    leaked = {card for card in hidden_cards(opponents_view) if f'"{card}"' in text}
    assert not leaked, f"player {view['you']} sees the opponent's hidden {leaked}"


def test_moves_by_socket_and_by_rest_reach_the_other_socket_as_their_own_view(
    servers, table, alice, bob
):
    server = servers("uvicorn")
    tokens = {0: token_for(alice), 1: token_for(bob)}
    clients = {i: TableClient(server, table.pk, tokens[i], f"player {i}") for i in (0, 1)}
    try:
        for client in clients.values():
            assert pushed(client, 0)["seq"] == 0
        rng = random.Random(7)
        for n in range(8):
            mover = next(i for i, c in clients.items() if c.view["your_turn"])
            ply, action = a_move(clients[mover].view, rng)
            if n % 2 == 0:
                answer = clients[mover].move(f"m{n}", ply, action)
                assert answer["type"] == "ack", answer
            else:
                rest_move(server, table.pk, tokens[mover], ply, action)
            views = {i: pushed(c, n + 1) for i, c in clients.items()}
            assert views[0]["ply"] == views[1]["ply"] == ply + 1
            assert views[0]["you"] == 0 and views[1]["you"] == 1
            assert_blind(views[0], views[1])
            assert_blind(views[1], views[0])
        for client in clients.values():
            # Every change once, in order, each pushed: no gap, no resync, no reconnect.
            assert [v["seq"] for v in client.views] == list(range(9))
            assert client.resyncs == client.reconnects == 0
    finally:
        for client in clients.values():
            client.close()


def test_two_web_processes_and_the_worker_push_through_one_redis(servers, table, alice, bob):
    one, two = servers("uvicorn"), servers("gunicorn")
    tokens = {0: token_for(alice), 1: token_for(bob)}
    a = TableClient(one, table.pk, tokens[0], "alice on server 1")
    b = TableClient(two, table.pk, tokens[1], "bob on server 2")
    try:
        pushed(a, 0), pushed(b, 0)
        rng = random.Random(11)
        for n in range(4):
            mover = a if a.view["your_turn"] else b
            ply, action = a_move(mover.view, rng)
            if mover is b:  # bob's socket on server 2
                assert b.move(f"b{n}", ply, action)["type"] == "ack"
            else:  # alice moves over REST on server 2; her socket is on server 1
                rest_move(two, table.pk, tokens[0], ply, action)
            assert pushed(a, n + 1)["ply"] == pushed(b, n + 1)["ply"] == ply + 1
        assert a.resyncs == a.reconnects == b.resyncs == b.reconnects == 0
    finally:
        a.close()
        b.close()

    # Alice v a bot: her moves go to server 2 over REST, the bot's replies are made by the
    # Celery worker, and each reaches her socket on server 1 as a push from the worker.
    bot = BotFactory(name="Greedy Gus", bot_strategy="greedy")
    match = services.match_create(player_a=alice, player_b=bot)
    game = active_game(match)
    client = TableClient(one, game.pk, tokens[0], "alice v the bot")
    try:
        rng = random.Random(3)
        view, bot_views = pushed(client, 0), 0
        for _ in range(20):
            while not view["your_turn"]:  # only the bot's move, pushed by the worker, is next
                view = pushed(client, client.seq + 1)
                bot_views += 1
            if bot_views >= 3:
                break
            ply, action = a_move(view, rng)
            rest_move(two, game.pk, tokens[0], ply, action)
            view = pushed(client, client.seq + 1)
        assert bot_views >= 3
        assert client.resyncs == client.reconnects == 0
        seqs = [v["seq"] for v in client.views]
        assert seqs == list(range(seqs[0], seqs[-1] + 1))
        assert Action.objects.filter(deal__game=game, player=bot).count() >= 3
    finally:
        client.close()


def test_refusals_and_close_codes_arrive_over_the_wire(servers, table, alice, bob, charlie):
    server = servers("uvicorn")
    url = f"{server.ws_url}/ws/games/{table.pk}"
    with open_socket(url, token_for(alice)) as ws:
        first = json.loads(ws.recv(timeout=PUSH_SECONDS))
        assert first["type"] == "view" and first["view"]["you"] == 0

        def answer() -> dict:
            while True:
                message = json.loads(ws.recv(timeout=PUSH_SECONDS))
                if message["type"] not in ("ping", "presence", "lag"):
                    return message

        for text, code in [
            ("not json", "malformed"),
            ("[1, 2]", "malformed"),
            ('{"type": "dance"}', "unknown_type"),
            ('{"type": "move", "ply": 0, "action": {"type": "draw_stock"}}', "invalid"),
            ("x" * (settings.SOCKET_MAX_MESSAGE_BYTES + 1), "too_large"),
        ]:
            ws.send(text)
            assert answer()["code"] == code
        ws.send(b"\x00binary")
        assert answer()["code"] == "malformed"
        # Still open and answering; nothing was written.
        ws.send('{"type": "ping", "t": 42}')
        assert answer() == {"type": "pong", "t": 42}
    assert not Action.objects.filter(deal__game=table).exists()

    assert close_code(f"{server.ws_url}/ws/games/999999") == 4404
    assert close_code(url, token="not-a-token") == 4401
    # A game under a private challenge (written here directly: a challenge has no game until
    # it is accepted) is not anyone else's to watch.
    challenge = services.challenge_create(challenger=alice, opponent=bob)
    private = Game.objects.create(match=challenge, number=0, seed=1, first_dealer=0)
    assert close_code(f"{server.ws_url}/ws/games/{private.pk}", token_for(charlie)) in (
        4403,
        4404,
    )
    # A spectator may watch the public table, and cannot move at it.
    with open_socket(url, token_for(charlie)) as ws:
        view = json.loads(ws.recv(timeout=PUSH_SECONDS))
        assert view["type"] == "view" and view["view"]["you"] is None
        assert view["view"]["hand"] is None
        ws.send(json.dumps({"type": "move", "id": "x", "ply": 0, "action": {"type": "draw_stock"}}))
        while (message := json.loads(ws.recv(timeout=PUSH_SECONDS)))["type"] != "error":
            pass
        assert message["code"] == "not_a_player"


def negotiated_extensions(url: str) -> str:
    """The extensions a server accepts from a client offering permessage-deflate, as
    browsers do."""
    from websockets.sync.client import connect

    with connect(url, open_timeout=10, close_timeout=2, compression="deflate") as ws:
        return ws.response.headers.get("Sec-WebSocket-Extensions") or ""


def test_the_servers_decline_websocket_compression_unless_told(tmp_path, table):
    """As deploy/ (gunicorn's worker) and the tests' uvicorn serve: compression off (memory
    and CPU a socket); WS_PER_MESSAGE_DEFLATE=1 turns it on in gunicorn's worker."""
    path = f"/ws/games/{table.pk}"
    for kind, env, accepted in [
        ("gunicorn", {}, False),
        ("uvicorn", {}, False),
        ("gunicorn", {"WS_PER_MESSAGE_DEFLATE": "1"}, True),
    ]:
        server = AsgiServer(
            log_path=tmp_path / f"{kind}.log",
            channel_redis_url=settings.CHANNEL_REDIS_URL,
            kind=kind,
            env=env,
        ).start()
        try:
            extensions = negotiated_extensions(f"{server.ws_url}{path}")
        finally:
            server.stop()
        assert ("permessage-deflate" in extensions) is accepted, (kind, env, extensions)
