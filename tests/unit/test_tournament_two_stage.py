"""Groups, then playoffs through the API: options, the snake groups, the cross-seeded playoff,
standings per group and across both stages, and every refusal."""

import io
import json
from collections import Counter

import pytest
from django.core.management import call_command

from tests.tournaments import bots, decide, event_with, humans, pairing
from tournaments import selectors, services
from tournaments.formats import bracket as brackets
from tournaments.models import Entry, Event, EventLog, Pairing, Round

pytestmark = pytest.mark.django_db


def error(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) >= {"detail", "code"}
    return response.status_code, body["code"]


def create(admin_client, **options):
    body = {"name": "Club groups", "format": "two_stage", "best_of": 1, "target": 50, **options}
    return admin_client.post("/api/events", body, content_type="application/json")


@pytest.fixture
def cast():
    """Eight people, seeded by hand in the order they are listed (seed 1 first)."""
    return humans(8)


@pytest.fixture
def groups_of_four(cast):
    event = event_with(cast, "two_stage", seeding="manual", group_count=2, advance_per_group=2)
    for seed, entry in enumerate(event.entries.order_by("pk"), start=1):
        entry.seed = seed
        entry.save(update_fields=["seed"])
    services.event_start(event=event)
    event.refresh_from_db()
    return event


def seed_of(event: Event) -> dict[int, int]:
    """Entry id -> seed."""
    return dict(event.entries.values_list("pk", "seed"))


def play_groups_by_seed(event: Event) -> None:
    """Decide every group match the better seed's way, round after round."""
    seeds = seed_of(event)
    while True:
        live = [
            p
            for p in Pairing.objects.filter(event=event, status="playing", key__startswith="G")
            if p.key[1].isalpha()
        ]
        if not live:
            return
        for p in live:
            better = p.entry_a if seeds[p.entry_a_id] < seeds[p.entry_b_id] else p.entry_b
            decide(event, p.key, better.player)


# --- options ----------------------------------------------------------------------------------


def test_staff_create_a_two_stage_event_with_its_options(admin_client):
    response = create(
        admin_client,
        group_size=6,
        group_format="swiss",
        swiss_rounds=3,
        advance_per_group=3,
        playoff_format="double_elim",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["format"] == "two_stage"
    assert (body["group_size"], body["group_format"], body["advance_per_group"]) == (6, "swiss", 3)
    assert body["playoff_format"] == "double_elim" and body["group_count"] is None


def test_an_unknown_option_is_a_400_naming_it(admin_client):
    response = create(admin_client, groups_of=4, group_count=2)
    assert error(response) == (400, "invalid")
    assert list(response.json()["errors"]) == ["groups_of"]
    assert not Event.objects.exists()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"group_format": "knockout"}, "group_format"),
        ({"playoff_format": "swiss"}, "playoff_format"),
        ({"group_size": 1}, "group_size"),
        ({"advance_per_group": 0}, "advance_per_group"),
    ],
)
def test_a_bad_option_value_is_a_400_naming_it(admin_client, options, field):
    response = create(admin_client, **options)
    assert error(response) == (400, "invalid") and field in response.json()["errors"]
    assert not Event.objects.exists()


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"group_count": 2, "group_size": 4}, "group_count"),
        ({"capacity": 5, "group_count": 3}, "group_count"),
        ({"capacity": 8, "group_count": 2, "advance_per_group": 5}, "advance"),
    ],
)
def test_options_that_cannot_work_together_are_a_400_naming_the_option(
    admin_client, options, option
):
    response = create(admin_client, **options)
    assert error(response) == (400, "invalid_groups")
    assert option in response.json()["detail"]
    assert not Event.objects.exists()


def test_too_few_players_for_the_groups_refuse_the_start_and_change_nothing(admin_client):
    event = event_with(bots(5), "two_stage", group_count=3)
    response = admin_client.post(f"/api/events/{event.pk}/start")
    assert error(response) == (400, "invalid_groups")
    assert "group_count" in response.json()["detail"]
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION and not event.rounds.exists()
    assert not Entry.objects.filter(event=event, group__isnull=False).exists()
    assert not EventLog.objects.filter(event=event, action="start").exists()


def test_an_edit_to_impossible_groups_is_a_400_and_changes_nothing(admin_client):
    event = event_with([], "two_stage", capacity=8)
    response = admin_client.patch(
        f"/api/events/{event.pk}", {"group_count": 5}, content_type="application/json"
    )
    assert error(response) == (400, "invalid_groups")
    event.refresh_from_db()
    assert event.group_count is None


