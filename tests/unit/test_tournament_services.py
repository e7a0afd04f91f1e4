"""Running events by hand: registration, seeding, the start, advancing, withdrawals, repairs.

Human players: their matches wait for them, so each test decides results itself (the loser
forfeits) and watches the event advance in the same transaction.
"""

import pytest
from django.utils import timezone

from games.models import Match
from tests.tournaments import bots, by_seed, decide, event_with, humans, pairing
from tournaments import services
from tournaments.formats.swiss import default_rounds
from tournaments.models import Entry, Event, EventLog, Pairing, Round
from tournaments.services import start

pytestmark = pytest.mark.django_db


def test_starting_seeds_by_a_recorded_random_seed_and_creates_the_whole_bracket():
    event = event_with(humans(6), "single_elim", seeding_seed=42)
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING and event.entrants_count == 6
    assert sorted(by_seed(event)) == [1, 2, 3, 4, 5, 6]
    # The same recorded seed gives the same seeding.
    again = event_with(humans(6, prefix="again"), "single_elim", seeding_seed=42)
    services.event_start(event=again)
    assert [e.player.user.username[-1] for e in again.entries.order_by("seed")] == [
        e.player.user.username[-1] for e in event.entries.order_by("seed")
    ]
    assert Pairing.objects.filter(event=event).count() == 7
    assert Round.objects.filter(event=event).count() == 3


def test_byes_go_to_the_top_seeds_and_they_wait_for_their_next_opponent():
    event = event_with(humans(6), "single_elim")
    services.event_start(event=event)
    seeds = by_seed(event)
    r11 = pairing(event, "R1.1")
    assert r11.status == Pairing.Status.BYE and r11.winner.player == seeds[1]
    assert r11.match is None
    r12 = pairing(event, "R1.2")
    assert r12.status == Pairing.Status.PLAYING and r12.match.status == Match.Status.SCHEDULED
    assert pairing(event, "R2.1").entry_a.player == seeds[1]
    assert pairing(event, "R2.1").status == Pairing.Status.WAITING


def test_a_bracket_advances_per_match_and_finishes_with_final_standings():
    event = event_with(humans(4), "single_elim", third_place=True)
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    assert pairing(event, "R2.1").status == Pairing.Status.WAITING
    decide(event, "R1.2", s[3])
    assert pairing(event, "R2.1").match.player_a == s[1]
    assert pairing(event, "3P").match is not None
    decide(event, "R2.1", s[3])
    decide(event, "3P", s[4])
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == s[3]
    ranks = {e.player: e.final_rank for e in event.entries.all()}
    assert ranks == {s[3]: 1, s[1]: 2, s[4]: 3, s[2]: 4}


def test_recording_a_result_twice_advances_once():
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    p = decide(event, "R1.1", s[1])
    decide(event, "R1.2", s[2])
    final = pairing(event, "R2.1")
    again = services.pairing_record(match=p.match)
    assert again.result == Pairing.Result.FORFEIT
    assert pairing(event, "R2.1").match_id == final.match_id
    assert Match.objects.filter(source="tournament").count() == 3


def test_an_override_repairs_the_bracket_downstream_and_is_audited(admin_user):
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    decide(event, "R1.2", s[2])
    old_final = pairing(event, "R2.1").match
    services.pairing_override(
        pairing=pairing(event, "R1.1"),
        winner=s[4],
        reason="seed 1 used a marked deck",
        by=admin_user,
    )
    old_final.refresh_from_db()
    assert old_final.status == Match.Status.CANCELLED
    final = pairing(event, "R2.1")
    assert {final.match.player_a, final.match.player_b} == {s[4], s[2]}
    log = EventLog.objects.get(action="override_result")
    assert log.actor == admin_user and log.reason == "seed 1 used a marked deck"
    assert log.detail["winner"] == pairing(event, "R1.1").winner_id


