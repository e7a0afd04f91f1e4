"""A challenge accepted while the matchmaker pairs the same two queued players, on PostgreSQL.

Both paths lock the players' rows (in id order) and then look for a match in progress, so
whichever commits second sees the first: the matchmaker leaves a player who just began a
match waiting, and an accept refuses (409 ``in_ranked_match``) when the matchmaker paired
the player a moment ago. Nobody ends up in two matches at once.

The first two tests hold one side inside its locks for a moment (wrapping one of its own
steps with a pause) to force each order; the third races them freely many times.
"""

import threading
import time

import pytest
from django.db.models import Q

from accounts.models import Player
from games import services as games_services
from games.models import IN_PROGRESS, Match
from games.services import matches as games_matches
from ladders import services, tasks
from ladders.models import QueueEntry
from ladders.services import matchmaking
from tests.integration.conftest import run_threads
from tests.integration.test_ladder_concurrency import crowd
from tests.ladders import make_ladder

pytestmark = pytest.mark.django_db(transaction=True)

HOLD = 1.0  # seconds one side keeps its locks in the ordered tests


@pytest.fixture(autouse=True)
def no_follow_up_tasks(monkeypatch):
    """The passes publish no start task: these tests check who is paired, not the starts."""
    monkeypatch.setattr(tasks.start_matches, "delay_on_commit", lambda *a, **k: None)
    monkeypatch.setattr(tasks.matchmake, "delay_on_commit", lambda *a, **k: None)


def two_queued_with_a_challenge(seed: int) -> tuple:
    """A ladder, two humans waiting in its queue, and a pending challenge between them."""
    ladder = make_ladder(window_initial=400)
    alice, bob = crowd(ladder, 2, seed=seed)
    challenge = games_services.challenge_create(challenger=alice, opponent=bob)
    assert challenge.status == Match.Status.CHALLENGED
    return ladder, alice, bob, challenge


def unfinished(player: Player) -> list[Match]:
    return list(
        Match.objects.filter(status__in=IN_PROGRESS).filter(Q(player_a=player) | Q(player_b=player))
    )


def accept(challenge: Match, bob: Player):
    return games_services.challenge_answer(
        match=Match.objects.get(pk=challenge.pk), player=bob, accept=True
    )


def test_an_accept_waiting_behind_the_matchmaker_is_refused_and_changes_nothing(monkeypatch):
    ladder, alice, bob, challenge = two_queued_with_a_challenge(seed=1)
    holding = threading.Event()
    real_busy = matchmaking._busy_players

    def busy_then_hold(player_ids):
        answer = real_busy(player_ids)  # the players' rows are locked by now
        holding.set()
        time.sleep(HOLD)
        return answer

    monkeypatch.setattr(matchmaking, "_busy_players", busy_then_hold)

    def run(i):
        if i == 0:
            return services.matchmaker_pass(ladder_id=ladder.pk)
        assert holding.wait(10)
        started = time.monotonic()
        try:
            accept(challenge, bob)
        except games_services.Conflict as refusal:
            return refusal, time.monotonic() - started
        return "accepted", time.monotonic() - started

    passed, (answer, waited) = run_threads(2, run)
    assert len(passed.matches) == 1, passed
    assert isinstance(answer, games_services.Conflict), answer
    assert answer.code == "in_ranked_match" and answer.extra["match"] == passed.matches[0]
    assert waited > HOLD / 2, f"the accept did not wait for the matchmaker's locks ({waited:.2f} s)"
    challenge.refresh_from_db()
    assert challenge.status == Match.Status.CHALLENGED and challenge.games.count() == 0
    for player in (alice, bob):
        assert [m.pk for m in unfinished(player)] == passed.matches


def test_a_matchmaker_waiting_behind_an_accept_leaves_both_players_waiting(monkeypatch):
    ladder, alice, bob, challenge = two_queued_with_a_challenge(seed=2)
    holding = threading.Event()
    real_refuse = games_matches.refuse_in_ranked_match

    def refuse_then_hold(*humans, caller):
        real_refuse(*humans, caller=caller)  # the players' rows are locked by now
        holding.set()
        time.sleep(HOLD)

    monkeypatch.setattr(games_matches, "refuse_in_ranked_match", refuse_then_hold)

    def run(i):
        if i == 0:
            return accept(challenge, bob)
        assert holding.wait(10)
        started = time.monotonic()
        return services.matchmaker_pass(ladder_id=ladder.pk), time.monotonic() - started

    accepted, (passed, waited) = run_threads(2, run)
    assert isinstance(accepted, Match) and accepted.status == Match.Status.ACTIVE, accepted
    assert passed.matches == [] and passed.dropped == 1, passed
    assert waited > HOLD / 2, f"the pass did not wait for the accept's locks ({waited:.2f} s)"
    for player in (alice, bob):
        assert [m.pk for m in unfinished(player)] == [challenge.pk]
    # Still queued: paired once the challenge match is over.
    assert QueueEntry.objects.filter(ladder=ladder).count() == 2


def test_accepts_and_passes_raced_forty_times_never_put_a_player_in_two_matches():
    outcomes = {"paired": 0, "accepted": 0}
    for round_ in range(40):
        ladder, alice, bob, challenge = two_queued_with_a_challenge(seed=100 + round_)

        def run(i, ladder=ladder, challenge=challenge, bob=bob):
            if i == 0:
                return services.matchmaker_pass(ladder_id=ladder.pk)
            try:
                return accept(challenge, bob)
            except games_services.Conflict as refusal:
                return refusal

        passed, answer = run_threads(2, run)
        assert not isinstance(passed, Exception), passed
        if isinstance(answer, Match):
            outcomes["accepted"] += 1
            assert passed.matches == []
        else:
            assert isinstance(answer, games_services.Conflict), answer
            assert answer.code == "in_ranked_match"
            outcomes["paired"] += 1
            assert len(passed.matches) == 1
        for player in (alice, bob):
            assert len(unfinished(player)) == 1, (round_, unfinished(player))
    assert sum(outcomes.values()) == 40, outcomes
