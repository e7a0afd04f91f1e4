"""The ladder queue over the API: join, leave, status, pairing, and every refusal."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Match
from ladders import services
from ladders.models import LadderMatch, QueueEntry, Rating
from ladders.services import matchmaking
from tests.factories import BotFactory
from tests.ladders import finish, make_ladder, seed_ratings

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard")


def queue_url(ladder) -> str:
    return f"/api/ladders/{ladder.pk}/queue"


def snapshot():
    """Everything a refused request must leave as it was."""
    return (
        sorted(QueueEntry.objects.values_list("ladder_id", "player_id")),
        Match.objects.count(),
        Rating.objects.count(),
    )


# --- joining, status, leaving ---------------------------------------------------------------


def test_joining_puts_you_in_the_queue_at_the_initial_rating(alice_client, alice, ladder):
    response = alice_client.post(queue_url(ladder))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "waiting" and body["ladder"] == ladder.pk
    assert body["rating"] == 1500 and body["window"] == 50 and body["match"] is None
    assert QueueEntry.objects.get().player == alice
    status = alice_client.get(queue_url(ladder)).json()
    assert status["status"] == "waiting" and status["waited_seconds"] >= 0


def test_leaving_the_queue(alice_client, ladder):
    alice_client.post(queue_url(ladder))
    assert alice_client.delete(queue_url(ladder)).status_code == 204
    assert not QueueEntry.objects.exists()
    assert alice_client.get(queue_url(ladder)).json()["status"] == "idle"


def test_the_ladder_list_and_detail_show_settings_and_queue_size(client, alice_client, ladder):
    alice_client.post(queue_url(ladder))
    listed = client.get("/api/ladders").json()["results"]
    assert [(x["name"], x["queue_size"]) for x in listed] == [("Standard", 1)]
    detail = client.get(f"/api/ladders/{ladder.pk}").json()
    assert detail["best_of"] == 1 and detail["rating_settings"]["k_provisional"] == 40
    assert detail["matchmaking"]["window_initial"] == 50
    assert detail["leaderboard"] == {"min_matches": 10, "active_days": 30}
    assert client.get("/api/ladders/999999").status_code == 404


def test_the_queue_needs_a_signed_in_player(client, ladder):
    assert client.post(queue_url(ladder)).status_code == 401
    assert client.get(queue_url(ladder)).status_code == 401


# --- pairing --------------------------------------------------------------------------------


def test_two_close_players_are_paired_into_a_ladder_match(alice, bob, ladder):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    result = services.matchmaker_pass(ladder_id=ladder.pk)
    assert result.paired == 2 and result.waiting == 2
    match = Match.objects.get()
    assert match.source == Match.Source.LADDER and {match.player_a, match.player_b} == {alice, bob}
    assert match.best_of == 1 and match.rules["best_of"] == 1
    assert LadderMatch.objects.get().ladder == ladder
    assert not QueueEntry.objects.exists()


def test_you_see_your_new_match_once_paired(alice_client, alice, bob, ladder):
    alice_client.post(queue_url(ladder))
    services.queue_join(ladder=ladder, player=bob)
    services.matchmaker_pass(ladder_id=ladder.pk)
    body = alice_client.get(queue_url(ladder)).json()
    assert body["status"] == "paired"
    assert body["match"]["id"] == Match.objects.get().pk and body["match"]["source"] == "ladder"


def test_players_far_apart_wait_until_their_window_has_grown(alice, bob, ladder):
    seed_ratings(ladder, [alice, bob], [1500, 1620])
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 0
    later = timezone.now() + timedelta(seconds=50)  # +/-175 by then
    assert services.matchmaker_pass(ladder_id=ladder.pk, now=later).paired == 2


def test_the_matchmaker_never_pairs_a_player_already_playing(alice, bob, charlie, ladder):
    greedy = BotFactory(name="Greta", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    # Bob accepts a challenge while he waits: he is busy until it ends.
    games_services.challenge_create(challenger=bob, opponent=greedy)
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 0
    services.queue_join(ladder=ladder, player=charlie)
    services.matchmaker_pass(ladder_id=ladder.pk)
    match = Match.objects.get(source=Match.Source.LADDER)
    assert {match.player_a, match.player_b} == {alice, charlie}
    assert QueueEntry.objects.get().player == bob, "bob keeps his place"


def test_a_match_begun_between_the_read_and_the_locks_keeps_the_pair_waiting(
    alice, bob, ladder, monkeypatch
):
    """What a pass does when a challenge commits while it runs (raced for real on PostgreSQL
    in tests/integration/test_ladder_challenge_race.py): it looks again once it holds the
    players' locks, and leaves both waiting."""
    greedy = BotFactory(name="Greta", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    real_lock = matchmaking.lock_ids

    def challenge_meanwhile(model, ids, **kwargs):
        if model is QueueEntry:  # after the read, before the players are locked
            games_services.challenge_create(challenger=bob, opponent=greedy)
        return real_lock(model, ids, **kwargs)

    monkeypatch.setattr(matchmaking, "lock_ids", challenge_meanwhile)
    result = services.matchmaker_pass(ladder_id=ladder.pk)
    assert (result.found, result.dropped, result.matches) == (1, 1, [])
    assert not Match.objects.filter(source=Match.Source.LADDER).exists()
    assert QueueEntry.objects.count() == 2, "both keep their places"


def test_no_challenge_starts_on_top_of_a_ranked_match(alice, bob, charlie, ladder):
    greedy = BotFactory(name="Greta", bot_strategy="greedy")
    pending = games_services.challenge_create(challenger=charlie, opponent=alice)
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    services.matchmaker_pass(ladder_id=ladder.pk)
    ranked = Match.objects.get(source=Match.Source.LADDER)
    before = snapshot()
    # Alice cannot accept Charlie's challenge, nor challenge a bot, while she plays it ...
    with pytest.raises(games_services.Conflict) as refused:
        games_services.challenge_answer(match=pending, player=alice, accept=True)
    assert refused.value.code == "in_ranked_match" and refused.value.extra["match"] == ranked.pk
    assert str(refused.value) == f"you are playing ranked match {ranked.pk}: finish it first"
    with pytest.raises(games_services.Conflict) as refused:
        games_services.challenge_create(challenger=alice, opponent=greedy)
    assert refused.value.code == "in_ranked_match"
    # ... and Bob's challenge to Charlie waits for Bob's ranked match to end too.
    to_charlie = games_services.challenge_create(challenger=bob, opponent=charlie)
    with pytest.raises(games_services.Conflict) as refused:
        games_services.challenge_answer(match=to_charlie, player=charlie, accept=True)
    assert str(refused.value) == (
        f"{bob.name} is playing ranked match {ranked.pk}: try again when it ends"
    )
    pending.refresh_from_db()
    assert pending.status == Match.Status.CHALLENGED
    assert snapshot()[0] == before[0] and snapshot()[2] == before[2]
    finish(ranked, alice)
    accepted = games_services.challenge_answer(match=pending, player=alice, accept=True)
    assert accepted.status == Match.Status.ACTIVE


def test_accepting_a_challenge_while_in_a_ranked_match_is_a_409_over_the_api(
    alice, bob, charlie, charlie_client, ladder
):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=charlie)
    services.matchmaker_pass(ladder_id=ladder.pk)
    ranked = Match.objects.get(source=Match.Source.LADDER)
    pending = games_services.challenge_create(challenger=bob, opponent=charlie)
    response = charlie_client.post(f"/api/matches/{pending.pk}/accept")
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["code"] == "in_ranked_match" and body["match"] == ranked.pk
    assert "finish it first" in body["detail"]
    pending.refresh_from_db()
    assert pending.status == Match.Status.CHALLENGED