def test_an_override_after_the_next_match_was_played_voids_and_replays_it(admin_user):
    event = event_with(humans(8), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    for key, seed in (("R1.1", 1), ("R1.2", 4), ("R1.3", 2), ("R1.4", 3)):
        decide(event, key, s[seed])
    decide(event, "R2.1", s[1])
    decide(event, "R2.2", s[2])
    services.pairing_override(
        pairing=pairing(event, "R1.2"), winner=s[5], reason="x", by=admin_user
    )
    semi = pairing(event, "R2.1")
    assert semi.result == "" and semi.status == Pairing.Status.PLAYING
    assert {semi.match.player_a, semi.match.player_b} == {s[1], s[5]}
    assert semi.history[0]["voided"] == "forfeit"
    assert pairing(event, "R3.1").status == Pairing.Status.WAITING
    assert pairing(event, "R3.1").match is None


@pytest.mark.parametrize("fmt", ["single_elim", "swiss"])
def test_an_override_naming_a_player_not_in_the_match_changes_nothing(fmt, admin_user, charlie):
    event = event_with(humans(4), fmt)
    services.event_start(event=event)
    first = Pairing.objects.filter(event=event, match__isnull=False).order_by("key").first()
    with pytest.raises(services.TournamentError) as refused:
        services.pairing_override(pairing=first, winner=charlie, reason="why not", by=admin_user)
    assert refused.value.code == "not_in_match" and refused.value.status == 400
    first.refresh_from_db()
    assert first.result == "" and first.match.status == Match.Status.SCHEDULED
    assert not EventLog.objects.filter(action="override_result").exists()


def test_an_override_needs_a_reason(admin_user):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    with pytest.raises(services.TournamentError, match="reason"):
        services.pairing_override(pairing=p, winner=p.entry_a.player, reason=" ", by=admin_user)


def test_an_override_of_a_match_in_play_ends_it_as_decided_by_an_organiser(admin_user):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    p = pairing(event, "R1.1")
    services.pairing_override(pairing=p, winner=p.entry_b.player, reason="x", by=admin_user)
    p = pairing(event, "R1.1")
    assert p.match.status == Match.Status.FINISHED and p.match.end_reason == "admin"
    assert p.result == Pairing.Result.OVERRIDE and p.winner == p.entry_b
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == p.entry_b.player


def test_withdrawal_forfeits_the_match_and_the_next_opponent_gets_a_walkover():
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    withdrawn = Entry.objects.get(event=event, player=s[3])
    services.entry_withdraw(entry=withdrawn, reason="flight home")
    r12 = pairing(event, "R1.2")
    assert r12.match.status == Match.Status.FINISHED and r12.match.end_reason == "forfeit"
    assert r12.winner.player == s[2]
    # s[2] and s[1] still meet in the final; withdraw s[2] too: s[1] wins without playing.
    services.entry_withdraw(entry=Entry.objects.get(event=event, player=s[2]))
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == s[1]
    assert pairing(event, "R2.1").match.end_reason == "forfeit"


def test_a_player_withdrawn_from_a_double_elimination_does_not_play_the_losers_bracket():
    event = event_with(humans(4), "double_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "W1.1", s[1])
    services.entry_withdraw(entry=Entry.objects.get(event=event, player=s[4]))
    decide(event, "W1.2", s[2])
    l11 = pairing(event, "L1.1")
    assert l11.status == Pairing.Status.BYE and l11.winner.player == s[3]


def test_withdrawing_after_the_event_ended_is_refused():
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    entry = Entry.objects.get(event=event, player=s[2])
    with pytest.raises(services.Conflict) as refused:
        services.entry_withdraw(entry=entry)
    assert refused.value.code == "event_over"
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_a_withdrawn_swiss_player_is_not_paired_until_reinstated():
    players = humans(6)
    event = event_with(players, "swiss", swiss_rounds=3)
    services.event_start(event=event)
    leaver = Entry.objects.get(event=event, player=players[0])
    services.entry_withdraw(entry=leaver)
    for p in Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING):
        decide(event, p.key, p.entry_a.player)
    second = Pairing.objects.filter(event=event, round__number=2)
    assert leaver.pk not in {e for p in second for e in p.entries}
    services.entry_reinstate(entry=leaver)
    for p in second.filter(status=Pairing.Status.PLAYING):
        decide(event, p.key, p.entry_a.player)
    third = Pairing.objects.filter(event=event, round__number=3)
    assert leaver.pk in {e for p in third for e in p.entries}


def test_reinstating_is_for_a_swiss_once_started():
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    entry = event.entries.first()
    services.entry_withdraw(entry=entry)
    with pytest.raises(services.Conflict, match="only a Swiss"):
        services.entry_reinstate(entry=entry)


def test_a_swiss_pairs_round_after_round_without_rematches_and_ranks_by_tiebreaks():
    event = event_with(humans(8), "swiss")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == default_rounds(8) == 3
    met = set()
    for number in (1, 2, 3):
        current = Pairing.objects.filter(event=event, round__number=number)
        assert current.count() == 4
        for p in current:
            pair = frozenset(p.entries)
            assert pair not in met
            met.add(pair)
            decide(event, p.key, p.entry_a.player)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    winner = Entry.objects.get(event=event, final_rank=1)
    assert event.champion == winner.player
    assert Pairing.objects.filter(event=event, winner=winner).count() == 3


def test_a_swiss_gives_the_bye_to_the_lowest_ranked_and_late_entries_join_the_next_round(bob):
    event = event_with(humans(5), "swiss", swiss_rounds=4, late_registration=True)
    services.event_start(event=event)
    bye = Pairing.objects.get(event=event, round__number=1, entry_b__isnull=True)
    assert bye.entry_a.seed == 5 and bye.result == "bye" and bye.winner_id == bye.entry_a_id
    late = services.entry_register(event=event, player=bob)
    assert late.late and late.seed == 6
    for p in Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING):
        decide(event, p.key, p.entry_a.player)
    second = Pairing.objects.filter(event=event, round__number=2)
    assert late.pk in {e for p in second for e in p.entries}
    assert not second.filter(entry_b__isnull=True).exists()  # six players: no bye


