"""Fair play through the service: simulated people play rated ladder games over the REST API,
the workers analyse every match, and the service flags (or does not) each account.

    .venv/bin/python bench/fairplay_service.py [--games 8] [--samples 4] [--seed 1]
    (make bench-fairplay-service BENCH_ARGS=...)

``make bench-fairplay`` measures the test on the engine alone, over many accounts; this one
checks that the service does the same end to end, on a dozen accounts. On the local launcher of
deploy/cluster.py (gunicorn serving the ASGI app, an interactive and a batch Celery worker,
beat) with the local PostgreSQL and Redis, in a database of its own
(``ginrummy_bench_fairplay``, dropped first and after) and two free Redis databases:

1. An open ladder (one game to 100 a match, untimed) and twelve people with sign-in tokens.
2. Each person, in a thread of its own, plays ``--games`` ladder matches as a person would:
   joins the queue (``POST /api/ladders/{id}/queue``), polls it until paired, reads the game
   (``GET /api/games/{id}``), moves (``POST /api/games/{id}/actions``) and continues after each
   deal (``POST /api/games/{id}/continue``). What it plays is chosen from the API's view (the
   reference client's ``engine_view``) by its kind:
   - assisted: ``expert`` (the house expert chooses every move), ``expert-discards`` (the
     expert's discards, the greedy bot's draws);
   - honest: ``noisy-expert`` (the expert with 5-40% other plausible actions), ``greedy``,
     ``noisy-greedy`` (5-30%), ``random``.
   The matchmaker pairs them (people only, so every match is one fair play watches).
3. Every rated match is analysed on the batch worker (``FAIRPLAY_ANALYSE``); the bench waits
   for the last analysis, then reads each account's fair-play record and flag.

The test sees only the agreement with the house expert's choice, which does not depend on the
analysis's samples; ``--samples`` (default 4, the service's default is 16) only makes the
batch worker's work (the loss figures) cheaper.

Printed: per account its kind, games played, decisions and agreement by phase, and whether it
was flagged and after how many analysed matches; then the flagged shares by kind.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

from harness import cluster_environment, drop_database, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "clients" / "python"))

from fairplay import account  # noqa: E402

RUN_DIR = ROOT / "var" / "bench-fairplay-service"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_fairplay"
PORT = 8766
KINDS = [
    ("expert", 3),
    ("expert-discards", 3),
    ("noisy-expert", 3),
    ("greedy", 1),
    ("noisy-greedy", 1),
    ("random", 1),
]
ASSISTED = ("expert", "expert-discards")
POLL = 0.15


def configure(port: int, samples: int) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
        CLUSTER_WORKER_CONCURRENCY="1",
        WEB_CONCURRENCY=os.environ.get("WEB_CONCURRENCY", "2"),
        SOCKET_MAX_PER_ADDRESS="0",
        FAIRPLAY_ANALYSE="1",
        ANALYSIS_SAMPLES=str(samples),
        # Twelve people meet each other often: every match counts for the rating.
        RATING_PAIR_LIMIT="1000",
        # They move and poll at a program's pace, not a person's.
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
    )
    os.environ.setdefault("GUNICORN_CMD_ARGS", "--max-requests 0")


def create_world(seed: int) -> dict:
    """The ladder and the people, with their tokens and kinds."""
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken

    from accounts.models import Player
    from ladders import services

    ladder = services.ladder_create(
        name="Fair play bench", best_of=1, target=100, base_seconds=None
    )
    user_model = get_user_model()
    people = []
    number = 0
    for kind, count in KINDS:
        for _ in range(count):
            name = f"fp{number:02}"
            user = user_model.objects.create(username=name, password="!")
            player = Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=name)
            _, token = AuthToken.objects.create(user=user)
            people.append(
                {"id": player.pk, "token": token, "kind": kind, "seed": seed * 1000 + number}
            )
            number += 1
    return {"ladder": ladder.pk, "people": people}


class Person:
    """One simulated person: queue, play, continue, over one keep-alive HTTP connection."""

    def __init__(self, spec: dict, ladder: int, games: int) -> None:
        self.spec, self.ladder, self.games = spec, ladder, games
        self.choose, self.params = account(spec["kind"], spec["seed"])
        self.rng = random.Random(spec["seed"])
        self.played = 0
        self.moves = 0
        self.errors: list[str] = []
        self.conn = http.client.HTTPConnection("127.0.0.1", PORT_IN_USE, timeout=60)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        headers = {"Authorization": f"Token {self.spec['token']}"}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        for attempt in range(10):
            try:
                self.conn.request(method, path, data, headers)
                response = self.conn.getresponse()
                raw = response.read()
                if response.status == 429:  # throttled: wait as asked, then again
                    time.sleep(float(response.getheader("Retry-After") or 1))
                    continue
                return response.status, (json.loads(raw) if raw else {})
            except (http.client.HTTPException, OSError):
                self.conn.close()
                if attempt == 9:
                    raise
                time.sleep(0.5)
        raise AssertionError("unreachable")

    def run(self) -> None:
        try:
            while self.played < self.games:
                match = self.find_a_match()
                self.play(match)
                self.played += 1
        except Exception as error:  # reported, never silent
            self.errors.append(f"{type(error).__name__}: {error}")

    def find_a_match(self) -> dict:
        queue = f"/api/ladders/{self.ladder}/queue"
        status, body = self.call("POST", queue, {})
        if status not in (201, 409):
            raise RuntimeError(f"queue join {status}: {body}")
        while True:
            status, state = self.call("GET", queue)
            if state.get("status") == "paired" and state.get("match"):
                match_id = state["match"]["id"]
                while True:
                    _, match = self.call("GET", f"/api/matches/{match_id}")
                    if match.get("current_game"):
                        return match
                    time.sleep(POLL)
            time.sleep(POLL)

    def play(self, match: dict) -> None:
        from ginrummy_bot.house import engine_view

        from games.engine.rules import RuleSet

        rules = RuleSet.from_dict(match["rules"])
        game = match["current_game"]
        acted = -1
        while True:
            status, view = self.call("GET", f"/api/games/{game}")
            if status != 200:
                raise RuntimeError(f"view {status}: {view}")
            if view["status"] != "active":
                return
            if view.get("pause"):
                if not view["pause"]["continued"][view["you"]]:
                    self.call("POST", f"/api/games/{game}/continue")
                time.sleep(POLL)
                continue
            if view.get("your_turn") and view["ply"] != acted:
                action = self.choose(engine_view(view, rules)).to_json()
                status, answer = self.call(
                    "POST", f"/api/games/{game}/actions", {"ply": view["ply"], **action}
                )
                if status == 200:
                    acted = view["ply"]
                    self.moves += 1
                elif status != 409:
                    raise RuntimeError(f"move {status}: {answer}")
                continue
            time.sleep(POLL)


def wait_for_analyses(timeout: float) -> tuple[int, int]:
    """Wait until every rated match's analysis is done; (done, all)."""
    from games.models import Match, MatchAnalysis

    started = time.monotonic()
    while True:
        finished = Match.objects.filter(ladder_link__isnull=False, status="finished").count()
        done = MatchAnalysis.objects.filter(status="done").count()
        if done >= finished or time.monotonic() - started > timeout:
            return done, finished
        time.sleep(2)


