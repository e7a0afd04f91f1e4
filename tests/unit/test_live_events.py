"""The event socket ws/events/<id>: the event on connect and again after every change."""

from __future__ import annotations

import math
import time

import pytest
from channels.db import database_sync_to_async

from common.live import stats
from games import services as play
from tests.factories import PlayerFactory, UserFactory
from tests.live import Socket, fresh_layer, published, run, token_for
from tests.tournaments import by_seed, event_with, humans, pairing
from tournaments import consumers, services
from tournaments.models import Event, Pairing

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_layer(monkeypatch):
    """A layer with no queues of an earlier test's loop, and no render interval to wait."""
    fresh_layer()
    consumers._feeds.clear()
    monkeypatch.setattr(consumers, "RENDER_INTERVAL", 0.0)
    yield


db = database_sync_to_async


async def next_event(socket: Socket, *, after: int = -1) -> dict:
    """The next ``event`` message newer than seq ``after``."""
    while True:
        message = await socket.receive("event")
        if message["seq"] > after:
            return message


def test_connecting_sends_the_event_its_bracket_and_standings_as_the_rest_api(alice, client):
    event = event_with(humans(3), "single_elim")

    async def scenario():
        s = await Socket.open(f"/ws/events/{event.pk}")
        first = await s.receive("event")
        await s.close()
        return first

    first = run(scenario)
    assert first["seq"] == Event.objects.get(pk=event.pk).seq > 0
    data = first["event"]
    rest = client.get(f"/api/events/{event.pk}").json()
    assert {k: v for k, v in data.items() if k not in ("bracket", "standings")} == rest
    assert data["bracket"] == client.get(f"/api/events/{event.pk}/bracket").json()
    assert data["standings"] == client.get(f"/api/events/{event.pk}/standings").json()
    assert data["status"] == "registration" and data["your_entry"] is None


def test_the_start_and_every_result_reach_the_watchers_with_a_higher_seq():
    players = humans(4)
    event = event_with(players, "single_elim")

    async def scenario():
        watcher = await Socket.open(f"/ws/events/{event.pk}")
        first = await watcher.receive("event")
        await db(services.event_start)(event=event)
        started = await next_event(watcher, after=first["seq"])
        assert started["event"]["status"] == "running"
        assert started["event"]["bracket"]["rounds"][0]["name"] == "Semifinals"
        # A match finishing (the games signal) advances the bracket: pushed too.
        semifinal = await db(pairing)(event, "R1.1")
        seeds = await db(by_seed)(event)
        await db(play.match_forfeit)(
            match=semifinal.match, loser=seeds[4], reason="test", end_reason="forfeit"
        )
        decided = await next_event(watcher, after=started["seq"])
        rounds = decided["event"]["bracket"]["rounds"]
        first_semi = next(p for p in rounds[0]["pairings"] if p["key"] == "R1.1")
        assert first_semi["status"] == "finished"
        assert rounds[1]["pairings"][0]["a"]["player"]["id"] == seeds[1].pk
        await watcher.close()

    run(scenario)


def test_registration_opened_and_closed_and_a_cancel_are_pushed(alice):
    event = services.event_create(name="Open", format="swiss", best_of=1, target=50)
    staff = UserFactory(is_staff=True)
    staff_player = PlayerFactory(user=staff)

    async def scenario():
        s = await Socket.open(f"/ws/events/{event.pk}", token=await db(token_for)(staff_player))
        seq = (await s.receive("event"))["seq"]
        for change, status in (
            (services.event_open_registration, "registration"),
            (services.event_close_registration, "registration"),
            (services.event_cancel, "cancelled"),
        ):
            await db(change)(event=event)
            message = await next_event(s, after=seq)
            assert message["event"]["status"] == status
            seq = message["seq"]
        await s.close()

    run(scenario)


def test_a_viewer_gets_their_own_entry_and_nobody_elses(alice, bob):
    event = event_with([alice], "swiss")

    async def scenario():
        a = await Socket.open(f"/ws/events/{event.pk}", token=await db(token_for)(alice))
        b = await Socket.open(f"/ws/events/{event.pk}", token=await db(token_for)(bob))
        assert (await a.receive("event"))["event"]["your_entry"]["player"]["id"] == alice.pk
        seq = (await b.receive("event"))["seq"]
        await db(services.entry_register)(event=event, player=bob)
        mine = await next_event(b, after=seq)
        assert mine["event"]["your_entry"]["player"]["id"] == bob.pk
        assert mine["event"]["entries_count"] == 2
        theirs = await next_event(a, after=seq)
        assert theirs["event"]["your_entry"]["player"]["id"] == alice.pk
        await a.close()
        await b.close()

    run(scenario)


