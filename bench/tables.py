#!/usr/bin/env python3
"""Tables benchmark: 200 table-match hands entered at once on the cluster, against sheet reads.

One file on purpose, though long: a benchmark is one command, and its set-up, load and
report read top to bottom.

    make bench-tables      (or: .venv/bin/python bench/tables.py [--quick] [--matches N] ...)

One run, with the local launcher of deploy/cluster.py (gunicorn serving the ASGI app with
uvicorn workers, two Celery workers, beat) on the local PostgreSQL and Redis, in a database
of its own (``ginrummy_bench_tables``, dropped first and after), two free Redis databases
(the broker; the cache and channel layer) and port 8150.

**The world**, a club night: a Swiss event at tables (``venue`` ``tables``) of 400 people,
each with an API token; its first round seats them at 200 table matches (the event's match
format: best of 5 to 250, standard rules). A hand is a small knock (the knocker 1-10
deadwood, the defender 1-3 more; the knocker alternates), so no game ends during the run.
The matches are the event's, so every hand also takes the event's path (a change of the
event counted and pushed to its page), as on a real club night.

**Why 200 matches with one entering phone each** (and not 100 matches with both phones
entering every hand): at a table one player enters the hand, and the figure wanted is 200
hands entered at once, that is 200 writes. With both phones of 100 matches posting every
hand, half the requests are refusals that wait for the other phone's write (the match row's
lock) and then answer 409: the entry percentiles would mix two different things and only
100 hands would be written at a time. The double entry is measured on its own, after.

**Rounds.** One read burst first warms the web processes (not counted). Then, in each round:

1. *sheet reads* (the baseline): every match's phone ``GET /api/matches/{id}/sheet``, all
   released at once;
2. *hands entered*: the same phones ``POST /api/matches/{id}/hands`` the sheet's next hand
   (``number``), all released at once; every answer must be 201 with that hand on the sheet.

Reads and entries alternate so the sheets read and written have the same number of hands and
a change in the machine's load falls on both. The phone that enters alternates between the
two players each round. Then *double entry*: for a few rounds both phones of half the
matches (as many requests as a burst above) post the same hand at the same moment; exactly one
of each pair must get 201 and the other 409 ``stale_hand``.

**Figures.** Each request's wall time as the client sees it, from sending the request on an
open keep-alive connection (opened before the burst) to the last byte of the answer:
p50/p95/max of sheet reads and of hand entries, their ratio at p50 and p95, hands entered a
second (hands written / the bursts' time, each burst from its release to its last answer),
every status. **Check**: at the end every match's sheet (read over the API) and its rows in
PostgreSQL hold exactly the hands its 201s said, numbered 0 to n-1 (none written twice, none
lost). Any 5xx, any unexpected status, a failed check: printed, and the exit status is 1.

The clients are asyncio coroutines on h11 (uvicorn's own parser), one connection a phone,
in this process: during the bursts it runs nothing else (Django here only makes the world
before and checks the database after). ``--quick``: 20 matches, 3 rounds, 2 double rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness import cluster_environment, drop_database, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "bench-tables"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_tables"
PORT = 8150
#: Full and quick sizes: matches (two people each), rounds of a read burst and an entry
#: burst, rounds of double entry (both phones of half the matches).
FULL = {"matches": 200, "rounds": 10, "double": 3}
QUICK = {"matches": 20, "rounds": 3, "double": 2}
#: Seconds between bursts (the pushes of the last one leave the processes).
PAUSE = 1.0
#: A request not answered in this many seconds is a failure.
TIMEOUT = 120.0
#: The server closes a keep-alive connection idle for 5 s: one idle longer than this is
#: opened again before the burst, outside the timing.
IDLE = 3.0


# =============================================================================================
# The clients (no Django).
# =============================================================================================


class Phone:
    """One person's phone: an HTTP/1.1 keep-alive connection (h11), never retried (a POST
    sent twice would be a second entry)."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port = host, port
        self.headers = [
            ("Host", f"{host}:{port}"),
            ("Authorization", f"Token {token}"),
            ("Accept", "application/json"),
        ]
        self.reader = self.writer = self.conn = None
        self.used_at = 0.0

    async def ready(self) -> None:
        """An open connection, fresh enough that the server will not close it first."""
        import h11

        if self.conn is not None and time.monotonic() - self.used_at < IDLE:
            return
        self.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.conn = h11.Connection(h11.CLIENT)
        self.used_at = time.monotonic()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = self.conn = None

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple:
        """(status, payload, sent at, answered at): stamped before the payload is parsed."""
        import h11

        await self.ready()
        data = json.dumps(body).encode() if body is not None else b""
        headers = list(self.headers)
        if body is not None:
            headers.append(("Content-Type", "application/json"))
        headers.append(("Content-Length", str(len(data))))
        conn = self.conn
        out = conn.send(h11.Request(method=method, target=path, headers=headers))
        if data:
            out += conn.send(h11.Data(data=data))
        out += conn.send(h11.EndOfMessage())
        sent = time.monotonic()
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
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                chunks.append(event.data)
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise EOFError("closed by the server")
        answered = time.monotonic()
        self.used_at = answered
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
        else:
            self.close()
        raw = b"".join(chunks)
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = {"text": raw[:200].decode(errors="replace")}
        return response.status_code, payload, sent, answered


