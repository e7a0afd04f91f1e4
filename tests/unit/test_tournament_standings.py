"""Standings that fit the format: shared elimination ranks, byes, columns, FIDE tiebreaks."""

import importlib
import random
from collections import Counter

import pytest
from django.apps import apps as django_apps
from django.db.models import Q

from tests.tournaments import by_seed, decide, event_with, humans, pairing
from tournaments import selectors, services
from tournaments.formats import bracket as brackets
from tournaments.models import Entry, Event, Pairing
from tournaments.selectors import standings as standings_reads

pytestmark = pytest.mark.django_db

SWISS_ONLY = ("match_points", "buchholz", "median_buchholz", "sonneborn_berger", "direct_encounter")


def standings(client, event):
    response = client.get(f"/api/events/{event.pk}/standings")
    assert response.status_code == 200
    return response.json()


def test_players_knocked_out_in_the_same_round_share_a_rank(client):
    event = event_with(humans(8), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    for key, seed in (("R1.1", 1), ("R1.2", 4), ("R1.3", 2), ("R1.4", 3)):
        decide(event, key, s[seed])
    decide(event, "R2.1", s[1])
    decide(event, "R2.2", s[2])
    decide(event, "R3.1", s[1])
    body = standings(client, event)
    assert [r["rank"] for r in body["rows"]] == [1, 2, 3, 3, 5, 5, 5, 5]
    assert [r["reached"] for r in body["rows"]][:3] == ["Champion", "Final", "Semifinals"]
    # Within a shared rank, by seed.
    assert [r["seed"] for r in body["rows"]][4:] == [5, 6, 7, 8]
    assert not set(SWISS_ONLY) & set(body["columns"])
    assert not set(SWISS_ONLY) & set(body["rows"][0])
    assert body["columns"][0] == "reached" and body["tiebreaks"] == []
    event.refresh_from_db()
    ranks = sorted(e.final_rank for e in event.entries.all())
    assert ranks == [1, 2, 3, 3, 5, 5, 5, 5]


def test_during_play_a_semifinal_loser_drops_and_its_winner_has_reached_the_final(client):
    event = event_with(humans(8), "single_elim")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == 3  # quarterfinals, semifinals, final
    s = by_seed(event)
    for key, seed in (("R1.1", 1), ("R1.2", 4), ("R1.3", 2), ("R1.4", 3)):
        decide(event, key, s[seed])
    decide(event, "R2.1", s[1])
    rows = {r["seed"]: r for r in standings(client, event)["rows"]}
    # Still in: 1 (in the final), 2 and 3 (to play their semifinal); out: 4, then 5 to 8.
    assert {seed: rows[seed]["rank"] for seed in rows} == {
        1: 1, 2: 1, 3: 1, 4: 3, 5: 5, 6: 5, 7: 5, 8: 5
    }  # fmt: skip
    assert rows[1]["reached"] == "Final"
    assert rows[2]["reached"] == rows[3]["reached"] == rows[4]["reached"] == "Semifinals"
    assert rows[5]["reached"] == "Quarterfinals"
    body = standings(client, event)
    assert [r["rank"] for r in body["rows"]] == sorted(r["rank"] for r in body["rows"])


def test_a_double_elimination_of_eight_plays_up_to_seven_rounds():
    event = event_with(humans(8), "double_elim")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == 7  # six, and the grand final's reset if it is needed
    assert event.rounds.count() == 9  # the columns drawn: winners, losers and finals apart


@pytest.mark.parametrize(
    ("format", "options", "drawn", "rounds"),
    [
        ("single_elim", {"third_place": True}, 4, 3),
        ("double_elim", {}, 9, 7),
        # Two round-robin groups of four (3 rounds), then a playoff of four.
        ("two_stage", {"group_count": 2, "third_place": True}, 3 + 3, 3 + 2),
    ],
)
def test_events_started_before_count_their_bracket_rounds_again(format, options, drawn, rounds):
    """An event started when the rounds planned were the bracket's columns drawn (4 for eight
    players with a third-place match) counts them as the start does now."""
    migration = importlib.import_module("tournaments.migrations.0012_bracket_rounds_counted")
    event = event_with(humans(8), format, **options)
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.rounds_planned == rounds
    Event.objects.filter(pk=event.pk).update(rounds_planned=drawn)
    swiss = event_with(humans(8, prefix="swiss"), "swiss")
    services.event_start(event=swiss)
    swiss.refresh_from_db()

    migration.count_bracket_rounds(django_apps, None)

    event.refresh_from_db()
    assert event.rounds_planned == rounds
    assert Event.objects.get(pk=swiss.pk).rounds_planned == swiss.rounds_planned


def test_an_elimination_bye_counts_in_the_standings(client):
    event = event_with(humans(3), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    assert pairing(event, "R1.1").status == Pairing.Status.BYE
    decide(event, "R1.2", s[2])
    decide(event, "R2.1", s[1])
    rows = {r["seed"]: r for r in standings(client, event)["rows"]}
    assert (rows[1]["byes"], rows[1]["played"], rows[1]["wins"]) == (1, 1, 1)
    assert (rows[2]["byes"], rows[2]["played"]) == (0, 2)


def test_swiss_columns_follow_the_events_tiebreaks_and_empty_ones_are_hidden(client, monkeypatch):
    event = event_with(humans(4), "swiss", tiebreaks=["sonneborn_berger", "buchholz"])
    services.event_start(event=event)
    for p in event.pairings.filter(status="playing"):
        decide(event, p.key, p.entry_a.player)
    monkeypatch.setattr(standings_reads, "ratings_for", lambda ids: {})
    body = standings(client, event)
    assert body["columns"][:3] == ["match_points", "sonneborn_berger", "buchholz"]
    assert "rating" not in body["columns"]  # an unrated field: nothing to show
    assert "direct_encounter" not in body["columns"] and "reached" not in body["columns"]
    monkeypatch.setattr(standings_reads, "ratings_for", lambda ids: dict.fromkeys(ids, 1500))
    assert standings(client, event)["columns"][-1] == "rating"
    lines = client.get(f"/api/events/{event.pk}/standings.csv").content.decode().splitlines()
    assert lines[0].startswith("rank,player,player_id,seed,status,match_points,sonneborn_berger")


@pytest.mark.parametrize(
    ("mode", "winner_buchholz", "loser_buchholz"), [("fide", 1, 0), ("plain", 0, 1)]
)
def test_a_no_show_win_counts_against_a_dummy_opponent_unless_plain(
    client, mode, winner_buchholz, loser_buchholz
):
    event = event_with(humans(4), "swiss", tiebreak_unplayed=mode)
    services.event_start(event=event)
    first, second = event.pairings.filter(status="playing").order_by("table")
    decide(event, first.key, first.entry_a.player)
    decide(event, second.key, second.entry_a.player)
    # The first table was never played: its loser did not show up.
    Pairing.objects.filter(pk=first.pk).update(result=Pairing.Result.NO_SHOW, games_a=0, games_b=0)
    rows = {r["entry"]: r for r in standings(client, event)["rows"]}
    assert standings(client, event)["tiebreak_unplayed"] == mode
    # FIDE: the winner's dummy has the winner's own point, the loser's has the loser's none.
    assert rows[first.entry_a_id]["buchholz"] == winner_buchholz
    assert rows[first.entry_b_id]["buchholz"] == loser_buchholz
    # A played table counts its opponent either way.
    assert rows[second.entry_a_id]["buchholz"] == 0 and rows[second.entry_b_id]["buchholz"] == 1


def test_tiebreak_unplayed_is_an_event_option_and_a_bad_value_is_refused(admin_client):
    created = admin_client.post(
        "/api/events",
        {"name": "Plain", "format": "swiss", "tiebreak_unplayed": "plain"},
        content_type="application/json",
    )
    assert created.status_code == 201 and created.json()["tiebreak_unplayed"] == "plain"
    assert admin_client.get(f"/api/events/{created.json()['id']}").json()["tiebreak_unplayed"]
    refused = admin_client.post(
        "/api/events",
        {"name": "Odd", "format": "swiss", "tiebreak_unplayed": "virtual"},
        content_type="application/json",
    )
    assert refused.status_code == 400 and refused.json()["code"] == "invalid"
    assert "tiebreak_unplayed" in refused.json()["errors"]
    with pytest.raises(services.TournamentError) as refusal:
        services.event_create(name="Odd", format="swiss", tiebreak_unplayed="virtual")
    assert refusal.value.code == "invalid_tiebreaks"


def test_a_player_who_withdrew_counts_a_draw_for_each_round_after_in_the_opponents_buchholz(
    client,
):
    event = event_with(humans(4), "swiss", swiss_rounds=2)
    services.event_start(event=event)
    first, second = event.pairings.filter(status="playing").order_by("table")
    decide(event, first.key, first.entry_a.player)
    # The winner of the first table withdraws before round 2 is paired: they miss round 2.
    services.entry_withdraw(entry=first.entry_a)
    decide(event, second.key, second.entry_a.player)
    for p in event.pairings.filter(status="playing"):
        decide(event, p.key, p.entry_a.player)
    event.refresh_from_db()
    assert event.status == event.Status.FINISHED
    rows = {r["entry"]: r for r in standings(client, event)["rows"]}
    gone, beaten = first.entry_a_id, first.entry_b_id
    assert rows[gone]["match_points"] == 1 and rows[gone]["played"] == 1
    # The loser of the first table: the player who withdrew counts 1 + 0.5 (round 2, a draw),
    # and round 2 the opponent's score (or, for a bye, a dummy with the loser's own score).
    second_round = Pairing.objects.get(
        Q(entry_a=beaten) | Q(entry_b=beaten), event=event, round__number=2
    )
    other = (
        second_round.entry_b_id if second_round.entry_a_id == beaten else second_round.entry_a_id
    )
    round_two = rows[other]["match_points"] if other else rows[beaten]["match_points"]
    assert rows[beaten]["buchholz"] == 1.5 + round_two


def walk_double_elimination(seed: int):
    """A double elimination of 3 to 12 players run to its end with random winners, and now
    and then a player withdrawing (their next matches are byes for their opponents)."""
    rng = random.Random(seed)
    event = event_with(humans(rng.randint(3, 12), prefix=f"walk{seed}-"), "double_elim")
    services.event_start(event=event)
    while True:
        event.refresh_from_db()
        if event.is_over:
            return event
        if rng.random() < 0.08:
            active = list(event.entries.filter(status__in=Entry.ACTIVE, seed__isnull=False))
            if len(active) > 2:
                services.entry_withdraw(entry=rng.choice(active), reason="walk")
                continue
        playing = list(
            event.pairings.filter(status=Pairing.Status.PLAYING).select_related(
                "entry_a__player", "entry_b__player"
            )
        )
        p = rng.choice(playing)
        decide(event, p.key, rng.choice([p.entry_a.player, p.entry_b.player]))


@pytest.mark.parametrize("seed", range(8))
def test_double_elimination_standings_count_every_match_and_bye_the_bracket_shows(seed):
    event = walk_double_elimination(seed)
    states = selectors._bracket_states(event)
    assert states is not None
    rows_of = {p.key: p for p in event.pairings.all()}
    wins, losses, byes = Counter(), Counter(), Counter()
    games_won, games_lost = Counter(), Counter()
    byes_at: set[str] = set()
    for key, state in states.items():
        if state.status == brackets.Status.WALKOVER:
            byes[state.winner] += 1
            byes_at.add(key)
        elif state.status == brackets.Status.DECIDED and isinstance(state.winner, int):
            wins[state.winner] += 1
            losses[state.loser] += 1
            row = rows_of[key]
            ours = row.games_a if row.entry_a_id == state.winner else row.games_b
            theirs = row.games_b if row.entry_a_id == state.winner else row.games_a
            games_won[state.winner] += ours
            games_lost[state.winner] += theirs
            games_won[state.loser] += theirs
            games_lost[state.loser] += ours
    # A field short of a power of two always has a bye in the losers bracket too.
    lb_byes = [key for key in byes_at if key.startswith("L")]
    size = event.entries.filter(seed__isnull=False).count()
    assert lb_byes or brackets.bracket_size(size) == size
    for line in selectors.standings_for_event(event=event, with_ratings=False):
        entry = line["entry"]
        shown = (line["wins"], line["losses"], line["byes"], line["played"])
        assert shown == (wins[entry], losses[entry], byes[entry], wins[entry] + losses[entry]), (
            entry,
            event.entries.get(pk=entry).seed,
        )
        assert (line["games_won"], line["games_lost"]) == (games_won[entry], games_lost[entry])
