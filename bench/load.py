#!/usr/bin/env python3
"""Load benchmark: 200 people playing timed games on the table socket while a 256-bot event runs.

One file on purpose, though long: a benchmark is one command, and its set-up, load and
report read top to bottom.

    make bench-load        (or: .venv/bin/python bench/load.py [--quick] [--compare] ...)

On the local launcher of deploy/cluster.py (gunicorn with four uvicorn workers serving the
ASGI app, an interactive and a batch Celery worker, beat) with the local PostgreSQL and Redis,
in a database of its own (``ginrummy_bench_load``, dropped first) and two free Redis
databases (the broker; the cache, which is also the channel layer):

1. Sets up the world: the people (with sign-in tokens), a few greedy bots to challenge and a
   256-bot single-elimination event (greedy bots, best of five to 250) open for its start.
2. Runs the people in one client process (asyncio; the HTTP client and the table socket
   client of bench/live.py), stamped with ``time.monotonic()`` (system-wide on Linux, so the
   client's stamps and this process's compare). Once they have arrived, the event starts,
   so its 255 bot matches run on the batch worker while the interactive one takes the
   people's bot replies and clocks.
   - Half the players play each other in fixed pairs: one challenges over REST, the other
     accepts from its list of challenges; the other half challenge a bot.
   - Every player opens the table socket (``ws://HOST/ws/games/<id>``, token on the
     handshake), reads the game view once over REST (the page's load), and then learns
     everything from the socket: it thinks 4-8 s when the pushed view says it is its turn
     and moves, POSTed over REST or sent on the socket (``--socket-share``, half by
     default), and presses Continue (socket or REST) when a deal ends. Every socket checks
     that ``seq`` has no gap.
   - 20 spectators read the event (bracket, standings), the leaderboard, the list of
     matches in play and game views over REST every 2-4 s, and each watches one of the
     people's tables on an anonymous socket.
   Games are timed (90 s a player, 2 s increment) and short (one game to 25); when the run
   ends every player resigns the match it is in.
3. Prints per route p50/p95/p99 latency and errors (the conflicts a run expects are counted
   apart, by code: a move's ``stale_ply``, ``not_your_turn`` or ``game_over`` when a clock
   or a bot moved first, an accept's ``not_pending``, ``too_late`` when resigning at the end,
   a continue's ``not_paused``), the socket figures (a move reaching the opponent's socket,
   the spectators' sockets, a socket move's ack, a bot's reply), a rolling p95 per 10 s
   window beside the event's round in play, the target lines (move POST p95 <= 200 ms, p99
   <= 500 ms, game view GET p95 <= 150 ms, opponent's socket p95 <= 250 ms), then waits for
   the event's champion (its time beside the 173 s of the REST-and-polling run this
   replaces) and **replays every match** from its log through the engine.

``--no-event``: the same run with the event switched off. ``--compare``: both on one cluster,
first without the event, then with it, and a side-by-side summary. ``--quick``: 40 players,
30 s, a 32-bot event (``--players``, ``--spectators``, ``--seconds``, ``--event-bots``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

from harness import a_move, cluster_environment, drop_database, load_cluster, setup_django
from live import (
    Child,
    Http,
    Records,
    Socket,
    answer,
    commands,
    gather_bounded,
    join,
    limit_connections,
    pct,
    serves_sockets,
    web_kind,
)

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "bench-load"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_load"

#: Seconds a player thinks before a move, before pressing Continue, and how often a lobby
#: list is read while waiting.
THINK = (4.0, 8.0)
CONTINUE_THINK = (1.0, 3.0)
POLL = 3.0
#: The only conflicts a run expects, per request: a move that a clock or a bot's reply beat
#: (the ply moved on, the turn passed, the game ended on time), a challenge withdrawn before
#: its answer, a Continue after the next deal started, a resignation of a match just over.
#: Any other 409 (on these or any other route) is an error.
MOVE_CONFLICTS = frozenset({"stale_ply", "not_your_turn", "game_over"})
ACCEPT_CONFLICTS = frozenset({"not_pending"})
CONTINUE_CONFLICTS = frozenset({"not_paused", "game_over"})
SOCKET_CONFLICTS = MOVE_CONFLICTS | CONTINUE_CONFLICTS
#: Timed, short matches: one game to 25 (a deal or two), 90 s a player, 2 s increment.
MATCH = {
    "best_of": 1,
    "target": 25,
    "time_control": {"base_seconds": 90, "increment_seconds": 2},
}
#: Targets (ms).
TARGETS = {
    "move POST p95": 200.0,
    "move POST p99": 500.0,
    "view GET p95": 150.0,
    "opponent socket p95": 250.0,
}
#: A 256-bot event's time from its start to its champion in the REST-and-polling run.
OLD_EVENT_SECONDS = 173
#: Width of the rolling windows (s); moves in a window's last TAIL s are not joined.
WINDOW, TAIL = 10.0, 2.0
#: Spectator socket numbers start here (a player's is its number in the run).
SPECTATOR_BASE = 10_000
MOVE_ROUTE = "POST /api/games/{id}/actions"
VIEW_ROUTE = "GET /api/games/{id}"
FULL = {"players": 200, "spectators": 20, "seconds": 180, "event_bots": 256}
QUICK = {"players": 40, "spectators": 20, "seconds": 30, "event_bots": 32}


# =============================================================================================
# The client process (no Django): `load.py people CONFIG`.
# =============================================================================================


class LoadRecords(Records):
    """live.Records plus every request's (route, started at, ms, status) and refusals."""

    def __init__(self) -> None:
        super().__init__()
        self.samples: list[tuple] = []
        self.failures: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.conflicts: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()
        self.bot_replies: list[tuple] = []  # (sent at, ms to the bot's reply on the socket)

    def dump(self, path: Path) -> None:
        super().dump(path)
        data = json.loads(path.read_text())
        data.update(
            samples=self.samples,
            failures=self.failures,
            examples=self.examples,
            conflicts=self.conflicts,
            counts=self.counts,
            bot_replies=self.bot_replies,
        )
        path.write_text(json.dumps(data))


