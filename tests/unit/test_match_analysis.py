"""Match analysis as a service: who may ask, the steps, the API and the replay page."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import selectors, services
from games.engine import analysis as method
from games.models import Match, MatchAnalysis
from games.services import analysis as service
from tests.factories import PlayerFactory
from tests.play import play_out


@pytest.fixture(autouse=True)
def _small(settings):
    settings.ANALYSIS_SAMPLES = 2
    settings.ANALYSIS_STEP_SECONDS = 600


def finished(alice, bob, seed=3) -> Match:
    match = services.match_create(player_a=alice, player_b=bob, seed=seed, target=25, best_of=1)
    return play_out(match, {0: alice, 1: bob}, random.Random(seed))


@pytest.fixture
def match(alice, bob):
    played = finished(alice, bob)
    assert played.status == Match.Status.FINISHED
    return played


def url(match):
    return f"/api/matches/{match.pk}/analysis"


def test_a_player_asks_and_reads_the_analysis_the_engine_gives(
    match, alice_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(url(match))
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    body = alice_client.get(url(match)).json()
    assert body["status"] == "done" and body["decisions_done"] == body["decisions_total"] > 0
    assert [p["name"] for p in body["players"]] == ["Alice", "Bob"]
    stored = MatchAnalysis.objects.get(match=match)
    expected = method.analyse_log(selectors.match_log(match=match), stored.seed, 2)
    assert body["analysis"] == expected
    # Asked again: the same analysis, no new work.
    again = alice_client.post(url(match))
    assert again.status_code == 200 and again.json()["analysis"] == expected
    assert MatchAnalysis.objects.count() == 1


def test_anyone_who_may_see_the_replay_reads_it_and_only_players_and_staff_ask(
    match, charlie_client, client, admin_client, django_capture_on_commit_callbacks
):
    refused = charlie_client.post(url(match))
    assert refused.status_code == 403 and refused.json()["code"] == "not_a_player"
    assert client.post(url(match)).status_code in (401, 403)
    missing = charlie_client.get(url(match))
    assert missing.status_code == 404 and missing.json()["code"] == "not_analysed"
    assert missing.json()["may_request"] is False
    assert not MatchAnalysis.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url(match)).status_code == 202
    assert client.get(url(match)).json()["status"] == "done"
    assert charlie_client.get(url(match)).json()["status"] == "done"


def test_a_match_in_play_is_not_analysed(alice, bob, alice_client):
    match = services.match_create(player_a=alice, player_b=bob, seed=4)
    for method_name in ("get", "post"):
        response = getattr(alice_client, method_name)(url(match))
        assert response.status_code == 409 and response.json()["code"] == "not_finished"
    assert not MatchAnalysis.objects.exists()


def test_a_match_played_with_real_cards_has_nothing_to_analyse(match, alice_client):
    Match.objects.filter(pk=match.pk).update(venue=Match.Venue.TABLE)
    response = alice_client.post(url(match))
    assert response.status_code == 409 and response.json()["code"] == "no_decisions"
    assert not MatchAnalysis.objects.exists()


def test_an_unknown_match_is_404(alice_client):
    assert alice_client.post("/api/matches/999999/analysis").status_code == 404
    assert alice_client.get("/api/matches/999999/analysis").status_code == 404


def test_steps_save_their_rows_and_the_last_stores_the_same_result(match, alice):
    analysis, queued = service.analysis_request(match=match, user=alice.user)
    assert queued and analysis.status == MatchAnalysis.Status.QUEUED  # on commit: not run here
    steps = 0
    while service.analysis_step(analysis_id=analysis.pk, budget=0.0):
        steps += 1
        analysis.refresh_from_db()
        assert analysis.status == MatchAnalysis.Status.RUNNING
        assert len(analysis.rows) == steps and analysis.result is None
    analysis.refresh_from_db()
    assert analysis.status == MatchAnalysis.Status.DONE and analysis.finished_at
    assert steps + 1 == analysis.decisions_total == analysis.result["decisions"]
    log = selectors.match_log(match=match)
    assert analysis.result == method.analyse_log(log, analysis.seed, 2)
    # A step delivered again once done changes nothing.
    assert service.analysis_step(analysis_id=analysis.pk) is False
    analysis.refresh_from_db()
    assert analysis.status == MatchAnalysis.Status.DONE


def test_a_step_that_lost_the_race_throws_its_work_away(match, alice, monkeypatch):
    analysis, _ = service.analysis_request(match=match, user=alice.user)
    real = method.analyse_some

    def racing(*args, **kwargs):
        rows, total = real(*args, **kwargs)
        # Another delivery of the same step saves first.
        MatchAnalysis.objects.filter(pk=analysis.pk).update(rows=[{"other": True}])
        return rows, total

    monkeypatch.setattr(method, "analyse_some", racing)
    assert service.analysis_step(analysis_id=analysis.pk, budget=0.0) is False
    analysis.refresh_from_db()
    assert analysis.rows == [{"other": True}]


def test_a_log_the_engine_refuses_fails_the_analysis_and_asking_again_restarts_it(
    match, alice, monkeypatch
):
    analysis, _ = service.analysis_request(match=match, user=alice.user)

    def broken(*args, **kwargs):
        raise ValueError("the log does not replay")

    monkeypatch.setattr(method, "analyse_some", broken)
    assert service.analysis_step(analysis_id=analysis.pk) is False
    analysis.refresh_from_db()
    assert analysis.status == MatchAnalysis.Status.FAILED
    assert analysis.error == "ValueError: the log does not replay"
    monkeypatch.undo()
    again, queued = service.analysis_request(match=match, user=alice.user)
    assert queued and again.pk == analysis.pk and again.status == MatchAnalysis.Status.QUEUED
    assert again.seed == analysis.seed and again.rows == []


def test_a_person_has_at_most_three_analyses_under_way(alice, bob, alice_client, admin_client):
    matches = [finished(alice, bob, seed) for seed in (21, 22, 23, 24)]
    for m in matches[:3]:
        assert alice_client.post(url(m)).status_code == 202  # not run: no commit here
    refused = alice_client.post(url(matches[3]))
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_analyses"
    assert MatchAnalysis.objects.count() == 3
    assert admin_client.post(url(matches[3])).status_code == 202  # staff are not counted


def test_the_sweep_queues_again_an_analysis_whose_step_was_lost(
    match, alice, django_capture_on_commit_callbacks
):
    analysis, _ = service.analysis_request(match=match, user=alice.user)
    assert service.analysis_sweep() == 0  # written just now: its step is still coming
    long_ago = timezone.now() - service.STALE_AFTER - timedelta(seconds=1)
    MatchAnalysis.objects.filter(pk=analysis.pk).update(updated_at=long_ago)
    with django_capture_on_commit_callbacks(execute=True):
        assert service.analysis_sweep() == 1
    analysis.refresh_from_db()
    assert analysis.status == MatchAnalysis.Status.DONE


def test_the_replay_page_offers_the_analysis_and_shows_its_figures(
    match, alice_client, charlie_client, django_capture_on_commit_callbacks
):
    from django.test import Client

    page = Client()
    page.force_login(match.player_a.user)
    html = page.get(f"/matches/{match.pk}/replay").content.decode()
    assert 'id="analyse"' in html and "has not been analysed" in html
    other = Client()
    other.force_login(PlayerFactory(name="Dora").user)
    assert 'id="analyse"' not in other.get(f"/matches/{match.pk}/replay").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        answer = page.post(f"/matches/{match.pk}/analyse", {"game": "0", "deal": "0"})
    assert answer.status_code == 302 and answer["Location"].endswith("?game=0&deal=0")
    html = page.get(f"/matches/{match.pk}/replay").content.decode()
    figures = MatchAnalysis.objects.get(match=match).result["players"]
    assert 'class="analysis-summary"' in html and 'id="analyse"' not in html
    assert f"{figures[0]['accuracy']}%" in html and f"{figures[1]['accuracy']}%" in html
    assert '"analysis": {"decisions": [' in html