def test_late_registration_closes_when_half_the_rounds_have_started(charlie):
    event = event_with(humans(4), "swiss", swiss_rounds=2, late_registration=True)
    services.event_start(event=event)
    with pytest.raises(services.Conflict) as refused:
        services.entry_register(event=event, player=charlie)
    assert refused.value.code == "registration_closed"


def test_a_round_robin_plays_berger_rounds_and_an_absent_player_loses_by_walkover():
    players = humans(4)
    event = event_with(players, "round_robin")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == 3
    gone = Entry.objects.get(event=event, seed=4)
    services.entry_withdraw(entry=gone)
    for number in (1, 2, 3):
        for p in Pairing.objects.filter(event=event, round__number=number):
            if p.status == Pairing.Status.PLAYING:
                decide(event, p.key, p.entry_a.player)
            elif gone.pk in p.entries and number > 1:
                assert p.result == Pairing.Result.WALKOVER and p.winner_id != gone.pk
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    rows = {e.seed: e.final_rank for e in event.entries.all()}
    assert rows[4] == 4


def test_double_elimination_with_a_reset_finishes():
    event = event_with(humans(2), "double_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "W1.1", s[1])
    decide(event, "GF", s[2])
    assert pairing(event, "GF2").status == Pairing.Status.PLAYING
    decide(event, "GF2", s[2])
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion == s[2]


def test_check_in_removes_those_who_did_not_at_the_start():
    players = humans(3)
    event = event_with(players, "single_elim", check_in_opens_at=timezone.now())
    for player in players[:2]:
        services.entry_check_in(entry=Entry.objects.get(event=event, player=player))
    services.event_start(event=event)
    absent = Entry.objects.get(event=event, player=players[2])
    assert absent.status == Entry.Status.WITHDRAWN and absent.note == "did not check in"
    assert Event.objects.get(pk=event.pk).entrants_count == 2


def test_check_in_before_its_window_is_refused():
    players = humans(2)
    later = timezone.now() + timezone.timedelta(hours=1)
    event = event_with(players, "single_elim", check_in_opens_at=later)
    with pytest.raises(services.Conflict) as refused:
        services.entry_check_in(entry=event.entries.first())
    assert refused.value.code == "check_in_closed"


def test_seeding_by_hand_keeps_the_given_order_and_refuses_a_seed_given_twice():
    players = humans(3)
    event = event_with(players, "single_elim", seeding="manual")
    entries = {e.player: e for e in event.entries.all()}
    Entry.objects.filter(pk=entries[players[2]].pk).update(seed=1)
    Entry.objects.filter(pk=entries[players[0]].pk).update(seed=7)
    services.event_seed(event=event)
    assert [e.player for e in event.entries.order_by("seed")] == [
        players[2],
        players[0],
        players[1],
    ]
    Entry.objects.filter(pk=entries[players[1]].pk).update(seed=1)
    with pytest.raises(services.TournamentError) as refused:
        services.event_seed(event=event)
    assert refused.value.code == "duplicate_seed"


def test_seeding_by_rating_uses_the_rated_pool_and_unrated_players_follow(monkeypatch):
    players = humans(3)
    event = event_with(players, "single_elim", seeding="rating")
    ratings = {players[1].pk: 1700, players[2].pk: 1600}
    monkeypatch.setattr(start, "ratings_for", lambda ids: {i: ratings.get(i) for i in ids})
    services.event_seed(event=event)
    order = list(event.entries.order_by("seed"))
    assert [e.player for e in order] == [players[1], players[2], players[0]]
    assert [e.rating for e in order] == [1700, 1600, None]


@pytest.mark.parametrize(
    ("option", "value", "code"),
    [
        ("format", "ladder_of_doom", "unknown_format"),
        ("seeding", "by_shoe_size", "unknown_seeding"),
        ("tiebreaks", ["buchholz", "coin_toss"], "invalid_tiebreaks"),
        ("rules", {"knock_limit": "ten"}, "invalid_rules"),
        ("best_of", 4, "invalid_rules"),
    ],
)
def test_creating_an_event_with_a_bad_option_is_refused_and_creates_nothing(option, value, code):
    options = {"format": "swiss", option: value}
    with pytest.raises(services.TournamentError) as refused:
        services.event_create(name="Bad", **options)
    assert refused.value.code == code and refused.value.status == 400
    assert not Event.objects.exists()


def test_starting_with_fewer_than_two_entries_is_refused_and_changes_nothing(alice):
    event = event_with([alice], "single_elim", check_in_opens_at=timezone.now())
    with pytest.raises(services.TournamentError) as refused:
        services.event_start(event=event)
    assert refused.value.code == "not_enough_entries"
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    assert event.entries.get().status == Entry.Status.REGISTERED  # check-in removal undone
    assert not Round.objects.exists()


def test_starting_twice_is_refused():
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    with pytest.raises(services.Conflict):
        services.event_start(event=event)


@pytest.mark.parametrize("status", ["running", "finished", "cancelled"])
def test_seeding_a_started_event_is_refused(status):
    event = event_with(humans(2), "single_elim")
    Event.objects.filter(pk=event.pk).update(status=status)
    with pytest.raises(services.Conflict):
        services.event_seed(event=event)


def test_cancelling_cancels_the_matches_in_play(admin_user):
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    services.event_cancel(event=event, by=admin_user, reason="the hall flooded")
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED and event.cancel_reason == "the hall flooded"
    assert set(Match.objects.values_list("status", flat=True)) == {"cancelled"}
    with pytest.raises(services.Conflict):
        services.event_cancel(event=event)


def test_matches_use_the_event_rules_and_duplicate_deals():
    # Duplicate deals are for house bots only (a person would know the second deal's cards).
    event = event_with(
        bots(2),
        "single_elim",
        best_of=3,
        target=150,
        duplicate_deals=True,
        rules={"preset": "oklahoma"},
    )
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    assert match.best_of == 3 and match.target == 150
    assert match.rules["duplicate_deals"] is True and match.rules["oklahoma"] is True
    assert match.source == Match.Source.TOURNAMENT and match.base_seconds == 600


@pytest.fixture
def sulky():
    """A bot strategy that fails on its first move (registered for the test only)."""
    from games.engine import bots as engine_bots

    class Sulky(engine_bots.Bot):
        name = "sulky-tournament-test"

        def choose(self, view):
            raise RuntimeError("not playing today")

    engine_bots.register(Sulky)
    yield Sulky.name
    del engine_bots.BOTS[Sulky.name]


def test_a_failed_bot_match_is_rerun_and_the_bracket_repaired(sulky):
    from games import services as play
    from tests.factories import BotFactory

    field = [BotFactory(name=f"Greedy {i}", bot_strategy="greedy") for i in range(3)]
    field.append(BotFactory(name="Sulky", bot_strategy=sulky))
    event = event_with(field, "single_elim", seeding="manual")
    for seed, entry in enumerate(event.entries.order_by("pk"), start=1):
        Entry.objects.filter(pk=entry.pk).update(seed=seed)
    services.event_start(event=event)
    # Nothing runs on commit in this test: play the first round by hand.
    failed = pairing(event, "R1.1")
    play.match_play_bots(match_id=failed.match_id)
    play.match_play_bots(match_id=pairing(event, "R1.2").match_id)
    failed = pairing(event, "R1.1")
    assert failed.match.end_reason == "bot_failure" and failed.winner.player == field[0]
    final = pairing(event, "R2.1").match
    field[3].bot_strategy = "greedy"  # the organiser fixed the bot
    field[3].save()
    services.pairing_rerun(pairing=failed)
    rerun = pairing(event, "R1.1")
    assert rerun.match_id != failed.match_id and rerun.result == ""
    assert rerun.history[0]["voided"] == "played"
    final.refresh_from_db()
    assert final.status == Match.Status.CANCELLED  # its players were not known any more
    assert pairing(event, "R2.1").match is None
    play.match_play_bots(match_id=rerun.match_id)
    rerun = pairing(event, "R1.1")
    assert rerun.match.end_reason == "games"
    assert pairing(event, "R2.1").entry_a_id == rerun.winner_id
    assert pairing(event, "R2.1").match.status == Match.Status.ACTIVE


def test_a_bot_match_won_by_its_games_is_not_rerun():
    from games import services as play
    from tests.factories import BotFactory

    field = [BotFactory(name=f"Greedy {i}", bot_strategy="greedy") for i in range(2)]
    event = event_with(field, "single_elim")
    services.event_start(event=event)
    play.match_play_bots(match_id=pairing(event, "R1.1").match_id)
    Event.objects.filter(pk=event.pk).update(status=Event.Status.RUNNING)
    with pytest.raises(services.Conflict) as refused:
        services.pairing_rerun(pairing=pairing(event, "R1.1"))
    assert refused.value.code == "not_failed"


def test_duplicate_deals_between_two_copies_of_one_bot_finish_by_sudden_death():
    from games import services as play
    from tests.factories import BotFactory

    field = [BotFactory(name=f"Greedy {i}", bot_strategy="greedy") for i in range(2)]
    event = event_with(field, "single_elim", duplicate_deals=True)
    services.event_start(event=event)
    play.match_play_bots(match_id=pairing(event, "R1.1").match_id)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED


def test_a_disqualified_player_cannot_register_again(alice):
    event = event_with([alice], "swiss")
    services.entry_withdraw(entry=event.entries.get(), disqualify=True, reason="abuse")
    with pytest.raises(services.Conflict) as refused:
        services.entry_register(event=event, player=alice)
    assert refused.value.code == "disqualified"
    assert event.entries.get().status == Entry.Status.DISQUALIFIED


def test_an_override_of_a_finished_rated_match_decides_the_pairing_not_the_ratings(
    admin_user, django_capture_on_commit_callbacks
):
    from ladders import services as ladder_services
    from ladders.models import Rating, RatingChange

    event = event_with(humans(4), "single_elim", rated=True)
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    pool = ladder_services.rated_events_pool()
    before = dict(Rating.objects.filter(ladder=pool).values_list("player_id", "rating"))
    with django_capture_on_commit_callbacks(execute=True):
        services.pairing_override(
            pairing=pairing(event, "R1.1"), winner=s[4], reason="late entry", by=admin_user
        )
    assert pairing(event, "R1.1").winner.player == s[4]
    assert dict(Rating.objects.filter(ladder=pool).values_list("player_id", "rating")) == before
    assert RatingChange.objects.filter(ladder=pool).count() == 2


def test_the_services_package_still_offers_every_name_it_did():
    """Other code and tests call ``services.<name>``: the package re-exports each one."""
    for name in services.__all__:
        assert hasattr(services, name), name
    assert services.bracket_of.__module__ == "tournaments.selectors.brackets"