@dataclass
class Table:
    """A match as its phones know it."""

    match: int
    players: list[int]
    phones: list[Phone]
    next_hand: int = 0
    entered: int = 0  # 201s answered
    decided: bool = False  # the hands decided it: the other phone confirms
    confirm_by: int = 1
    done: bool = False  # confirmed: no more hands


@dataclass
class Burst:
    """One burst's answers: (table, phone index, status, payload, ms) and its span."""

    answers: list[tuple] = field(default_factory=list)
    seconds: float = 0.0


def hand_body(table: Table, number: int) -> dict:
    """Hand ``number`` as the score pad records it: a small knock, the knocker alternating.
    The same for both phones of a table (seeded by the match and the hand)."""
    rng = random.Random(f"{table.match}:{number}")
    side = number % 2
    knocker, defender = table.players[side], table.players[1 - side]
    low = rng.randint(1, 10)
    return {
        "number": number,
        "kind": "knock",
        "knocker": knocker,
        "deadwood": {str(knocker): low, str(defender): low + rng.randint(1, 3)},
    }


async def burst(calls: list[tuple]) -> Burst:
    """``calls``: (table, phone index, method, path, body). Every connection is opened first;
    then all are released at once."""
    await asyncio.gather(*(table.phones[i].ready() for table, i, *_ in calls))
    go = asyncio.Event()

    async def one(table: Table, i: int, method: str, path: str, body: dict | None) -> tuple:
        await go.wait()
        phone = table.phones[i]
        try:
            status, payload, sent, answered = await asyncio.wait_for(
                phone.request(method, path, body), TIMEOUT
            )
        except Exception as error:  # a failure, reported with the statuses
            phone.close()
            return table, i, f"{type(error).__name__}", {"detail": str(error)[:200]}, None, None
        return table, i, status, payload, (answered - sent) * 1000, answered

    tasks = [asyncio.create_task(one(*call)) for call in calls]
    await asyncio.sleep(0)  # every task is waiting for the release
    released = time.monotonic()
    go.set()
    results = await asyncio.gather(*tasks)
    done = [r[5] for r in results if r[5] is not None]
    return Burst(
        answers=[r[:5] for r in results],
        seconds=(max(done) - released) if done else 0.0,
    )


