"""The embedded default end to end: joins pair on commit, matches start, results are rated."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Match
from ladders import services
from ladders.models import QueueEntry, Rating, RatingChange
from ladders.services import matchmaking
from tests.factories import BotFactory
from tests.ladders import make_ladder, play_moves

# Real commits: the matchmaker, the match start and bot matches run on commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


def test_two_players_joining_are_paired_and_their_match_starts(alice_client, bob_client):
    ladder = make_ladder(name="Standard")
    first = alice_client.post(f"/api/ladders/{ladder.pk}/queue")
    assert first.json()["status"] == "waiting"
    second = bob_client.post(f"/api/ladders/{ladder.pk}/queue")
    assert second.status_code == 201
    body = second.json()
    assert body["status"] == "paired", "paired by the matchmaker run on the join's commit"
    assert body["match"]["status"] == "active" and body["match"]["source"] == "ladder"
    assert alice_client.get(f"/api/ladders/{ladder.pk}/queue").json()["match"] == body["match"]


def test_a_human_against_a_queued_bot_then_resigning_is_rated_and_the_bot_requeues(
    alice_client, alice
):
    ladder = make_ladder(name="Standard")
    bot = BotFactory(name="Greta", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=bot)
    body = alice_client.post(f"/api/ladders/{ladder.pk}/queue").json()
    match_id = body["match"]["id"]
    assert body["status"] == "paired"
    play_moves(Match.objects.get(pk=match_id), 4)  # enough moves for the resignation to count
    resigned = alice_client.post(f"/api/matches/{match_id}/resign")
    assert resigned.status_code == 200 and resigned.json()["winner"]["id"] == bot.pk
    assert Rating.objects.get(player=alice).rating == 1480
    assert Rating.objects.get(player=bot).rating == 1520
    assert QueueEntry.objects.get().player == bot
    status = alice_client.get(f"/api/ladders/{ladder.pk}/queue").json()
    assert status["status"] == "idle" and status["last_match"]["id"] == match_id


def test_bots_paired_together_play_at_once_and_come_back_for_more():
    ladder = make_ladder(bot_pairs=True, bot_requeue_seconds=5)
    greedy, rando = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="random")
    services.queue_join(ladder=ladder, player=greedy)
    services.queue_join(ladder=ladder, player=rando)
    match = Match.objects.get()
    assert match.status == Match.Status.FINISHED and match.winner == greedy
    assert RatingChange.objects.count() == 2
    assert QueueEntry.objects.count() == 2, "both bots back in the queue"
    # Not before their requeue delay; then the sweep pairs them again (nobody else is there).
    assert services.ladders_sweep().paired == 0
    later = timezone.now() + timedelta(seconds=6)
    assert services.ladders_sweep(now=later).paired == 2
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 2
    assert Rating.objects.get(player=greedy).matches_played == 2


def test_calibration_rates_the_bots(capsys):
    call_command(
        "ladder_calibrate", "--rounds", "3", "--strategies", "random,greedy", "--best-of", "1"
    )
    out = capsys.readouterr().out
    assert "3 matches" in out
    greedy = Rating.objects.get(player__bot_strategy="greedy")
    rando = Rating.objects.get(player__bot_strategy="random")
    assert greedy.rating > 1500 > rando.rating
    assert greedy.matches_played == 3 and f"{greedy.rating:.0f}" in out
    # Again: the same bots and ladder, three more matches each.
    call_command("ladder_calibrate", "--rounds", "1", "--strategies", "random,greedy")
    assert Rating.objects.get(player__bot_strategy="greedy").matches_played == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "0"], "at least 1"),
        (["--strategies", "greedy"], "two or more"),
        (["--strategies", "greedy,nope"], "two or more"),
    ],
)
def test_calibration_refuses_bad_arguments(args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("ladder_calibrate", *args)


def test_a_burst_over_the_cap_is_paired_by_passes_that_queue_each_other(monkeypatch):
    from tests.ladders import humans

    ladder = make_ladder()
    monkeypatch.setattr(matchmaking, "MAX_MATCHES_PER_PASS", 2)
    crowd = humans(10)
    for player in crowd:
        QueueEntry.objects.create(
            ladder=ladder,
            player=player,
            membership=services.membership_ensure(ladder=ladder, player=player),
            joined_at=timezone.now(),
            available_at=timezone.now(),
        )
    services.matchmaker_pass(ladder_id=ladder.pk)  # writes 2, then queues the next pass
    assert Match.objects.filter(status=Match.Status.ACTIVE).count() == 5
    assert not QueueEntry.objects.exists()
