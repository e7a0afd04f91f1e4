"""Rating farming: results handed over instead of played stop counting.

- The same two people: of their rated matches in a pool within RATING_PAIR_WINDOW_HOURS, only
  the first RATING_PAIR_LIMIT change ratings; the rest are recorded with K 0 and change
  nothing (rating, matches, wins, losses), and the history still replays to the ratings.
- A person and their own bots (one stable): never paired in rated play (the ladder's
  matchmaker, arenas, Swiss, elimination seeding, a ladder match made by hand), nor two bots
  of one owner; a match of theirs that comes about anyway is recorded with K 0.
- A resignation before each player has made RATING_MIN_MOVES moves is recorded with K 0.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Player
from games import services as games_services
from games.models import Match
from games.selectors import moves_made
from ladders import services
from ladders.models import LadderMatch, Rating, RatingChange
from tests.factories import BotFactory, PlayerFactory
from tests.ladders import finish, make_ladder, play_ladder_match, play_moves
from tests.tournaments import event_with
from tournaments import services as tournaments
from tournaments.models import Entry, EventLog, Pairing
from tournaments.services import arena as arenas

pytestmark = pytest.mark.django_db


@pytest.fixture
def limit(settings):
    settings.RATING_PAIR_LIMIT = 3
    settings.RATING_PAIR_WINDOW_HOURS = 24
    return 3


def rating(ladder, player) -> Rating:
    return Rating.objects.get(ladder=ladder, player=player)


def test_matches_past_the_limit_between_two_players_do_not_count(alice, bob, limit):
    ladder = make_ladder()
    for _ in range(limit):
        play_ladder_match(ladder, alice, bob)
    before = rating(ladder, alice)

    for _ in range(5):  # alice feeds on bob: nothing more comes of it
        play_ladder_match(ladder, alice, bob)

    after = rating(ladder, alice)
    assert (after.rating, after.matches_played, after.wins) == (
        before.rating,
        before.matches_played,
        before.wins,
    )
    assert after.matches_played == limit
    farmed = RatingChange.objects.filter(ladder=ladder, k=0)
    assert farmed.count() == 10  # five matches, one row per player, each with no change
    assert all(c.delta == 0 and c.rating_before == c.rating_after for c in farmed)


def test_other_opponents_still_count(alice, bob, charlie, limit):
    ladder = make_ladder()
    for _ in range(limit + 2):
        play_ladder_match(ladder, alice, bob)
    before = rating(ladder, alice).rating

    play_ladder_match(ladder, alice, charlie)

    assert rating(ladder, alice).rating > before


def test_the_pair_counts_again_after_the_window(alice, bob, limit):
    ladder = make_ladder()
    for _ in range(limit):
        play_ladder_match(ladder, alice, bob)
    RatingChange.objects.filter(ladder=ladder).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    before = rating(ladder, alice).rating

    play_ladder_match(ladder, alice, bob)

    assert rating(ladder, alice).rating > before


def test_bots_are_not_limited(limit):
    ladder = make_ladder(bot_pairs=True)
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")
    for _ in range(limit + 2):
        play_ladder_match(ladder, gus, gil)

    assert rating(ladder, gus).matches_played == limit + 2
    assert not RatingChange.objects.filter(k=0).exists()


def test_the_history_with_uncounted_matches_replays_to_the_ratings(alice, bob, charlie, limit):
    ladder = make_ladder()
    for _ in range(limit + 3):
        play_ladder_match(ladder, alice, bob)
        play_ladder_match(ladder, charlie, alice)

    report = services.ratings_replay(pool=ladder)

    assert report.mismatches == 0, report.first_mismatch
    assert report.drifted == 0


# --- one stable: a person and the bots they own ------------------------------------------------


def external_bot(owner: Player, name: str) -> Player:
    """A bot ``owner`` runs over the Bot API."""
    return PlayerFactory(user__username=name.lower(), name=name, kind="external", owner=owner)


def test_a_person_and_their_own_bot_queued_together_are_not_paired(alice, bob):
    ladder = make_ladder()
    robo = external_bot(alice, "Robo")
    for player in (alice, robo):
        services.queue_join(ladder=ladder, player=player)

    alone = services.matchmaker_pass(ladder_id=ladder.pk)
    services.queue_join(ladder=ladder, player=bob)
    services.matchmaker_pass(ladder_id=ladder.pk)

    assert alone.matches == []
    match = Match.objects.get()
    assert bob.pk in match.players and {alice.pk, robo.pk} & set(match.players)


def test_two_bots_of_one_owner_queued_together_are_not_paired(alice):
    ladder = make_ladder()
    robo, rita = external_bot(alice, "Robo"), external_bot(alice, "Rita")
    for player in (robo, rita):
        services.queue_join(ladder=ladder, player=player)

    result = services.matchmaker_pass(ladder_id=ladder.pk)

    assert result.matches == [] and not Match.objects.exists()


def test_bots_of_two_owners_are_still_paired(alice, bob):
    ladder = make_ladder()
    for player in (external_bot(alice, "Robo"), external_bot(bob, "Bobot")):
        services.queue_join(ladder=ladder, player=player)

    assert len(services.matchmaker_pass(ladder_id=ladder.pk).matches) == 1


def test_a_ladder_match_of_a_person_and_their_own_bot_is_refused(alice):
    ladder = make_ladder()
    robo = external_bot(alice, "Robo")

    with pytest.raises(services.Conflict) as refused:
        services.ladder_match_create(ladder=ladder, player_a=alice, player_b=robo)

    assert refused.value.code == "same_stable"
    assert not Match.objects.exists() and not LadderMatch.objects.exists()


def test_a_match_of_a_person_against_their_own_bot_is_not_rated(alice):
    """However it came about (here a rated event's match), the pool records it uncounted."""
    pool = make_ladder(kind="pool")
    robo = external_bot(alice, "Robo")
    match = games_services.match_create(
        player_a=alice, player_b=robo, source=Match.Source.TOURNAMENT
    )
    services.pool_match_register(pool=pool, match=match)

    finish(match, alice)

    changes = RatingChange.objects.filter(ladder=pool)
    assert changes.count() == 2 and all(c.k == 0 and c.delta == 0 for c in changes)
    assert Rating.objects.get(ladder=pool, player=alice).rating == 1500
    assert Rating.objects.get(ladder=pool, player=alice).matches_played == 0


# --- resigning before playing -----------------------------------------------------------------


def started_ladder_match(ladder, a: Player, b: Player) -> Match:
    match = services.ladder_match_create(ladder=ladder, player_a=a, player_b=b)
    games_services.match_start(match=match)
    return match


def resign(match: Match, loser: Player) -> Match:
    return games_services.match_forfeit(
        match=match, loser=loser, reason="resigned", end_reason=Match.EndReason.RESIGNED
    )


def test_the_minimum_of_moves_is_four_by_default(settings):
    assert settings.RATING_MIN_MOVES == 4


def test_a_resignation_before_each_player_made_four_moves_is_not_rated(alice, bob):
    ladder = make_ladder()
    match = started_ladder_match(ladder, alice, bob)
    play_moves(match, 3)

    resign(match, bob)

    assert min(moves_made(match=match).values()) == 3
    changes = RatingChange.objects.filter(ladder=ladder)
    assert changes.count() == 2 and all(c.k == 0 and c.delta == 0 for c in changes)
    assert Rating.objects.get(ladder=ladder, player=alice).rating == 1500


def test_a_resignation_after_four_moves_each_is_rated(alice, bob):
    ladder = make_ladder()
    match = started_ladder_match(ladder, alice, bob)
    play_moves(match, 4)

    resign(match, bob)

    assert Rating.objects.get(ladder=ladder, player=alice).rating == 1520


def test_the_history_with_quick_resignations_replays_to_the_ratings(alice, bob, charlie):
    ladder = make_ladder()
    resign(started_ladder_match(ladder, alice, bob), bob)
    play_ladder_match(ladder, alice, charlie)

    report = services.ratings_replay(pool=ladder)

    assert report.mismatches == 0, report.first_mismatch
    assert report.drifted == 0


# --- events -----------------------------------------------------------------------------------


def seeded_event(players, format: str, **options):
    """An event of ``players`` seeded in the order given (timed: an arena needs a clock)."""
    event = event_with(players, format, seeding="manual", base_seconds=300, **options)
    for seed, player in enumerate(players, start=1):
        Entry.objects.filter(event=event, player=player).update(seed=seed)
    return event


def meetings(event) -> set[frozenset]:
    """Every pair of players the event has paired so far."""
    return {
        frozenset((p.entry_a.player, p.entry_b.player))
        for p in Pairing.objects.filter(event=event, entry_b__isnull=False).select_related(
            "entry_a__player", "entry_b__player"
        )
    }


def test_a_rated_arena_never_pairs_a_person_with_their_own_bot(alice, bob, charlie):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, robo, bob, charlie], "arena", rated=True)

    tournaments.event_start(event=event)

    assert len(meetings(event)) == 2
    assert frozenset((alice, robo)) not in meetings(event)


