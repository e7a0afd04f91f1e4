"""The Bot API's NDJSON streams, through the real ASGI application (Django's ASGI handler,
the project's middleware and URL conf), read line by line as a client reads them.

The cast: alice owns the bot Robo; bob and charlie are people who challenge it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import Player
from common.admission import get_admitted_asgi_application
from games import services as play
from games.models import Game, Match
from tests.live import fresh_layer, http_scope, published, run

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
http_app = get_admitted_asgi_application()

END = object()  #: the response is over


class Stream:
    """One HTTP request to the ASGI app, its response read line by line."""

    def __init__(self, path: str, token: str | None) -> None:
        headers = [] if token is None else [(b"authorization", f"Token {token}".encode())]
        self.communicator = ApplicationCommunicator(http_app, http_scope(path, headers))
        self.buffer = b""
        self.done = False

    @classmethod
    async def open(cls, path: str, token: str | None) -> Stream:
        stream = cls(path, token)
        await stream.communicator.send_input({"type": "http.request", "body": b""})
        start = await stream.communicator.receive_output(timeout=5)
        assert start["type"] == "http.response.start", start
        stream.status = start["status"]
        stream.headers = {k.lower(): v for k, v in start["headers"]}
        return stream

    async def line(self, timeout: float = 5):
        """The next line: a dict, None for a keep-alive, or END."""
        while b"\n" not in self.buffer:
            if self.done:
                return END
            message = await self.communicator.receive_output(timeout=timeout)
            assert message["type"] == "http.response.body", message
            self.buffer += message.get("body", b"")
            self.done = not message.get("more_body", False)
            if self.done and not self.buffer:
                return END
        raw, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(raw) if raw.strip() else None

    async def event(self, timeout: float = 15):
        """The next line that is not a keep-alive, within ``timeout`` in all (keep-alives
        come more often than that: a wait renewed by each would never end)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"no event within {timeout} s, only keep-alives")
            line = await self.line(left)
            if line is not None:
                return line

    async def body(self) -> dict:
        """A refusal's JSON body."""
        while not self.done:
            message = await self.communicator.receive_output(timeout=5)
            self.buffer += message.get("body", b"")
            self.done = not message.get("more_body", False)
        return json.loads(self.buffer)

    async def close(self) -> None:
        await self.communicator.send_input({"type": "http.disconnect"})
        with contextlib.suppress(TimeoutError):
            await self.communicator.wait(timeout=2)


@pytest.fixture(autouse=True)
def _fast_keepalive(settings):
    fresh_layer()
    settings.BOT_STREAM_KEEPALIVE_SECONDS = 1
    settings.BOT_STREAM_STALE_SECONDS = 4


@pytest.fixture
def robo(alice) -> Player:
    return accounts.bot_register(owner=alice, name="Robo")


@pytest.fixture
def token(robo) -> str:
    return accounts.bot_token_issue(bot=robo)[1]


def rest_view(token: str, game_id: int) -> dict:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    return response.json()


