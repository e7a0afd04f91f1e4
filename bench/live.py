#!/usr/bin/env python3
"""Live benchmark: the table socket against the polling it replaces, and 2,000 sockets at once.

One file on purpose, though long: a benchmark is one command, and its set-up, load and
report read top to bottom.

    make bench-live        (or: .venv/bin/python bench/live.py [--quick] [--games N] ...)

One run, with the local launcher of deploy/cluster.py (gunicorn serving the ASGI app with
uvicorn workers, two Celery workers, beat) on the local PostgreSQL and Redis, in a database
of its own (``ginrummy_bench_live``, dropped first and after) and two free Redis databases
(the broker; the cache, which is also the channel layer):

1. **Polling** (the baseline, the old table page): 200 people in 100 untimed human-v-human
   games (best of five to 250) each poll ``GET /api/games/{id}`` with ``If-None-Match``
   every 0.8 s, think 4-8 s before each move and POST it. Figure: from a move's POST to
   the opponent's first poll that shows it.
2. **Sockets**: the same people on ``ws://.../ws/games/<id>`` (token on the handshake),
   moving on the socket (one move in ten over REST). Figure: from a move sent to the
   opponent's socket receiving the view of it (``seq`` of the change).
3. **Scale**: 1,800 anonymous spectators more (18 at each table), 2,000 sockets held at
   once while the people play on: the push latency to every other socket of the table, the
   web processes' RSS before and after the sockets opened, and every client's ``seq``
   checked for gaps (a lost message).

The players run in one client process (asyncio, the ``websockets`` client, a small HTTP/1.1
client on h11), the spectators in another; both stamp with ``time.monotonic()``, which on
Linux is the one system-wide CLOCK_MONOTONIC, so a move stamped in one process and its
receipt stamped in the other compare. The orchestrator (this process) makes the world with
Django, drives the phases over the children's stdin/stdout and joins their records.
``--quick``: 20 players, 180 spectators, short phases. ``--think LOW,HIGH``: another pace
(seconds before each move; the figures are only comparable at the same pace).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import os
import random
import select
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

from harness import a_move, cluster_environment, drop_database, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "bench-live"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_live"

#: Seconds a person thinks before each move (the pace of bench/load.py's people; 0.5-2 s
#: is a stress pace that asks more moves a second than two cores make); how often the old
#: page polled.
THINK = (4.0, 8.0)
POLL_SECONDS = 0.8
#: The share of socket-phase moves POSTed over REST instead of sent on the socket.
REST_SHARE = 0.1
#: Targets.
TARGET_P50_MS, TARGET_P95_MS, TARGET_SCALE_P95_MS = 30.0, 100.0, 250.0
#: Full and quick sizes: games (two people each), spectators, seconds of each window.
#: "open": seconds the spectators' sockets may take to open.
FULL = {
    "games": 100,
    "spectators": 1800,
    "poll": 40.0,
    "sockets": 40.0,
    "scale": 50.0,
    "open": 240.0,
}
QUICK = {"games": 10, "spectators": 180, "poll": 12.0, "sockets": 12.0, "scale": 15.0, "open": 60.0}
#: Seconds after a phase starts before its window opens (connections settle), and moves
#: sent in the last seconds of a window are not counted (their receipts may fall after it).
SETTLE, TAIL = 3.0, 2.0
#: Connections the bench's database may hold (PostgreSQL's default max_connections is 100).
DB_CONNECTIONS = 50


# =============================================================================================
# The clients (no Django): `live.py players CONFIG` and `live.py spectators CONFIG`.
# =============================================================================================


class Http:
    """HTTP/1.1 with keep-alive over asyncio streams, parsed by h11 (uvicorn's own parser)."""

    def __init__(self, host: str, port: int, headers: dict[str, str]) -> None:
        self.host, self.port, self.headers = host, port, headers
        self.reader = self.writer = self.conn = None
        self.used_at = 0.0

    async def _connect(self) -> None:
        import h11

        self.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.conn = h11.Connection(h11.CLIENT)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = self.conn = None

    async def request(
        self, method: str, path: str, body: dict | None = None, headers: dict | None = None
    ) -> tuple[int, dict, dict | None]:
        for attempt in range(2):
            # The server closes a connection idle for 5 s (keep-alive): do not race it.
            if self.conn is None or time.monotonic() - self.used_at > 4.0:
                await self._connect()
            try:
                return await self._once(method, path, body, headers or {})
            except (ConnectionError, OSError, asyncio.IncompleteReadError, EOFError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _once(self, method, path, body, headers):
        import h11

        data = json.dumps(body).encode() if body is not None else b""
        all_headers = {"Host": f"{self.host}:{self.port}", **self.headers, **headers}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers["Content-Length"] = str(len(data))
        conn = self.conn
        out = conn.send(h11.Request(method=method, target=path, headers=list(all_headers.items())))
        out += conn.send(h11.Data(data=data)) if data else b""
        out += conn.send(h11.EndOfMessage())
        self.writer.write(out)
        await self.writer.drain()
        response, chunks = None, []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                raw = await self.reader.read(65536)
                if not raw:
                    raise EOFError("closed by the server")
                conn.receive_data(raw)
                continue
            if isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                chunks.append(event.data)
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise EOFError("closed by the server")
        self.used_at = time.monotonic()
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
        else:
            self.close()
        answer_headers = {k.decode().lower(): v.decode() for k, v in response.headers}
        raw = b"".join(chunks)
        payload = (
            json.loads(raw)
            if raw and answer_headers.get("content-type", "").startswith("application/json")
            else None
        )
        return response.status_code, answer_headers, payload


class Records:
    """What a client process saw, stamped with time.monotonic()."""

    def __init__(self) -> None:
        self.moves: list[tuple] = []  # (game, seq of the change, sent at, mover index, via)
        self.receipts: list[tuple] = []  # (game, seq, at, index or client number, how)
        self.acks: list[tuple] = []  # (game, client id of the move, at)
        self.messages: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.statuses: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.gaps: dict[int, int] = {}  # client number -> messages missing
        self.repeats = 0
        self.connect_failures: Counter[str] = Counter()

    def dump(self, path: Path) -> None:
        path.write_text(
            json.dumps(
                {
                    "moves": self.moves,
                    "receipts": self.receipts,
                    "acks": self.acks,
                    "messages": self.messages,
                    "requests": self.requests,
                    "statuses": self.statuses,
                    "errors": self.errors,
                    "gaps": self.gaps,
                    "repeats": self.repeats,
                    "connect_failures": self.connect_failures,
                }
            )
        )


class Socket:
    """One table socket: reads every message, checks ``seq``, follows ``next_game``."""

    def __init__(
        self, client: int, game: int, base: str, token: str | None, rec: Records, deflate: bool
    ) -> None:
        self.client, self.game, self.base, self.token, self.rec = client, game, base, token, rec
        self.deflate = deflate
        self.ws = None
        self.seq = None  # last seq seen on this game
        self.view: dict | None = None
        self.opened = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.closing = False

    async def run(self, on_view=None) -> None:
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Token {self.token}"} if self.token else None
        while not self.closing:
            try:
                async with connect(
                    f"{self.base}/ws/games/{self.game}",
                    additional_headers=headers,
                    compression="deflate" if self.deflate else None,
                    ping_interval=None,  # the server pings; our pings would only add load
                    open_timeout=60,
                    max_queue=None,
                ) as ws:
                    self.ws = ws
                    first = True
                    async for text in ws:
                        now = time.monotonic()
                        message = json.loads(text)
                        kind = message.get("type")
                        self.rec.messages[kind] += 1
                        if kind == "view":
                            self._seen(message, now, "initial" if first else "push")
                            first = False
                            self.view = message["view"]
                            self.opened.set()
                            nxt = self.view.get("next_game")
                            if self.view["status"] != "active" and nxt:
                                self.game, self.seq = nxt, None
                                break  # open the next game's socket
                            if on_view is not None:
                                on_view(self)
                        elif kind == "ping":
                            await ws.send(json.dumps({"type": "pong", "id": message["id"]}))
                        elif kind == "ack" and isinstance(message.get("id"), str):
                            self.rec.acks.append((self.game, message["id"], now))
                        elif kind == "error":
                            self.rec.errors[message.get("code", "?")] += 1
                            if on_view is not None:
                                on_view(self, error=message)
                    else:
                        if not self.closing:
                            self.rec.connect_failures[f"closed {ws.close_code}"] += 1
                            self.seq = None
                            await asyncio.sleep(1)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # refused or dropped: counted, then reconnect
                if self.closing:
                    return
                rcvd = getattr(error, "rcvd", None)
                code = rcvd.code if rcvd is not None else "no close frame"
                self.rec.connect_failures[f"{type(error).__name__} ({code})"] += 1
                self.seq = None
                await asyncio.sleep(1)
            finally:
                self.ws = None

    def _seen(self, message: dict, now: float, how: str) -> None:
        seq = message["seq"]
        if self.seq is not None and how == "push":
            if seq > self.seq + 1:
                self.rec.gaps[self.client] = self.rec.gaps.get(self.client, 0) + seq - self.seq - 1
            elif seq <= self.seq:
                self.rec.repeats += 1
        if self.seq is None or seq > self.seq:
            self.seq = seq
        self.rec.receipts.append((self.game, seq, now, self.client, how))

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.task is not None:
            self.task.cancel()


class Player:
    def __init__(self, spec: dict, config: dict, rec: Records, number: int) -> None:
        self.spec, self.rec = spec, rec
        self.game: int = spec["game"]
        self.index: int = spec["index"]
        self.key = self.index  # receipts of players carry the player index
        self.rng = random.Random(number)
        auth = {"Authorization": f"Token {spec['token']}"}
        # Two connections, as a browser keeps: the poll's and the move's (one request each
        # at a time: HTTP/1.1 does not interleave).
        self.http = Http(config["host"], config["port"], auth)
        self.move_http = Http(config["host"], config["port"], auth)
        self.base = f"ws://{config['host']}:{config['port']}"
        self.deflate = config["deflate"]
        self.think = tuple(config.get("think", THINK))
        self.etag: str | None = None
        self.seq: int | None = None
        self.view: dict | None = None
        self.acted_seq = -1
        self.acting: asyncio.Task | None = None
        self.socket: Socket | None = None
        self.mode = "idle"
        self.tasks: list[asyncio.Task] = []
        self.moved = 0

    # --- polling (the old table page) ----------------------------------------------------

    async def poll_loop(self) -> None:
        next_at = time.monotonic()
        while self.mode == "poll":
            headers = {"If-None-Match": self.etag} if self.etag else {}
            try:
                status, hdrs, body = await self.http.request(
                    "GET", f"/api/games/{self.game}", headers=headers
                )
            except Exception as error:
                self.rec.errors[f"GET {type(error).__name__}"] += 1
                status, hdrs, body = 0, {}, None
            now = time.monotonic()
            self.rec.requests["GET"] += 1
            self.rec.statuses[f"GET {status}"] += 1
            if status == 200 and body is not None:
                self.etag = hdrs.get("etag")
                self._update(body, now, "poll")
                if self.mode == "poll":
                    self._maybe_act()
            next_at += POLL_SECONDS
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    def _update(self, view: dict, now: float, how: str) -> None:
        if self.seq is None or view["seq"] > self.seq:
            self.seq = view["seq"]
            self.view = view
            self.rec.receipts.append((self.game, view["seq"], now, self.key, how))
        if view["status"] != "active" and view.get("next_game"):
            self.game, self.seq, self.etag, self.view = view["next_game"], None, None, None

    # --- moving ----------------------------------------------------------------------------

    def _maybe_act(self) -> None:
        view = self.view
        if (
            view is not None
            and view["your_turn"]
            and self.acting is None
            and view["seq"] > self.acted_seq
        ):
            self.acting = asyncio.create_task(self._act(view["seq"]))

    async def _act(self, seq: int) -> None:
        try:
            await asyncio.sleep(self.rng.uniform(*self.think))
            view = self.view if self.mode != "sockets" else self.socket.view
            if self.mode == "sockets" and self.socket.ws is None:
                return  # reconnecting: the view on connect says whose turn it is
            if view is None or view["seq"] != seq or not view["your_turn"] or self.mode == "idle":
                return
            move = a_move(view, self.rng)
            self.acted_seq = seq
            sent = time.monotonic()
            via = "rest" if self.mode == "poll" or self.rng.random() < REST_SHARE else "socket"
            record = [self.game, seq + 1, sent, self.index, via, None]
            self.rec.moves.append(record)
            self.moved += 1
            if via == "socket":
                action = {k: v for k, v in move.items() if k != "ply"}
                await self.socket.ws.send(
                    json.dumps(
                        {
                            "type": "move",
                            "id": f"m{self.game}.{seq}",
                            "ply": move["ply"],
                            "action": action,
                        }
                    )
                )
                return
            status, _, body = await self.move_http.request(
                "POST", f"/api/games/{self.game}/actions", body=move
            )
            record[5] = time.monotonic()  # answered
            self.rec.requests["POST"] += 1
            self.rec.statuses[f"POST {status}"] += 1
            if status == 200 and body is not None:
                record[1] = body["seq"]  # the change this move made (the same, unless a race)
                if self.mode == "poll":
                    self._update(body, time.monotonic(), "own")
            else:
                self.rec.errors[f"POST {status}"] += 1
                self.acted_seq = -1
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.rec.errors[f"move {type(error).__name__}"] += 1
            self.acted_seq = -1
        finally:
            self.acting = None
            if self.mode == "poll":
                self._maybe_act()
            elif self.mode == "sockets" and self.socket is not None:
                self._on_socket_view(self.socket)

    def _on_socket_view(self, socket: Socket, error: dict | None = None) -> None:
        if error is not None:
            self.acted_seq = -1  # refused: act again on the current view
            asyncio.get_running_loop().create_task(self._sync(socket))
            return
        self.game = socket.game
        if self.mode == "sockets":
            view = socket.view
            if view and view["your_turn"] and self.acting is None and view["seq"] > self.acted_seq:
                self.acting = asyncio.create_task(self._act(view["seq"]))

    async def _sync(self, socket: Socket) -> None:
        if socket.ws is not None:
            with contextlib.suppress(Exception):
                await socket.ws.send(json.dumps({"type": "sync"}))

    # --- phases ----------------------------------------------------------------------------

    def start_polling(self) -> None:
        self.mode = "poll"
        self.tasks.append(asyncio.create_task(self.poll_loop()))

    async def stop_moving(self) -> None:
        self.mode = "idle"
        if self.acting is not None:
            acting = self.acting
            try:
                await asyncio.wait_for(asyncio.shield(acting), 10)
            except Exception:
                acting.cancel()
        for task in self.tasks:
            task.cancel()
        self.tasks.clear()

    async def open_socket(self, number: int) -> None:
        self.acted_seq = -1
        self.socket = Socket(
            self.index, self.game, self.base, self.spec["token"], self.rec, self.deflate
        )
        self.socket.task = asyncio.create_task(self.socket.run(self._on_socket_view))
        await asyncio.wait_for(self.socket.opened.wait(), 120)


async def commands() -> asyncio.Queue:
    """Lines from stdin, as an asyncio queue (a reader thread feeds it)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line.strip())
        loop.call_soon_threadsafe(queue.put_nowait, "stop")

    threading.Thread(target=read, daemon=True).start()
    return queue


def answer(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def gather_bounded(coroutines, limit: int) -> list:
    semaphore = asyncio.Semaphore(limit)

    async def one(coroutine):
        async with semaphore:
            try:
                return await coroutine
            except Exception as error:
                return error

    return await asyncio.gather(*(one(c) for c in coroutines))


async def players_main(config: dict) -> None:
    rec = Records()
    players = [Player(spec, config, rec, n) for n, spec in enumerate(config["players"])]
    queue = await commands()
    answer("ready")
    while True:
        command = await queue.get()
        if command == "poll":
            for player in players:
                player.start_polling()
            answer("ok")
        elif command == "sockets":
            await asyncio.gather(*(p.stop_moving() for p in players))
            for player in players:
                player.http.close()
            for player in players:
                player.mode = "sockets"
            results = await gather_bounded((p.open_socket(n) for n, p in enumerate(players)), 50)
            failed = sum(isinstance(r, Exception) for r in results)
            answer(f"ok {len(players) - failed} {failed}")
        elif command == "count":
            answer(f"ok {rec.requests['GET']} {rec.requests['POST']} {len(rec.moves)}")
        elif command == "stop":
            await asyncio.gather(*(p.stop_moving() for p in players))
            await asyncio.gather(*(p.socket.close() for p in players if p.socket))
            rec.dump(Path(config["out"]))
            answer("done")
            return


async def spectators_main(config: dict) -> None:
    rec = Records()
    base = f"ws://{config['host']}:{config['port']}"
    games = config["games"]
    sockets = [
        Socket(10_000 + n, games[n % len(games)], base, None, rec, config["deflate"])
        for n in range(config["spectators"])
    ]
    queue = await commands()
    answer("ready")
    while True:
        command = await queue.get()
        if command == "open":
            # At most 100 handshakes in flight; whatever has not opened by the deadline is
            # reported as not open (it keeps trying in the background).
            deadline = time.monotonic() + config["open_seconds"]
            semaphore = asyncio.Semaphore(100)

            async def open_one(socket: Socket, semaphore=semaphore, deadline=deadline) -> None:
                async with semaphore:
                    socket.task = asyncio.create_task(socket.run())
                    left = deadline - time.monotonic()
                    if left > 0:
                        with contextlib.suppress(asyncio.TimeoutError):
                            await asyncio.wait_for(asyncio.shield(socket.opened.wait()), left)

            await asyncio.gather(*(open_one(s) for s in sockets))
            opened = sum(s.opened.is_set() for s in sockets)
            answer(f"ok {opened} {len(sockets) - opened}")
        elif command == "stop":
            await gather_bounded((s.close() for s in sockets), 200)
            rec.dump(Path(config["out"]))
            answer("done")
            return


# =============================================================================================
# The orchestrator: Django, the cluster, the phases, the figures.
# =============================================================================================


class Child:
    """A client process driven over stdin/stdout, one command and one answer at a time."""

    def __init__(
        self,
        role: str,
        config: dict,
        name: str,
        script: Path | None = None,
        run_dir: Path = RUN_DIR,
    ) -> None:
        """Start ``script ROLE CONFIG`` (this file by default); its config and log in
        ``run_dir``. Waits for its "ready"."""
        path = run_dir / f"{name}.json"
        path.write_text(json.dumps(config))
        self.log = (run_dir / f"{name}.log").open("w")
        self.process = subprocess.Popen(
            [sys.executable, str(script or Path(__file__).resolve()), role, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=ROOT,
        )
        self.buffer = b""
        self.name = name
        self.read_line(60)  # "ready"

    def read_line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no answer in {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise RuntimeError(f"{self.name} exited (see {self.log.name})")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode().strip()

    def ask(self, command: str, timeout: float = 120) -> list[str]:
        self.process.stdin.write(command.encode() + b"\n")
        self.process.stdin.flush()
        words = self.read_line(timeout).split()
        if not words or words[0] not in ("ok", "done"):
            raise RuntimeError(f"{self.name}: {command} answered {words}")
        return words[1:]

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def configure(port: int, web: str) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
        CLUSTER_WORKER_CONCURRENCY="1",
        WEB_CONCURRENCY=web,
        # People polling and moving: no throttling in the way of the figures.
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
        THROTTLE_ANON_RATE="1000000/min",
        # Every client is on this machine's loopback: no cap on sockets per address.
        SOCKET_MAX_PER_ADDRESS="0",
    )
    # Under ASGI Django runs each HTTP request's sync code on a thread of its own, so a
    # persistent connection (DB_CONN_MAX_AGE, 60 s by default) stays open, unused, for a
    # minute after its request: at 250 polls a second PostgreSQL refused new clients ("too
    # many clients already", 503s) within seconds. Closed after every request instead, as
    # Django's documentation asks of ASGI deployments (see the report in bench/README.md).
    os.environ.setdefault("DB_CONN_MAX_AGE", "0")
    # gunicorn recycles a worker after max_requests (2,000 +- 200): with uvicorn workers that
    # closes every socket the worker holds, mid-run. Off for the bench (command line beats
    # the config file); the figure of a recycle is not what this bench measures.
    os.environ.setdefault("GUNICORN_CMD_ARGS", "--max-requests 0")


def limit_connections(url: str, limit: int) -> None:
    """Cap the bench database's connections: the PostgreSQL is the machine's, shared.

    Under ASGI every HTTP request in flight holds a connection of its own, and nothing
    bounds the requests in flight (see bench/README.md): 200 pollers would take every
    connection the server has and fail other people's tests. Past the cap the bench's
    requests fail (503, counted) instead.
    """
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(
        host=parts.hostname, port=parts.port or 5432, user=parts.username,
        password=parts.password, dbname="postgres", autocommit=True,
    ) as conn:  # fmt: skip
        conn.execute(f'ALTER DATABASE "{parts.path.lstrip("/")}" CONNECTION LIMIT {int(limit)}')


def create_world(games: int) -> list[dict]:
    """2 x games people with tokens, paired in untimed matches that are in play."""
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from games import services
    from games.models import Game

    User = get_user_model()
    names = [f"live{n:04}" for n in range(2 * games)]
    User.objects.bulk_create([User(username=name, password="!") for name in names])
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    Player.objects.bulk_create(
        [Player(kind=Player.Kind.HUMAN, user=by_name[n], name=n.capitalize()) for n in names]
    )
    people = list(Player.objects.filter(user__username__in=names).order_by("user__username"))
    specs = []
    for a, b in zip(people[::2], people[1::2], strict=True):
        match = services.challenge_create(challenger=a, opponent=b)  # untimed, best of 5 to 250
        match = services.challenge_answer(match=match, player=b, accept=True)
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        for index, person in enumerate((a, b)):
            _, token = AuthToken.objects.create(user=person.user)
            specs.append({"game": game.pk, "match": match.pk, "index": index, "token": token})
    return specs


def web_rss(cluster) -> tuple[int, list[int]]:
    """Sum of VmRSS (bytes) of the web process group; each process's."""
    pid = cluster.running().get("web")
    sizes = []
    for member in cluster.group_members(pid) if pid else []:
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) * 1024)
        except FileNotFoundError:
            continue
    return sum(sizes), sorted(sizes)