def report(world: dict, people: list[Person], seconds: float) -> tuple[list[str], dict]:
    from ladders.models import FairPlayFlag, FairPlayRecord

    records = {r.player_id: r for r in FairPlayRecord.objects.all()}
    flags = {f.player_id: f for f in FairPlayFlag.objects.all()}
    lines = [
        f"{'account':8} {'kind':16} {'games':>5} {'draws':>6} {'agree':>6} "
        f"{'discards':>8} {'agree':>6}  flagged"
    ]
    by_kind: dict[str, list[int | None]] = {}
    for spec, person in zip(world["people"], people, strict=True):
        record = records.get(spec["id"])
        flag = flags.get(spec["id"])
        after = flag.evidence.get("matches_counted") if flag else None
        by_kind.setdefault(spec["kind"], []).append(after)
        if record is None:
            lines.append(f"{spec['id']:<8} {spec['kind']:16} {person.played:>5}  (no record)")
            continue
        draws = f"{100 * record.draws_agreed / record.draws:.1f}%" if record.draws else "-"
        discards = (
            f"{100 * record.discards_agreed / record.discards:.1f}%" if record.discards else "-"
        )
        lines.append(
            f"{spec['id']:<8} {spec['kind']:16} {person.played:>5} {record.draws:>6} "
            f"{draws:>6} {record.discards:>8} {discards:>6}  "
            + (f"yes, after {after} matches" if flag else "no")
        )
    lines.append("")
    summary = {}
    for kind, afters in by_kind.items():
        flagged = [a for a in afters if a is not None]
        summary[kind] = {"accounts": len(afters), "flagged": len(flagged), "after": flagged}
        median = f", after {statistics.median(flagged):g} matches (median)" if flagged else ""
        lines.append(
            f"{'assisted' if kind in ASSISTED else 'honest':8} {kind:16}: "
            f"{len(flagged)} of {len(afters)} flagged{median}"
        )
    assisted = [a for k in ASSISTED for a in by_kind.get(k, [])]
    honest = [a for k, v in by_kind.items() if k not in ASSISTED for a in v]
    lines.append(
        f"assisted flagged: {sum(a is not None for a in assisted)} of {len(assisted)}; honest "
        f"flagged: {sum(a is not None for a in honest)} of {len(honest)}; "
        f"{sum(p.played for p in people) // 2} matches, {sum(p.moves for p in people)} moves "
        f"over the API in {seconds:.0f} s"
    )
    return lines, summary


PORT_IN_USE = PORT


def main(argv: list[str]) -> int:
    global PORT_IN_USE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="ladder matches per account")
    parser.add_argument("--samples", type=int, default=4, help="the analysis's samples")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds, at most")
    args = parser.parse_args(argv)
    if args.games < 1 or args.samples < 1:
        parser.error("--games and --samples must be at least 1")
    PORT_IN_USE = args.port
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    configure(args.port, args.samples)
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
        world = create_world(args.seed)
        people = [Person(spec, world["ladder"], args.games) for spec in world["people"]]
        threads = [threading.Thread(target=p.run, daemon=True) for p in people]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.timeout)
        played = time.monotonic() - started
        done, finished = wait_for_analyses(args.timeout)
        print(
            f"fair play through the service: {len(people)} people, {args.games} ladder "
            f"matches each (one game to 100), analysis samples {args.samples}; "
            f"{finished} rated matches, {done} analysed "
            f"({time.monotonic() - started:.0f} s in all)",
            flush=True,
        )
        lines, summary = report(world, people, played)
        for line in lines:
            print(line)
        errors = [e for p in people for e in p.errors]
        for error in errors[:5]:
            print("client error:", error)
        (RUN_DIR / "result.json").write_text(json.dumps(summary, indent=1))
        ok = not errors and done >= finished
    finally:
        cluster.stop()
        drop_database(os.environ["DATABASE_URL"])
        for url in urls:
            redis.Redis.from_url(url).flushdb()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