class Client:
    """What a person or a spectator shares: one HTTP connection, timed and checked requests."""

    def __init__(self, config: dict, rec: LoadRecords, token: str) -> None:
        self.rec = rec
        self.http = Http(config["host"], config["port"], {"Authorization": f"Token {token}"})
        self.base = f"ws://{config['host']}:{config['port']}"
        self.stopping = False

    async def request(
        self,
        method: str,
        path: str,
        route: str,
        body: dict | None = None,
        headers: dict | None = None,
        expect=(200, 201),
        conflicts=frozenset(),
    ) -> tuple[int, dict, dict | None]:
        """One request, recorded; a 409 with a code in ``conflicts`` counts apart as
        expected, anything else not in ``expect`` as an error."""
        started = time.monotonic()
        try:
            status, hdrs, payload = await self.http.request(method, path, body, headers)
        except Exception as error:
            ms = (time.monotonic() - started) * 1000
            self.rec.samples.append((route, started, ms, 0))
            self._fail(f"{route} {type(error).__name__}", str(error))
            return 0, {}, None
        ms = (time.monotonic() - started) * 1000
        self.rec.samples.append((route, started, ms, status))
        code = payload.get("code") if isinstance(payload, dict) else None
        if status == 409 and code in conflicts:
            self.rec.conflicts[f"409 {code} {route}"] += 1
        elif status not in expect:
            self._fail(f"{route} {status} {code or ''}".strip(), json.dumps(payload)[:200])
        return status, hdrs, payload

    def _fail(self, key: str, example: str) -> None:
        self.rec.failures[key] += 1
        self.rec.examples.setdefault(key, example)