def test_rematches_are_avoided_when_someone_else_is_available(alice, bob, charlie, ladder):
    from tests.factories import PlayerFactory

    dave = PlayerFactory(user__username="dave")
    seed_ratings(ladder, [alice, bob, charlie, dave], [1500, 1500, 1530, 1530])
    Rating.objects.filter(player=alice).update(last_opponent=bob)
    Rating.objects.filter(player=bob).update(last_opponent=alice)
    for p in (alice, bob, charlie, dave):
        services.queue_join(ladder=ladder, player=p)
    services.matchmaker_pass(ladder_id=ladder.pk)
    pairs = {frozenset((m.player_a_id, m.player_b_id)) for m in Match.objects.all()}
    assert frozenset((alice.pk, bob.pk)) not in pairs and len(pairs) == 2


def test_a_second_matchmaker_finds_nothing_left_to_pair(alice, bob, ladder):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 2
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 0
    assert Match.objects.count() == 1


def test_ladder_matches_start_and_use_the_ladder_time_control(alice, bob):
    timed = make_ladder(base_seconds=300, increment_seconds=5)
    services.queue_join(ladder=timed, player=alice)
    services.queue_join(ladder=timed, player=bob)
    match_id = services.matchmaker_pass(ladder_id=timed.pk).matches[0]
    assert services.ladder_match_start(match_id=match_id) is True
    assert services.ladder_match_start(match_id=match_id) is False, "a second start is a no-op"
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ACTIVE
    assert (match.base_seconds, match.increment_seconds) == (300, 5)