def web_kind(cluster) -> str:
    log = (cluster.CLUSTER_DIR / "web.log").read_text(errors="replace")
    conf = (ROOT / "deploy" / "gunicorn.conf.py").read_text()
    if "config.workers.UvicornWorker" in conf:
        return "config.workers.UvicornWorker"
    if "UvicornWorker" in conf or "uvicorn" in log.lower():
        return "uvicorn_worker.UvicornWorker"
    return "sync"


def server_deflates(host: str, port: int) -> bool:
    """Whether the cluster accepts permessage-deflate when a client offers it."""
    import asyncio as aio

    from websockets.asyncio.client import connect

    async def probe() -> bool:
        url = f"ws://{host}:{port}/ws/games/999999999"
        async with connect(url, open_timeout=10, compression="deflate") as ws:
            extensions = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
            return "permessage-deflate" in extensions

    try:
        return aio.run(probe())
    except Exception:
        return False


def serves_sockets(host: str, port: int) -> str | None:
    """None if the cluster accepts a table socket; else why not."""
    import asyncio as aio

    from websockets.asyncio.client import connect

    async def probe():
        async with connect(f"ws://{host}:{port}/ws/games/999999999", open_timeout=10) as ws:
            await aio.wait_for(ws.recv(), 5)

    try:
        aio.run(probe())
    except Exception as error:
        if "4404" in str(error) or getattr(error, "code", None) == 4404:
            return None
        rcvd = getattr(error, "rcvd", None)
        if rcvd is not None and rcvd.code == 4404:
            return None
        return f"{type(error).__name__}: {error}"
    return None