def test_a_socket_opened_while_the_event_renders_gets_its_own_entry_with_it(
    alice, bob, monkeypatch
):
    event = event_with([alice, bob], "swiss")
    sent: dict[int, int | None] = {}

    class Viewer:
        def __init__(self, player) -> None:
            self.player_id = player.pk

        async def send_event(self, seq, data, entry) -> None:
            sent[self.player_id] = entry and entry["player"]["id"]

    watching, opening = Viewer(alice), Viewer(bob)
    feeds = {}
    render = consumers.event_render

    def render_while_bob_opens(event_id, player_ids):
        feeds["feed"].sockets.add(opening)  # after the viewers were read for this render
        return render(event_id, player_ids)

    monkeypatch.setattr(consumers, "event_render", render_while_bob_opens)

    async def scenario():
        feed = feeds["feed"] = consumers._feed(event.pk)
        feed.sockets.add(watching)
        feed.changed((await db(Event.objects.get)(pk=event.pk)).seq)
        await feed.task

    run(scenario)
    assert sent == {alice.pk: alice.pk, bob.pk: bob.pk}


def test_one_transaction_counts_one_change_and_a_burst_is_rendered_once(monkeypatch):
    event = event_with(humans(8), "swiss", late_registration=True, swiss_rounds=5)
    seq = Event.objects.get(pk=event.pk).seq
    # Two bots entered at once: two entries in one transaction, one change.
    services.bots_add(event=event, count=2, strategy="greedy")
    assert Event.objects.get(pk=event.pk).seq == seq + 1
    # The start seeds, pairs a round and starts five matches: one change (and one more for
    # each bot-v-bot match of the round, played inline here and finishing on its own).
    services.event_start(event=event)
    bot_matches = Pairing.objects.filter(
        round__event=event, match__player_a__kind="bot", match__player_b__kind="bot"
    ).count()
    before = Event.objects.get(pk=event.pk).seq - 1
    assert before == seq + 1 + bot_matches
    late = humans(10, prefix="late")
    interval = 1.0
    monkeypatch.setattr(consumers, "RENDER_INTERVAL", interval)

    async def scenario():
        sockets = [await Socket.open(f"/ws/events/{event.pk}") for _ in range(3)]
        for s in sockets:
            await s.receive("event")
        renders = stats["event_renders"]
        started = time.monotonic()
        for player in late:  # ten changes committed in a burst
            await db(services.entry_add)(event=event, player=player)
        await db(published)()
        target = (await db(Event.objects.get)(pk=event.pk)).seq
        assert target == before + 11
        for s in sockets:  # everyone ends at the last change ...
            message = await next_event(s, after=before + 1)
            while message["seq"] < target:
                message = await next_event(s, after=message["seq"])
            assert message["event"]["entries_count"] == 20
        # ... rendered for all three sockets at once, at most once an interval, however long
        # a busy machine took over the burst: a few times, not ten times each.
        throttled = 1 + math.ceil((time.monotonic() - started) / interval)
        assert stats["event_renders"] - renders <= throttled, throttled
        for s in sockets:
            await s.close()

    run(scenario)


def test_a_draft_is_refused_4403_a_missing_event_4404_and_a_bad_token_4401(alice):
    draft = services.event_create(name="Secret", format="swiss")

    async def scenario():
        anonymous = await Socket.open(f"/ws/events/{draft.pk}")
        assert (await anonymous.receive())["code"] == 4403
        player = await Socket.open(f"/ws/events/{draft.pk}", token=await db(token_for)(alice))
        assert (await player.receive())["code"] == 4403
        missing = await Socket.open("/ws/events/999999")
        assert (await missing.receive())["code"] == 4404
        bad = await Socket.open(f"/ws/events/{draft.pk}", token="not-a-token")
        assert (await bad.receive())["code"] == 4401

    run(scenario)


@pytest.mark.parametrize(
    ("message", "code"),
    [("not json", "malformed"), ('{"no": "type"}', "malformed"), ('{"type": "x"}', "unknown_type")],
)
def test_a_bad_message_is_answered_with_an_error_and_the_socket_stays_open(message, code):
    event = event_with(humans(2), "swiss")

    async def scenario():
        s = await Socket.open(f"/ws/events/{event.pk}")
        await s.receive("event")
        await s.send(message)
        assert (await s.receive("error"))["code"] == code
        await s.send({"type": "sync"})
        assert (await s.receive("event"))["event"]["id"] == event.pk
        await s.close()

    run(scenario)
