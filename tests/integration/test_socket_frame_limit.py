"""A socket message far above ``SOCKET_MAX_MESSAGE_BYTES`` never reaches the service's memory.

Real servers (uvicorn as the tests and ``make run`` start it, gunicorn with its uvicorn workers
as deploy/ runs it) on the test database: eight anonymous spectators each send one 15 MiB
message. The transport reads the frame's length, refuses it (close code 1009, "message too
big") and buffers none of it, so the serving process's resident memory (``VmRSS``) and its
peak (``VmHWM``, from /proc) stay where they were. A message a little above the cap still
reaches the service and is answered ``too_large`` on a socket that stays open.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed

from config.workers import socket_frame_limit
from games import services
from tests.integration.live import AsgiServer, open_socket
from tests.play import active_game

pytestmark = pytest.mark.django_db(transaction=True)

SOCKETS = 8
MESSAGE_BYTES = 15 * 1024 * 1024
#: What the eight messages may add to the serving process's peak memory: a fraction of the
#: 120 MiB they carry (the server read every byte of them before the limit: about 280 MB).
PEAK_GROWTH_LIMIT_KIB = 32 * 1024


def memory_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (the peak resident size) of a process, in KiB."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            figures[name] = int(value.split()[0])
    return figures


def serving_pid(server: AsgiServer) -> int:
    """The process holding the sockets: uvicorn itself, or gunicorn's one worker."""
    assert server.process is not None
    if server.kind != "gunicorn":
        return server.process.pid
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = children.read_text().split()
        if len(pids) == 1:
            return int(pids[0])
        time.sleep(0.1)
    raise AssertionError(f"gunicorn should run one worker: {children.read_text()!r}")


def first_view(ws) -> dict:
    message = json.loads(ws.recv(timeout=10))
    assert message["type"] == "view", message
    return message


def answer(ws) -> dict:
    """The next message that is not a ping, a presence or a lag note."""
    while True:
        message = json.loads(ws.recv(timeout=10))
        if message["type"] not in ("ping", "presence", "lag"):
            return message


def send_far_too_big(url: str, outcome: dict[int, str], index: int) -> None:
    """Open a socket, send one MESSAGE_BYTES message, and note whether the server closed it.

    The server closes while the client is still writing, so the client's kernel may answer
    with a reset that discards the close frame: a close without a code counts as closed.
    """
    with open_socket(url) as ws:
        first_view(ws)
        try:
            ws.send("x" * MESSAGE_BYTES)
            while True:
                ws.recv(timeout=20)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            outcome[index] = "closed" if code in (1009, None) else f"closed {code}"
        except TimeoutError:
            outcome[index] = "open"  # the message was read and answered


def announce_far_too_big(ws) -> None:
    """Write the header of a MESSAGE_BYTES text frame and the first kilobyte of it, no more:
    a server that means to read the frame waits for the rest."""
    mask = b"\x01\x02\x03\x04"
    header = bytes([0x81, 0x80 | 127]) + MESSAGE_BYTES.to_bytes(8, "big") + mask
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"x" * 1024))
    ws.socket.sendall(header + payload)


@pytest.fixture
def table(alice, bob):
    """Alice v Bob, untimed, started: a public table anyone may watch."""
    return active_game(services.match_create(player_a=alice, player_b=bob))


@pytest.mark.parametrize("kind", ["uvicorn", "gunicorn"])
def test_a_far_too_big_message_is_closed_by_the_transport_unread(tmp_path, caplog, table, kind):
    # The clients' library logs the resets of the sockets closed under their writes.
    caplog.set_level("CRITICAL", logger="websockets")
    server = AsgiServer(
        log_path=tmp_path / f"{kind}.log",
        channel_redis_url=settings.CHANNEL_REDIS_URL,
        kind=kind,
    ).start()
    try:
        url = f"{server.ws_url}/ws/games/{table.pk}"
        cap, limit = settings.SOCKET_MAX_MESSAGE_BYTES, socket_frame_limit()
        assert cap < limit < 2 * cap
        # A little above the cap, up to the transport's limit: the service's own answer.
        with open_socket(url) as ws:
            first_view(ws)
            for size in (cap + 1, limit):
                ws.send("x" * size)
                assert answer(ws)["code"] == "too_large"
            ws.send('{"type": "ping", "t": 1}')
            assert answer(ws) == {"type": "pong", "t": 1}

        # A frame announced far above the limit: refused on its header (1009).
        with open_socket(url) as ws:
            first_view(ws)
            announce_far_too_big(ws)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

        pid = serving_pid(server)
        before = memory_kib(pid)
        outcome: dict[int, str] = {}
        senders = [
            threading.Thread(target=send_far_too_big, args=(url, outcome, i))
            for i in range(SOCKETS)
        ]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(60)
        time.sleep(0.5)
        after = memory_kib(pid)
        print(
            f"\n{kind}: {SOCKETS} sockets x {MESSAGE_BYTES >> 20} MiB, limit {limit} B: "
            f"VmRSS {before['VmRSS'] / 1024:.0f} -> {after['VmRSS'] / 1024:.0f} MiB, "
            f"VmHWM {before['VmHWM'] / 1024:.0f} -> {after['VmHWM'] / 1024:.0f} MiB"
        )

        assert outcome == {i: "closed" for i in range(SOCKETS)}, outcome
        assert after["VmHWM"] - before["VmHWM"] < PEAK_GROWTH_LIMIT_KIB, (before, after)
        # The server still serves sockets.
        with open_socket(url) as ws:
            first_view(ws)
    finally:
        server.stop()