class Person(Client):
    """A player: finds a match over REST, plays it on the table socket."""

    def __init__(self, spec: dict, config: dict, rec: LoadRecords, shared: dict) -> None:
        super().__init__(config, rec, spec["token"])
        self.spec, self.config, self.shared = spec, config, shared
        self.number = spec["number"]
        self.rng = random.Random(self.number)
        self.match_id: int | None = None
        self.game_id: int | None = None
        self.socket: Socket | None = None
        self.changed = asyncio.Event()
        self.acted_seq = -1
        self.continued_seq = -1
        self.waiting_bot: tuple[float, int] | None = None  # (sent at, seq of the move)
        self.moves_sent = 0

    async def run(self) -> None:
        while not self.stopping:
            try:
                if self.game_id is None:
                    await self.find_a_game()
                else:
                    await self.play()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a bug of the client: counted, never silent
                self._fail(f"client {type(error).__name__}", repr(error)[:200])
                await asyncio.sleep(POLL)

    # --- the lobby, over REST ------------------------------------------------------------

    async def find_a_game(self) -> None:
        role = self.spec["role"]
        if role == "bot":
            bots = self.config["bots"]
            body = {"opponent": bots[self.number % len(bots)], **MATCH}
            status, _, match = await self.request("POST", "/api/matches", "POST /api/matches", body)
            if status == 201:
                self.begin(match)
            else:
                await asyncio.sleep(POLL)
        elif role == "challenger":
            if self.match_id is None:
                body = {"opponent": self.spec["partner"], **MATCH}
                status, _, match = await self.request(
                    "POST", "/api/matches", "POST /api/matches", body
                )
                if status == 201:
                    self.match_id = match["id"]
                await asyncio.sleep(POLL)
                return
            _, _, match = await self.request(
                "GET", f"/api/matches/{self.match_id}", "GET /api/matches/{id}"
            )
            if match and match["status"] == "active":
                self.begin(match)
            elif match and match["status"] != "challenged":
                self.match_id = None  # declined or cancelled: challenge again
            else:
                await asyncio.sleep(POLL)
        else:  # answers the partner's challenges
            _, _, page = await self.request(
                "GET",
                f"/api/matches?status=challenged&player={self.spec['id']}",
                "GET /api/matches?status=challenged",
            )
            for match in (page or {}).get("results", []):
                if match["player_b"]["id"] == self.spec["id"]:
                    status, _, accepted = await self.request(
                        "POST",
                        f"/api/matches/{match['id']}/accept",
                        "POST /api/matches/{id}/accept",
                        conflicts=ACCEPT_CONFLICTS,
                    )
                    if status == 200:
                        self.begin(accepted)
                        return
            await asyncio.sleep(POLL)

    def begin(self, match: dict) -> None:
        self.match_id = match["id"]
        self.game_id = match["current_game"]
        self.acted_seq = self.continued_seq = -1
        self.rec.counts["matches started"] += 1
        if self.spec["role"] != "bot" and self.game_id:
            self.shared["tables"].add(self.game_id)

    # --- the table, on the socket --------------------------------------------------------

    def _on_view(self, socket: Socket, error: dict | None = None) -> None:
        if error is not None:
            self.acted_seq = -1  # refused: act again on the view the socket holds
        view = socket.view
        if (
            self.waiting_bot
            and view is not None
            and view["seq"] > self.waiting_bot[1]
            # The bot answered: the turn is back, the deal is over (its pause) or the game.
            and (view["your_turn"] or view.get("pause") or view["status"] != "active")
        ):
            sent = self.waiting_bot[0]
            self.rec.bot_replies.append((sent, (time.monotonic() - sent) * 1000))
            self.waiting_bot = None
        self.changed.set()

    async def play(self) -> None:
        game = self.game_id
        self.socket = Socket(
            self.number, game, self.base, self.spec["token"], self.rec, deflate=True
        )
        self.socket.task = asyncio.create_task(self.socket.run(self._on_view))
        try:
            # The page's load: the view over REST once, then the socket keeps it.
            await self.request("GET", f"/api/games/{game}", VIEW_ROUTE)
            while not self.stopping:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 5)
                self.changed.clear()
                view = self.socket.view
                if view is None or self.socket.ws is None:
                    continue
                if view["status"] != "active":
                    self.rec.counts["games finished"] += 1
                    break
                if view.get("pause") and view["seq"] > self.continued_seq:
                    await self._continue(view)
                elif view["your_turn"] and view["seq"] > self.acted_seq:
                    await self._move(view)
        finally:
            self.shared["tables"].discard(game)
            await self.socket.close()
            self.socket = None
            if not self.stopping:
                self.match_id = self.game_id = None  # one game a match: on to the next

    async def _move(self, view: dict) -> None:
        seq = view["seq"]
        await asyncio.sleep(self.rng.uniform(*THINK))
        view = self.socket.view
        if (
            self.stopping
            or view is None
            or self.socket.ws is None
            or view["seq"] != seq
            or not view["your_turn"]
        ):
            self.changed.set()  # look again at what the socket holds now
            return
        move = a_move(view, self.rng)
        self.acted_seq = seq
        via = "socket" if self.rng.random() < self.config["socket_share"] else "rest"
        sent = time.monotonic()
        record = [self.game_id, seq + 1, sent, self.number, via, None]
        self.rec.moves.append(record)
        self.moves_sent += 1
        if self.spec["role"] == "bot":
            self.waiting_bot = (sent, seq + 1)
        if via == "socket":
            action = {k: v for k, v in move.items() if k != "ply"}
            ident = f"m{self.number}.{self.game_id}.{seq}"
            try:
                await self.socket.ws.send(
                    json.dumps({"type": "move", "id": ident, "ply": move["ply"], "action": action})
                )
                return
            except Exception:
                # The socket dropped (counted with its reconnects): the page moves over REST.
                self.rec.counts["socket moves sent over REST (socket down)"] += 1
                record[4] = "rest"
        status, _, body = await self.request(
            "POST", f"/api/games/{self.game_id}/actions", MOVE_ROUTE, move, conflicts=MOVE_CONFLICTS
        )
        record[5] = time.monotonic()
        if status == 200 and body is not None:
            record[1] = body["seq"]  # the change this move made
            if self.waiting_bot:
                self.waiting_bot = (sent, body["seq"])
        else:
            self.acted_seq = -1
            self.waiting_bot = None
            self.changed.set()

    async def _continue(self, view: dict) -> None:
        """Ready for the next deal, after reading the score sheet a moment."""
        seq = view["seq"]
        self.continued_seq = seq
        await asyncio.sleep(self.rng.uniform(*CONTINUE_THINK))
        if self.stopping or self.socket.ws is None or not (self.socket.view or {}).get("pause"):
            return
        if self.rng.random() < self.config["socket_share"]:
            ident = f"c{self.number}.{self.game_id}.{seq}"
            with contextlib.suppress(Exception):
                await self.socket.ws.send(json.dumps({"type": "continue", "id": ident}))
            self.rec.counts["continues on the socket"] += 1
        else:
            await self.request(
                "POST",
                f"/api/games/{self.game_id}/continue",
                "POST /api/games/{id}/continue",
                conflicts=CONTINUE_CONFLICTS,
            )

    async def leave(self) -> None:
        """Leave nothing unfinished: resign the match in play, or withdraw a challenge."""
        if self.match_id is None:
            return
        if self.game_id is None:  # the challenger's challenge, not answered (yet)
            status, _, _ = await self.request(
                "POST",
                f"/api/matches/{self.match_id}/cancel",
                "POST /api/matches/{id}/cancel",
                conflicts={"too_late"},
            )
            if status != 409:
                return
        # In play, or accepted meanwhile; too late when the opponent resigned it first.
        await self.request(
            "POST",
            f"/api/matches/{self.match_id}/resign",
            "POST /api/matches/{id}/resign",
            conflicts={"too_late"},
        )


class Spectator(Client):
    """Reads the event and the lobby over REST; watches one of the people's tables."""

    def __init__(self, number: int, token: str, config: dict, rec: LoadRecords, shared: dict):
        super().__init__(config, rec, token)
        self.number, self.config, self.shared = number, config, shared
        self.rng = random.Random(SPECTATOR_BASE + number)
        self.socket: Socket | None = None

    async def run(self) -> None:
        event, ladder = self.config["event"], self.config["ladder"]
        while not self.stopping:
            await self._watch_a_table()
            choice = self.rng.random()
            if choice < 0.3 and event:
                await self.request(
                    "GET", f"/api/events/{event}/bracket", "GET /api/events/{id}/bracket"
                )
            elif choice < 0.5 and event:
                await self.request(
                    "GET", f"/api/events/{event}/standings", "GET /api/events/{id}/standings"
                )
            elif choice < 0.65:
                await self.request(
                    "GET", f"/api/ladders/{ladder}/leaderboard", "GET /api/ladders/{id}/leaderboard"
                )
            else:
                _, _, page = await self.request(
                    "GET", "/api/matches?status=active", "GET /api/matches?status=active"
                )
                games = [m["current_game"] for m in (page or {}).get("results", [])]
                games = [g for g in games if g]
                if games:  # a spectator's view: no hidden card, but the same table
                    await self.request("GET", f"/api/games/{self.rng.choice(games)}", VIEW_ROUTE)
            await asyncio.sleep(self.rng.uniform(2.0, 4.0))

    async def _watch_a_table(self) -> None:
        view = self.socket.view if self.socket else None
        if self.socket is not None and (view is None or view["status"] == "active"):
            return
        if self.socket is not None:
            await self.socket.close()
            self.socket = None
        tables = sorted(self.shared["tables"])
        if tables:
            game = self.rng.choice(tables)
            self.socket = Socket(
                SPECTATOR_BASE + self.number, game, self.base, None, self.rec, deflate=True
            )
            self.socket.task = asyncio.create_task(self.socket.run())