@dataclass
class Tally:
    reads: list[float] = field(default_factory=list)
    entries: list[float] = field(default_factory=list)
    double_won: list[float] = field(default_factory=list)
    double_refused: list[float] = field(default_factory=list)
    read_seconds: float = 0.0
    entry_seconds: float = 0.0
    entry_hands: int = 0
    double_pairs: int = 0
    double_pairs_ok: int = 0
    statuses: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    confirmed: int = 0
    double_matches: int = 0
    entered: dict[int, int] = field(default_factory=dict)  # match -> 201s
    check_failures: int = 0  # matches whose sheet or rows differ from the 201s
    rules: dict = field(default_factory=dict)  # as a sheet states them

    def fail(self, text: str, check: bool = False) -> None:
        self.failures.append(text)
        self.check_failures += check


def sheet_path(table: Table) -> str:
    return f"/api/matches/{table.match}/sheet"


def hands_path(table: Table) -> str:
    return f"/api/matches/{table.match}/hands"


async def reads(tables: list[Table], phone: int, tally: Tally, timed: bool = True) -> Burst:
    """A read burst; ``timed``: its latencies and statuses count in the figures (a failure
    counts always)."""
    result = await burst([(t, phone, "GET", sheet_path(t), None) for t in tables])
    for table, _, status, payload, ms in result.answers:
        if timed:
            tally.statuses[f"GET sheet {status}"] += 1
        if status != 200:
            tally.fail(f"GET sheet of match {table.match}: {status} {payload}")
        elif timed and payload["next_hand"] != table.next_hand:
            tally.fail(
                f"match {table.match}: the sheet's next_hand is {payload['next_hand']}, "
                f"{table.next_hand} answered"
            )
        elif timed:
            tally.reads.append(ms)
    if timed:
        tally.read_seconds += result.seconds
    return result


def entered(table: Table, i: int, number: int, payload: dict, tally: Tally) -> None:
    """A 201: the sheet answered must hold the hand."""
    table.entered += 1
    payload = payload or {}
    if payload.get("next_hand") != number + 1:
        tally.fail(
            f"match {table.match}: hand {number} answered 201 with next_hand "
            f"{payload.get('next_hand')}"
        )
    table.next_hand = max(table.next_hand, payload.get("next_hand", number + 1))
    table.decided = bool(payload.get("decided"))
    table.confirm_by = 1 - i


async def entries(tables: list[Table], phone: int, tally: Tally) -> None:
    calls = [(t, phone, "POST", hands_path(t), hand_body(t, t.next_hand)) for t in tables]
    numbers = {t.match: t.next_hand for t in tables}
    result = await burst(calls)
    tally.entry_seconds += result.seconds
    for table, i, status, payload, ms in result.answers:
        code = (payload or {}).get("code", "") if status != 201 else ""
        tally.statuses[f"POST hands {status}{' ' + code if code else ''}"] += 1
        if status == 201:
            tally.entries.append(ms)
            tally.entry_hands += 1
            entered(table, i, numbers[table.match], payload, tally)
        else:
            tally.fail(
                f"POST hand {numbers[table.match]} of match {table.match}: {status} {payload}"
            )


async def double_entries(tables: list[Table], tally: Tally) -> None:
    numbers = {t.match: t.next_hand for t in tables}
    calls = [
        (t, i, "POST", hands_path(t), hand_body(t, numbers[t.match]))
        for t in tables
        for i in (0, 1)
    ]
    result = await burst(calls)
    by_table: dict[int, list] = {}
    for table, i, status, payload, ms in result.answers:
        code = (payload or {}).get("code", "") if status != 201 else ""
        tally.statuses[f"POST hands (double) {status}{' ' + code if code else ''}"] += 1
        by_table.setdefault(table.match, []).append((table, i, status, code, payload, ms))
    for pair in by_table.values():
        tally.double_pairs += 1
        table = pair[0][0]
        number = numbers[table.match]
        kinds = sorted((status, code) for _, _, status, code, _, _ in pair)
        for _, i, status, code, payload, ms in pair:
            if status == 201:
                tally.double_won.append(ms)
                entered(table, i, number, payload, tally)
            elif status == 409 and code == "stale_hand":
                tally.double_refused.append(ms)
                table.next_hand = max(table.next_hand, payload.get("hand", 0))
        if kinds == [(201, ""), (409, "stale_hand")]:
            tally.double_pairs_ok += 1
        else:
            answers = [(status, payload) for _, _, status, _, payload, _ in pair]
            tally.fail(f"match {table.match}, hand {number} from both phones: {answers}")


