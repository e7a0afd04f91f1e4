"""A table match over the wire: two phones enter and confirm its hands while the room watches.

On the real ASGI server (uvicorn, the Redis channel layer, PostgreSQL): alice and bob play at
table 1 of a club's Swiss and enter their hands through the REST API from two clients, bob's
table socket shows each hand as it is entered, both phones enter the same hand at the same
moment (one is written, the other is told the sheet moved on), and an anonymous socket on the
event (the projector) sees the result wait for confirmation and then the standings change.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.conf import settings

from games.models import Game, Match, TableHand
from tests.integration.live import AsgiServer, TableClient, api, open_socket
from tests.live import token_for
from tests.tournaments import event_with, humans
from tournaments import services
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(tmp_path):
    started = AsgiServer(
        log_path=tmp_path / "uvicorn.log", channel_redis_url=settings.CHANNEL_REDIS_URL
    )
    started.start()
    yield started
    started.stop()


class EventWatcher:
    """An anonymous socket on ``ws/events/<id>``, read in a thread: every event it was sent."""

    def __init__(self, server: AsgiServer, event_id: int) -> None:
        self.ws = open_socket(f"{server.ws_url}/ws/events/{event_id}")
        self.events: list[dict] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            try:
                message = json.loads(self.ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            except Exception:  # closed: the test is over
                return
            if message.get("type") == "event":
                with self.lock:
                    self.events.append(message)

    def wait_for(self, predicate, timeout: float = 30) -> dict:
        """The first event (of those sent so far, then of those to come) that matches."""
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            with self.lock:
                fresh = self.events[seen:]
                seen = len(self.events)
            for message in fresh:
                if predicate(message["event"]):
                    return message["event"]
            time.sleep(0.05)
        raise AssertionError(f"the event socket never showed it ({seen} events)")

    def close(self) -> None:
        self.stop.set()
        self.ws.close()
        self.thread.join(5)


def table_one(event: dict) -> dict:
    return event["bracket"]["rounds"][0]["pairings"][0]


def wins_of(event: dict, player_id: int) -> int:
    rows = event["standings"]["rows"]
    return next(row["wins"] for row in rows if row["player"]["id"] == player_id)


def test_two_phones_enter_and_confirm_hands_while_the_event_socket_sees_the_standings_change(
    server,
):
    alice, carol, bob, dave = humans(4)  # seeds 1-4: the Swiss pairs 1 v 3 (alice v bob)
    event = event_with([alice, carol, bob, dave], "swiss", venue="tables", seeding="manual")
    for seed, player in enumerate((alice, carol, bob, dave), start=1):
        event.entries.filter(player=player).update(seed=seed)
    services.event_start(event=event)
    match = Pairing.objects.get(event=event, table=1).match
    assert {match.player_a, match.player_b} == {alice, bob} and match.table == 1
    game = Game.objects.get(match=match)
    tokens = {alice.pk: token_for(alice), bob.pk: token_for(bob)}
    counts = lambda a, b: {str(alice.pk): a, str(bob.pk): b}  # noqa: E731

    projector = EventWatcher(server, event.pk)
    bobs_phone = TableClient(server, game.pk, tokens[bob.pk], "bob's table socket")
    try:
        opening = projector.wait_for(lambda e: e["status"] == "running")
        assert (table_one(opening)["match_venue"], table_one(opening)["match_table"]) == (
            "table",
            1,
        )
        assert wins_of(opening, alice.pk) == 0
        bobs_phone.wait_seq(0)

        # Alice enters the first hand from her phone: bob's table socket shows it at once.
        status, sheet = api(
            server,
            "POST",
            f"/api/matches/{match.pk}/hands",
            tokens[alice.pk],
            {"number": 0, "kind": "knock", "knocker": alice.pk, "deadwood": counts(5, 30)},
        )
        assert status == 201, sheet
        pushed = bobs_phone.wait_for(
            lambda m: m["type"] == "view" and len((m["view"]["sheet"] or {}).get("hands", [])) == 1
        )
        assert pushed["view"]["sheet"]["hands"][0]["points"] == 25

        # Both phones enter the deciding gin at the same moment: one hand is written.
        gin = {"number": 1, "kind": "gin", "knocker": alice.pk, "deadwood": counts(0, 40)}
        answers: dict[int, tuple[int, dict]] = {}
        start = threading.Barrier(2)

        def enter(player_id: int) -> None:
            start.wait()
            path = f"/api/matches/{match.pk}/hands"
            answers[player_id] = api(server, "POST", path, tokens[player_id], gin)

        phones = [threading.Thread(target=enter, args=(pk,)) for pk in tokens]
        for phone in phones:
            phone.start()
        for phone in phones:
            phone.join(30)
        statuses = sorted(status for status, _ in answers.values())
        assert statuses == [201, 409], answers
        (refused,) = [body for status, body in answers.values() if status == 409]
        assert refused["code"] == "stale_hand" and refused["hand"] == 2
        assert TableHand.objects.filter(match=match).count() == 2

        # Decided, not yet counted: the projector shows it waiting for confirmation.
        waiting = projector.wait_for(lambda e: table_one(e)["match_confirmation"] == "awaiting")
        assert wins_of(waiting, alice.pk) == 0
        reporter = Match.objects.get(pk=match.pk).reported_by_id
        other = bob.pk if reporter == alice.pk else alice.pk
        status, body = api(server, "POST", f"/api/matches/{match.pk}/confirm", tokens[reporter])
        assert status == 409 and body["code"] == "own_report"
        status, body = api(server, "POST", f"/api/matches/{match.pk}/confirm", tokens[other])
        assert status == 200, body

        # The projector sees the standings change; bob's phone sees the match confirmed.
        final = projector.wait_for(lambda e: wins_of(e, alice.pk) == 1)
        assert table_one(final)["result"] == "played"
        assert wins_of(final, bob.pk) == 0
        bobs_phone.wait_for(
            lambda m: m["type"] == "view" and m["view"]["sheet"]["confirmation"] == "confirmed"
        )
        finished = Match.objects.get(pk=match.pk)
        assert finished.status == Match.Status.FINISHED and finished.winner == alice
    finally:
        bobs_phone.close()
        projector.close()