async def people_main(config: dict) -> None:
    """The client process: "start" lets everyone in over the ramp, "stop" ends the run."""
    rec = LoadRecords()
    shared: dict = {"tables": set()}
    people = [Person(spec, config, rec, shared) for spec in config["players"]]
    spectators = [
        Spectator(n, token, config, rec, shared) for n, token in enumerate(config["spectators"])
    ]
    everyone: list[Client] = [*people, *spectators]
    tasks: list[asyncio.Task] = []
    queue = await commands()
    answer("ready")
    while True:
        command = await queue.get()
        if command == "start":
            started = time.monotonic()
            answer(f"ok {started!r}")
            ramp = config["ramp"]
            order = list(range(len(everyone)))
            random.Random(0).shuffle(order)
            for k, index in enumerate(order):
                await asyncio.sleep(max(0.0, started + ramp * k / len(order) - time.monotonic()))
                tasks.append(asyncio.create_task(everyone[index].run()))
        elif command == "count":
            answer(f"ok {len(rec.samples)} {len(rec.moves)}")
        elif command == "stop":
            for client in everyone:
                client.stopping = True
            for person in people:
                if person.socket is not None:
                    person.changed.set()
            _, pending = await asyncio.wait(tasks, timeout=15) if tasks else (set(), set())
            for task in pending:
                task.cancel()
            rec.counts["clients still busy at the end"] = len(pending)
            for person in people:
                if person.socket is not None:
                    await person.socket.close()
            for spectator in spectators:
                if spectator.socket is not None:
                    await spectator.socket.close()
            await gather_bounded((p.leave() for p in people), 20)
            rec.dump(Path(config["out"]))
            answer("done")
            return


# =============================================================================================
# The orchestrator: run with the service's .venv.
# =============================================================================================


def configure(port: int) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
        CLUSTER_WORKERS=os.environ.get("CLUSTER_WORKERS", "2"),
        CLUSTER_WORKER_CONCURRENCY="1",
        WEB_CONCURRENCY=os.environ.get("WEB_CONCURRENCY", "4"),
        # Every client is on this machine's loopback: no cap on sockets per address.
        SOCKET_MAX_PER_ADDRESS="0",
    )
    # gunicorn recycles a worker after max_requests, closing every socket it holds: off for
    # the bench (as bench/live.py), so a recycle mid-run is not what is measured.
    os.environ.setdefault("GUNICORN_CMD_ARGS", "--max-requests 0")


def create_world(tag: str, players: int, spectators: int, event_bots: int) -> dict:
    """People with tokens and roles, bots to challenge, the event (or none), a ladder."""
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from ladders.models import Ladder
    from tournaments import services as events

    User = get_user_model()
    names = [f"load{tag}{n:03}" for n in range(players + spectators)]
    User.objects.bulk_create([User(username=name, password="!") for name in names])
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    Player.objects.bulk_create(
        [Player(kind=Player.Kind.HUMAN, user=by_name[n], name=n.capitalize()) for n in names]
    )
    people = list(Player.objects.filter(user__username__in=names).order_by("user__username"))
    bots = [
        Player.objects.create(
            kind=Player.Kind.BOT, name=f"Load bot {tag}{i}", bot_strategy="greedy"
        )
        for i in range(1, 9)
    ]
    paired = players // 4 * 2  # half the players, in pairs
    rows, tokens = [], []
    for index, player in enumerate(people):
        _, token = AuthToken.objects.create(user=player.user)
        if index >= players:
            tokens.append(token)
            continue
        row = {"id": player.pk, "token": token, "number": index}
        if index < paired:
            row["role"] = "challenger" if index % 2 == 0 else "answerer"
            row["partner"] = people[index + 1 if index % 2 == 0 else index - 1].pk
        else:
            row["role"] = "bot"
        rows.append(row)
    event_id = None
    if event_bots:
        Player.objects.bulk_create(
            [
                Player(kind=Player.Kind.BOT, name=f"Event bot {tag}{i}", bot_strategy="greedy")
                for i in range(1, event_bots + 1)
            ]
        )
        event = events.event_create(
            name=f"{event_bots} greedy bots under load", format="single_elim", base_seconds=None
        )
        events.event_open_registration(event=event)
        for bot in Player.objects.filter(name__startswith=f"Event bot {tag}"):
            events.entry_add(event=event, player=bot)
        event_id = event.pk
    ladder, _ = Ladder.objects.get_or_create(slug="load-ladder", defaults={"name": "Load ladder"})
    return {
        "players": rows,
        "spectators": tokens,
        "bots": [b.pk for b in bots],
        "event": event_id,
        "ladder": ladder.pk,
    }


def event_state(event_id: int) -> str:
    """The event's rounds in play and its matches in play, as one short label."""
    from games.models import Match
    from tournaments.models import Event, Round

    rounds = Round.objects.filter(event_id=event_id, status=Round.Status.RUNNING)
    names = ",".join(r.name for r in rounds.order_by("number")) or "-"
    playing = Match.objects.filter(
        source=Match.Source.TOURNAMENT, status=Match.Status.ACTIVE
    ).count()
    status = Event.objects.values_list("status", flat=True).get(pk=event_id)
    return f"{names} ({playing} in play)" if status == Event.Status.RUNNING else status