def test_the_sweep_starts_a_ladder_match_whose_start_task_was_lost(alice, bob, ladder):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    match_id = services.matchmaker_pass(ladder_id=ladder.pk).matches[0]
    assert services.ladders_sweep().started == 0, "not yet: its task may still come"
    later = timezone.now() + timedelta(seconds=30)
    assert services.ladders_sweep(now=later).started == 1
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE


# --- bots -----------------------------------------------------------------------------------


def test_a_queued_bot_is_paired_with_a_human_like_anyone(alice, ladder):
    bot = BotFactory(name="Greta", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=bot)
    services.queue_join(ladder=ladder, player=alice)
    services.matchmaker_pass(ladder_id=ladder.pk)
    match = Match.objects.get()
    assert {match.player_a, match.player_b} == {alice, bot}


def test_bots_are_not_paired_together_unless_the_ladder_allows_it(ladder):
    a, b = BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="random")
    services.queue_join(ladder=ladder, player=a)
    services.queue_join(ladder=ladder, player=b)
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 0
    ladder.bot_pairs = True
    ladder.save()
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 2


def test_bots_rejoin_the_queue_after_a_ladder_match(alice, ladder):
    bot = BotFactory(name="Greta", bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=bot)
    services.queue_join(ladder=ladder, player=alice)
    match = Match.objects.get(pk=services.matchmaker_pass(ladder_id=ladder.pk).matches[0])
    finish(match, alice)
    entry = QueueEntry.objects.get()
    assert entry.player == bot and entry.ladder == ladder
    delay = (entry.available_at - timezone.now()).total_seconds()
    assert 0 < delay <= ladder.bot_requeue_seconds
    # Not before its delay is over.
    assert services.matchmaker_pass(ladder_id=ladder.pk).waiting == 0


def test_bots_stay_out_when_the_ladder_does_not_requeue_them(alice):
    ladder = make_ladder(bot_requeue_seconds=None)
    bot = BotFactory(bot_strategy="greedy")
    services.queue_join(ladder=ladder, player=bot)
    services.queue_join(ladder=ladder, player=alice)
    match = Match.objects.get(pk=services.matchmaker_pass(ladder_id=ladder.pk).matches[0])
    finish(match, bot)
    assert not QueueEntry.objects.exists()


def test_a_bot_with_an_unknown_strategy_cannot_join(ladder):
    ghost = BotFactory(bot_strategy="no-such-bot")
    with pytest.raises(services.LadderError) as refused:
        services.queue_join(ladder=ladder, player=ghost)
    assert refused.value.code == "unknown_bot"


