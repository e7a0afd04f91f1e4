"""Concurrent writes to one game on PostgreSQL: one move per ply, one outcome per deadline.

Every write of a match first locks its row (``select_for_update``), and the log has one
action per ply (a unique constraint). These tests race real threads, each with its own
database connection, against that: through real HTTP (a live server), through the services,
and against the clock's sweeper and countdown.
"""

import random
import threading
import time
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from games import selectors, services
from games.engine.actions import Action as EngineAction
from games.engine.match import Match as EngineMatch
from games.models import Action, Deal, Game, Match
from games.tasks import settle_clock
from tests.integration.conftest import http, run_threads, token_for

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 20


def player_to_act(match: Match, game: Game):
    return match.player_a if game.to_act == 0 else match.player_b


def assert_log_is_the_state(match: Match) -> None:
    """The log replayed by the engine gives exactly the snapshot kept on the match row."""
    match.refresh_from_db()
    replayed = EngineMatch.replay(selectors.match_log(match=match))
    assert replayed.snapshot() == match.state
    assert Action.objects.filter(deal__game__match=match).count() == match.ply


def test_twenty_posts_of_the_same_ply_apply_once_and_the_rest_get_409(alice, bob, live_server):
    match = services.match_create(player_a=alice, player_b=bob, seed=11)
    game = match.games.get()
    mover = player_to_act(match, game)
    token = token_for(mover.user.username)
    status, view = http(live_server.url, "GET", f"/api/games/{game.pk}", token)
    assert status == 200 and view["your_turn"] and view["ply"] == 0
    move = {"ply": 0, **view["legal_actions"][0]}

    answers = run_threads(
        THREADS,
        lambda i: http(live_server.url, "POST", f"/api/games/{game.pk}/actions", token, move),
    )

    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [409] * (THREADS - 1), answers
    for status, body in answers:
        if status == 409:
            assert body["code"] == "stale_ply" and body["ply"] == 1, body
    assert list(Action.objects.filter(deal__game=game).values_list("ply", "kind")) == [
        (0, move["type"])
    ]
    game.refresh_from_db()
    assert game.ply == 1
    assert_log_is_the_state(match)


def test_twenty_threads_playing_one_game_lose_no_move_and_write_no_move_twice(alice, bob):
    """Ten threads for alice and ten for bob, each playing random legal moves as fast as it
    can, all on one game: every accepted move is in the log once, and the log is the state."""
    match = services.match_create(player_a=alice, player_b=bob, seed=12)
    game_id = match.games.get().pk
    target_ply = 30

    def play(i: int) -> tuple[int, int]:
        player = alice if i % 2 == 0 else bob
        rng = random.Random(i)
        accepted = refused = 0
        while True:
            game = Game.objects.select_related("match__player_a", "match__player_b").get(pk=game_id)
            if game.match.ply >= target_ply or game.status != Game.Status.ACTIVE:
                return accepted, refused
            view = selectors.game_view(game=game, viewer=player)
            if not view["legal_actions"]:
                time.sleep(0.002)  # the other player's turn
                continue
            move = EngineAction.from_json(rng.choice(view["legal_actions"]))
            try:
                services.action_submit(game_id=game_id, player=player, ply=view["ply"], action=move)
            except services.Conflict:
                refused += 1
            else:
                accepted += 1

    tallies = run_threads(THREADS, play)

    assert not [t for t in tallies if isinstance(t, Exception)], tallies
    accepted = sum(a for a, _ in tallies)
    refused = sum(r for _, r in tallies)
    match.refresh_from_db()
    assert match.ply == accepted >= target_ply
    print(f"{accepted} moves accepted, {refused} refused")
    assert refused > 0, "no two threads ever raced: the test proved nothing"
    assert_log_is_the_state(match)


# --- The clock: a move at the deadline, the sweeper and the countdown ----------------------

ROUNDS = 200
#: How far ahead of now each round's deadline is set: time for the threads to line up.
LEAD = timedelta(milliseconds=30)
PASS = EngineAction.pass_()


