"""A bot's event stream held open on a real server across many keep-alives.

A real uvicorn serving config.asgi, on the Redis pub/sub channel layer (where a cancelled
receive costs the most) and on the lists layer, a keep-alive every second. The stream waits
on the layer between keep-alives; it must keep its channel and its group through them (a
receive cancelled at each keep-alive makes the pub/sub layer drop the channel, and the
periodic group join then fails and ends the stream), and a challenge sent after a dozen
keep-alives still arrives as a line.
"""

from __future__ import annotations

import http.client
import json
import time

import pytest
from django.conf import settings

from accounts import services as accounts
from tests.integration.live import AsgiServer, api
from tests.live import token_for

pytestmark = pytest.mark.django_db(transaction=True)

KEEPALIVE_SECONDS = 1


@pytest.fixture(params=["pubsub", "lists"])
def server(tmp_path, celery_worker, request):
    started = AsgiServer(
        log_path=tmp_path / "uvicorn.log",
        channel_redis_url=settings.CHANNEL_REDIS_URL,
        env={
            "BOT_STREAM_KEEPALIVE_SECONDS": str(KEEPALIVE_SECONDS),
            "CHANNEL_LAYER": request.param,
        },
    ).start()
    yield started
    started.stop()


class EventStream:
    """``GET /api/bot/stream/event`` read line by line (an empty line is a keep-alive)."""

    def __init__(self, server: AsgiServer, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        self.connection.request(
            "GET", "/api/bot/stream/event", headers={"Authorization": f"Token {token}"}
        )
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()

    def line(self) -> bytes | None:
        """The next line, or None when the server ended the response."""
        try:
            raw = self.response.readline()
        except TimeoutError:
            raise AssertionError("the stream fell silent for 10 s") from None
        return raw if raw else None

    def close(self) -> None:
        self.connection.close()


def test_an_event_stream_keeps_its_channel_through_a_dozen_keep_alives(server, alice, bob):
    robo = accounts.bot_register(owner=alice, name="Robo")
    stream = EventStream(server, accounts.bot_token_issue(bot=robo)[1])
    try:
        keep_alives = 0
        deadline = time.monotonic() + 12 * KEEPALIVE_SECONDS + 10
        while keep_alives < 12:  # past the sixth beat, when the stream joins its group again
            line = stream.line()
            assert line is not None, f"the stream ended after {keep_alives} keep-alives"
            keep_alives += line.strip() == b""
            assert time.monotonic() < deadline, "keep-alives came too slowly"

        status, match = api(server, "POST", "/api/matches", token_for(bob), {"opponent": robo.pk})
        assert status == 201, match
        deadline = time.monotonic() + 15
        while True:
            line = stream.line()
            assert line is not None, "the stream ended before the challenge arrived"
            if line.strip():
                event = json.loads(line)
                if event["type"] == "challenge" and event["match"] == match["id"]:
                    break
            assert time.monotonic() < deadline, "the challenge never arrived on the stream"
        assert event["status"] == "challenged"
    finally:
        stream.close()