def rest_move(token: str, game_id: int, view: dict) -> dict:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    action = view["legal_actions"][0]
    response = client.post(
        f"/api/games/{game_id}/actions", {"ply": view["ply"], **action}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def person_move(client: APIClient, game_id: int) -> None:
    view = client.get(f"/api/games/{game_id}").json()
    action = view["legal_actions"][0]
    response = client.post(
        f"/api/games/{game_id}/actions", {"ply": view["ply"], **action}, format="json"
    )
    assert response.status_code == 200, response.content


def started_match(challenger: Player, bot: Player) -> tuple[Match, Game]:
    match = play.challenge_create(challenger=challenger, opponent=bot)
    play.challenge_answer(match=match, player=bot, accept=True)
    return match, Game.objects.get(match=match, status=Game.Status.ACTIVE)


# --- the event stream ---------------------------------------------------------------------


def test_the_event_stream_tells_the_bot_its_challenges_and_games(robo, token, bob, charlie):
    async def scenario():
        waiting = await db(play.challenge_create)(challenger=bob, opponent=robo)
        stream = await Stream.open("/api/bot/stream/event", token)
        assert stream.status == 200
        assert stream.headers[b"content-type"] == b"application/x-ndjson"
        first = await stream.event()
        assert first["type"] == "challenge" and first["match"] == waiting.pk  # pending

        offer = await db(play.challenge_create)(challenger=charlie, opponent=robo)
        await db(published)()
        line = await stream.event()
        assert line["type"] == "challenge" and line["challenger"]["id"] == charlie.pk
        await db(play.match_cancel)(match=offer, player=charlie)
        await db(published)()
        line = await stream.event()
        assert line["type"] == "challenge_canceled" and line["status"] == "withdrawn"

        await db(play.challenge_answer)(match=waiting, player=robo, accept=True)
        line = await stream.event()
        game = await db(Game.objects.get)(match=waiting, status=Game.Status.ACTIVE)
        assert line["type"] == "game_start" and line["game"] == game.pk
        assert line["opponent"]["id"] == bob.pk

        await db(play.match_forfeit)(
            match=waiting, loser=bob, reason="resigned", end_reason=Match.EndReason.RESIGNED
        )
        await db(published)()
        line = await stream.event()
        assert line == {
            "type": "game_finish",
            "match": waiting.pk,
            "winner": {"id": robo.pk, "name": "Robo", "kind": "external"},
            "end_reason": "resigned",
            "games_won": line["games_won"],
        }
        await stream.close()

    run(scenario)


def test_the_event_stream_sends_a_keepalive_line_when_nothing_happens(robo, token):
    async def scenario():
        stream = await Stream.open("/api/bot/stream/event", token)
        assert await stream.line(timeout=3) is None
        assert await stream.line(timeout=3) is None
        await stream.close()

    run(scenario)


def test_an_open_stream_holds_no_slot_of_the_web_process(settings, robo, token):
    settings.WEB_VIEW_CONCURRENCY = 1  # one request at a time in the views

    async def scenario():
        first = await Stream.open("/api/bot/stream/event", token)
        other = await Stream.open("/api/bot/account", token)  # answered while it streams
        assert other.status == 200 and (await other.body())["name"] == "Robo"
        assert await first.line(timeout=3) is None  # the stream still goes on
        await first.close()

    run(scenario)


def test_a_reconnecting_bot_hears_of_the_game_it_is_playing(robo, token, bob):
    async def scenario():
        match, game = await db(started_match)(bob, robo)
        stream = await Stream.open("/api/bot/stream/event", token)
        line = await stream.event()
        assert line["type"] == "game_start" and line["game"] == game.pk
        assert line["match"] == match.pk
        await stream.close()

    run(scenario)


def test_a_second_event_stream_replaces_the_first(robo, token, bob):
    async def scenario():
        first = await Stream.open("/api/bot/stream/event", token)
        second = await Stream.open("/api/bot/stream/event", token)
        assert second.status == 200
        lines = [await first.line(timeout=3) for _ in range(3)]  # keep-alives, then the end
        assert END in lines and not any(lines[: lines.index(END)])
        await db(play.challenge_create)(challenger=bob, opponent=robo)
        await db(published)()
        assert (await second.event())["type"] == "challenge"
        await second.close()

    run(scenario)


def test_a_revoked_token_ends_its_streams(robo, token):
    async def scenario():
        stream = await Stream.open("/api/bot/stream/event", token)
        await db(accounts.bot_token_revoke)(bot=robo, token_key=token[:15])
        lines = [await stream.line(timeout=3) for _ in range(2)]
        assert END in lines
        again = await Stream.open("/api/bot/stream/event", token)
        assert again.status == 401

    run(scenario)


# --- refusals -------------------------------------------------------------------------------


def test_the_streams_take_only_an_external_bots_token(alice):
    from tests.live import token_for

    async def scenario():
        person = await db(token_for)(alice)
        stream = await Stream.open("/api/bot/stream/event", person)
        assert stream.status == 403 and (await stream.body())["code"] == "not_a_bot"
        stream = await Stream.open("/api/bot/stream/event", None)
        assert stream.status == 401 and (await stream.body())["code"] == "not_authenticated"
        stream = await Stream.open("/api/bot/stream/event", "0" * 64)
        assert stream.status == 401 and (await stream.body())["code"] == "authentication_failed"

    run(scenario)


def test_a_stream_for_a_game_the_bot_is_not_in_is_not_found(robo, token, bob, charlie):
    async def scenario():
        match = await db(play.challenge_create)(challenger=bob, opponent=charlie)
        await db(play.challenge_answer)(match=match, player=charlie, accept=True)
        game = await db(Game.objects.get)(match=match)
        for game_id in (game.pk, game.pk + 1000):
            stream = await Stream.open(f"/api/bot/game/stream/{game_id}", token)
            assert stream.status == 404 and (await stream.body())["code"] == "not_found"

    run(scenario)


def test_more_streams_than_the_cap_are_refused(settings, robo, token, bob, charlie):
    settings.BOT_STREAMS_MAX = 2

    async def scenario():
        _, one = await db(started_match)(bob, robo)
        _, two = await db(started_match)(charlie, robo)
        first = await Stream.open(f"/api/bot/game/stream/{one.pk}", token)
        second = await Stream.open(f"/api/bot/game/stream/{two.pk}", token)
        assert first.status == second.status == 200
        third = await Stream.open("/api/bot/stream/event", token)
        assert third.status == 429 and (await third.body())["code"] == "too_many_streams"
        again = await Stream.open(f"/api/bot/game/stream/{one.pk}", token)
        assert again.status == 200  # the same game's stream again replaces, not adds
        await second.close()
        # The server lets the closed stream's place go when its handler ends, a moment after
        # the client hung up (longer on a busy machine): the place comes back within seconds.
        for _ in range(50):
            fourth = await Stream.open("/api/bot/stream/event", token)
            if fourth.status != 429:
                break
            await fourth.close()
            await asyncio.sleep(0.1)
        assert fourth.status == 200
        await again.close()
        await fourth.close()

    run(scenario)


# --- a game stream ----------------------------------------------------------------------------


def test_a_game_stream_starts_with_the_rest_view_and_follows_every_change(
    settings, robo, token, bob, bob_client
):
    # No keep-alive in the middle, however slow a busy machine makes the moves: its touch of
    # the stream's row can find the table locked by the moves' writes (the in-memory test
    # database's shared cache locks whole tables), which ends the stream as an outage.
    settings.BOT_STREAM_KEEPALIVE_SECONDS = 30

    async def scenario():
        _match, game = await db(started_match)(bob, robo)
        stream = await Stream.open(f"/api/bot/game/stream/{game.pk}", token)
        full = await stream.event()
        assert full["type"] == "game_full" and full["game"] == game.pk
        assert full["view"] == await db(rest_view)(token, game.pk)
        assert [p["id"] for p in (full["match"]["player_a"], full["match"]["player_b"])] == [
            bob.pk,
            robo.pk,
        ]
        assert full["match"]["rules"] and full["match"]["seed"] is None

        seq = full["view"]["seq"]
        for _ in range(4):  # whoever is to act moves, over REST; the bot sees each change
            view = await db(rest_view)(token, game.pk)
            if view["your_turn"]:
                await db(rest_move)(token, game.pk, view)
            else:
                await db(person_move)(bob_client, game.pk)
            await db(published)()
            line = await stream.event()
            assert line["type"] == "game_state" and line["seq"] == seq + 1
            assert line["view"] == await db(rest_view)(token, game.pk)
            seq = line["seq"]
        await stream.close()

    run(scenario)


def test_a_game_stream_ends_when_the_game_is_over(robo, token, bob):
    async def scenario():
        match, game = await db(started_match)(bob, robo)
        stream = await Stream.open(f"/api/bot/game/stream/{game.pk}", token)
        assert (await stream.event())["type"] == "game_full"
        await db(play.match_forfeit)(
            match=match, loser=robo, reason="resigned", end_reason=Match.EndReason.RESIGNED
        )
        await db(published)()
        last = await stream.event()
        assert last["type"] == "game_state" and last["view"]["status"] == "finished"
        assert await stream.line() is END

    run(scenario)


def test_a_game_stream_repairs_a_lost_message_with_the_view_now(robo, token, bob):
    from channels.layers import get_channel_layer

    from games import live

    async def scenario():
        _match, game = await db(started_match)(bob, robo)
        stream = await Stream.open(f"/api/bot/game/stream/{game.pk}", token)
        full = await stream.event()
        # A change whose push never arrived, then a push two ahead of what the bot has.
        await db(Game.objects.filter(pk=game.pk).update)(seq=full["view"]["seq"] + 2)
        layer = get_channel_layer()
        await layer.group_send(
            live.group(game.pk, 1),
            {"type": "game.view", "seq": full["view"]["seq"] + 2, "text": "{}"},
        )
        line = await stream.event()
        assert line["type"] == "game_state" and line["seq"] == full["view"]["seq"] + 2
        assert line["view"] == await db(rest_view)(token, game.pk)
        await stream.close()

    run(scenario)


def test_a_bot_that_accepts_a_challenge_hears_its_game_start_at_once(settings, robo, token, bob):
    settings.BOT_STREAM_KEEPALIVE_SECONDS = 30  # no resync at a keep-alive to fall back on

    async def scenario():
        offer = await db(play.challenge_create)(challenger=bob, opponent=robo)
        stream = await Stream.open("/api/bot/stream/event", token)
        assert (await stream.event())["type"] == "challenge"
        await db(play.challenge_answer)(match=offer, player=robo, accept=True)
        await db(published)()
        line = await stream.event(timeout=10)  # well before a keep-alive (30 s) resyncs
        assert line["type"] == "game_start" and line["match"] == offer.pk
        await stream.close()

    run(scenario)


def test_a_game_stream_puts_pushes_that_race_back_in_order(robo, token, bob):
    """A push that overtakes the one before it (two publishers) waits for it: the bot gets
    both, in order, and no view is read again."""
    from channels.layers import get_channel_layer

    from games import live

    async def scenario():
        _match, game = await db(started_match)(bob, robo)
        stream = await Stream.open(f"/api/bot/game/stream/{game.pk}", token)
        seq = (await stream.event())["view"]["seq"]
        layer = get_channel_layer()
        for ahead in (2, 1):  # each push's own view, told apart by a mark
            view = {"seq": seq + ahead, "status": "active", "mark": ahead}
            text = json.dumps({"seq": seq + ahead, "view": view})
            await layer.group_send(
                live.group(game.pk, 1), {"type": "game.view", "seq": seq + ahead, "text": text}
            )
        first, second = await stream.event(), await stream.event()
        assert (first["seq"], first["view"]["mark"]) == (seq + 1, 1)
        assert (second["seq"], second["view"]["mark"]) == (seq + 2, 2)
        await stream.close()

    run(scenario)


def test_a_game_stream_notes_when_it_hands_the_bot_its_turn(robo, token, bob, bob_client):
    """The hand-over of a view that puts the bot on move is noted (its clock is charged from
    then); a view where it waits is not."""
    from games import delivery

    delivery._store.cache_clear()

    async def scenario():
        _match, game = await db(started_match)(bob, robo)
        stream = await Stream.open(f"/api/bot/game/stream/{game.pk}", token)
        view = (await stream.event())["view"]
        for _ in range(3):
            noted = await db(delivery.delivered_at)(game.pk, robo.pk, view["ply"])
            assert (noted is not None) == view["your_turn"], view
            if view["your_turn"]:
                await db(rest_move)(token, game.pk, view)
            else:
                await db(person_move)(bob_client, game.pk)
            await db(published)()
            view = (await stream.event())["view"]
        await stream.close()

    run(scenario)
