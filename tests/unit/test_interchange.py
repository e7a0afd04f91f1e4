"""Interchange: entrants imported from a CSV (all or none), events exported as FIDE TRF-16.

The TRF checks read each ``001`` line by the column positions of the FIDE layout (C.04
Annex 2): starting rank 5-8, name 15-47, points 81-84, rank 86-89, and from column 92 one
10-column block per round (opponent 92-95, colour 97, result 99), with blanks between.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.tournaments import bots, decide, event_with, humans
from tournaments import interchange, selectors, services
from tournaments.models import Entry, EventLog

#: What each result code of a round scores (blank: in play, nothing yet).
POINTS = {"1": 1.0, "+": 1.0, "U": 1.0, "0": 0.0, "-": 0.0, "Z": 0.0, " ": 0.0}


def organiser() -> APIClient:
    user = PlayerFactory(user__username="olga").user
    user.is_staff = True
    user.save()
    # The events here are nobody's: olga manages every event.
    user.user_permissions.add(
        Permission.objects.get(codename="change_event"),
        Permission.objects.get(codename="manage_all_events"),
    )
    client = APIClient()
    client.force_authenticate(user=type(user).objects.get(pk=user.pk))
    return client


# --- CSV import -----------------------------------------------------------------------------


def import_csv(event, text):
    return organiser().post(f"/api/events/{event.pk}/import", {"csv": text}, format="json")


@pytest.mark.django_db
def test_entrants_come_by_name_or_id_with_their_seeds(alice, bob, charlie):
    event = event_with([], "swiss", seeding="manual")

    response = import_csv(event, f"name,player_id,seed\nalice,,2\n,{bob.pk},1\nCharlie,,\n")

    assert response.status_code == 201, response.content
    seeds = {e.player.name: e.seed for e in event.entries.select_related("player")}
    assert seeds == {"Alice": 2, "Bob": 1, "Charlie": None}
    assert EventLog.objects.get(event=event, action="import_entries").detail == {"entries": 3}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text,line,code",
    [
        ("name\nAlice\nNobody\n", 3, "unknown_player"),
        ("name\nAlice\nBob\nALICE\n", 4, "duplicate_entry"),
        ("name,seed\nAlice,1\nBob,1\n", 3, "duplicate_seed"),
        ("name,seed\nAlice,first\n", 2, "invalid_seed"),
        ("name,club\nAlice,Gin Club\n", 1, "invalid_csv"),
        ("player_id\n999999\n", 2, "unknown_player"),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_entered(alice, bob, text, line, code):
    event = event_with([], "swiss")

    response = import_csv(event, text)

    assert response.status_code == 400
    assert response.json()["code"] == code and response.json()["line"] == line
    assert response.json()["detail"].startswith(f"line {line}: ")
    assert not event.entries.exists()


@pytest.mark.django_db
def test_every_line_naming_nobody_is_named_at_once(alice):
    event = event_with([], "swiss")

    response = import_csv(event, "name\nNobody\nAlice\nZed\nalice\n")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "unknown_player" and body["line"] == 2 and body["lines"] == [2, 4]
    assert body["detail"] == "line 2: no player is named 'Nobody'; line 4: no player is named 'Zed'"
    assert not event.entries.exists()


@pytest.mark.django_db
def test_a_line_past_the_capacity_rolls_back_the_whole_file(alice, bob, charlie):
    event = event_with([], "swiss", capacity=2)

    response = import_csv(event, "name\nAlice\nBob\nCharlie\n")

    assert response.status_code == 409
    assert response.json()["code"] == "event_full" and response.json()["line"] == 4
    assert not event.entries.exists()
    assert not EventLog.objects.filter(event=event, action__in=["add_entry", "import_entries"])


@pytest.mark.django_db
def test_seeds_cannot_be_imported_into_a_started_event(alice, bob, charlie):
    event = event_with([alice, bob], "swiss", late_registration=True, swiss_rounds=4)
    services.event_start(event=event)

    response = import_csv(event, "name,seed\nCharlie,3\n")

    assert response.status_code == 409 and response.json()["code"] == "event_started"
    assert not Entry.objects.filter(event=event, player=charlie).exists()


# --- TRF-16 ---------------------------------------------------------------------------------


def columns(line: str, first: int, last: int) -> str:
    """Columns ``first``..``last`` of a line, numbered from 1 as the FIDE layout numbers them."""
    return line[first - 1 : last]


def player_lines(text: str) -> dict[int, dict]:
    """Each ``001`` line read by its columns, checking the blanks between the fields."""
    players = {}
    for line in text.split("\r\n"):
        if not line.startswith("001"):
            continue
        assert line[3] == line[8] == " " and columns(line, 48, 48) == " ", line
        assert columns(line, 85, 85) == " " and columns(line, 90, 91).strip() == "", line
        # Numbers are right-aligned in their fields; points read "11.5"; the name starts at 15.
        assert re.fullmatch(r" *\d+", columns(line, 5, 8)), line
        assert re.fullmatch(r"[ \d]\d\.\d", columns(line, 81, 84)), line
        assert re.fullmatch(r" *\d+", columns(line, 86, 89)), line
        assert columns(line, 14, 14) == " " and columns(line, 15, 15) != " ", line
        rounds = []
        line = line.ljust(92 + 10 * ((len(line) - 92) // 10 + 1))  # a trailing blank result
        for start in range(92, len(line) - 1, 10):
            block = columns(line, start, start + 7)
            assert block[4] == block[6] == " ", (line, block)
            rounds.append((int(block[0:4]), block[5], block[7]))
        rank = int(columns(line, 5, 8))
        players[rank] = {
            "name": columns(line, 15, 47).rstrip(),
            "points": float(columns(line, 81, 84)),
            "rank": int(columns(line, 86, 89)),
            "rounds": rounds,
        }
    return players


def check_the_report(text: str, event) -> dict[int, dict]:
    assert text.endswith("\r\n")
    lines = text.split("\r\n")[:-1]
    assert lines[0] == f"012 {event.name}"
    assert f"062 {event.entrants_count}" in lines
    players = player_lines(text)
    assert sorted(players) == list(range(1, event.entrants_count + 1))
    assert sorted(p["rank"] for p in players.values()) == list(range(1, len(players) + 1))
    for number, player in players.items():
        assert player["points"] == sum(POINTS[result] for _, _, result in player["rounds"])
        for round_number, (opponent, colour, result) in enumerate(player["rounds"]):
            if opponent == 0:
                assert colour == "-" and result in "UZ"
                continue
            theirs = players[opponent]["rounds"][round_number]
            assert theirs[0] == number  # they played each other that round
            assert {colour, theirs[1]} == {"w", "b"}
            if result == " ":
                assert theirs[2] == " "  # in play for both
            else:
                assert POINTS[result] + POINTS[theirs[2]] == 1.0
    standings = selectors.standings_for_event(event=event, with_ratings=False)
    by_seed = {row["seed"]: row for row in standings}
    for number, player in players.items():
        assert player["points"] == by_seed[number]["match_points"]
        assert player["rank"] == by_seed[number]["rank"]
        assert player["name"] == by_seed[number]["player"]["name"]
    return players


@pytest.mark.django_db(transaction=True)
def test_a_finished_swiss_with_byes_exports_as_trf16():
    event = event_with(bots(5), "swiss")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.status == "finished"

    text = APIClient().get(f"/api/events/{event.pk}/trf").content.decode()

    players = check_the_report(text, event)
    assert all(len(p["rounds"]) == event.rounds_planned for p in players.values())
    byes = [r for p in players.values() for r in p["rounds"] if r[0] == 0]
    assert byes and all(result == "U" for _, _, result in byes)  # a Swiss bye is a point
    assert "092 Swiss System" in text.split("\r\n")


@pytest.mark.django_db
def test_a_round_robin_with_a_withdrawal_exports_its_walkovers_as_unplayed():
    event = event_with(humans(4), "round_robin")
    services.event_start(event=event)
    played, forfeited = event.pairings.filter(round__number=1).order_by("table")
    decide(event, played.key, played.entry_a.player)  # a player resigns: a game result
    services.entry_withdraw(entry=forfeited.entry_b, reason="ill")  # no game: a forfeit
    event.refresh_from_db()

    text = interchange.trf16(event=event)

    players = check_the_report(text, event)
    gone = players[forfeited.entry_b.seed]["rounds"]
    assert [p["rounds"][0][2] for p in players.values()].count("1") == 2  # forfeits score 1-0
    assert gone[0][2] == "0" and gone[1][2] == "-"  # then walkovers: no game, no rating
    assert players[gone[1][0]]["rounds"][1][2] == "+"
    in_play = [
        p["rounds"][1] for n, p in players.items() if n not in (gone[1][0], forfeited.entry_b.seed)
    ]
    assert [result for _, _, result in in_play] == [" ", " "]
    dates = next(line for line in text.split("\r\n") if line.startswith("132"))
    assert len(columns(dates, 92, 99)) == 8 and columns(dates, 92, 99)[2] == "/"


@pytest.mark.django_db
def test_only_a_started_swiss_or_round_robin_exports(alice, bob):
    knockout = event_with([alice, bob], "single_elim")
    services.event_start(event=knockout)
    waiting = event_with([alice, bob], "swiss")

    refused = APIClient().get(f"/api/events/{knockout.pk}/trf")
    early = APIClient().get(f"/api/events/{waiting.pk}/trf")

    assert refused.status_code == 400 and refused.json()["code"] == "trf_format"
    assert early.status_code == 409 and early.json()["code"] == "not_started"