def wait_for_the_end(event_id: int | None, timeout: float, marks: list) -> tuple[float, list[int]]:
    """Seconds until the event has its champion and no match is in play; matches left."""
    from games.models import Match
    from tournaments.models import Event

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        unfinished = list(
            Match.objects.filter(status__in=[Match.Status.ACTIVE, Match.Status.SCHEDULED])
            .exclude(source=Match.Source.TOURNAMENT, status=Match.Status.SCHEDULED)
            .values_list("pk", flat=True)
        )
        running = False
        if event_id is not None:
            running = Event.objects.get(pk=event_id).status == Event.Status.RUNNING
            marks.append((time.monotonic(), event_state(event_id)))
        if not running and not unfinished:
            return time.monotonic() - started, []
        time.sleep(1)
    return time.monotonic() - started, unfinished


def verify_logs() -> dict:
    """Replay every match from its log; compare with Match.state and the result."""
    from games import selectors
    from games.engine.match import Match as EngineMatch
    from games.models import Game, Match

    report = {"matches": 0, "replayed_equal": 0, "mismatches": [], "unfinished_games": 0}
    played = Match.objects.exclude(state=None).select_related("player_a", "player_b")
    for match in played.iterator(chunk_size=200):
        report["matches"] += 1
        replayed = EngineMatch.replay(selectors.match_log(match=match))
        same = replayed.snapshot() == match.state
        if match.status == Match.Status.FINISHED:
            same = same and list(replayed.games_won) == [match.games_won_a, match.games_won_b]
            same = same and match.winner_id == match.players[replayed.winner]
        if same:
            report["replayed_equal"] += 1
        else:
            report["mismatches"].append(match.pk)
    report["unfinished_games"] = Game.objects.filter(
        status=Game.Status.ACTIVE, match__status=Match.Status.FINISHED
    ).count()
    report["by_status"] = {
        status: Match.objects.filter(status=status).count() for status in Match.Status.values
    }
    return report


def run_phase(cluster, tag: str, sizes: dict, event_on: bool, args) -> dict:
    """One run: the world, the people for ``seconds``, the event's end; its raw figures."""
    from tournaments import services as events
    from tournaments.models import Event

    event_bots = sizes["event_bots"] if event_on else 0
    world = create_world(tag, sizes["players"], sizes["spectators"], event_bots)
    ramp = min(10.0, sizes["seconds"] / 4)
    out = RUN_DIR / f"records-{tag}.json"
    config = {
        "host": cluster.HOST,
        "port": cluster.PORT,
        "socket_share": args.socket_share,
        "ramp": ramp,
        "out": str(out),
        **world,
    }
    label = f"a {event_bots}-bot event starts once they are in" if event_on else "no event"
    print(
        f"load ({'event on' if event_on else 'event off'}): {sizes['players']} players + "
        f"{sizes['spectators']} spectators for {sizes['seconds']} s on "
        f"http://{cluster.HOST}:{cluster.PORT}; {label}",
        flush=True,
    )
    child = Child("people", config, f"people-{tag}", Path(__file__).resolve(), RUN_DIR)
    marks: list[tuple[float, str]] = []
    event_started = event_seconds = None
    try:
        (t0,) = child.ask("start")
        t0 = float(t0)
        time.sleep(max(0.0, t0 + ramp - time.monotonic()))
        if event_on:
            event_started = time.monotonic()
            events.event_start(event=Event.objects.get(pk=world["event"]))
        end = t0 + sizes["seconds"]
        while time.monotonic() < end:
            if event_on:
                marks.append((time.monotonic(), event_state(world["event"])))
            time.sleep(min(2.0, max(0.0, end - time.monotonic())))
        stopped = time.monotonic()
        child.ask("stop", timeout=180)
    finally:
        child.kill()
    waited, left = wait_for_the_end(world["event"], args.event_timeout, marks)
    event = None
    if event_on:
        event = Event.objects.select_related("champion").get(pk=world["event"])
        if event.status == Event.Status.FINISHED and event.started_at and event.finished_at:
            # The event's own stamps (the server's clock): from its start to its champion.
            event_seconds = (event.finished_at - event.started_at).total_seconds()
    records = json.loads(out.read_text())
    return {
        "tag": tag,
        "event_on": event_on,
        "event_bots": event_bots,
        "sizes": sizes,
        "t0": t0,
        "stopped": stopped,
        "event_started": event_started,
        "event_seconds": event_seconds,
        "event_status": event.status if event else None,
        "champion": event.champion.name if event and event.champion else None,
        "waited": waited,
        "left": left,
        "marks": marks,
        "records": records,
    }


# --- Figures ----------------------------------------------------------------------------------


def opponent(mover: int, client: int) -> bool:
    return client < SPECTATOR_BASE and client != mover


def spectator(mover: int, client: int) -> bool:
    return client >= SPECTATOR_BASE


