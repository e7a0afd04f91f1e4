"""Showing up: human matches wait for their players, then whoever did not come forfeits."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match
from games.signals import match_finished
from tests.factories import BotFactory
from tests.tournaments import by_seed, decide, event_with, humans, pairing
from tournaments import receivers, services, tasks
from tournaments.models import Event, Pairing
from tournaments.services import showing_up

pytestmark = pytest.mark.django_db

LATER = timedelta(seconds=301)  # just past the default grace period of 300 s


def test_a_human_match_waits_for_its_players_until_the_grace_period_ends():
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    assert match.status == Match.Status.SCHEDULED
    assert timedelta(seconds=299) < match.start_deadline - timezone.now() <= timedelta(seconds=300)
    assert services.no_shows_sweep(now=timezone.now() + timedelta(seconds=200)) == 0
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED


def test_the_player_who_did_not_show_up_forfeits_and_the_bracket_advances():
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    first = pairing(event, "R1.1")
    services.match_ready(match=first.match, player=s[4])
    assert services.no_shows_sweep(now=timezone.now() + LATER) == 2
    first = pairing(event, "R1.1")
    assert first.match.end_reason == Match.EndReason.NO_SHOW and first.winner.player == s[4]
    assert first.result == Pairing.Result.NO_SHOW
    assert pairing(event, "R2.1").entry_a.player == s[4]


def test_when_neither_shows_up_both_lose_and_the_next_opponent_advances():
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    second = pairing(event, "R1.2")
    services.match_ready(match=second.match, player=s[2])
    services.no_shows_sweep(now=timezone.now() + LATER)
    first = pairing(event, "R1.1")
    assert first.result == Pairing.Result.DOUBLE_NO_SHOW and first.winner is None
    assert first.match.status == Match.Status.CANCELLED
    event.refresh_from_db()
    # The final is a walkover for the winner of the other semifinal.
    assert event.status == Event.Status.FINISHED and event.champion == s[2]


def test_a_human_against_a_bot_starts_as_soon_as_the_human_shows_up(alice):
    bot = BotFactory(bot_strategy="greedy")
    event = event_with([alice, bot], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    services.match_ready(match=match, player=alice)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_a_human_who_never_shows_up_against_a_bot_forfeits(alice):
    bot = BotFactory(bot_strategy="greedy")
    event = event_with([alice, bot], "single_elim")
    services.event_start(event=event)
    services.no_shows_sweep(now=timezone.now() + LATER)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == bot


def test_showing_up_late_is_refused_after_the_no_show_is_recorded(alice_client, alice, bob):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    Match.objects.filter(pk=match.pk).update(start_deadline=timezone.now() - timedelta(seconds=1))
    response = alice_client.post(f"/api/events/{event.pk}/matches/{match.pk}/ready")
    assert response.status_code == 409 and response.json()["code"] == "too_late"
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED  # neither had shown up
    assert pairing(event, "R1.1").result == Pairing.Result.DOUBLE_NO_SHOW


def test_showing_up_twice_is_harmless(alice, bob):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    services.match_ready(match=match, player=alice)
    first = pairing(event, "R1.1").ready_a_at or pairing(event, "R1.1").ready_b_at
    services.match_ready(match=match, player=alice)
    again = pairing(event, "R1.1")
    assert (again.ready_a_at or again.ready_b_at) == first
    assert again.match.status == Match.Status.SCHEDULED


def test_the_beat_task_sweeps_no_shows(alice, bob):
    event = event_with([alice, bob], "single_elim", grace_seconds=0)
    services.event_start(event=event)
    assert tasks.sweep.apply().get() == {"no_shows": 1, "reconciled": 0}
    assert pairing(event, "R1.1").result == Pairing.Result.DOUBLE_NO_SHOW


def test_the_sweep_records_a_result_a_failed_receiver_missed():
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    match_finished.disconnect(dispatch_uid="tournaments.advance")
    try:
        decide(event, "R1.1", s[2])
    finally:
        match_finished.connect(
            receivers.advance_on_match_finished, dispatch_uid="tournaments.advance"
        )
    assert pairing(event, "R1.1").result == ""
    assert services.sweep() == {"no_shows": 0, "reconciled": 1}
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == s[2]


def test_the_embedded_sweeper_thread_sweeps_tournaments_too(monkeypatch):
    import common.embedded as embedded

    calls = []

    class Stopping:  # one pass, then the sweeper is asked to stop
        def wait(self, seconds):
            if calls:
                return True
            calls.append("waited")
            return False

    monkeypatch.setattr(embedded, "_stopping", Stopping())
    monkeypatch.setattr(showing_up, "sweep", lambda: calls.append("tournaments"))
    embedded._loop(0)
    assert "tournaments" in calls
