"""Real ASGI servers, a private Redis and real socket clients, for the live-play tests.

``AsgiServer`` runs ``config.asgi:application`` in a subprocess on a free loopback port
(uvicorn, or gunicorn with its uvicorn workers as deploy/ runs it) on the test database, its
channel layer on the Redis it is given. ``RedisServer`` runs a redis-server of its own in a
temporary directory (the tests restart it; the shared Redis at 6379 is never touched).
``TableClient`` is a player's (or spectator's) socket at a table, with what a good client
does: answer pings, reconnect when the socket closes, resynchronise when pushes stop, and
resend an unanswered move with the same id.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from config.workers import socket_frame_limit
from tests.integration.conftest import ROOT, START_SECONDS, http, subprocess_env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(process: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM by pid, SIGKILL if it does not go in time."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


# --- Redis ------------------------------------------------------------------------------------


@dataclass
class RedisServer:
    """A redis-server of this test's own: no persistence, so a restart starts empty."""

    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10) -> None:
        import redis

        binary = shutil.which("redis-server")
        assert binary, "redis-server is not on PATH"
        self.directory.mkdir(parents=True, exist_ok=True)
        log = (self.directory / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.directory / "redis.log").read_text()
            try:
                if redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        raise AssertionError(f"redis-server on {self.port} did not answer in {timeout} s")

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process, timeout=5)

    def flush(self) -> None:
        """Forget everything while every connection stays up (a failover to an empty one)."""
        import redis

        redis.Redis.from_url(self.url).flushall()

    def restart(self) -> None:
        """Crash it (SIGKILL: no goodbye to its clients) and start it again, empty."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(5)
        self.start()


# --- ASGI servers -----------------------------------------------------------------------------


@dataclass
class AsgiServer:
    """``config.asgi:application`` in a subprocess: ``kind`` uvicorn or gunicorn."""

    log_path: Path
    channel_redis_url: str
    kind: str = "uvicorn"
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    #: More environment for the server (``CHANNEL_LAYER="lists"``, say).
    env: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        if self.kind == "gunicorn":
            conf = str(ROOT / "deploy" / "gunicorn.conf.py")
            return [sys.executable, "-m", "gunicorn", "-c", conf, "--bind", self.address]
        return [
            *(sys.executable, "-m", "uvicorn", "config.asgi:application"),
            *("--host", "127.0.0.1", "--port", str(self.port), "--lifespan", "off"),
            *("--ws-per-message-deflate", "false"),  # as make run and deploy/ serve
            *("--ws-max-size", str(socket_frame_limit(subprocess_env(**self.env)))),
        ]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = START_SECONDS) -> AsgiServer:
        # REDIS_URL is the cache and the channel layer (config/settings.py: CHANNEL_REDIS_URL).
        env = subprocess_env(REDIS_URL=self.channel_redis_url, WEB_CONCURRENCY="1", **self.env)
        with self.log_path.open("ab") as log:
            # A group of its own, so stop() ends gunicorn's workers too, whatever the master did.
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.kind} exited at start-up:\n{self.log()[-3000:]}")
            try:
                if http(self.base_url, "GET", "/api/health")[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise AssertionError(f"{self.kind} not healthy in {timeout} s:\n{self.log()[-3000:]}")

    def stop(self) -> None:
        """Stop the server, then kill whatever of its group outlived it (an orphaned gunicorn
        worker would keep its database sessions and a core until the end of the run)."""
        if self.process is not None:
            _stop(self.process)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def api(server: AsgiServer, method: str, path: str, token: str, body: dict | None = None):
    """One request to ``server``, retried while it answers 503 (as its Retry-After asks):
    the shared PostgreSQL may be short of connections for a moment."""
    deadline = time.monotonic() + 15
    while True:
        status, answer = http(server.base_url, method, path, token, body)
        if status != 503 or time.monotonic() > deadline:
            return status, answer
        time.sleep(0.5)


# --- Socket clients ---------------------------------------------------------------------------


def open_socket(url: str, token: str | None = None) -> ClientConnection:
    headers = {"Authorization": f"Token {token}"} if token else None
    return connect(url, additional_headers=headers, open_timeout=10, close_timeout=2, legacy=True)


def close_code(url: str, token: str | None = None, timeout: float = 10) -> int | None:
    """The code a socket at ``url`` is closed with (None if it stays open)."""
    with open_socket(url, token) as ws:
        try:
            while True:
                ws.recv(timeout=timeout)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        except TimeoutError:
            return None


class TableClient:
    """A client of ``ws/games/<id>``: the views it saw, reconnects, resyncs and resends.

    ``views`` holds every view received, in order; ``seq`` and ``view`` the latest.
    ``reconnects`` and ``resyncs`` count what it had to do to keep up.
    """

    def __init__(self, server: AsgiServer, game_id: int, token: str | None, name: str) -> None:
        self.url = f"{server.ws_url}/ws/games/{game_id}"
        self.token, self.name = token, name
        self.views: list[dict] = []
        self.others: list[dict] = []
        self.seq = -1
        self.view: dict | None = None
        self.reconnects = self.resyncs = 0
        self.ws: ClientConnection | None = None
        self._connect()

    def _connect(self, deadline: float | None = None) -> None:
        """Open the socket, retrying (with a growing pause) until ``deadline``."""
        deadline = deadline or time.monotonic() + 30
        pause = 0.1
        while True:
            try:
                self.ws = open_socket(self.url, self.token)
                return
            except (OSError, InvalidHandshake, TimeoutError) as error:
                if isinstance(error, InvalidStatus) and error.response.status_code < 500:
                    raise
                if time.monotonic() + pause > deadline:
                    raise AssertionError(f"{self.name}: could not reconnect: {error!r}") from error
                time.sleep(pause)
                pause = min(pause * 2, 1.0)

    def reconnect(self, deadline: float | None = None) -> None:
        self.close()
        self.reconnects += 1
        self._connect(deadline)

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()

    def send(self, message: dict) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(message))

    def _take(self, message: dict) -> None:
        if message["type"] == "view":
            assert message["seq"] >= self.seq, f"{self.name}: seq went back: {message['seq']}"
            self.views.append(message)
            self.seq, self.view = message["seq"], message["view"]
        elif message["type"] == "ping":
            self.send({"type": "pong", "id": message.get("id")})
        else:
            self.others.append(message)

    def receive(self, timeout: float) -> dict | None:
        """The next message (None after ``timeout`` s of silence); raises on a close."""
        assert self.ws is not None
        try:
            message = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return None
        self._take(message)
        return message

    def wait_for(self, predicate, timeout: float = 20, quiet: float = 2.0) -> dict:
        """Read until a message satisfies ``predicate``; reconnect on a close, resync on
        ``quiet`` s of silence. Returns the message."""
        deadline = time.monotonic() + timeout
        synced_from: int | None = None
        while time.monotonic() < deadline:
            try:
                message = self.receive(timeout=min(quiet, max(0.01, deadline - time.monotonic())))
                if message is None:
                    self.resyncs += 1
                    self.send({"type": "sync"})
                    synced_from = self.seq
                    continue
                if synced_from is not None and message["type"] == "view":
                    if message["seq"] > synced_from:
                        # The sync showed changes that were never pushed: this socket's
                        # subscription is gone (its Redis lost it). A new socket joins anew.
                        self.reconnect(deadline)
                    synced_from = None
            except ConnectionClosed:
                self.reconnect(deadline)
                continue
            if predicate(message):
                return message
        raise AssertionError(f"{self.name}: nothing matched in {timeout} s (seq {self.seq})")

    def wait_seq(self, seq: int, timeout: float = 20, quiet: float = 2.0) -> dict:
        """Read until the latest view is at ``seq`` or later; that view."""
        if self.seq >= seq:
            return self.view
        self.wait_for(lambda m: m["type"] == "view" and m["seq"] >= seq, timeout, quiet)
        return self.view

    def move(self, client_id: str, ply: int, action: dict, timeout: float = 20) -> dict:
        """Send a move and read its answer; after a reconnect, send it again (same id)."""
        message = {"type": "move", "id": client_id, "ply": ply, "action": action}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.send(message)
                answer = self._answer(client_id, deadline)
                if answer is not None:
                    return answer
            except ConnectionClosed:
                self.reconnect(deadline)
        raise AssertionError(f"{self.name}: no answer to move {client_id} in {timeout} s")

    def _answer(self, client_id: str, deadline: float) -> dict | None:
        while time.monotonic() < deadline:
            message = self.receive(timeout=max(0.01, deadline - time.monotonic()))
            if message and message["type"] in ("ack", "error") and message["id"] == client_id:
                return message
        return None