def figures(phase: dict) -> dict:
    """Per-route latency, the socket figures, errors and the rolling windows of one run."""
    rec = phase["records"]
    t0, stopped = phase["t0"], phase["stopped"]
    samples = [s for s in rec["samples"] if t0 <= s[1] <= stopped]
    by_route: dict[str, list[float]] = {}
    for route, _, ms, _status in samples:
        by_route.setdefault(route, []).append(ms)
    moves = [tuple(m) for m in rec["moves"]]
    window = (t0, stopped)
    opp_all, opp_missing = join(moves, rec["receipts"], window, opponent)
    opp_rest, _ = join([m for m in moves if m[4] == "rest"], rec["receipts"], window, opponent)
    opp_ws, _ = join([m for m in moves if m[4] == "socket"], rec["receipts"], window, opponent)
    watch, watch_missing = join(moves, rec["receipts"], window, spectator)
    acks = {ident: at for _, ident, at in rec["acks"]}
    ack_ms, unanswered = [], 0
    for game, seq, sent, mover, via, _ in moves:
        if via == "socket" and t0 <= sent <= stopped:
            at = acks.get(f"m{mover}.{game}.{seq - 1}")
            if at is not None:
                ack_ms.append((at - sent) * 1000)
            else:  # refused (an error, counted by its code), or lost with a dropped socket
                unanswered += 1
    bot_ms = [ms for sent, ms in rec["bot_replies"] if t0 <= sent <= stopped]
    socket_errors = Counter(rec["errors"])
    expected_ws = {k: v for k, v in socket_errors.items() if k in SOCKET_CONFLICTS}
    unexpected_ws = {k: v for k, v in socket_errors.items() if k not in SOCKET_CONFLICTS}
    failures = Counter(rec["failures"])
    errors = sum(failures.values()) + sum(unexpected_ws.values())
    gaps = sum(rec["gaps"].values())

    rolling = []
    k = 0
    while t0 + k * WINDOW < stopped - 1:  # no sliver of a window at the end
        a, b = t0 + k * WINDOW, min(stopped, t0 + (k + 1) * WINDOW)
        in_window = [s for s in samples if a <= s[1] < b]
        moves_ms = [s[2] for s in in_window if s[0] == MOVE_ROUTE]
        views_ms = [s[2] for s in in_window if s[0] == VIEW_ROUTE]
        opp_ms, _ = join(moves, rec["receipts"], (a, b + TAIL), opponent)  # sent in [a, b]
        if not phase["event_on"]:
            mark = "no event"
        elif phase["event_started"] is None or phase["event_started"] > b:
            mark = "before the event"
        else:  # the event's state last seen in the window (its rounds, its matches in play)
            seen = [text for at, text in phase["marks"] if at <= b]
            mark = seen[-1] if seen else "starting"
        rolling.append(
            {
                "t": k * WINDOW,
                "requests": len(in_window),
                "rate": len(in_window) / max(1e-9, b - a),
                "all_p95": pct([s[2] for s in in_window], 0.95),
                "move_p95": pct(moves_ms, 0.95),
                "moves": len(moves_ms),
                "view_p95": pct(views_ms, 0.95),
                "opp_p95": pct(opp_ms, 0.95),
                "event": mark,
            }
        )
        k += 1

    move_ms = by_route.get(MOVE_ROUTE, [])
    view_ms = by_route.get(VIEW_ROUTE, [])
    checks = {
        "move POST p95": pct(move_ms, 0.95),
        "move POST p99": pct(move_ms, 0.99),
        "view GET p95": pct(view_ms, 0.95),
        "opponent socket p95": pct(opp_all, 0.95),
    }
    return {
        "seconds": stopped - t0,
        "routes": by_route,
        "statuses": Counter(f"{s[0]} {s[3]}" for s in samples),
        "opp_all": opp_all,
        "opp_rest": opp_rest,
        "opp_ws": opp_ws,
        "opp_missing": opp_missing,
        "watch": watch,
        "watch_missing": watch_missing,
        "ack": ack_ms,
        "unacked": unanswered,
        "bot": bot_ms,
        "failures": failures,
        "examples": rec["examples"],
        "conflicts": Counter(rec["conflicts"]),
        "expected_ws": expected_ws,
        "unexpected_ws": unexpected_ws,
        "errors": errors,
        "gaps": gaps,
        "repeats": rec["repeats"],
        "reconnects": Counter(rec["connect_failures"]),
        "messages": Counter(rec["messages"]),
        "counts": Counter(rec["counts"]),
        "moves_rest": sum(1 for m in moves if m[4] == "rest"),
        "moves_ws": sum(1 for m in moves if m[4] == "socket"),
        "rolling": rolling,
        "checks": checks,
        "targets_ok": {name: checks[name] <= TARGETS[name] for name in TARGETS},
    }


def ms(value: float) -> str:
    return "    n/a" if value != value else f"{value:7.0f}"  # NaN: no sample


def latency_row(label: str, values: list[float], seconds: float, errors: int | str = "") -> str:
    return (
        f"  {label:46} {len(values):7} {len(values) / max(seconds, 1e-9):7.1f} "
        f"{ms(pct(values, 0.5))} {ms(pct(values, 0.95))} {ms(pct(values, 0.99))} {errors!s:>6}"
    )