# --- the groups -----------------------------------------------------------------------------


def test_groups_are_snake_seeded_by_rating_unless_told_otherwise(monkeypatch, cast):
    from tournaments.services import start

    event = event_with(cast, "two_stage", group_count=2)
    assert event.seeding == "rating"
    # cast[7] is the best rated, then cast[6], ... cast[0] the worst.
    ratings = {p.pk: 1500 + 10 * n for n, p in enumerate(cast)}
    monkeypatch.setattr(start, "ratings_for", lambda ids: {i: ratings.get(i) for i in ids})
    services.event_start(event=event)
    groups = {e.player_id: (e.seed, e.group) for e in event.entries.all()}
    assert [groups[p.pk] for p in reversed(cast)] == [
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 1),
        (5, 1),
        (6, 2),
        (7, 2),
        (8, 1),
    ]


def test_the_field_is_dealt_into_groups_in_a_snake(groups_of_four, cast):
    event = groups_of_four
    groups = {e.player_id: e.group for e in event.entries.all()}
    # Seeds 1, 4, 5, 8 in group A; 2, 3, 6, 7 in group B.
    assert [groups[p.pk] for p in cast] == [1, 2, 2, 1, 1, 2, 2, 1]
    assert event.rounds_planned == 3 + 2  # a round robin of four, then semifinals and a final
    first = set(Pairing.objects.filter(event=event, round__number=1).values_list("key", flat=True))
    assert first == {"GA1.1", "GA1.2", "GB1.1", "GB1.2"}
    for p in Pairing.objects.filter(event=event):
        assert p.entry_a.group == p.entry_b.group  # group mates only


def test_standings_per_group_use_the_event_tiebreaks(groups_of_four, client):
    play_groups_by_seed(groups_of_four)
    body = client.get(f"/api/events/{groups_of_four.pk}/standings").json()
    groups = body["groups"]
    assert [g["group"] for g in groups] == ["A", "B"]
    assert [row["seed"] for row in groups[0]["rows"]] == [1, 4, 5, 8]
    assert [row["match_points"] for row in groups[0]["rows"]] == [3, 2, 1, 0]
    assert [row["qualified"] for row in groups[1]["rows"]] == [True, True, False, False]
    assert body["group_columns"][:2] == ["match_points", "buchholz"]


def test_the_playoff_crosses_group_winners_with_the_other_groups_runners_up(groups_of_four):
    event = groups_of_four
    play_groups_by_seed(event)
    seeds = seed_of(event)
    semis = [pairing(event, "R1.1"), pairing(event, "R1.2")]
    # A1 (seed 1) against B2 (seed 3), B1 (seed 2) against A2 (seed 4).
    assert {frozenset((seeds[p.entry_a_id], seeds[p.entry_b_id])) for p in semis} == {
        frozenset((1, 3)),
        frozenset((2, 4)),
    }
    assert all(p.status == "playing" for p in semis)
    playoff_rounds = Round.objects.filter(event=event, number__gt=3).order_by("number")
    assert [r.name for r in playoff_rounds] == ["Semifinals", "Final"]


def test_the_final_ranking_runs_across_both_stages(groups_of_four, client):
    event = groups_of_four
    play_groups_by_seed(event)
    seeds = seed_of(event)
    for key in ("R1.1", "R1.2", "R2.1"):
        p = pairing(event, key)
        better = p.entry_a if seeds[p.entry_a_id] < seeds[p.entry_b_id] else p.entry_b
        decide(event, key, better.player)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    rows = client.get(f"/api/events/{event.pk}/standings").json()["rows"]
    assert [(r["rank"], r["seed"]) for r in rows] == [
        (1, 1),
        (2, 2),
        (3, 3),
        (3, 4),
        (5, 5),
        (6, 6),
        (7, 7),
        (8, 8),
    ]
    assert rows[0]["reached"] == "Champion" and rows[4]["reached"] == "Group A"
    assert rows[0]["played"] == 3 + 2  # the group's three and the playoff's two
    assert event.champion == Entry.objects.get(event=event, seed=1).player
    ranks = dict(event.entries.values_list("seed", "final_rank"))
    assert ranks == {1: 1, 2: 2, 3: 3, 4: 3, 5: 5, 6: 6, 7: 7, 8: 8}


