"""A flood of ``sync`` on anonymous event sockets, timed against a player's moves.

On the real ASGI server (uvicorn, the Redis channel layer, PostgreSQL): two people play on
their table sockets while four anonymous sockets ask a 128-entrant Swiss event for itself
as fast as they may. Each ``sync`` with nothing new is answered from what was sent, and
every read draws on the REST API's throttle of the address, so the flood keeps no
database thread busy and the players' acknowledgements stay as quick as without it.

``python bench/socket_flood.py`` runs this test and prints the figures.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
from collections import Counter

import pytest
from django.conf import settings

from games import services as play
from tests.integration.live import AsgiServer, TableClient, open_socket
from tests.live import token_for
from tests.play import active_game
from tests.tournaments import event_with, humans
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

FLOODERS = 4
#: Moves timed in each phase (quiet, then flooded).
MOVES = int(os.environ.get("FLOOD_MOVES", "30"))
ENTRANTS = int(os.environ.get("FLOOD_ENTRANTS", "128"))


@pytest.fixture
def server(tmp_path):
    started = AsgiServer(
        log_path=tmp_path / "uvicorn.log", channel_redis_url=settings.CHANNEL_REDIS_URL
    )
    started.start()
    yield started
    started.stop()


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def any_but_an_ending(view: dict, rng: random.Random) -> dict:
    """A legal move that does not end the deal (the game goes on for the whole test)."""
    legal = [a for a in view["legal_actions"] if a["type"] not in ("knock", "gin", "big_gin")]
    return rng.choice(legal or view["legal_actions"])


def timed_moves(players: dict[int, TableClient], count: int, rng: random.Random, tag: str):
    """Play ``count`` moves on the sockets; each one's time from sending to its ``ack``."""
    acks: list[float] = []
    n = 0
    while len(acks) < count:
        movers = [c for c in players.values() if c.view and c.view["your_turn"]]
        if not movers:  # between deals: both ready for the next
            seq = max(c.seq for c in players.values())
            for c in players.values():
                c.send({"type": "continue", "id": f"{tag}c{n}"})
            for c in players.values():
                c.wait_seq(seq + 1)
            n += 1
            continue
        mover = movers[0]
        view = mover.view
        action = any_but_an_ending(view, rng)
        seq = max(c.seq for c in players.values())
        started = time.monotonic()
        answer = mover.move(f"{tag}{n}", view["ply"], action)
        acks.append(time.monotonic() - started)
        assert answer["type"] == "ack", answer
        for c in players.values():
            c.wait_seq(seq + 1)
        n += 1
    return acks


def flood(url: str, stop: threading.Event, tally: Counter, lock: threading.Lock) -> None:
    """One anonymous socket sending ``sync`` as fast as its answers come back. (The whole
    event is not parsed here: this process's players would wait for the parsing.)"""
    with open_socket(url) as ws:
        ws.recv(timeout=60)
        while not stop.is_set():
            ws.send(json.dumps({"type": "sync"}))
            text = ws.recv(timeout=60)
            started = time.monotonic()
            if text.startswith('{"type":"event"'):
                kind = "event"
            else:  # an error: the REST API's read throttle, or the socket's message rate
                message = json.loads(text)
                kind = message["type"]
                if kind == "error":
                    kind = "throttled_reads" if "reads" in message["detail"] else message["code"]
            with lock:
                tally[kind] += 1
                tally["bytes"] += len(text)
            if kind != "event":  # a flooder that waits as told sends no less
                time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))


def test_a_sync_flood_does_not_slow_a_players_moves(server, alice, bob):
    event = event_with(humans(ENTRANTS), "swiss")
    services.event_start(event=event)
    game = active_game(play.match_create(player_a=alice, player_b=bob))
    tokens = {0: token_for(alice), 1: token_for(bob)}
    players = {i: TableClient(server, game.pk, tokens[i], f"player {i}") for i in (0, 1)}
    rng = random.Random(5)
    try:
        for client in players.values():
            client.wait_seq(0)
        timed_moves(players, 4, rng, "warm")
        quiet = timed_moves(players, MOVES, rng, "q")

        stop, tally, lock = threading.Event(), Counter(), threading.Lock()
        url = f"{server.ws_url}/ws/events/{event.pk}"
        flooders = [
            threading.Thread(target=flood, args=(url, stop, tally, lock), daemon=True)
            for _ in range(FLOODERS)
        ]
        for thread in flooders:
            thread.start()
        time.sleep(1.0)  # the flood under way
        flooded = timed_moves(players, MOVES, rng, "f")
        stop.set()
        for thread in flooders:
            thread.join(60)
    finally:
        for client in players.values():
            client.close()

    figures = {
        "quiet_p50_ms": round(statistics.median(quiet) * 1000),
        "quiet_p95_ms": round(p95(quiet) * 1000),
        "flooded_p50_ms": round(statistics.median(flooded) * 1000),
        "flooded_p95_ms": round(p95(flooded) * 1000),
        "flood_answers": dict(tally),
    }
    print(f"\nsocket flood ({FLOODERS} anonymous event sockets, {ENTRANTS} entrants):", figures)
    # The flood costs the players' moves little: within twice the quiet p95 and 150 ms more.
    assert p95(flooded) <= 2 * p95(quiet) + 0.15, figures
    # Its reads ran out of the address's REST allowance (THROTTLE_ANON_RATE, 120 a minute,
    # the opening reads included) and were refused from then on.
    assert tally["throttled_reads"] > 0 and tally["event"] <= 120, figures