def report(phase: dict, fig: dict) -> list[str]:
    """The printed table of one run."""
    seconds = fig["seconds"]
    title = f"event on ({phase['event_bots']} bots)" if phase["event_on"] else "event off (no bots)"
    errors_by_route = Counter()
    for key, n in fig["failures"].items():
        errors_by_route[" ".join(key.split(" ")[:2])] += n
    lines = [
        "",
        f"=== {title}: {phase['sizes']['players']} players + {phase['sizes']['spectators']} "
        f"spectators, {seconds:.0f} s ===",
        f"  {'route':46} {'count':>7} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'errors':>6}",
    ]
    for route in sorted(fig["routes"]):
        lines.append(latency_row(route, fig["routes"][route], seconds, errors_by_route[route]))
    every = [v for values in fig["routes"].values() for v in values]
    lines.append(latency_row("all requests", every, seconds, sum(errors_by_route.values())))
    lines += [
        f"  {'socket (ms from the move sent)':46} {'count':>7} {'/s':>7} {'p50 ms':>7} "
        f"{'p95 ms':>7} {'p99 ms':>7}",
        latency_row("move -> opponent's socket (all moves)", fig["opp_all"], seconds),
        latency_row("  moves POSTed over REST", fig["opp_rest"], seconds),
        latency_row("  moves sent on the socket", fig["opp_ws"], seconds),
        latency_row("move -> spectators' sockets", fig["watch"], seconds),
        latency_row("socket move -> its ack", fig["ack"], seconds),
        latency_row("move -> the bot's reply on the socket", fig["bot"], seconds),
        "",
        f"  rolling p95 per {WINDOW:.0f} s window (ms; moves POSTed, views GET, opponent socket):",
        f"  {'t (s)':>7} {'req/s':>6} {'all':>7} {'move':>7} {'n':>4} {'view':>7} {'opp ws':>7}"
        "  event",
    ]
    for row in fig["rolling"]:
        lines.append(
            f"  {row['t']:4.0f}-{row['t'] + WINDOW:<3.0f}{row['rate']:6.1f} {ms(row['all_p95'])} "
            f"{ms(row['move_p95'])} {row['moves']:4} {ms(row['view_p95'])} {ms(row['opp_p95'])}"
            f"  {row['event']}"
        )
    counts = fig["counts"]
    lines += [
        "",
        f"  errors: {fig['errors']} ({dict(fig['failures']) or 'none over REST'}; socket errors "
        f"{fig['unexpected_ws'] or 'none'})"
        + "".join(f"\n    e.g. {k}: {v}" for k, v in list(fig["examples"].items())[:5]),
        f"  expected conflicts apart: REST {dict(fig['conflicts']) or 0}; socket "
        f"{fig['expected_ws'] or 0}",
        f"  sockets: {sum(fig['messages'].values())} messages {dict(fig['messages'])}; seq gaps "
        f"{fig['gaps']}; repeats {fig['repeats']}; reconnects/refusals "
        f"{dict(fig['reconnects']) or 0}; pushes never received (opponents "
        f"{fig['opp_missing']}, spectators {fig['watch_missing']})",
        f"  play: {counts['matches started']} matches started, {counts['games finished']} games "
        f"seen to the end, {fig['moves_rest']} moves over REST + {fig['moves_ws']} on the "
        f"socket ({fig['unacked']} of those without an ack: refused, or sent as the socket "
        f"dropped or the run ended), {counts['continues on the socket']} continues on the "
        f"socket; clients busy at "
        f"the end {counts['clients still busy at the end']}",
    ]
    if phase["event_on"]:
        took = phase["event_seconds"]
        lines.append(
            f"  event: {phase['event_status']}, champion {phase['champion']}; "
            + (f"{took:.0f} s from its start to its champion" if took else "not finished")
            + f" (a 256-bot event took {OLD_EVENT_SECONDS} s in the REST-and-polling run; "
            f"waited {phase['waited']:.0f} s after the players stopped)"
        )
    for name, target in TARGETS.items():
        value = fig["checks"][name]
        lines.append(
            f"  target {name} <= {target:.0f} ms: {value:.0f} ms "
            f"{'PASS' if fig['targets_ok'][name] else 'FAIL'}"
        )
    return lines


def summary(pairs: list[tuple[dict, dict]]) -> list[str]:
    """Both runs side by side."""
    heads = [f"event on ({p['event_bots']})" if p["event_on"] else "event off" for p, _ in pairs]
    lines = ["", "=== side by side ===", f"  {'':40}" + "".join(f"{h:>20}" for h in heads)]

    def row(label: str, cell) -> None:
        lines.append(f"  {label:40}" + "".join(f"{cell(p, f):>20}" for p, f in pairs))

    def trio(values: list[float]) -> str:
        return "/".join(
            "n/a" if pct(values, q) != pct(values, q) else f"{pct(values, q):.0f}"
            for q in (0.5, 0.95, 0.99)
        )

    row("move POST p50/p95/p99 ms", lambda p, f: trio(f["routes"].get(MOVE_ROUTE, [])))
    row("game view GET p50/p95/p99 ms", lambda p, f: trio(f["routes"].get(VIEW_ROUTE, [])))
    row("move -> opponent's socket p50/p95/p99", lambda p, f: trio(f["opp_all"]))
    row("socket move -> ack p50/p95/p99", lambda p, f: trio(f["ack"]))
    row("move -> bot's reply p50/p95/p99", lambda p, f: trio(f["bot"]))
    row(
        "all requests p95 ms / req/s",
        lambda p, f: (
            f"{pct([v for vs in f['routes'].values() for v in vs], 0.95):.0f} / "
            f"{sum(len(v) for v in f['routes'].values()) / f['seconds']:.1f}"
        ),
    )
    row("worst 10 s window: move POST p95 ms", lambda p, f: _worst(f, "move_p95"))
    row("errors / seq gaps", lambda p, f: f"{f['errors']} / {f['gaps']}")
    row(
        "event's time to its champion",
        lambda p, f: (
            f"{p['event_seconds']:.0f} s (old {OLD_EVENT_SECONDS} s)"
            if p["event_seconds"]
            else ("-" if not p["event_on"] else "not finished")
        ),
    )
    for name in TARGETS:
        row(
            f"{name} <= {TARGETS[name]:.0f} ms",
            lambda p, f, name=name: "PASS" if f["targets_ok"][name] else "FAIL",
        )
    return lines


def _worst(fig: dict, key: str) -> str:
    values = [r[key] for r in fig["rolling"] if r[key] == r[key]]
    return f"{max(values):.0f}" if values else "n/a"


