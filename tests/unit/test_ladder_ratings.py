"""Ratings per pool: a finished ladder match is rated once, whatever runs twice."""

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from games.models import Match
from games.signals import match_finished
from ladders import selectors, services, tasks
from ladders.models import LadderMatch, Rating, RatingChange
from tests.factories import BotFactory
from tests.ladders import finish, make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard")


def state():
    """Every rating number and every history row: what a second application must not touch."""
    return (
        sorted(Rating.objects.values_list("player_id", "rating", "matches_played", "wins")),
        sorted(RatingChange.objects.values_list("match_id", "player_id", "delta")),
    )


def test_a_finished_ladder_match_is_rated_in_the_same_transaction(alice, bob, ladder):
    match = play_ladder_match(ladder, alice, bob)
    a, b = Rating.objects.get(player=alice), Rating.objects.get(player=bob)
    assert (a.rating, b.rating) == (1520, 1480)
    assert (a.matches_played, a.wins, a.losses, a.peak) == (1, 1, 0, 1520)
    assert (b.wins, b.losses, b.peak) == (0, 1, 1500)
    assert a.provisional and a.last_active == match.finished_at
    assert a.last_opponent == bob and b.last_opponent == alice
    change = RatingChange.objects.get(player=alice)
    assert (change.rating_before, change.rating_after, change.delta) == (1500, 1520, 20)
    assert (change.won, change.expected, change.score, change.k) == (True, 0.5, 1.0, 40)
    assert change.opponent == bob and change.match == match
    assert LadderMatch.objects.get(match=match).processed_at is not None


def test_rating_apply_twice_changes_nothing(alice, bob, ladder):
    match = play_ladder_match(ladder, alice, bob)
    before = state()
    again = services.rating_apply(pool=ladder, match=match)
    assert [c.player_id for c in again] == [alice.pk, bob.pk]
    assert state() == before


def test_the_receiver_run_twice_rates_once(alice, bob, ladder):
    match = play_ladder_match(ladder, alice, bob)
    before = state()
    match_finished.send(sender=Match, match=match)
    match_finished.send(sender=Match, match=match)
    assert state() == before


def test_the_rating_task_run_twice_rates_once(alice, bob, ladder):
    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    match_finished.disconnect(dispatch_uid="ladders.rate")
    try:
        finish(match, alice)  # as if the receiver had failed
    finally:
        from ladders.receivers import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="ladders.rate")
    assert not RatingChange.objects.exists()
    assert tasks.rate_match.apply(args=(match.pk,)).get() is True
    after_first = state()
    assert tasks.rate_match.apply(args=(match.pk,)).get() is False
    assert state() == after_first and RatingChange.objects.count() == 2


def test_the_unique_constraint_refuses_a_second_change_for_a_match(alice, bob, ladder):
    play_ladder_match(ladder, alice, bob)
    change = RatingChange.objects.get(player=alice)
    change.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()


def test_the_sweep_rates_what_a_failed_receiver_missed(alice, bob, ladder):
    def broken(sender, match, **kwargs):
        raise RuntimeError("listener bug")

    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    # A receiver that fails after ours rolls back our writes with it (one savepoint).
    match_finished.connect(broken, dispatch_uid="test.broken")
    try:
        finish(match, bob)
    finally:
        match_finished.disconnect(dispatch_uid="test.broken")
    assert match.status == Match.Status.FINISHED and not RatingChange.objects.exists()
    assert services.ladders_sweep().processed == 1
    assert Rating.objects.get(player=bob).rating == 1520
    assert services.ladders_sweep().processed == 0


def test_matches_outside_any_pool_are_not_rated(alice):
    greedy = BotFactory(name="Greta", bot_strategy="greedy")
    from games import services as games_services

    match = games_services.challenge_create(challenger=alice, opponent=greedy)
    finish(match, alice)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_cancelled_ladder_match_is_not_rated(alice, bob, ladder):
    from games import services as games_services

    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    games_services.match_cancel(match=match, reason="staff")
    assert services.ladders_sweep().processed == 1
    assert not RatingChange.objects.exists()


def test_ratings_per_pool_are_independent(alice, bob, ladder):
    other = make_ladder(name="Oklahoma", rules={"preset": "oklahoma"})
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(other, bob, alice)
    assert Rating.objects.get(ladder=ladder, player=alice).rating == 1520
    assert Rating.objects.get(ladder=other, player=alice).rating == 1480


def test_k_drops_after_the_provisional_matches(alice, bob):
    quick = make_ladder(provisional_matches=2)
    for _ in range(2):
        play_ladder_match(quick, alice, bob)
    a = Rating.objects.get(ladder=quick, player=alice)
    assert not a.provisional and a.matches_played == 2
    before = a.rating
    play_ladder_match(quick, alice, bob)
    a.refresh_from_db()
    assert 0 < a.rating - before < 10, "K 20 against a weaker player"


def test_human_bot_damping_and_floor_come_from_the_pool(alice):
    pool = make_ladder(human_bot_factor=0.5, rating_floor=1490)
    bot = BotFactory(bot_strategy="greedy")
    play_ladder_match(pool, bot, alice)
    assert Rating.objects.get(ladder=pool, player=alice).rating == 1490
    assert Rating.objects.get(ladder=pool, player=bot).rating == 1510