def test_a_rated_arena_leaves_a_person_and_their_own_bot_waiting_for_someone_else(alice):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, robo], "arena", rated=True)

    tournaments.event_start(event=event)
    arenas.arena_pass(event_id=event.pk)

    assert meetings(event) == set()


def test_an_unrated_arena_may_pair_a_person_with_their_own_bot(alice):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, robo], "arena")

    tournaments.event_start(event=event)

    assert meetings(event) == {frozenset((alice, robo))}


def test_a_rated_swiss_never_pairs_a_person_with_their_own_bot(alice, bob, charlie):
    # Dutch order pairs seed 1 with seed 3: alice with her own bot.
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, bob, robo, charlie], "swiss", rated=True, swiss_rounds=3)

    tournaments.event_start(event=event)

    assert len(meetings(event)) == 2
    assert frozenset((alice, robo)) not in meetings(event)


def test_a_rated_swiss_keeps_two_bots_of_one_owner_apart(alice, bob, charlie):
    robo, rita = external_bot(alice, "Robo"), external_bot(alice, "Rita")
    event = seeded_event([robo, bob, rita, charlie], "swiss", rated=True, swiss_rounds=3)

    tournaments.event_start(event=event)

    assert len(meetings(event)) == 2
    assert frozenset((robo, rita)) not in meetings(event)


