"""The reference client (clients/python) playing over the wire: a real uvicorn serving
config.asgi, the Redis channel layer, and the Celery worker playing the house bot.

The cast: alice owns the external bot Robo; Gus is the house greedy bot; bob is a person.
"""

from __future__ import annotations

import sys
import threading

import pytest
from django.conf import settings

from accounts import services as accounts
from games.models import Action, Match
from tests.factories import BotFactory
from tests.integration.conftest import ROOT, wait_for
from tests.integration.live import AsgiServer

sys.path.insert(0, str(ROOT / "clients" / "python"))

from ginrummy_bot import ApiClient, RandomBot, Runner

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(tmp_path, celery_worker):
    started = AsgiServer(
        log_path=tmp_path / "uvicorn.log", channel_redis_url=settings.CHANNEL_REDIS_URL
    ).start()
    yield started
    started.stop()


@pytest.fixture
def robo(alice):
    return accounts.bot_register(owner=alice, name="Robo")


def test_the_reference_client_plays_a_whole_match_against_a_house_bot(server, robo):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    token = accounts.bot_token_issue(bot=robo)[1]
    client = ApiClient(server.base_url, token, read_timeout=20)
    runner = Runner(client, RandomBot(seed=7))
    events = threading.Thread(target=runner.run, daemon=True)
    events.start()
    try:
        match = client.challenge(gus.pk, best_of=1, target=25)
        assert match["status"] == "active"
        runner.start_game(match["current_game"])
        finished = wait_for(
            lambda: Match.objects.filter(pk=match["id"], status=Match.Status.FINISHED).first(),
            timeout=120,
            interval=0.5,
        )
        # The event stream tells the bot the match is over.
        line = wait_for(lambda: [e for e in runner.finished if e["match"] == match["id"]])[0]
    finally:
        runner.stop()
    assert finished.end_reason == Match.EndReason.GAMES, finished.end_detail
    assert line["winner"]["id"] == finished.winner_id
    moves = Action.objects.filter(deal__game__match=finished)
    assert moves.filter(player=robo, auto=False).exists()
    assert not moves.filter(auto=True).exists()


def test_a_person_and_a_bot_meet_through_challenge_and_stream(server, robo, bob):
    """Bob challenges Robo over REST; the client hears it on its event stream, accepts, and
    its game stream follows bob's moves made through the same server."""
    from tests.integration.live import api
    from tests.live import token_for

    token = accounts.bot_token_issue(bot=robo)[1]
    runner = Runner(ApiClient(server.base_url, token, read_timeout=20), RandomBot(seed=3))
    events = threading.Thread(target=runner.run, daemon=True)
    events.start()
    bob_token = token_for(bob)
    try:
        status, match = api(server, "POST", "/api/matches", bob_token, {"opponent": robo.pk})
        assert status == 201 and match["status"] == "challenged"
        wait_for(
            lambda: Match.objects.filter(pk=match["id"], status=Match.Status.ACTIVE).exists(),
            timeout=20,
        )
        game_id = Match.objects.get(pk=match["id"]).games.get().pk
        for _ in range(6):  # bob plays his turns by REST; the bot answers each over the API
            view = wait_for(
                lambda: (lambda v: v if v[1]["your_turn"] or v[1]["status"] != "active" else None)(
                    api(server, "GET", f"/api/games/{game_id}", bob_token)
                ),
                timeout=20,
            )[1]
            if view["status"] != "active":
                break
            status, _ = api(
                server,
                "POST",
                f"/api/games/{game_id}/actions",
                bob_token,
                {"ply": view["ply"], **view["legal_actions"][0]},
            )
            assert status == 200
        assert Action.objects.filter(deal__game_id=game_id, player=robo).count() >= 3
    finally:
        runner.stop()
