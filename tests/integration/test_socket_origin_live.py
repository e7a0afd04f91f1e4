"""The socket Origin check on real servers: a page of the server's own origin connects (as
the browser tests' and ``make run``'s pages do), any other origin gets 403, and a program
sending no Origin connects."""

from __future__ import annotations

import pytest
from django.conf import settings
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.integration.live import AsgiServer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("kind", ["uvicorn", "gunicorn"])
def test_only_the_servers_own_origin_opens_a_socket(tmp_path, kind):
    server = AsgiServer(
        log_path=tmp_path / f"{kind}.log", channel_redis_url=settings.CHANNEL_REDIS_URL, kind=kind
    )
    server.start()
    url = f"{server.ws_url}/ws/events/1"  # no such event: accepted, then closed with 4404

    def status(origin: str | None) -> int:
        try:
            with connect(url, origin=origin, open_timeout=10, close_timeout=2) as ws:
                ws.recv(timeout=10)
        except InvalidStatus as refused:
            return refused.response.status_code
        except Exception:  # the 4404 close: the handshake was accepted
            return 101
        return 101

    try:
        own = server.base_url  # http://127.0.0.1:<port>, the Host the client sends
        assert status(own) == 101
        assert status(None) == 101  # a program
        port = server.port
        for foreign in (
            f"http://127.0.0.1:{port + 1}",
            f"https://127.0.0.1:{port}",
            "https://127.0.0.1",
            f"http://evil.example.com:{port}",
            "null",
        ):
            assert status(foreign) == 403, foreign
    finally:
        server.stop()