# --- Figures ----------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def join(moves, receipts, window, who) -> tuple[list[float], int]:
    """Latencies (ms) from each move sent in ``window`` to the first receipt showing it
    (seq >= the move's) by each client ``who(mover, client)`` accepts; receipts missing."""
    start, end = window
    streams: dict[tuple, tuple[list, list]] = {}
    for game, seq, at, client, how in receipts:
        if how == "own":
            continue
        seqs, times = streams.setdefault((game, client), ([], []))
        seqs.append(seq)
        times.append(at)
    by_game: dict[int, list] = defaultdict(list)
    for key in streams:
        by_game[key[0]].append(key)
    for seqs, times in streams.values():  # receipts in arrival order: seq never falls back
        order = sorted(range(len(seqs)), key=lambda i: times[i])
        seqs[:] = [seqs[i] for i in order]
        times[:] = [times[i] for i in order]
        for i in range(1, len(seqs)):
            seqs[i] = max(seqs[i], seqs[i - 1])
    latencies, missing = [], 0
    for game, seq, sent, mover, *_ in moves:
        if not (start <= sent <= end - TAIL):
            continue
        for key in by_game.get(game, ()):
            if not who(mover, key[1]):
                continue
            seqs, times = streams[key]
            if not times or times[0] > sent:
                continue  # the client was not watching yet (a spectator joins mid-game)
            i = bisect.bisect_left(seqs, seq)
            if i < len(seqs) and times[i] >= sent:
                latencies.append((times[i] - sent) * 1000)
            else:
                missing += 1
    return latencies, missing


