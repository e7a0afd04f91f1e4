"""Crashes in the middle of ``play_match``, on real workers, Redis and PostgreSQL.

A bot match is played in memory and written in one transaction, under the match row lock;
late acks with reject-on-worker-lost (or Redis's visibility timeout, when the whole worker
dies) deliver the task again. Whatever happens, the match must end up written exactly once,
with the log a clean run of the same seed gives.

The bots are the slow greedy bots of tests/integration/tasks.py (a millisecond a decision,
the greedy bot's choices), so a best-of-3 match takes about two seconds and a kill lands in
the middle of it. Workers here get a short visibility timeout, and time limits below it, as
the settings require.
"""

import os
import signal
import time
import uuid

import pytest
import redis
from django.conf import settings

from games import selectors, services
from games.engine import bots as engine_bots
from games.engine.actions import Action as EngineAction
from games.engine.bots.runner import play_match as engine_play_match
from games.engine.game import derive_seed
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.models import Action, Deal, Game, Match
from games.tasks import bot_move, play_match
from tests.factories import BotFactory
from tests.integration.conftest import wait_for
from tests.integration.tasks import slow_bot_started_key

pytestmark = pytest.mark.django_db(transaction=True)

#: Three games (2-1), 2,156 moves: about 2.3 s with the slow bots.
SEED = 2029
VISIBILITY_TIMEOUT = 8
CRASH_ENV = {
    "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
    "CELERY_TASK_TIME_LIMIT": str(VISIBILITY_TIMEOUT - 1),
    "CELERY_TASK_SOFT_TIME_LIMIT": str(VISIBILITY_TIMEOUT - 2),
}


@pytest.fixture
def broker():
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def slow_match(slow_bots, broker) -> Match:
    """A best-of-3 match between the slow bots, created but not yet sent to a worker."""
    match = services.match_create(
        player_a=slow_bots[0], player_b=slow_bots[1], best_of=3, seed=SEED, start=False
    )
    broker.delete(slow_bot_started_key(derive_seed(match.seed, "bot", 0)))
    return match


def clean_log(match: Match) -> dict:
    """The log of the same match played by the engine alone, in memory, in this process.

    The slow bots choose exactly as the greedy bots with the same seeds.
    """
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    bots = (
        engine_bots.make_bot("greedy", derive_seed(match.seed, "bot", 0)),
        engine_bots.make_bot("greedy", derive_seed(match.seed, "bot", 1)),
    )
    assert engine_play_match(engine, bots) is None
    log = engine.log_json()
    del log["cut_dealer"]  # not a column: it follows from the seed
    return log


def times_started(broker, match: Match) -> int:
    """How many times a worker began to play the match (player A's bot counts its starts)."""
    return int(broker.get(slow_bot_started_key(derive_seed(match.seed, "bot", 0))) or 0)


def kill_mid_play(broker, match: Match, pid: int) -> None:
    """Wait until the match is being played, let it get going, then SIGKILL ``pid``."""
    wait_for(lambda: times_started(broker, match) == 1, timeout=20)
    time.sleep(0.7)
    os.kill(pid, signal.SIGKILL)
    match.refresh_from_db()
    # Nothing was written: the match is played in memory and written in one transaction.
    assert match.status == Match.Status.SCHEDULED
    assert not Game.objects.filter(match=match).exists()


def assert_written_once_as_a_clean_run(match: Match) -> None:
    match.refresh_from_db()
    expected = clean_log(match)
    assert match.status == Match.Status.FINISHED
    assert selectors.match_log(match=match) == expected
    # One set of rows: as many as the clean run has, no more.
    deals = [deal for game in expected["games"] for deal in game["deals"]]
    assert Game.objects.filter(match=match).count() == len(expected["games"]) == 3
    assert Deal.objects.filter(game__match=match).count() == len(deals)
    moves = sum(len(deal["actions"]) for deal in deals)
    assert Action.objects.filter(deal__game__match=match).count() == match.ply == moves
    # And the engine, replaying the log from the database, scores it as recorded.
    replayed = EngineMatch.replay(selectors.match_log(match=match))
    assert [r.to_json() for r in replayed.results] == expected["results"]
    assert [match.games_won_a, match.games_won_b] == replayed.games_won == [2, 1]


def test_a_match_whose_pool_process_is_killed_mid_play_is_replayed_once_to_the_same_log(
    worker_factory, slow_bots, broker
):
    worker = worker_factory(
        name="crash-child", queues="crash-child", pool="prefork", concurrency=1, **CRASH_ENV
    )
    match = slow_match(slow_bots, broker)
    [child] = worker.pool_pids()

    result = play_match.apply_async((match.pk,), queue="crash-child")
    kill_mid_play(broker, match, child)

    # Rejected when its process died, redelivered at once to a new pool process.
    assert result.get(timeout=30) is True
    assert times_started(broker, match) == 2
    assert child not in worker.pool_pids()
    assert_written_once_as_a_clean_run(match)


