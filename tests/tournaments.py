"""Helpers for tournament tests: bot fields, quick match formats, reading brackets."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from games.models import Match
from tests.factories import BotFactory
from tournaments import services
from tournaments.models import Event, Pairing

#: A quick match format for tests: one game to 50 (a deal or two between greedy bots).
QUICK = {"best_of": 1, "target": 50}


def bots(count: int, strategy: str = "greedy", prefix: str = "Bot") -> list:
    return [BotFactory(name=f"{prefix} {i}", bot_strategy=strategy) for i in range(1, count + 1)]


def event_with(players, format: str, **options) -> Event:
    """An event open for registration with ``players`` entered by an organiser."""
    event = services.event_create(name=f"{format} test", format=format, **{**QUICK, **options})
    services.event_open_registration(event=event)
    for player in players:
        services.entry_add(event=event, player=player)
    event.refresh_from_db()
    return event


def pairing(event: Event, key: str) -> Pairing:
    return Pairing.objects.select_related("match", "entry_a", "entry_b", "winner").get(
        event=event, key=key
    )


def played(event: Event) -> list[Pairing]:
    """Pairings decided by a match, in order."""
    return list(
        Pairing.objects.filter(event=event, match__status=Match.Status.FINISHED)
        .exclude(result="")
        .order_by("round__number", "table")
    )


def humans(count: int, prefix: str = "player") -> list:
    """``count`` human players (with users), named player1, player2, ..."""
    from tests.factories import PlayerFactory

    return [PlayerFactory(user__username=f"{prefix}{i}") for i in range(1, count + 1)]


def by_seed(event: Event) -> dict:
    """Seed -> player of the event's seeded entries."""
    return {e.seed: e.player for e in event.entries.select_related("player") if e.seed}


def decide(event: Event, key: str, winner) -> Pairing:
    """End the pairing's match with ``winner`` winning (the other player forfeits)."""
    from games import services as play

    p = pairing(event, key)
    loser = p.entry_b.player if p.entry_a.player_id == winner.pk else p.entry_a.player
    play.match_forfeit(match=p.match, loser=loser, reason="test")
    return pairing(event, key)


class Receiver:
    """An HTTP server in a thread that records every POST and answers the given statuses."""

    def __init__(self, statuses=()):
        self.statuses = list(statuses)
        self.requests: list[tuple[dict, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.end_headers()
                self.wfile.write(f"answer {len(receiver.requests)}".encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def types(self) -> list[str]:
        return [headers["X-Ginrummy-Event"] for headers, _ in self.requests]