def test_a_group_result_is_not_overridden_once_the_playoff_started(groups_of_four, admin_client):
    event = groups_of_four
    play_groups_by_seed(event)
    group_match = pairing(event, "GA1.1")
    a, b = group_match.entry_a, group_match.entry_b
    loser = b if group_match.winner == a else a
    response = admin_client.post(
        f"/api/events/{event.pk}/pairings/GA1.1/override",
        {"winner": loser.player_id, "reason": "scoring error"},
        content_type="application/json",
    )
    assert error(response) == (409, "playoff_started")
    assert pairing(event, "GA1.1").winner == group_match.winner


def test_a_qualifier_who_withdrew_is_a_bye_in_the_playoff(groups_of_four):
    event = groups_of_four
    seeds = seed_of(event)
    play_groups_by_seed(event)
    # (The playoff has started: withdrawing seed 3, B's runner-up, gives seed 1 a walkover.)
    entry = Entry.objects.get(event=event, seed=3)
    services.entry_withdraw(entry=entry, reason="unwell")
    semi = next(
        pairing(event, k) for k in ("R1.1", "R1.2") if seeds[pairing(event, k).entry_a_id] == 1
    )
    assert semi.winner_id == Entry.objects.get(event=event, seed=1).pk


def test_the_bracket_api_names_each_rounds_stage(groups_of_four, client):
    play_groups_by_seed(groups_of_four)
    rounds = client.get(f"/api/events/{groups_of_four.pk}/bracket").json()["rounds"]
    assert [r["stage"] for r in rounds] == ["groups"] * 3 + ["playoff"] * 2
    assert rounds[0]["pairings"][0]["group"] == "A"


def test_the_event_page_shows_the_group_tables(groups_of_four, client):
    play_groups_by_seed(groups_of_four)
    page = client.get(f"/events/{groups_of_four.pk}").content.decode()
    assert 'id="groups-section"' in page
    assert "Group A" in page and "Group B" in page
    first = Entry.objects.select_related("player").get(event=groups_of_four, seed=1)
    assert first.player.name in page


# --- bots, from the start to the champion ----------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("options", "matches"),
    [
        # Three round-robin groups of 4, 4 and 4: 18 group matches; six in a playoff: 5.
        (["--group-count=3", "--advance=2"], 18 + 5),
        # Two Swiss groups of 5 (3 rounds, a bye a round): 12; a double-elimination playoff
        # of four: 6, or 7 with the reset.
        (["--group-size=5", "--group-format=swiss", "--playoff=double_elim"], (18, 19)),
    ],
)
def test_run_bot_event_plays_a_two_stage_event_to_its_champion(options, matches):
    out = io.StringIO()
    players = 12 if "--group-count=3" in options else 10
    call_command(
        "run_bot_event",
        f"--players={players}",
        "--format=two_stage",
        *options,
        "--best-of=1",
        "--target=50",
        "--json",
        "--no-migrate",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["status"] == "finished" and report["champion"]
    played = report["matches"]
    assert played == matches if isinstance(matches, int) else played in matches
    event = Event.objects.get(pk=report["event"])
    assert Entry.objects.get(event=event, final_rank=1).player == event.champion
    assert set(event.rounds.values_list("status", flat=True)) == {"finished"}


def test_a_double_elimination_playoff_counts_its_losers_bracket_byes(client):
    # Three groups of three, two from each: a playoff of six, short of eight, so byes run
    # into the losers bracket; every one the bracket shows counts in the final standings.
    event = event_with(
        humans(9), "two_stage", group_count=3, advance_per_group=2, playoff_format="double_elim"
    )
    services.event_start(event=event)
    play_groups_by_seed(event)
    seeds = seed_of(event)
    while not event.is_over:
        p = Pairing.objects.filter(event=event, status="playing").order_by("pk").first()
        better = p.entry_a if seeds[p.entry_a_id] < seeds[p.entry_b_id] else p.entry_b
        decide(event, p.key, better.player)
        event.refresh_from_db()
    states = selectors._bracket_states(event)
    walkovers = Counter(s.winner for s in states.values() if s.status == brackets.Status.WALKOVER)
    assert any(k.startswith("L") and s.status == "walkover" for k, s in states.items())
    group_byes = Counter(
        p.entry_a_id or p.entry_b_id
        for p in Pairing.objects.filter(event=event, key__startswith="G", result="bye")
    )
    rows = client.get(f"/api/events/{event.pk}/standings").json()["rows"]
    assert {r["entry"]: r["byes"] for r in rows} == {
        r["entry"]: group_byes[r["entry"]] + walkovers[r["entry"]] for r in rows
    }
