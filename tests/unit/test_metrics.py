"""/metrics: every series an operator watches is there after a little play, for allowed clients.

Scraped the way Prometheus does (GET, text format) from the test client's loopback address.
"""

import random

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from games.models import Match
from tests.live import Socket, fresh_layer, run, token_for
from tests.play import active_game, move, pick, view

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _layer():
    fresh_layer()


SERIES = [
    "ginrummy_http_request_duration_seconds",
    "ginrummy_admission_wait_seconds",
    "ginrummy_move_duration_seconds",
    "ginrummy_sockets_open",
    "ginrummy_push_latency_seconds",
    "ginrummy_celery_task_duration_seconds",
    "ginrummy_celery_queue_length",
    "ginrummy_clock_lag_seconds",
    "ginrummy_matchmaker_pass_seconds",
    "ginrummy_matchmaker_queue_size",
    "ginrummy_webhook_deliveries",
]


def scrape(client=None, **headers) -> dict[str, list]:
    """The samples of each metric family, by family name."""
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain")
    families = text_string_to_metric_families(response.content.decode())
    return {family.name: family.samples for family in families}


def value(samples, suffix: str = "", **labels) -> float:
    """The sum of the samples with this name suffix whose labels include ``labels``."""
    return sum(
        s.value
        for s in samples
        if s.name.endswith(suffix) and all(s.labels.get(k) == v for k, v in labels.items())
    )


@pytest.fixture
def duel(alice_client, bob_client, bob):
    created = alice_client.post(
        "/api/matches",
        {"opponent": bob.pk, "best_of": 1, "target": 100, "time_control": {"base_seconds": 60}},
        format="json",
    ).json()
    bob_client.post(f"/api/matches/{created['id']}/accept")
    return Match.objects.get(pk=created["id"]), {0: alice_client, 1: bob_client}


def test_every_series_is_there_after_a_few_moves(duel, alice):
    match, clients = duel
    before = scrape()
    rng = random.Random(1)
    game = active_game(match)

    def a_move() -> None:
        seen = view(clients[game.to_act], game)
        answer = move(clients[game.to_act], game, seen["ply"], pick(seen["legal_actions"], rng))
        assert answer.status_code == 200, answer.content

    async def watch_a_move():
        token = await database_sync_to_async(token_for)(alice)
        socket = await Socket.open(f"/ws/games/{game.pk}", token=token)
        await socket.receive("view")
        await database_sync_to_async(a_move)()
        await socket.receive("view")  # the move, pushed
        opened = await database_sync_to_async(scrape)()
        await socket.close()
        return opened

    opened = run(watch_a_move)
    after = scrape()

    assert set(SERIES) <= set(after), set(SERIES) - set(after)
    moves = value(after["ginrummy_move_duration_seconds"], "_count", outcome="played")
    assert moves == value(before["ginrummy_move_duration_seconds"], "_count", outcome="played") + 1
    route = "api/games/<int:pk>/actions"
    requests = after["ginrummy_http_request_duration_seconds"]
    assert value(requests, "_count", route=route, method="POST", status="200") >= 1
    # The gauge is the process's: sockets other tests left open count in it too.
    held = value(before.get("ginrummy_sockets_open", []), socket="game")
    assert value(opened["ginrummy_sockets_open"], socket="game") == held + 1
    assert value(after["ginrummy_sockets_open"], socket="game") == held
    assert value(after["ginrummy_push_latency_seconds"], "_count") >= 1
    assert {s.labels["queue"] for s in after["ginrummy_celery_queue_length"]} == {
        "interactive",
        "batch",
    }


def test_a_settled_clock_and_a_task_are_timed(duel):
    from datetime import timedelta

    from games import services

    match, _ = duel
    game = active_game(match)
    before = scrape()
    assert services.clock_settle(match_id=match.pk, now=game.turn_deadline + timedelta(seconds=2))
    after = scrape()
    lag = after["ginrummy_clock_lag_seconds"]
    assert value(lag, "_count") == value(before["ginrummy_clock_lag_seconds"], "_count") + 1
    assert value(lag, "_sum") - value(
        before["ginrummy_clock_lag_seconds"], "_sum"
    ) == pytest.approx(2.0)


def test_a_task_run_is_timed_by_its_queue():
    from config.celery import ping

    def runs(samples, name, queue):
        return value(samples, "_count", task=name, queue=queue)

    before = scrape().get("ginrummy_celery_task_duration_seconds", [])
    assert ping.delay().get(timeout=5) == "pong"
    after = scrape()["ginrummy_celery_task_duration_seconds"]
    assert (
        runs(after, "health.ping", "interactive") == runs(before, "health.ping", "interactive") + 1
    )
    assert runs(after, "health.ping", "batch") == 0


def test_only_allowed_addresses_or_the_token_may_read(settings):
    settings.METRICS_TOKEN = "s3cret-token"
    outside = Client(REMOTE_ADDR="203.0.113.7")
    assert outside.get("/metrics").status_code == 404
    assert outside.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert "ginrummy_move_duration_seconds" in scrape(
        outside, HTTP_AUTHORIZATION="Bearer s3cret-token"
    )
    assert "ginrummy_move_duration_seconds" in scrape(Client(REMOTE_ADDR="127.0.0.1"))
    settings.METRICS_TOKEN = ""
    assert outside.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_the_dashboard_shows_only_series_the_service_exports():
    import json
    import re
    from pathlib import Path

    dashboard = json.loads(
        (Path(__file__).parents[2] / "deploy/grafana-dashboard.json").read_text()
    )
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    shown = {
        re.sub(r"_(bucket|count|sum|total)$", "", name)
        for expr in exprs
        for name in re.findall(r"ginrummy_\w+", expr)
    }
    exported = {*SERIES, "ginrummy_celery_task_failures"}
    assert shown <= exported, shown - exported
    assert set(SERIES) <= shown, set(SERIES) - shown
