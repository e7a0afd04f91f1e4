"""Bot API benchmark: external bots through the reference client, on the cluster.

    python bench/bots.py [--matches 200] [--ladder-bots 20] [--ladder-seconds 120]
                         [--adapter-matches 50] [--parts 1,2,3]   (make bench-bots BENCH_ARGS=...)

One run, on the local PostgreSQL (a scratch database it creates and drops) and Redis (two
free databases), with deploy/cluster.py (gunicorn with uvicorn workers, two Celery workers,
beat), in three parts:

1. **The API path changes no decision.** The house expert plays as an external bot through
   the reference client (``ginrummy_bot.house.Expert`` in a ``Runner``) against the house
   greedy bot, ``--matches`` untimed matches of one game to 100, several at once. Each
   match's seed (read from the database once it is over) is then played again in this
   process by the engine alone with the same two strategies in the same seats. Printed: both
   win rates with 95% Wilson intervals, how many matches had the same winner both ways, and
   the decision round trip: from the client reading the view that puts it on move (the
   server's ``game_state`` line) to the move's answer (applied and committed), p50 and p95,
   with the strategy's own thinking time apart.
2. **A bot ladder under 20 bots.** ``--ladder-bots`` external bots (house greedy and expert
   strategies through the client, in threads of this process) connect at once to a ladder
   for bots only (one game to 100, 30 s a game, no increment), rejoin its queue after each
   match, for ``--ladder-seconds``. Printed: matches finished a minute; stream gaps (a
   ``game_state`` whose ``seq`` is not one more than the last, i.e. a lost push the server
   repaired, and the server's silences of more than two keep-alive periods: the time the
   runner spends on a line, such as the queue POST it makes, is left out); reconnections;
   forfeits, and
   among the timeouts those that were not real (the loser's client had spent less than the
   budget on move in that game).
3. **The peers' adapters on the ladder.** OpenSpiel's simple bot and RLCard's novice agent,
   each through its adapter (``ginrummy_bot.adapters``) in a ``ginrummy-bot`` process of
   ``bench/.venv`` (the peers are never the service's dependencies), play
   ``--adapter-matches`` matches each on a bot ladder where the house random, greedy and
   expert bots are queued and paired continuously. Printed: the ladder's ratings, the
   adapters beside the house bots. Skipped, with the reason, when ``bench/.venv`` lacks a
   peer (``make bench-engine`` builds it).

Exit status 1 if a part fails its check: the API win rate outside the arena's interval, a
stream gap, or a forfeit that was not a real timeout.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

from harness import ROOT, cluster_environment, drop_database, load_cluster, setup_django
from live import limit_connections

sys.path.insert(0, str(ROOT / "clients" / "python"))

RUN_DIR = ROOT / "var" / "bench-bots"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_bots"
PEERS_PYTHON = ROOT / "bench" / ".venv" / "bin" / "python"
DB_CONNECTIONS = 80
#: One game to 100 (the EAAI challenge's game) for every part; the ladders' budget.
TARGET, BUDGET_SECONDS = 100, 30
#: Matches part 1 keeps in flight at once.
IN_FLIGHT = 6
ADAPTERS = {
    "OpenSpiel simple": ("pyspiel", "ginrummy_bot.adapters.openspiel_bot:OpenSpielSimple"),
    "RLCard novice": ("rlcard", "ginrummy_bot.adapters.rlcard_agent:RLCardNovice"),
}


def configure(port: int) -> None:
    cluster_environment(
        DATABASE,
        RUN_DIR,
        port,
        CLUSTER_WORKER_CONCURRENCY="1",
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
        THROTTLE_ANON_RATE="1000000/min",
    )
    os.environ.setdefault("DB_CONN_MAX_AGE", "0")  # ASGI: see bench/live.py
    os.environ.setdefault("GUNICORN_CMD_ARGS", "--max-requests 0")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- the instrumented client -----------------------------------------------------------------


def watched_classes():
    """The reference client's ApiClient and Runner, instrumented (imported once Django is up,
    as ``ginrummy_bot.house`` imports the engine)."""
    import requests
    from ginrummy_bot import ApiClient, Runner

    class WatchedClient(ApiClient):
        """Records every stream's silences, ``seq`` gaps and reconnections."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            # A thread per game shares the session: as many pooled connections as threads.
            adapter = requests.adapters.HTTPAdapter(pool_maxsize=4 * IN_FLIGHT)
            self.session.mount("http://", adapter)
            self.gaps = 0
            self.longest_silence = 0.0
            self.silences = 0
            self.connections: dict[str, int] = {}
            self.lock = threading.Lock()

        def stream(self, path):
            with self.lock:
                self.connections[path] = self.connections.get(path, 0) + 1
            last, seq = time.monotonic(), None
            for line in super().stream(path):
                now = time.monotonic()
                with self.lock:
                    self.longest_silence = max(self.longest_silence, now - last)
                    if now - last > 2 * KEEPALIVE:
                        self.silences += 1
                if line is not None and line.get("type") == "game_full":
                    seq = line["view"]["seq"]
                elif line is not None and line.get("type") == "game_state":
                    if seq is not None and line["seq"] != seq + 1:
                        with self.lock:
                            self.gaps += 1
                    seq = line["seq"]
                yield line
                # The server's silence is timed from here: the time the runner spends on
                # a line (a POST it makes before reading on) is the client's, not the
                # stream's.
                last = time.monotonic()

    class TimedRunner(Runner):
        """Times each move: from the view read off the stream to the move's answer."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.round_trips: list[float] = []
            self.on_move: dict[int, float] = {}  # game -> seconds spent on move
            self.lock = threading.Lock()

        def on_view(self, game_id, view, acted):
            started = time.perf_counter()
            result = super().on_view(game_id, view, acted)
            if result != acted and result is not None and result[1] == "move":
                spent = time.perf_counter() - started
                with self.lock:
                    self.round_trips.append(spent)
                    self.on_move[game_id] = self.on_move.get(game_id, 0.0) + spent
            return result

    return WatchedClient, TimedRunner


class Thinking:
    """Wraps a strategy to time its own decisions (the round trip less the API's part)."""

    def __init__(self, bot) -> None:
        self.bot, self.name, self.seconds = bot, bot.name, []

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def choose(self, view):
        started = time.perf_counter()
        action = self.bot.choose(view)
        self.seconds.append(time.perf_counter() - started)
        return action


KEEPALIVE = 5.0


# --- the world -------------------------------------------------------------------------------


def owner(number: int):
    """A person to own a bot."""
    from django.contrib.auth import get_user_model

    from accounts.models import Player

    user, _ = get_user_model().objects.get_or_create(username=f"benchowner{number}")
    player = Player.objects.filter(user=user).first()
    name = f"Benchowner{number}"
    return player or Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=name)