class Racers:
    """Long-lived threads (one database connection each) that run one job each per round."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.jobs: dict[str, object] = {}
        self.results: dict[str, object] = {}
        self.start = threading.Barrier(len(names) + 1)
        self.done = threading.Barrier(len(names) + 1)
        self.threads = [threading.Thread(target=self._run, args=(n,)) for n in names]
        for thread in self.threads:
            thread.start()

    def _run(self, name: str) -> None:
        try:
            while True:
                self.start.wait()
                job = self.jobs.get(name)
                if job is None:
                    return
                try:
                    self.results[name] = job()
                except Exception as error:
                    self.results[name] = error
                self.done.wait()
        finally:
            connections.close_all()

    def race(self, jobs: dict[str, object]) -> dict[str, object]:
        self.jobs, self.results = jobs, {}
        self.start.wait()
        self.done.wait(30)
        return self.results

    def close(self) -> None:
        self.jobs = {}
        self.start.wait()
        for thread in self.threads:
            thread.join(10)


def at(moment, jitter: float):
    """Sleep until ``moment`` (an aware datetime) shifted by ``jitter`` seconds."""
    delay = (moment - timezone.now()).total_seconds() + jitter
    if delay > 0:
        time.sleep(delay)


def test_a_move_at_the_deadline_the_sweeper_and_the_countdown_give_one_outcome_200_times(
    alice, bob, celery_worker
):
    """Each round: the player to act passes as their clock runs out, while the sweeper, the
    countdown shortcut (in-process) and the real countdown task (on the worker) settle it.

    Two rounds in three the move is stamped a millisecond before the deadline (in time: the
    first to lock the match wins); one in three exactly at it (out of time: the timeout always
    wins). Start times jitter by +-2 ms so every order happens.
    """
    rng = random.Random(2024)
    racers = Racers(["move", "sweep", "countdown"])
    tally = {"move": 0, "late move": 0, "sweep": 0, "countdown": 0, "worker": 0}
    late_moves_applied = 0
    try:
        for round_ in range(ROUNDS):
            match = services.match_create(
                player_a=alice,
                player_b=bob,
                seed=round_,
                time_control=services.TimeControl(base_seconds=600),
            )
            game = match.games.get()
            index = game.to_act
            mover = player_to_act(match, game)
            # The clock of the player to act runs out LEAD from now (consistent columns: the
            # deadline is when the clock was charged plus what was left).
            now = timezone.now()
            deadline = now + LEAD
            left = int(LEAD.total_seconds() * 1000)
            Game.objects.filter(pk=game.pk).update(
                clock_charged_at=now,
                turn_began_at=now,
                turn_deadline=deadline,
                **{"clock_a_ms" if index == 0 else "clock_b_ms": left},
            )
            in_time = round_ % 3 != 2
            stamp = deadline - timedelta(milliseconds=1) if in_time else deadline
            countdown = settle_clock.apply_async((match.pk,), countdown=LEAD.total_seconds())
            jitter = [rng.uniform(-0.002, 0.002) for _ in range(3)]

            def move(stamp=stamp, jitter=jitter[0], game=game, mover=mover, deadline=deadline):
                at(deadline, jitter)
                return services.action_submit(
                    game_id=game.pk, player=mover, ply=0, action=PASS, now=stamp
                )

            def sweep(jitter=jitter[1], deadline=deadline):
                at(deadline, jitter)
                return services.clocks_sweep(now=deadline)

            def settle(jitter=jitter[2], deadline=deadline, match=match):
                at(deadline, jitter)
                return services.clock_settle(match_id=match.pk, now=deadline)

            results = racers.race({"move": move, "sweep": sweep, "countdown": settle})
            worker_settled = countdown.get(timeout=10)

            game.refresh_from_db()
            match.refresh_from_db()
            moved = list(Action.objects.filter(deal__game=game).values_list("ply", "kind"))
            timed_out = game.status == Game.Status.FINISHED and game.forfeit_by == index
            context = f"round {round_}: {results}, worker {worker_settled}, log {moved}"
            assert bool(moved) != timed_out, context  # exactly one outcome
            settled_by = [
                name
                for name, did in [
                    ("sweep", results["sweep"] == 1),
                    ("countdown", results["countdown"] is True),
                    ("worker", worker_settled is True),
                ]
                if did
            ]
            if moved:
                assert in_time, context
                assert moved == [(0, "pass")], context
                assert isinstance(results["move"], Game), context
                assert settled_by == [], context
                assert game.status == Game.Status.ACTIVE and game.ply == 1, context
                assert game.to_act == 1 - index, context
                tally["move"] += 1
            else:
                assert isinstance(results["move"], services.Conflict), context
                if not settled_by:
                    # A late move settles the clock itself (in a commit of its own), then is
                    # refused; a move stamped in time never can.
                    assert not in_time, context
                    settled_by = ["late move"]
                assert len(settled_by) == 1, context
                assert game.ply == 0 and game.clock_ms(index) == 0, context
                assert Deal.objects.get(game=game).status == Deal.Status.ABANDONED, context
                assert match.games.count() == 2, context  # the match goes on to game 2
                tally[settled_by[0]] += 1
            late_moves_applied += bool(moved) and not in_time
            assert_log_is_the_state(match)
            # Nothing of this round may be due in a later one.
            services.match_cancel(match=match, reason="race over")
    finally:
        racers.close()

    print(f"outcomes over {ROUNDS} rounds: {tally}")
    assert sum(tally.values()) == ROUNDS
    assert late_moves_applied == 0
    # Both orders happened, or the race was not a race.
    assert tally["move"] > 0 and tally["sweep"] + tally["countdown"] + tally["worker"] > 0, tally