def line(label: str, values: list[float]) -> str:
    return (
        f"{label:52} n={len(values):6}  p50 {pct(values, 0.5):7.1f} ms  "
        f"p95 {pct(values, 0.95):7.1f} ms  max {max(values) if values else float('nan'):7.1f} ms"
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("players", "spectators"):
        config = json.loads(Path(argv[1]).read_text())
        runner = players_main if argv[0] == "players" else spectators_main
        asyncio.run(runner(config))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 players, 180 spectators, ~1 min")
    parser.add_argument("--games", type=int, default=None, help="tables (two people each)")
    parser.add_argument("--spectators", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None, help="each window's length")
    parser.add_argument(
        "--web",
        default=os.environ.get("WEB_CONCURRENCY", "2"),
        help="web processes (WEB_CONCURRENCY)",
    )
    parser.add_argument(
        "--no-deflate",
        action="store_true",
        help="no permessage-deflate (browsers ask for it; default: asked)",
    )
    parser.add_argument(
        "--think",
        default=f"{THINK[0]},{THINK[1]}",
        help="seconds a person thinks before each move, LOW,HIGH (default: %(default)s)",
    )
    parser.add_argument("--port", type=int, default=8140)
    parser.add_argument("--keep-cluster", action="store_true")
    args = parser.parse_args(argv)
    try:
        think = tuple(float(x) for x in args.think.split(","))
        assert len(think) == 2 and 0 <= think[0] <= think[1]
    except (ValueError, AssertionError):
        parser.error(f"--think wants LOW,HIGH in seconds, LOW <= HIGH: not {args.think!r}")
    sizes = dict(QUICK if args.quick else FULL)
    if args.games:
        sizes["games"] = args.games
    if args.spectators is not None:
        sizes["spectators"] = args.spectators
    if args.seconds:
        sizes["poll"] = sizes["sockets"] = sizes["scale"] = args.seconds
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    run_started = time.monotonic()
    load_before = os.getloadavg()[0]

    configure(args.port, args.web)
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    if cluster.start() != 0:
        return 1
    limit_connections(os.environ["DATABASE_URL"], DB_CONNECTIONS)
    children: list[Child] = []
    lines: list[str] = []
    results: dict = {}
    try:
        why = serves_sockets(cluster.HOST, cluster.PORT)
        if why is not None:
            print(
                f"the cluster does not serve the table socket ({why}): deploy/gunicorn.conf.py "
                "must serve config.asgi:application with uvicorn_worker.UvicornWorker",
                file=sys.stderr,
            )
            return 1
        setup_django(cluster)
        specs = create_world(sizes["games"])
        games = sorted({s["game"] for s in specs})
        common = {
            "host": cluster.HOST,
            "port": cluster.PORT,
            "deflate": not args.no_deflate,
            "think": think,
        }
        players = Child(
            "players",
            {**common, "players": specs, "out": str(RUN_DIR / "players-records.json")},
            "players",
        )
        children.append(players)
        spectators = Child(
            "spectators",
            {
                **common,
                "games": games,
                "spectators": sizes["spectators"],
                "open_seconds": sizes["open"],
                "out": str(RUN_DIR / "spectators-records.json"),
            },
            "spectators",
        )
        children.append(spectators)
        import django
        from django.db import connection

        print(
            f"live: {len(specs)} players in {len(games)} untimed games, then "
            f"{sizes['spectators']} spectators; windows {sizes['poll']:.0f}/{sizes['sockets']:.0f}/"
            f"{sizes['scale']:.0f} s",
            flush=True,
        )
        rss_start = web_rss(cluster)

        def window(seconds: float) -> tuple[float, float, int, int]:
            time.sleep(SETTLE)
            get0, post0, _ = map(int, players.ask("count"))
            start = time.monotonic()
            time.sleep(seconds)
            end = time.monotonic()
            get1, post1, _ = map(int, players.ask("count"))
            return start, end, get1 - get0, post1 - post0

        # 1. Polling.
        players.ask("poll")
        poll = window(sizes["poll"])
        print(f"  polling window done ({poll[2]} GETs)", flush=True)
        rss_before = web_rss(cluster)
        # 2. Sockets.
        opened = time.monotonic()
        ok, failed = map(int, players.ask("sockets", timeout=300))
        players_open_s = time.monotonic() - opened
        sock = window(sizes["sockets"])
        rss_players = web_rss(cluster)
        print(f"  sockets window done ({ok} players connected, {failed} failed)", flush=True)
        # 3. Scale.
        opened = time.monotonic()
        s_ok, s_failed = map(int, spectators.ask("open", timeout=sizes["open"] + 60))
        spectators_open_s = time.monotonic() - opened
        time.sleep(2)
        rss_all = web_rss(cluster)
        scale = window(sizes["scale"])
        print(f"  scale window done ({s_ok} spectators connected, {s_failed} failed)", flush=True)
        spectators.ask("stop", timeout=300)
        players.ask("stop", timeout=300)
        pg = connection.pg_version // 10000
        dj = django.get_version()
        kind = web_kind(cluster)
        deflates = server_deflates(cluster.HOST, cluster.PORT)
        from django.conf import settings

        layer = settings.CHANNEL_LAYER
    finally:
        for child in children:
            child.kill()
        if not args.keep_cluster:
            cluster.stop()
            drop_database(os.environ["DATABASE_URL"])
            for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
                redis.Redis.from_url(url).flushdb()

    p = json.loads((RUN_DIR / "players-records.json").read_text())
    s = json.loads((RUN_DIR / "spectators-records.json").read_text())
    moves = [tuple(m) for m in p["moves"]]
    opp = lambda mover, client: client in (0, 1) and client != mover  # noqa: E731
    others = lambda mover, client: client != mover  # noqa: E731
    poll_lat, _poll_missing = join(moves, p["receipts"], poll[:2], opp)
    sock_lat, sock_missing = join(moves, p["receipts"], sock[:2], opp)
    sock_moves = [m for m in moves if m[4] == "socket"]
    rest_moves = [m for m in moves if m[4] == "rest"]
    sock_ws, _ = join(sock_moves, p["receipts"], sock[:2], opp)
    sock_rest, _ = join(rest_moves, p["receipts"], sock[:2], opp)
    acks = {ident: at for _, ident, at in p["acks"]}

    def answered(window) -> tuple[list[float], list[float]]:
        """Move sent -> the server's answer: the socket's ack, the REST response."""
        on_socket, over_rest = [], []
        for game, seq, sent, _, via, rest_at in moves:
            if not (window[0] <= sent <= window[1] - TAIL):
                continue
            if via == "socket" and (at := acks.get(f"m{game}.{seq - 1}")) is not None:
                on_socket.append((at - sent) * 1000)
            elif via == "rest" and rest_at is not None:
                over_rest.append((rest_at - sent) * 1000)
        return on_socket, over_rest

    sock_ack, sock_answer = answered(sock)
    scale_ack, _ = answered(scale)
    poll_answer = answered(poll)[1]
    scale_opp, _ = join(moves, p["receipts"], scale[:2], opp)
    scale_watch, watch_missing = join(moves, s["receipts"], scale[:2], others)
    scale_all = scale_opp + scale_watch
    n_poll = sum(1 for m in moves if poll[0] <= m[2] <= poll[1])
    n_sock = sum(1 for m in moves if sock[0] <= m[2] <= sock[1])
    n_scale = sum(1 for m in moves if scale[0] <= m[2] <= scale[1])
    gaps = {**p["gaps"], **s["gaps"]}
    total_gaps = sum(gaps.values())
    messages = Counter(p["messages"]) + Counter(s["messages"])
    mib = 1024 * 1024
    per_socket_players = (rss_players[0] - rss_before[0]) / max(1, ok)
    per_socket_all = (rss_all[0] - rss_before[0]) / max(1, ok + s_ok)
    per_socket_spect = (rss_all[0] - rss_players[0]) / max(1, s_ok)
    held = ok + s_ok
    failures = Counter(p["connect_failures"]) + Counter(s["connect_failures"])
    errors = Counter(p["errors"]) + Counter(s["errors"])

    p50_ok = pct(sock_lat, 0.5) <= TARGET_P50_MS
    p95_ok = pct(sock_lat, 0.95) <= TARGET_P95_MS
    scale_ok = (
        pct(scale_all, 0.95) <= TARGET_SCALE_P95_MS and held >= len(specs) + sizes["spectators"]
    )
    # A lost message is a gap in seq. A socket that closed (and had not reopened by the end)
    # misses pushes without a gap: counted on the line above the verdict, not as drops.
    drop_ok = total_gaps == 0
    lines += [
        "",
        f"live benchmark: {os.cpu_count()} cores; PostgreSQL {pg}, Redis "
        f"{os.environ['REDIS_URL']} (channel layer: {layer}); Django {dj}; gunicorn "
        f"x{os.environ['WEB_CONCURRENCY']} {kind}; 2 Celery workers, beat; clients: 2 "
        f"processes (asyncio, websockets, permessage-deflate "
        f"{'off' if args.no_deflate else 'asked'}; the server "
        f"{'accepts' if deflates else 'declines'} it)",
        f"{len(specs)} players in {len(games)} untimed games (best of 5 to 250), thinking "
        f"{think[0]}-{think[1]} s a move",
        "",
        f"move to opponent, {len(specs)} players ({sizes['sockets']:.0f} s; {n_sock} moves, "
        f"{REST_SHARE:.0%} over REST)",
        "  " + line("sockets: move sent -> opponent's socket has the view", sock_lat),
        "  " + line("  moves sent on the socket", sock_ws),
        "  " + line("  moves POSTed over REST", sock_rest),
        "  " + line("  move sent -> its ack on the mover's socket", sock_ack),
        "  " + line("  move POSTed -> its answer (REST)", sock_answer),
        f"  target p50 <= {TARGET_P50_MS:.0f} ms: {verdict(p50_ok)}; "
        f"target p95 <= {TARGET_P95_MS:.0f} ms: {verdict(p95_ok)}",
        f"  polling fallback ({sizes['poll']:.0f} s; {n_poll} moves; GET If-None-Match every "
        f"{POLL_SECONDS} s)",
        "  " + line("polling: move POSTed -> opponent's poll shows it", poll_lat),
        "  " + line("  move POSTed -> its answer", poll_answer),
        "",
        f"scale: {held} sockets held ({ok} players + {s_ok} spectators; {failed + s_failed} "
        f"failed to open; players opened in {players_open_s:.1f} s, spectators in "
        f"{spectators_open_s:.1f} s), {sizes['scale']:.0f} s, {n_scale} moves",
        "  " + line("push: move sent -> every other socket at the table", scale_all),
        "  " + line("  to the opponent", scale_opp),
        "  " + line("  to the spectators", scale_watch),
        "  " + line("  move sent -> its ack on the mover's socket", scale_ack),
        f"  target p95 <= {TARGET_SCALE_P95_MS:.0f} ms with {len(specs) + sizes['spectators']:,} "
        f"sockets: {verdict(scale_ok)}",
        f"  memory: web RSS {rss_start[0] / mib:.0f} MiB at start, {rss_before[0] / mib:.0f} "
        f"MiB before the sockets, {rss_players[0] / mib:.0f} MiB with {ok}, "
        f"{rss_all[0] / mib:.0f} MiB with {held} -> {per_socket_all / 1024:.0f} KiB a socket "
        f"(players {per_socket_players / 1024:.0f} KiB, spectators "
        f"{per_socket_spect / 1024:.0f} KiB); processes "
        f"{[round(x / mib) for x in rss_all[1]]} MiB",
        f"  messages received: {sum(messages.values()):,} ({dict(messages.most_common())}); "
        f"seq gaps: {total_gaps} in total, {sum(1 for v in gaps.values() if v)} of {held} "
        f"clients with a gap; repeats {p['repeats'] + s['repeats']}; pushes never received "
        f"(players {sock_missing}, spectators {watch_missing})",
        f"  no message dropped: {verdict(drop_ok)}",
        f"  reconnects/refusals: {dict(failures) or 0}; errors: {dict(errors) or 0}",
        "",
        f"request load of the {len(specs)} players: polling {poll[2] / (poll[1] - poll[0]):.1f} "
        f"GET/s + {poll[3] / (poll[1] - poll[0]):.1f} POST/s; sockets "
        f"{sock[2] / (sock[1] - sock[0]):.1f} GET/s + {sock[3] / (sock[1] - sock[0]):.1f} POST/s "
        f"(the REST share of the moves)",
        f"run time {time.monotonic() - run_started:.0f} s; load average {load_before:.2f} -> "
        f"{os.getloadavg()[0]:.2f}",
    ]
    ok_all = p50_ok and p95_ok and scale_ok and drop_ok
    lines.append(f"verdict: {verdict(ok_all)}")
    print("\n".join(lines))
    results = {
        "sockets_ms": {"p50": pct(sock_lat, 0.5), "p95": pct(sock_lat, 0.95), "n": len(sock_lat)},
        "polling_ms": {"p50": pct(poll_lat, 0.5), "p95": pct(poll_lat, 0.95), "n": len(poll_lat)},
        "scale_ms": {"p50": pct(scale_all, 0.5), "p95": pct(scale_all, 0.95), "n": len(scale_all)},
        "held": held,
        "bytes_per_socket": per_socket_all,
        "gaps": total_gaps,
        "messages": messages,
        "pass": ok_all,
    }
    out = ROOT / "bench" / "results" / "live.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