_bots_made = 0


def external_bot(name: str) -> tuple[object, str]:
    """A new external bot and its token, with an owner of its own: two bots of one owner
    never meet in rated play (a ladder's matchmaker keeps them apart)."""
    global _bots_made
    from accounts import services

    bot = services.bot_register(owner=owner(_bots_made), name=name)
    _bots_made += 1
    return bot, services.bot_token_issue(bot=bot)[1]


def bot_ladder(name: str, slug: str, **extra):
    from ladders import services

    return services.ladder_create(
        name=name,
        slug=slug,
        bots_only=True,
        best_of=1,
        target=TARGET,
        base_seconds=BUDGET_SECONDS,
        increment_seconds=0,
        window_initial=5000,  # pair whoever waits: the figures are not about the window
        **extra,
    )


# --- part 1 ----------------------------------------------------------------------------------


def part_api_vs_arena(url: str, matches: int) -> tuple[list[str], bool]:
    from ginrummy_bot.house import Expert

    from accounts.services import bot_create
    from games.engine.arena import wilson
    from games.engine.bots import make_bot
    from games.engine.bots.runner import play_match
    from games.engine.game import derive_seed
    from games.engine.match import Match as EngineMatch
    from games.engine.rules import RuleSet
    from games.models import Match

    WatchedClient, TimedRunner = watched_classes()
    greedy = bot_create(name="Gus (greedy)", strategy="greedy")
    expert, token = external_bot("ExpertOverTheApi")
    client = WatchedClient(url, token)
    strategy = Thinking(Expert())
    runner = TimedRunner(client, strategy, concurrency=IN_FLIGHT + 2)
    events = threading.Thread(target=runner.run, name="events", daemon=True)
    events.start()
    ids: list[int] = []
    started = time.monotonic()
    while (
        len(ids) < matches
        or Match.objects.filter(
            pk__in=ids, status__in=[Match.Status.ACTIVE, Match.Status.SCHEDULED]
        ).exists()
    ):
        playing = Match.objects.filter(pk__in=ids, status=Match.Status.ACTIVE).count()
        if len(ids) < matches and playing < IN_FLIGHT:
            match = client.challenge(greedy.pk, best_of=1, target=TARGET)
            ids.append(match["id"])
            runner.start_game(match["current_game"])
            continue
        if time.monotonic() - started > 120 + 60 * matches:
            print(f"part 1: gave up waiting after {time.monotonic() - started:.0f} s")
            break
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    runner.stop()
    rows = list(Match.objects.filter(pk__in=ids).order_by("pk"))
    over = [m for m in rows if m.status == Match.Status.FINISHED]
    api_wins = sum(m.winner_id == expert.pk for m in over)
    arena_wins = same = 0
    for m in over:
        engine = EngineMatch(m.seed, RuleSet.from_dict(m.rules))
        bots = (make_bot("expert", 0), make_bot("greedy", derive_seed(m.seed, "bot", 0)))
        play_match(engine, bots)
        arena_wins += engine.winner == 0
        same += (engine.winner == 0) == (m.winner_id == expert.pk)
    n = len(over)
    lo, hi = wilson(arena_wins, n)
    api_lo, api_hi = wilson(api_wins, n)
    api_rate = api_wins / n if n else float("nan")
    ok = n == matches and lo <= api_rate <= hi
    rt = [s * 1000 for s in runner.round_trips]
    think = [s * 1000 for s in strategy.seconds]
    reasons = sorted({m.end_reason for m in over})
    lines = [
        f"expert over the API vs house greedy: {api_wins}/{n} won = {api_rate:.1%} "
        f"[{api_lo:.1%}, {api_hi:.1%}] (end reasons: {', '.join(reasons)}; "
        f"{n} matches in {elapsed:.0f} s, {IN_FLIGHT} at once)",
        f"expert in-process arena, same seeds and seats: {arena_wins}/{n} = "
        f"{arena_wins / n if n else float('nan'):.1%} [{lo:.1%}, {hi:.1%}]; same winner in "
        f"{same}/{n} matches -> {'PASS' if ok else 'FAIL'} (API rate inside the arena's 95% CI)",
        f"decision round trip over the API (view line read -> move answered): "
        f"p50 {pct(rt, 0.5):.1f} ms, p95 {pct(rt, 0.95):.1f} ms over {len(rt)} moves "
        f"(the strategy's own thinking: p50 {pct(think, 0.5):.1f} ms, "
        f"p95 {pct(think, 0.95):.1f} ms)",
    ]
    return lines, ok


