"""Play through a real worker on Redis and PostgreSQL: bot matches, bot replies, clocks.

Tasks are published on commit; the worker (tests/integration/conftest.py) runs in another
process on the test database, so every test here commits for real.
"""

import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import selectors, services
from games.engine import bots as engine_bots
from games.engine.bots.runner import play_match as engine_play_match
from games.engine.game import derive_seed
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.models import Action, Game, Match
from games.tasks import play_match, sweep_clocks
from tests.factories import BotFactory
from tests.integration.conftest import wait_for
from tests.integration.tasks import backend_pid

pytestmark = pytest.mark.django_db(transaction=True)

#: How long a test waits for what must come (a bot's reply, a sweep's outcome): only a test
#: that fails waits this long, so it is far above what a busy machine takes. How soon a bot
#: replies is bench/play.py's figure ("bot reply"), measured on purpose, not bounded here.
CAP_SECONDS = 30.0


def engine_log(match: Match, strategies: tuple[str, str]) -> dict:
    """The match's log as the engine alone plays it in memory with the same bots and seed."""
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    bots = tuple(
        engine_bots.make_bot(name, derive_seed(match.seed, "bot", i))
        for i, name in enumerate(strategies)
    )
    engine_play_match(engine, bots)
    log = engine.log_json()
    del log["cut_dealer"]
    return log


def test_a_committed_bot_match_is_played_by_the_worker_and_a_rerun_changes_nothing(
    celery_worker, greedy_bots
):
    with transaction.atomic():
        match = services.match_create(player_a=greedy_bots[0], player_b=greedy_bots[1], seed=5)
        assert match.status == Match.Status.ACTIVE  # sent to a worker, on commit

    wait_for(
        lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, timeout=CAP_SECONDS
    )
    match.refresh_from_db()
    log = selectors.match_log(match=match)
    assert log == engine_log(match, ("greedy", "greedy"))
    rows = Action.objects.filter(deal__game__match=match).count()
    assert rows == match.ply > 0

    assert play_match.delay(match.pk).get(timeout=10) is False
    assert Action.objects.filter(deal__game__match=match).count() == rows
    assert selectors.match_log(match=Match.objects.get(pk=match.pk)) == log


def test_a_rolled_back_bot_match_publishes_nothing(celery_worker, greedy_bots):
    log_before = len(celery_worker.log())

    with pytest.raises(RuntimeError), transaction.atomic():
        services.match_create(player_a=greedy_bots[0], player_b=greedy_bots[1], seed=6)
        raise RuntimeError("the request failed after creating the match")

    queue = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert queue.llen("batch") == queue.llen("interactive") == 0
    # One worker takes a queue's messages in order: once a later task of the batch queue (as
    # play_match) has run, an earlier one would have.
    assert backend_pid.delay().get(timeout=10) > 0
    assert "games.play_match" not in celery_worker.log()[log_before:]
    assert not Match.objects.exists()


def wait_for_my_turn(client, game_id: int, timeout: float) -> dict:
    """Poll the game view (as a client would) until it is the caller's turn or the game ends."""
    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/games/{game_id}").json()
        if view["your_turn"] or view["status"] != "active" or time.monotonic() > deadline:
            return view
        time.sleep(0.02)


def a_move(view: dict) -> dict:
    """A simple human: draw from the stock, throw the first card offered; end when allowed."""
    legal = view["legal_actions"]
    for kind in ("gin", "big_gin", "knock", "pass", "draw_stock", "discard"):
        for action in legal:
            if action["type"] == kind:
                return {"ply": view["ply"], **action}
    return {"ply": view["ply"], **legal[0]}


def wait_for_alices_turn(match: Match) -> Game:
    """The match's game once Alice (player A) is to act in a deal, its turn clock running.

    The bot may move first, and may even end the first deal (a knock on its first turn):
    then the game waits in the pause between deals, with no turn deadline to run out, until
    the pause's countdown starts the next deal.
    """

    def alices_turn() -> Game | None:
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        running = game.to_act == 0 and game.pause_deadline is None
        return game if running and game.turn_deadline is not None else None

    return wait_for(alices_turn, timeout=CAP_SECONDS)