def test_a_person_left_with_only_their_own_bot_sits_the_round_out(alice, bob, charlie):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, robo, bob, charlie], "swiss", rated=True, swiss_rounds=2)
    tournaments.event_start(event=event)
    for entry in Entry.objects.filter(event=event, player__in=[bob, charlie]):
        tournaments.entry_withdraw(entry=entry)
    for p in Pairing.objects.filter(event=event, match__status__in=("scheduled", "active")):
        finish(p.match, p.entry_a.player)

    second = Pairing.objects.filter(event=event, round__number=2)

    assert second.count() == 0  # no match, no bye: nothing to score
    event.refresh_from_db()
    assert event.status == "finished"
    assert set(event.rounds.values_list("status", flat=True)) == {"finished"}
    assert frozenset((alice, robo)) not in meetings(event)
    sat_out = EventLog.objects.filter(event=event, action="sit_out")
    assert {log.entry.player for log in sat_out} == {alice, robo}


@pytest.mark.parametrize("format", ["single_elim", "double_elim"])
def test_rated_elimination_seeding_keeps_a_person_and_their_own_bot_apart(
    format, alice, bob, charlie
):
    # Seed 1 meets seed 4 in the first round: alice and her own bot, as seeded.
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, bob, charlie, robo], format, rated=True)

    tournaments.event_start(event=event)

    assert len(meetings(event)) == 2
    assert frozenset((alice, robo)) not in meetings(event)
    assert EventLog.objects.filter(event=event, action="keep_apart").exists()


def test_a_rated_elimination_of_a_person_and_their_own_bot_only_does_not_start(alice):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, robo], "single_elim", rated=True)

    with pytest.raises(tournaments.Conflict) as refused:
        tournaments.event_start(event=event)

    assert refused.value.code == "same_stable"
    event.refresh_from_db()
    assert event.status == "registration" and not Pairing.objects.filter(event=event).exists()


def test_a_rated_round_robin_with_a_person_and_their_own_bot_does_not_start(alice, bob):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, bob, robo], "round_robin", rated=True)

    with pytest.raises(tournaments.Conflict) as refused:
        tournaments.event_start(event=event)

    assert refused.value.code == "same_stable"
    event.refresh_from_db()
    assert event.status == "registration" and not Pairing.objects.filter(event=event).exists()


def test_an_unrated_round_robin_may_seat_a_person_and_their_own_bot(alice, bob):
    robo = external_bot(alice, "Robo")
    event = seeded_event([alice, bob, robo], "round_robin")

    tournaments.event_start(event=event)

    event.refresh_from_db()
    assert event.status == "running"