def test_a_match_whose_whole_worker_is_killed_mid_play_is_played_once_by_the_next_worker(
    worker_factory, slow_bots, broker
):
    # A solo worker runs the task in its one process: killing it kills the whole worker.
    first = worker_factory(name="crash-whole", queues="crash-whole", **CRASH_ENV)
    match = slow_match(slow_bots, broker)

    result = play_match.apply_async((match.pk,), queue="crash-whole")
    kill_mid_play(broker, match, first.pid)
    killed_at = time.monotonic()
    first.process.wait(10)

    # Nobody acknowledged the message. A worker hands out again the unacknowledged messages
    # older than the visibility timeout when it starts, and then only every
    # unacked_restore_interval x unacked_restore_throttle seconds (10 x 10 by default in
    # kombu 5.7): the next worker starts once the timeout has passed.
    time.sleep(max(0.0, killed_at + VISIBILITY_TIMEOUT - time.monotonic()))
    second = worker_factory(name="crash-whole-2", queues="crash-whole", **CRASH_ENV)
    assert result.get(timeout=20) is True
    assert times_started(broker, match) == 2
    assert f"games.play_match[{result.id}] redelivered" in second.log()
    assert_written_once_as_a_clean_run(match)


def test_a_worker_restarted_at_once_after_a_crash_plays_the_match_soon_after_the_timeout(
    worker_factory, slow_bots, broker
):
    """A supervisor restarts a crashed worker within a second, long before the visibility
    timeout: the new worker must still pick the dead one's task up soon after it."""
    first = worker_factory(name="restart-1", queues="restart", **CRASH_ENV)
    match = slow_match(slow_bots, broker)
    result = play_match.apply_async((match.pk,), queue="restart")
    kill_mid_play(broker, match, first.pid)
    first.process.wait(10)

    worker_factory(name="restart-2", queues="restart", **CRASH_ENV)

    # The timeout, the match itself (~2.3 s) and a few seconds of slack.
    assert result.get(timeout=VISIBILITY_TIMEOUT + 8) is True
    assert_written_once_as_a_clean_run(match)


def test_a_match_delivered_twice_at_once_to_two_workers_is_played_once(
    worker_factory, slow_bots, broker
):
    workers = worker_factory.many(["twice-1", "twice-2"], queues="twice")
    match = slow_match(slow_bots, broker)
    task_id = str(uuid.uuid4())

    # The same message twice, as a redelivery racing the first delivery would be.
    for _ in range(2):
        play_match.apply_async((match.pk,), queue="twice", task_id=task_id)

    def outcomes() -> list[str]:
        done = f"games.play_match[{task_id}] succeeded"
        return [
            line.rsplit(":", 1)[1].strip()
            for worker in workers
            for line in worker.log().splitlines()
            if done in line
        ]

    # One worker played it; the other waited for the match row's lock, then found it finished.
    assert sorted(wait_for(lambda: len(outcomes()) == 2 and outcomes(), timeout=30)) == [
        "False",
        "True",
    ]
    assert all(f"games.play_match[{task_id}] received" in w.log() for w in workers)
    assert times_started(broker, match) == 1
    assert_written_once_as_a_clean_run(match)


def test_a_bot_reply_delivered_twice_at_once_to_two_workers_moves_once(
    worker_factory, celery_worker, alice, monkeypatch
):
    """The bot's reply in a human-vs-bot game is one move, however many times it is sent."""
    workers = worker_factory.many(["reply-1", "reply-2"], queues="reply")
    bot = BotFactory(name="Gus", bot_strategy="greedy")
    # Hold back the replies the services publish, to send one ourselves, twice.
    monkeypatch.setattr(bot_move, "delay_on_commit", lambda *args: None)
    match = services.match_create(player_a=alice, player_b=bot, seed=SEED)
    game = match.games.get()
    while game.to_act != 1:
        view = selectors.game_view(game=game, viewer=alice)
        action = EngineAction.from_json(view["legal_actions"][0])
        game = services.action_submit(game_id=game.pk, player=alice, ply=game.ply, action=action)
    monkeypatch.undo()  # from here the bot's follow-ups go to the session's worker
    match.refresh_from_db()
    ply, task_id = match.ply, str(uuid.uuid4())

    for _ in range(2):
        bot_move.apply_async((match.pk, ply), queue="reply", task_id=task_id)

    def outcomes() -> list[str]:
        done = f"games.bot_move[{task_id}] succeeded"
        return [
            line.rsplit(":", 1)[1].strip()
            for worker in workers
            for line in worker.log().splitlines()
            if done in line
        ]

    assert sorted(wait_for(lambda: len(outcomes()) == 2 and outcomes(), timeout=20)) == [
        "False",
        "True",
    ]
    deal = Deal.objects.get(game=game, number=0)
    bot_moves = Action.objects.filter(deal=deal, player=bot).order_by("ply")
    assert bot_moves[0].ply == game.ply  # the ply it was sent for: one move, not two
    assert Action.objects.filter(deal=deal, ply=game.ply).count() == 1
    # Once the session's worker has played the rest of the bot's turn, nothing moves: the log
    # replays to the state kept beside it.
    wait_for(lambda: Game.objects.get(pk=game.pk).to_act == 0, timeout=30)
    match.refresh_from_db()
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