def main(argv: list[str]) -> int:
    if argv and argv[0] == "people":
        asyncio.run(people_main(json.loads(Path(argv[1]).read_text())))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="40 players, 20 spectators, 30 s, a 32-bot event"
    )
    parser.add_argument("--players", type=int, default=None, help="people playing (200)")
    parser.add_argument("--spectators", type=int, default=None, help="people watching (20)")
    parser.add_argument("--seconds", type=int, default=None, help="length of a run (180)")
    parser.add_argument("--event-bots", type=int, default=None, help="bots in the event (256)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--no-event", action="store_true", help="the same run without the event")
    mode.add_argument(
        "--compare",
        action="store_true",
        help="a run without the event, then one with it, on one cluster; both tables",
    )
    parser.add_argument(
        "--socket-share",
        type=float,
        default=0.5,
        help="share of the moves sent on the socket; the rest are POSTed (0.5)",
    )
    parser.add_argument(
        "--event-timeout", type=float, default=900, help="seconds to wait for the champion"
    )
    parser.add_argument("--port", type=int, default=8130)
    parser.add_argument("--keep-cluster", action="store_true")
    args = parser.parse_args(argv)
    sizes = dict(QUICK if args.quick else FULL)
    for name in ("players", "spectators", "seconds", "event_bots"):
        if getattr(args, name) is not None:
            sizes[name] = getattr(args, name)
    if sizes["players"] < 2:
        parser.error("--players: at least 2")
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    run_started = time.monotonic()
    load_before = os.getloadavg()[0]

    configure(args.port)
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    for url in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    if cluster.start() != 0:
        return 1
    plan = [False, True] if args.compare else [not args.no_event]
    phases = []
    try:
        why = serves_sockets(cluster.HOST, cluster.PORT)
        if why is not None:
            print(f"the cluster does not serve the table socket ({why})", file=sys.stderr)
            return 1
        setup_django(cluster)
        # The machine's PostgreSQL is shared: the bench's database takes at most this many.
        limit_connections(os.environ["DATABASE_URL"], 90)
        for n, event_on in enumerate(plan):
            phases.append(run_phase(cluster, "ab"[n], sizes, event_on, args))
        logs = verify_logs()
        kind = web_kind(cluster)
    finally:
        if not args.keep_cluster:
            cluster.stop()

    from django.conf import settings as django_settings

    pairs = [(phase, figures(phase)) for phase in phases]
    workers = ", ".join(f"{name} {cluster.worker_queues(name)}" for name in cluster.worker_names())
    lines = [
        "",
        f"load benchmark: {os.cpu_count()} cores; gunicorn x{os.environ['WEB_CONCURRENCY']} "
        f"{kind}, {django_settings.WEB_VIEW_CONCURRENCY} requests at once in a process's views; "
        f"Celery workers (prefork, interactive x{cluster.INTERACTIVE_CONCURRENCY}, batch "
        f"x{cluster.CONCURRENCY}): {workers} (batch nice {cluster.BATCH_NICE}); "
        f"beat; clients: 1 process (asyncio, HTTP/1.1 keep-alive, table sockets); "
        f"{args.socket_share:.0%} of the moves on the socket",
    ]
    for phase, fig in pairs:
        lines += report(phase, fig)
    if len(pairs) > 1:
        lines += summary(pairs)
    correct = (
        all(f["errors"] == 0 and f["gaps"] == 0 for _, f in pairs)
        and all(sum(len(v) for v in f["routes"].values()) > 0 for _, f in pairs)
        and not logs["mismatches"]
        and not logs["unfinished_games"]
        and all(not p["left"] for p, _ in pairs)
        and all(p["event_seconds"] for p, _ in pairs if p["event_on"])
    )
    with_event = [f for p, f in pairs if p["event_on"]] or [f for _, f in pairs]
    targets = all(all(f["targets_ok"].values()) for f in with_event)
    lines += [
        "",
        f"logs: {logs['replayed_equal']}/{logs['matches']} matches replay from their log to "
        f"their state and result; mismatches {logs['mismatches'][:10]}; unfinished games of "
        f"finished matches {logs['unfinished_games']}; still in play "
        f"{[m for p, _ in pairs for m in p['left']][:10]}; by status {logs['by_status']}",
        f"run time {time.monotonic() - run_started:.0f} s; load average {load_before:.2f} -> "
        f"{os.getloadavg()[0]:.2f}",
        f"correctness (zero errors, no seq gap, every match replays, the event finished): "
        f"{'PASS' if correct else 'FAIL'}",
        f"targets ({'with the event' if any(p['event_on'] for p, _ in pairs) else 'no event'}): "
        f"{'PASS' if targets else 'FAIL'}",
        f"verdict: {'PASS' if correct and targets else 'FAIL'}",
    ]
    print("\n".join(lines))
    out = ROOT / "bench" / "results" / "load.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "sizes": sizes,
                "socket_share": args.socket_share,
                "runs": [
                    {
                        "event_on": p["event_on"],
                        "event_bots": p["event_bots"],
                        "event_seconds": p["event_seconds"],
                        "checks": f["checks"],
                        "targets_ok": f["targets_ok"],
                        "errors": f["errors"],
                        "gaps": f["gaps"],
                        "rolling": f["rolling"],
                        "routes": {
                            route: {q: pct(v, q) for q in (0.5, 0.95, 0.99)} | {"n": len(v)}
                            for route, v in f["routes"].items()
                        },
                    }
                    for p, f in pairs
                ],
                "logs": logs,
                "pass": correct and targets,
            },
            indent=2,
            default=str,
        )
    )
    print(f"wrote {out}")
    return 0 if correct and targets else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