# --- part 2 ----------------------------------------------------------------------------------


def part_ladder(url: str, bots: int, seconds: float) -> tuple[list[str], bool]:
    from django.db.models import Q
    from ginrummy_bot.house import Expert, Greedy

    from games.models import Action, Match
    from games.services import LAG_QUOTA_MS
    from ladders.models import LadderMatch

    WatchedClient, TimedRunner = watched_classes()
    ladder = bot_ladder("Bench bot ladder", "bench-bots", bot_pairs=True, bot_requeue_seconds=None)
    runners, clients = [], []
    for index in range(bots):
        bot, token = external_bot(f"LadderBot{index:02}")
        client = WatchedClient(url, token)
        strategy = (Greedy if index % 2 else Expert)()
        runner = TimedRunner(client, strategy, concurrency=1, ladder=ladder.pk)
        runners.append((bot, runner))
        clients.append(client)
    threads = [threading.Thread(target=r.run, name=f"bot-{b.pk}", daemon=True) for b, r in runners]
    from django.utils import timezone

    begun = timezone.now()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    ended = timezone.now()
    for _, runner in runners:
        runner.stop()
    links = LadderMatch.objects.filter(ladder=ladder).values_list("match_id", flat=True)
    done = list(
        Match.objects.filter(
            pk__in=list(links), status=Match.Status.FINISHED, finished_at__lte=ended
        ).select_related("winner")
    )
    per_minute = len(done) / ((ended - begun).total_seconds() / 60)
    forfeits = [m for m in done if m.end_reason != Match.EndReason.GAMES]
    spent: dict[int, float] = {}  # game id -> the bot on move's seconds, by its client
    for _, runner in runners:
        for game, s in runner.on_move.items():
            spent[game] = max(spent.get(game, 0.0), s)
    unreal = []
    for m in forfeits:
        if m.end_reason != Match.EndReason.TIMEOUT:
            unreal.append(m)
            continue
        games = m.games.values_list("pk", flat=True)
        loser_spent = max((spent.get(g, 0.0) for g in games), default=0.0)
        if loser_spent < BUDGET_SECONDS * 0.95:
            unreal.append(m)
    gaps = sum(c.gaps for c in clients)
    silences = sum(c.silences for c in clients)
    longest = max(c.longest_silence for c in clients)
    reconnects = sum(
        max(0, n - 1) for c in clients for p, n in c.connections.items() if "event" in p
    )
    rt = [s * 1000 for _, r in runners for s in r.round_trips]
    playing = Match.objects.filter(
        Q(player_a__in=[b for b, _ in runners]) | Q(player_b__in=[b for b, _ in runners]),
        finished_at__isnull=True,
    ).count()
    ok = gaps == 0 and silences == 0 and not unreal
    credited = list(
        Action.objects.filter(deal__game__match__in=[m.pk for m in done], auto=False).values_list(
            "lag_ms", flat=True
        )
    )
    lines = [
        f"{bots} external bots on a bot ladder for {seconds:.0f} s: {len(done)} matches "
        f"finished = {per_minute:.1f} matches/min (one game to {TARGET}, {BUDGET_SECONDS} s a "
        f"game, no increment; {playing} in play at the stop)",
        f"streams: {gaps} seq gaps, {silences} silences over {2 * KEEPALIVE:.0f} s (longest "
        f"{longest:.1f} s), {reconnects} event-stream reconnections; moves p50 "
        f"{pct(rt, 0.5):.1f} ms, p95 {pct(rt, 0.95):.1f} ms over {len(rt)}",
        f"the server's delay credited back to the bots' clocks (lag bank, at most "
        f"{LAG_QUOTA_MS} ms a move): p50 {pct(credited, 0.5):.0f} ms, p95 "
        f"{pct(credited, 0.95):.0f} ms, max {max(credited, default=0)} ms over "
        f"{len(credited)} moves",
        f"forfeits: {len(forfeits)} ({sum(m.end_reason == 'timeout' for m in forfeits)} on "
        f"time), not a real timeout: {len(unreal)} -> {'PASS' if ok else 'FAIL'}",
    ]
    return lines, ok