def test_scoring_by_games_won(alice, bob):
    pool = make_ladder(kind="pool", best_of=3, scoring="games")
    from games import services as games_services

    match = finish(games_services.match_create(player_a=alice, player_b=bob, best_of=3), alice)
    Match.objects.filter(pk=match.pk).update(games_won_a=2, games_won_b=1)  # a 2-1 win
    match.refresh_from_db()
    services.rating_apply(pool=pool, match=match)
    change = RatingChange.objects.get(ladder=pool, player=alice)
    assert change.score == pytest.approx(2 / 3) and change.delta == pytest.approx(40 / 6)


def test_rated_events_register_their_matches_with_a_pool(alice, bob):
    pool = make_ladder(kind="pool", name="Rated events")
    from games import services as games_services

    match = games_services.match_create(
        player_a=alice, player_b=bob, source=Match.Source.TOURNAMENT
    )
    services.pool_match_register(pool=pool, match=match)
    services.pool_match_register(pool=pool, match=match)  # idempotent
    finish(match, alice)
    assert Rating.objects.get(ladder=pool, player=alice).rating == 1520
    assert selectors.rating_for(pool=pool, player=alice).rating == 1520
    assert selectors.ratings_for(pool=pool, players=[alice, bob]) == {
        alice.pk: 1520,
        bob.pk: 1480,
    }


def test_rating_apply_rates_an_event_match_directly(alice, bob, charlie):
    pool = make_ladder(kind="pool", name="Rated events")
    from games import services as games_services

    match = games_services.match_create(
        player_a=alice, player_b=bob, source=Match.Source.TOURNAMENT
    )
    finish(match, bob)
    changes = services.rating_apply(pool=pool, match=match)
    assert {c.player_id: c.delta for c in changes} == {alice.pk: -20, bob.pk: 20}
    assert selectors.rating_for(pool=pool, player=charlie).rating == 1500, "not a member yet"
    assert selectors.rating_for(pool=pool, player=charlie).pk is None


def test_a_match_without_a_result_or_in_another_pool_is_refused(alice, bob, ladder):
    pool = make_ladder(kind="pool", name="Rated events")
    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    with pytest.raises(services.LadderError) as unfinished:
        services.rating_apply(pool=ladder, match=match)
    assert unfinished.value.code == "not_finished"
    finish(match, alice)
    with pytest.raises(services.Conflict) as other:
        services.rating_apply(pool=pool, match=match)
    assert other.value.code == "other_pool"
    with pytest.raises(services.Conflict):
        services.pool_match_register(pool=pool, match=match)


def test_the_history_replays_to_the_stored_ratings(alice, bob, charlie, ladder):
    for winner, loser in [(alice, bob), (bob, charlie), (charlie, alice), (alice, charlie)]:
        play_ladder_match(ladder, winner, loser)
    report = services.ratings_replay(pool=ladder)
    assert (report.changes, report.matches, report.players) == (8, 4, 3)
    assert report.mismatches == 0 and report.drifted == 0
    # A drift (a rating edited by hand) is found, and --write repairs it.
    Rating.objects.filter(player=alice).update(rating=9999)
    assert services.ratings_replay(pool=ladder).drifted == 1
    call_command("ladder_replay", ladder.slug, "--write")
    assert services.ratings_replay(pool=ladder).drifted == 0


def test_the_replay_command_fails_on_a_drift(alice, bob, ladder, capsys):
    play_ladder_match(ladder, alice, bob)
    call_command("ladder_replay", ladder.slug)
    assert "0 history mismatches, 0 ratings off" in capsys.readouterr().out
    Rating.objects.filter(player=bob).update(rating=1)
    with pytest.raises(SystemExit):
        call_command("ladder_replay", ladder.slug)


def test_rated_event_results_go_to_the_rated_events_pool_once(alice, bob):
    from games import services as games_services
    from ladders.receivers import on_rated_match_finished

    match = games_services.match_create(
        player_a=alice, player_b=bob, source=Match.Source.TOURNAMENT
    )
    assert selectors.ratings_for_players(player_ids=[alice.pk, bob.pk]) == {}
    finish(match, alice)
    on_rated_match_finished(sender=None, match=match, event=None, pairing=None)
    on_rated_match_finished(sender=None, match=match, event=None, pairing=None, override=True)
    pool = services.rated_events_pool()
    assert pool.kind == "pool" and pool.slug == "rated-events"
    assert selectors.ratings_for_players(player_ids=[alice.pk, bob.pk]) == {
        alice.pk: 1520,
        bob.pk: 1480,
    }
    assert RatingChange.objects.filter(ladder=pool).count() == 2


def test_a_rated_event_match_another_pool_rates_is_logged_not_raised(alice, bob, ladder, caplog):
    from ladders.receivers import on_rated_match_finished

    match = play_ladder_match(ladder, alice, bob)
    on_rated_match_finished(sender=None, match=match)
    assert "was not rated" in caplog.text
    assert not RatingChange.objects.filter(ladder__slug="rated-events").exists()