def test_staff_queue_the_bot_members_from_the_admin(admin_client, ladder):
    bot = BotFactory(bot_strategy="greedy")
    services.membership_ensure(ladder=ladder, player=bot)
    response = admin_client.post(
        "/admin/ladders/ladder/",
        {"action": "queue_bots", "_selected_action": [ladder.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert QueueEntry.objects.get().player == bot


# --- refusals: a clear 4xx and nothing changed ----------------------------------------------


def test_joining_twice_is_refused(alice_client, ladder):
    alice_client.post(queue_url(ladder))
    before = snapshot()
    response = alice_client.post(queue_url(ladder))
    assert response.status_code == 409 and response.json()["code"] == "already_queued"
    assert snapshot() == before


def test_joining_a_second_ladder_while_queued_in_one_is_refused(alice_client, ladder):
    other = make_ladder(name="Oklahoma", rules={"preset": "oklahoma"})
    alice_client.post(queue_url(ladder))
    before = snapshot()
    response = alice_client.post(queue_url(other))
    assert response.status_code == 409
    assert response.json()["code"] == "queued_elsewhere" and response.json()["ladder"] == ladder.pk
    assert snapshot() == before


def test_joining_while_in_a_match_of_this_ladder_is_refused(alice_client, alice, bob, ladder):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    match_id = services.matchmaker_pass(ladder_id=ladder.pk).matches[0]
    before = snapshot()
    response = alice_client.post(queue_url(ladder))
    assert response.status_code == 409
    assert response.json()["code"] == "in_match" and response.json()["match"] == match_id
    assert snapshot() == before


def test_joining_with_another_rule_sets_match_in_progress_is_refused(alice_client, alice, ladder):
    greedy = BotFactory(name="Greta", bot_strategy="greedy")
    match = games_services.challenge_create(challenger=alice, opponent=greedy, rules="oklahoma")
    before = snapshot()
    response = alice_client.post(queue_url(ladder))
    body = response.json()
    assert response.status_code == 409 and body["code"] == "match_in_progress"
    assert body["match"] == match.pk and "oklahoma" in body["detail"]
    assert snapshot() == before
    # Once that match is over, joining works.
    finish(match, greedy)
    assert alice_client.post(queue_url(ladder)).status_code == 201


def test_leaving_when_not_queued_is_refused(alice_client, ladder):
    response = alice_client.delete(queue_url(ladder))
    assert response.status_code == 409 and response.json()["code"] == "not_queued"


def test_leaving_another_ladders_queue_is_refused_and_keeps_your_place(alice_client, ladder):
    other = make_ladder(name="Other")
    alice_client.post(queue_url(ladder))
    before = snapshot()
    response = alice_client.delete(queue_url(other))
    assert response.status_code == 409 and response.json()["ladder"] == ladder.pk
    assert snapshot() == before


def test_leaving_after_being_paired_names_the_match(alice_client, alice, bob, ladder):
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    match_id = services.matchmaker_pass(ladder_id=ladder.pk).matches[0]
    response = alice_client.delete(queue_url(ladder))
    assert response.status_code == 409 and response.json()["match"] == match_id
    assert Match.objects.get().status == Match.Status.SCHEDULED


def test_a_closed_ladder_and_a_rated_pool_take_no_entries(alice_client):
    closed = make_ladder(is_open=False)
    pool = make_ladder(kind="pool")
    closed_answer = alice_client.post(queue_url(closed))
    pool_answer = alice_client.post(queue_url(pool))
    assert closed_answer.status_code == 409 and closed_answer.json()["code"] == "ladder_closed"
    assert pool_answer.status_code == 409 and pool_answer.json()["code"] == "not_a_ladder"
    assert not QueueEntry.objects.exists()


def test_an_unknown_ladder_is_not_found(alice_client):
    assert alice_client.post("/api/ladders/424242/queue").status_code == 404


def test_a_ladder_with_bad_rules_cannot_be_created():
    with pytest.raises(games_services.PlayError) as refused:
        make_ladder(rules={"knock_limit": -3})
    assert refused.value.code == "invalid_rules"


def test_a_burst_is_written_a_capped_number_of_matches_per_pass(ladder, monkeypatch):
    from tests.ladders import humans

    monkeypatch.setattr(matchmaking, "MAX_MATCHES_PER_PASS", 2)
    crowd = humans(8)
    for player in crowd:
        services.queue_join(ladder=ladder, player=player)
    first = services.matchmaker_pass(ladder_id=ladder.pk)
    assert (first.found, len(first.matches)) == (4, 2)
    assert QueueEntry.objects.count() == 4
    second = services.matchmaker_pass(ladder_id=ladder.pk)
    assert (second.found, len(second.matches)) == (2, 2)
    assert not QueueEntry.objects.exists()


def test_a_pass_pauses_the_cycle_collector_while_it_pairs_and_restores_it(
    alice, bob, ladder, monkeypatch
):
    import gc

    from ladders import bulk

    seen = []
    real_pair = matchmaking.pair
    monkeypatch.setattr(
        matchmaking, "pair", lambda *a, **k: seen.append(gc.isenabled()) or real_pair(*a, **k)
    )
    services.queue_join(ladder=ladder, player=alice)
    services.queue_join(ladder=ladder, player=bob)
    assert gc.isenabled()
    assert services.matchmaker_pass(ladder_id=ladder.pk).paired == 2
    assert seen == [False] and gc.isenabled()
    # Nested, and already off: only the caller that turned it off turns it on again.
    with bulk.gc_paused():
        with bulk.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with bulk.gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ZeroDivisionError), bulk.gc_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()