# --- part 3 ----------------------------------------------------------------------------------


def peer_missing(module: str) -> str | None:
    if not PEERS_PYTHON.exists():
        return "bench/.venv is missing (make bench-engine builds it)"
    found = subprocess.run(
        [str(PEERS_PYTHON), "-c", f"import {module}"], capture_output=True, text=True
    )
    if found.returncode:
        return f"{module} does not import in bench/.venv: {found.stderr.strip().splitlines()[-1]}"
    return None


def part_adapters(url: str, matches: int) -> tuple[list[str], bool]:
    from accounts.services import bot_create
    from ladders import services as ladder_services
    from ladders.models import Rating

    ladder = bot_ladder("Bench peer ladder", "bench-peers", bot_pairs=True, bot_requeue_seconds=3)
    house = (("Rex (random)", "random"), ("Gil (greedy)", "greedy"), ("Eve (expert)", "expert"))
    for name, strategy in house:
        ladder_services.queue_join(ladder=ladder, player=bot_create(name=name, strategy=strategy))
    children, lines, adapters = [], [], []
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'clients' / 'python'}{os.pathsep}{ROOT}"}
    for name, (module, spec) in ADAPTERS.items():
        why = peer_missing(module)
        if why:
            lines.append(f"{name}: skipped ({why})")
            continue
        bot, token = external_bot(name.replace(" ", ""))
        adapters.append(bot)
        log = open(RUN_DIR / f"{bot.name}.log", "w")  # noqa: SIM115 (closed with the child)
        command = [str(PEERS_PYTHON), "-m", "ginrummy_bot", "--url", url, "--token", token]
        command += ["--bot", spec, "--ladder", str(ladder.pk), "--concurrency", "1"]
        children.append((subprocess.Popen(command, env=env, stdout=log, stderr=log), log))
    started = time.monotonic()
    try:
        while adapters:
            played = dict(
                Rating.objects.filter(ladder=ladder, player__in=adapters).values_list(
                    "player_id", "matches_played"
                )
            )
            if all(played.get(b.pk, 0) >= matches for b in adapters):
                break
            if time.monotonic() - started > 120 + 90 * matches:
                lines.append(f"adapters: stopped after {time.monotonic() - started:.0f} s")
                break
            if any(child.poll() is not None for child, _ in children):
                lines.append("adapters: a ginrummy-bot process ended early (see var/bench-bots)")
                break
            time.sleep(1)
    finally:
        for child, log in children:
            child.terminate()  # the client stops at its next line; a kill if it does not
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)
            log.close()
    board = Rating.objects.filter(ladder=ladder).select_related("player").order_by("-rating")
    for rating in board:
        kind = "adapter" if rating.player_id in {b.pk for b in adapters} else "house"
        lines.append(
            f"  {rating.player.name:<18} {kind:<7} rating {rating.rating:7.1f}  "
            f"{rating.matches_played:4} matches  {rating.wins:3}-{rating.losses:<3}"
        )
    elapsed = time.monotonic() - started
    lines.insert(
        0,
        f"peer adapters on a bot ladder with the house bots ({matches} matches each wanted, "
        f"{elapsed:.0f} s):",
    )
    return lines, True


