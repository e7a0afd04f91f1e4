"""Helpers for socket tests: Channels' communicator on the real routes and middleware."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import unquote, urlparse

from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from knox.models import AuthToken

from common.live import wait_published
from common.sockets import socket_stack
from config.routing import websocket_urlpatterns

#: The socket routes behind the same middleware as config.asgi (without starting the
#: embedded background threads, which importing config.asgi would do).
application = socket_stack(URLRouter(websocket_urlpatterns))

#: Messages that arrive on their own schedule; `Socket.receive` passes over them.
BACKGROUND = {"ping", "pong", "lag", "presence"}

#: How long a socket waits by default to open, close or receive: far above what a busy
#: machine takes (a few ms quiet), so only a failing test waits it out. A test that expects
#: nothing (``Socket.nothing``) passes its own short wait.
WAIT = 15.0


class WebsocketCommunicator(ApplicationCommunicator):
    """A socket client speaking ASGI to the application in this process.

    Channels ships one in ``channels.testing``, but that package imports daphne (for its
    live-server test case), a server this project does not use.
    """

    def __init__(self, application, path: str, headers=None, client=None) -> None:
        parsed = urlparse(path)
        self.scope = {
            "type": "websocket",
            "path": unquote(parsed.path),
            "query_string": parsed.query.encode(),
            "headers": headers or [],
            "subprotocols": [],
        }
        if client is not None:  # (address, port) of the peer, as a server gives it
            self.scope["client"] = client
        super().__init__(application, self.scope)

    async def connect(self, timeout: float = WAIT) -> tuple[bool, int | None]:
        """(True, None) when accepted, (False, close code) when refused."""
        await self.send_input({"type": "websocket.connect"})
        response = await self.receive_output(timeout)
        if response["type"] == "websocket.close":
            return False, response.get("code", 1000)
        assert response["type"] == "websocket.accept", response
        return True, None

    async def send_to(self, text_data: str) -> None:
        await self.send_input({"type": "websocket.receive", "text": text_data})

    async def disconnect(self, code: int = 1000, timeout: float = WAIT) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": code})
        await self.wait(timeout)


def http_scope(path: str, headers: list[tuple[bytes, bytes]] | None = None) -> dict:
    """The ASGI scope of a GET of ``path`` from a client on loopback."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *(headers or [])],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }


def token_for(player) -> str:
    """A fresh sign-in token for the player's user."""
    _, token = AuthToken.objects.create(player.user)
    return token


class Socket:
    """One client socket; ``await Socket.open(path, token=...)``."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator
        self.seen: list[dict] = []

    @classmethod
    async def open(
        cls, path: str, *, token: str | None = None, headers=None, client=None
    ) -> Socket:
        headers = list(headers or [])
        if token is not None:
            headers.append((b"authorization", f"Token {token}".encode()))
        communicator = WebsocketCommunicator(application, path, headers=headers, client=client)
        connected, code = await communicator.connect(timeout=WAIT)
        socket = cls(communicator)
        socket.connected, socket.close_code = connected, code
        return socket

    async def send(self, message) -> None:
        if isinstance(message, str):
            await self.communicator.send_to(text_data=message)
        else:
            await self.communicator.send_to(text_data=json.dumps(message))

    async def receive(self, kind: str | None = None, *, timeout: float = WAIT) -> dict:
        """The next message (of ``kind``, if given), passing over background ones.

        ``timeout`` bounds the whole wait, not each message: the sockets' own pings come
        every few seconds, and a wait renewed by each of them would never end."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            try:
                if left <= 0:
                    raise TimeoutError
                raw = await self.communicator.receive_output(timeout=left)
            except TimeoutError:
                seen = ", ".join(_brief(m) for m in self.seen[-8:]) or "nothing"
                raise TimeoutError(
                    f"no {kind or 'message'} within {timeout} s; last received: {seen}"
                ) from None
            if raw["type"] == "websocket.close":
                return {"type": "closed", "code": raw.get("code")}
            message = json.loads(raw["text"])
            self.seen.append(message)
            if kind is not None and message["type"] == kind:
                return message
            if kind is None and message["type"] not in BACKGROUND:
                return message

    async def nothing(self, kind: str = "view", timeout: float = 0.3) -> bool:
        """True if no message of ``kind`` comes within ``timeout``."""
        try:
            await self.receive(kind, timeout=timeout)
        except TimeoutError:
            return True
        return False

    async def close(self) -> None:
        await self.communicator.disconnect()


def _brief(message: dict) -> str:
    """A message in a few words, for a test's failure: its type and sequence number."""
    seq = message.get("seq", message.get("id", ""))
    return f"{message.get('type')}{'#' if seq != '' else ''}{seq}"


def published() -> None:
    """Wait until this process's pushes have been handed to the channel layer."""
    assert wait_published(5)


def run(scenario, *args):
    """Run an async test scenario from a sync test (its database calls on this thread)."""
    return async_to_sync(scenario)(*args)


def fresh_layer() -> None:
    """Empty the in-memory layer: each test's event loop gets no queue of an earlier loop's;
    and forget what this process's sockets kept (open sockets' counts, spectators' views:
    the test database numbers its rows from 1 again)."""
    from common import sockets
    from games import consumers

    layer = get_channel_layer()
    layer.channels, layer.groups, layer._home = {}, {}, None
    sockets._open_sockets.clear()
    consumers._spectator_views.clear()
