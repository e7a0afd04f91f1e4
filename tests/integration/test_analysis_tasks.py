"""A match's analysis run by a real worker on Redis and PostgreSQL, step after step."""

import pytest
from django.db import transaction

from games import selectors, services
from games.engine import analysis as method
from games.models import Match, MatchAnalysis
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_staff_ask_and_the_worker_stores_what_the_engine_computes(
    celery_worker, greedy_bots, admin_client, settings
):
    settings.ANALYSIS_SAMPLES = 2  # stored on the analysis: the worker uses the row's
    with transaction.atomic():
        match = services.match_create(
            player_a=greedy_bots[0], player_b=greedy_bots[1], seed=8, target=50, best_of=1
        )
    wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, 60)
    answer = admin_client.post(f"/api/matches/{match.pk}/analysis")
    assert answer.status_code == 202, answer.content
    done = wait_for(
        lambda: MatchAnalysis.objects.filter(match=match, status="done").first(), timeout=120
    )
    match.refresh_from_db()
    assert done.samples == 2 and done.cpu_seconds > 0
    assert done.result == method.analyse_log(selectors.match_log(match=match), done.seed, 2)
    body = admin_client.get(f"/api/matches/{match.pk}/analysis").json()
    assert body["status"] == "done" and body["analysis"] == done.result
    assert body["decisions_done"] == body["decisions_total"] == done.result["decisions"] > 0