# --- the run ---------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="part 1's matches (200)")
    parser.add_argument("--ladder-bots", type=int, default=20, help="part 2's bots (20)")
    parser.add_argument("--ladder-seconds", type=float, default=120, help="part 2's length")
    parser.add_argument("--adapter-matches", type=int, default=50, help="part 3, each (50)")
    parser.add_argument(
        "--parts", default="1,2,3", help="which parts to run, e.g. 2 or 1,3 (all three)"
    )
    parser.add_argument("--port", type=int, default=8150)
    parser.add_argument("--keep-cluster", action="store_true")
    args = parser.parse_args(argv)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
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
    limit_connections(os.environ["DATABASE_URL"], DB_CONNECTIONS)
    url = f"http://{cluster.HOST}:{cluster.PORT}"
    ok = True
    try:
        setup_django(cluster)
        global KEEPALIVE
        from django.conf import settings

        KEEPALIVE = float(settings.BOT_STREAM_KEEPALIVE_SECONDS)
        parts = {int(p) for p in args.parts.split(",") if p.strip()}
        for number, (title, part) in enumerate(
            (
                ("1. the API path against the arena", lambda: part_api_vs_arena(url, args.matches)),
                (
                    "2. a bot ladder",
                    lambda: part_ladder(url, args.ladder_bots, args.ladder_seconds),
                ),
                ("3. the peers' adapters", lambda: part_adapters(url, args.adapter_matches)),
            ),
            start=1,
        ):
            if number not in parts:
                continue
            print(title, flush=True)
            lines, passed = part()
            ok = ok and passed
            for line in lines:
                print("  " + line, flush=True)
        load = os.getloadavg()
        print(
            f"on {os.cpu_count()} cores, load {load[0]:.1f}; cluster: gunicorn x"
            f"{os.environ.get('WEB_CONCURRENCY', '2')} (uvicorn), 2 Celery workers, beat; "
            f"PostgreSQL {os.environ['DATABASE_URL'].rsplit('/', 1)[-1]}",
            flush=True,
        )
    finally:
        if not args.keep_cluster:
            cluster.stop()
            drop_database(os.environ["DATABASE_URL"])
            for url_ in (os.environ["CELERY_BROKER_URL"], os.environ["REDIS_URL"]):
                redis.Redis.from_url(url_).flushdb()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