async def confirm_decided(tables: list[Table], tally: Tally) -> None:
    """A match the hands decided is confirmed by the other phone (not expected with these
    hands: a game to 250 needs more hands than the run enters)."""
    for table in [t for t in tables if t.decided]:
        phone = table.phones[table.confirm_by]
        try:
            status, payload, _, _ = await asyncio.wait_for(
                phone.request("POST", f"/api/matches/{table.match}/confirm", {}), TIMEOUT
            )
        except Exception as error:
            phone.close()
            status, payload = type(error).__name__, {"detail": str(error)[:200]}
        tally.statuses[f"POST confirm {status}"] += 1
        if status == 200 and (payload or {}).get("confirmation") == "confirmed":
            tally.confirmed += 1
        else:
            tally.fail(f"confirm of match {table.match}: {status} {payload}")
        table.decided = False
        table.done = True


async def drive(world: list[dict], host: str, port: int, sizes: dict, log) -> Tally:
    tables = [
        Table(w["match"], w["players"], [Phone(host, port, token) for token in w["tokens"]])
        for w in world
    ]
    tally = Tally()
    await reads(tables, 0, tally, timed=False)  # warm-up: each web process's first requests
    for r in range(sizes["rounds"]):
        playing = [t for t in tables if not t.done]
        await asyncio.sleep(PAUSE)
        await reads(playing, r % 2, tally)
        await asyncio.sleep(PAUSE)
        await entries(playing, r % 2, tally)
        await confirm_decided(playing, tally)
        log(f"  round {r + 1}/{sizes['rounds']}: {len(playing)} sheets read, hands entered")
    half = [t for t in tables[: max(1, len(tables) // 2)] if not t.done]
    tally.double_matches = len(half)
    for r in range(sizes["double"]):
        await asyncio.sleep(PAUSE)
        await double_entries(half, tally)
        await confirm_decided(half, tally)
        log(f"  double entry {r + 1}/{sizes['double']}: both phones of {len(half)} matches")
    # The check: every sheet over the API holds exactly the hands answered 201.
    await asyncio.sleep(PAUSE)
    final = await reads(tables, 0, tally, timed=False)
    for table, _, status, payload, _ in final.answers:
        if status != 200:
            tally.check_failures += 1  # the failure is reported by reads()
            continue
        tally.rules = tally.rules or payload["rules"]
        numbers = [h["number"] for h in payload["hands"]]
        if numbers != list(range(table.entered)) or payload["next_hand"] != table.entered:
            tally.fail(
                f"match {table.match}: {table.entered} hands answered 201, the sheet has "
                f"{len(numbers)} (numbers {numbers[:5]}...{numbers[-5:]}, next_hand "
                f"{payload['next_hand']})",
                check=True,
            )
    for table in tables:
        for phone in table.phones:
            phone.close()
    tally.entered = {t.match: t.entered for t in tables}
    return tally


# =============================================================================================
# The orchestrator: the cluster, the world, the figures.
# =============================================================================================


def configure(port: int, web: str) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
        CLUSTER_WORKER_CONCURRENCY="1",
        WEB_CONCURRENCY=web,
    )
    # gunicorn recycles a worker after max_requests: off, so a recycle mid-run (its
    # connections closed) is not what is measured. Throttling stays as deployed: each person
    # makes a few requests a minute, far below the rates.
    os.environ.setdefault("GUNICORN_CMD_ARGS", "--max-requests 0")


def create_world(matches: int) -> tuple[list[dict], int]:
    """2 x matches people with tokens, entered in a Swiss event at tables and started: its
    first round's table matches, each with its two players' ids and tokens; the event's id."""
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from games.models import Match
    from tournaments import services as events
    from tournaments.models import Pairing

    User = get_user_model()
    names = [f"tables{n:04}" for n in range(2 * matches)]
    User.objects.bulk_create([User(username=name, password="!") for name in names])
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    Player.objects.bulk_create(
        [Player(kind=Player.Kind.HUMAN, user=by_name[n], name=n.capitalize()) for n in names]
    )
    people = list(Player.objects.filter(user__username__in=names).order_by("user__username"))
    tokens = {p.pk: AuthToken.objects.create(user=p.user)[1] for p in people}
    event = events.event_create(name="Club night", format="swiss", venue="tables")
    events.event_open_registration(event=event)
    for person in people:
        events.entry_add(event=event, player=person)
    events.event_start(event=event)
    ids = Pairing.objects.filter(event=event, match__isnull=False).values_list("match_id")
    found = Match.objects.filter(pk__in=ids, venue=Match.Venue.TABLE).order_by("table")
    world = [
        {
            "match": m.pk,
            "players": [m.player_a_id, m.player_b_id],
            "tokens": [tokens[m.player_a_id], tokens[m.player_b_id]],
        }
        for m in found
    ]
    if len(world) != matches:
        sys.exit(f"the event seated {len(world)} table matches, not {matches}")
    return world, event.pk


def database_check(tally: Tally) -> int:
    """Matches whose rows in PostgreSQL differ from the 201s (each a failure)."""
    from django.db.models import Count, Max

    from games.models import TableHand

    rows = {
        r["match_id"]: r
        for r in TableHand.objects.values("match_id").annotate(n=Count("id"), top=Max("number"))
    }
    wrong = 0
    for match, entered in tally.entered.items():
        row = rows.get(match, {"n": 0, "top": None})
        if row["n"] != entered or (entered and row["top"] != entered - 1):
            wrong += 1
            tally.fail(
                f"match {match}: {entered} hands answered 201, {row['n']} rows in PostgreSQL",
                check=True,
            )
    return wrong


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(label: str, values: list[float]) -> str:
    top = max(values) if values else float("nan")
    return (
        f"  {label:36} n={len(values):5}  p50 {pct(values, 0.5):8.1f} ms  "
        f"p95 {pct(values, 0.95):8.1f} ms  max {top:8.1f} ms"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 matches, 3 rounds, ~1 min")
    parser.add_argument("--matches", type=int, help="table matches (two people each)")
    parser.add_argument("--rounds", type=int, help="rounds of a read burst and an entry burst")
    parser.add_argument("--double", type=int, help="rounds of double entry")
    parser.add_argument(
        "--web", default=os.environ.get("WEB_CONCURRENCY", "2"), help="web processes"
    )
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--keep-cluster", action="store_true")
    args = parser.parse_args(argv)
    sizes = dict(QUICK if args.quick else FULL)
    for name in ("matches", "rounds", "double"):
        if getattr(args, name) is not None:
            sizes[name] = getattr(args, name)
    if sizes["matches"] < 1 or sizes["rounds"] < 1 or sizes["double"] < 0:
        parser.error("--matches and --rounds must be at least 1, --double at least 0")
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    run_started = time.monotonic()
    load_before = os.getloadavg()[0]

    configure(args.port, args.web)  # before the launcher: it reads the environment on import
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    import redis

    urls = (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"])
    for url in urls:
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    try:
        if cluster.start() != 0:
            return 1
        setup_django(cluster)
        import django
        from django.conf import settings
        from django.db import connection

        from common.admission import lane_of

        made = time.monotonic()
        world, event = create_world(sizes["matches"])
        print(
            f"tables: {2 * len(world)} people at {len(world)} table matches of event {event} "
            f"(made in {time.monotonic() - made:.0f} s); {sizes['rounds']} rounds, "
            f"{sizes['double']} of double entry",
            flush=True,
        )
        tally = asyncio.run(
            drive(world, cluster.HOST, cluster.PORT, sizes, lambda s: print(s, flush=True))
        )
        wrong_rows = database_check(tally)
        pg = connection.pg_version // 10000
        header = (
            f"tables benchmark: {os.cpu_count()} cores; PostgreSQL {pg} "
            f"({connection.settings_dict['NAME']}), Redis {os.environ['REDIS_URL']}; Django "
            f"{django.get_version()}; gunicorn x{os.environ['WEB_CONCURRENCY']} uvicorn "
            f"workers, WEB_VIEW_CONCURRENCY {settings.WEB_VIEW_CONCURRENCY} a process (the "
            f"table routes' admission lane: {lane_of('/api/matches/1/hands')}); 2 Celery "
            f"workers, beat; clients: asyncio + h11 in one process, a keep-alive connection a "
            f"phone"
        )
    finally:
        if not args.keep_cluster:
            cluster.stop()
            drop_database(os.environ["DATABASE_URL"])
            for url in urls:
                redis.Redis.from_url(url).flushdb()

    n = len(world)
    rules = tally.rules
    read50, read95 = pct(tally.reads, 0.5), pct(tally.reads, 0.95)
    entry50, entry95 = pct(tally.entries, 0.5), pct(tally.entries, 0.95)
    hands = sum(tally.entered.values())
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(tally.statuses.items()))
    conflicts = sum(
        v for k, v in tally.statuses.items() if k.startswith("POST hands") and " 409" in k
    )
    created = sum(
        v for k, v in tally.statuses.items() if k.startswith("POST hands") and " 201" in k
    )
    lines = [
        "",
        header,
        f"world: {2 * n} people, {n} table matches of a Swiss event at tables (best of "
        f"{rules.get('best_of')} to {rules.get('target')}, knock limit "
        f"{rules.get('knock_limit')}); a hand is a knock worth 1-3 points",
        "",
        f"{sizes['rounds']} rounds, each: {n} sheet reads released at once, then {n} hands "
        f"entered at once (one phone a match)",
        line("GET  /api/matches/{id}/sheet", tally.reads),
        line("POST /api/matches/{id}/hands (201)", tally.entries),
        f"  ratio entry / read: p50 {entry50 / read50:.2f}, p95 {entry95 / read95:.2f}",
        f"  hands entered a second: {tally.entry_hands / tally.entry_seconds:.1f} "
        f"({tally.entry_hands} hands in {tally.entry_seconds:.1f} s of bursts; sheet reads "
        f"{len(tally.reads) / tally.read_seconds:.1f} a second)"
        if tally.entry_seconds and tally.read_seconds
        else "  hands entered a second: no burst answered",
    ]
    if sizes["double"]:
        lines += [
            "",
            f"double entry, {sizes['double']} rounds: both phones of {tally.double_matches} "
            f"matches post the same hand at once ({2 * tally.double_matches} requests a burst)",
            line("POST hands: the one written (201)", tally.double_won),
            line("POST hands: the other (409)", tally.double_refused),
            f"  one 201 and one 409 stale_hand: {tally.double_pairs_ok}/{tally.double_pairs} pairs",
        ]
    lines += [
        "",
        f"answers: {statuses}",
        f"hand entries: {created} x 201, {conflicts} x 409; matches confirmed: {tally.confirmed}",
        f"check: {n} sheets (over the API) and their rows in PostgreSQL hold exactly the "
        f"{hands} hands answered 201, numbered 0 to n-1: "
        f"{'PASS' if not tally.check_failures else 'FAIL'}"
        + (f" ({wrong_rows} matches differ in PostgreSQL)" if wrong_rows else ""),
        f"run time {time.monotonic() - run_started:.0f} s; load average {load_before:.2f} -> "
        f"{os.getloadavg()[0]:.2f}",
        f"verdict: {'PASS' if not tally.failures else f'FAIL ({len(tally.failures)} failures)'}",
    ]
    print("\n".join(lines))
    if tally.failures:
        print(f"\n{len(tally.failures)} failures (the first 20):", file=sys.stderr)
        for text in tally.failures[:20]:
            print(f"  {text}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