def test_a_bot_challenged_through_the_api_replies_to_each_move(celery_worker, alice, alice_client):
    bot = BotFactory(name="Gus", bot_strategy="greedy")
    response = alice_client.post("/api/matches", {"opponent": bot.pk}, format="json")
    assert response.status_code == 201, response.content
    game_id = response.json()["current_game"]

    replies = 0
    view = wait_for_my_turn(alice_client, game_id, timeout=CAP_SECONDS)
    while replies < 8:
        assert view["your_turn"], view
        answer = alice_client.post(f"/api/games/{game_id}/actions", a_move(view), format="json")
        assert answer.status_code == 200, answer.content
        view = answer.json()
        if view["your_turn"]:
            continue  # the rest of my turn (a discard after a draw)
        view = wait_for_my_turn(alice_client, game_id, timeout=CAP_SECONDS)
        replies += 1

    match = Match.objects.get(games__pk=game_id)
    bot_moves = Action.objects.filter(deal__game__match=match, player=bot).count()
    assert bot_moves >= replies
    replayed = EngineMatch.replay(selectors.match_log(match=match))
    assert replayed.snapshot() == match.state


def test_the_sweeper_on_the_worker_forfeits_an_expired_human_clock(
    celery_worker, alice, alice_client
):
    bot = BotFactory(name="Grace", bot_strategy="greedy")
    response = alice_client.post(
        "/api/matches",
        {"opponent": bot.pk, "best_of": 1, "time_control": {"base_seconds": 600}},
        format="json",
    )
    assert response.status_code == 201, response.content
    game_id = response.json()["current_game"]
    assert wait_for_my_turn(alice_client, game_id, timeout=CAP_SECONDS)["your_turn"]
    # Alice's clock ran out a second ago (as if she had walked away ten minutes back).
    game = Game.objects.get(pk=game_id)
    now = timezone.now()
    charged = now - timedelta(milliseconds=game.clock_a_ms + 1000)
    Game.objects.filter(pk=game_id).update(
        clock_charged_at=charged,
        turn_began_at=charged,
        turn_deadline=now - timedelta(seconds=1),
    )

    # Beat sends this every second; here it is sent once, to the worker.
    assert sweep_clocks.delay().get(timeout=10) == 1

    game.refresh_from_db()
    match = game.match
    assert game.status == Game.Status.FINISHED and game.forfeit_by == 0
    assert (match.status, match.winner, match.end_reason) == ("finished", bot, "timeout")
    view = alice_client.get(f"/api/games/{game_id}").json()
    assert view["status"] == "finished" and view["clocks"][0]["remaining_ms"] == 0
    assert view["results"][0]["termination"] == "forfeit"
    assert sweep_clocks.delay().get(timeout=10) == 0  # nothing left to settle


def test_beat_sweeps_an_expired_human_clock_within_seconds(celery_worker, celery_beat, alice):
    bot = BotFactory(name="Gail", bot_strategy="greedy")
    match = services.challenge_create(
        challenger=alice,
        opponent=bot,
        best_of=1,
        time_control=services.TimeControl(base_seconds=600),  # too long for a countdown task
    )
    game = wait_for_alices_turn(match)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now())

    # Nobody reads the game and no countdown is pending: only beat's sweep can settle it.
    wait_for(
        lambda: Game.objects.get(pk=game.pk).status == Game.Status.FINISHED, timeout=CAP_SECONDS
    )

    match.refresh_from_db()
    assert (match.status, match.end_reason, match.winner) == ("finished", "timeout", bot)


def test_the_countdown_task_forfeits_a_short_human_clock_with_nobody_looking(celery_worker, alice):
    bot = BotFactory(name="Gwen", bot_strategy="greedy")
    match = services.challenge_create(
        challenger=alice,
        opponent=bot,
        best_of=1,
        time_control=services.TimeControl(base_seconds=2),
    )
    game = match.games.get()

    # Nobody reads the game and no beat runs: only the countdown task can settle it.
    wait_for(
        lambda: Game.objects.get(pk=game.pk).status == Game.Status.FINISHED, timeout=CAP_SECONDS
    )

    game.refresh_from_db()
    match.refresh_from_db()
    assert game.forfeit_by == 0 and game.clock_a_ms == 0
    assert (match.status, match.end_reason, match.winner) == ("finished", "timeout", bot)
    assert not Action.objects.filter(deal__game=game, player=alice).exists()


def test_a_match_lost_on_time_replays_from_its_log_to_the_state_kept_beside_it(
    celery_worker, alice
):
    bot = BotFactory(name="Gina", bot_strategy="greedy")
    match = services.challenge_create(
        challenger=alice,
        opponent=bot,
        best_of=1,
        time_control=services.TimeControl(base_seconds=600),
    )
    game = wait_for_alices_turn(match)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now())
    assert sweep_clocks.delay().get(timeout=10) == 1
    match.refresh_from_db()
    assert (match.status, match.winner, match.end_reason) == ("finished", bot, "timeout")

    replayed = EngineMatch.replay(selectors.match_log(match=match))

    assert replayed.snapshot() == match.state
