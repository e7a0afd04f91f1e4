"""Whole events at tables: everything an online event does holds when its matches are entered.

A round robin and a two-stage event are played to the end from the players' phones (each
match a hand entered by one player and confirmed by the other); then its pairings, standings,
TRF-16 report, CSV exports, ratings and webhooks read as for an event played online.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from rest_framework.test import APIClient

from games.models import Match
from ladders.models import RatingChange
from tests.tournaments import Receiver, event_with, humans
from tests.unit.test_interchange import check_the_report
from tournaments import services
from tournaments.models import Event, Pairing, Webhook

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local_receivers(settings):
    """The webhook receiver here listens on loopback over http: allowed only by the test
    settings."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True


def phone(player) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=player.user)
    return client


def play_at_table(pairing: Pairing, winner, deadwood: int) -> Match:
    """The loser enters the winner's gin against ``deadwood`` (25 + it: over the target of
    50, the one game and the match); the winner confirms it."""
    match = pairing.match
    loser = match.player_b if match.player_a_id == winner.pk else match.player_a
    hand = {"kind": "gin", "knocker": winner.pk, "deadwood": {str(loser.pk): deadwood}}
    entered = phone(loser).post(f"/api/matches/{match.pk}/hands", hand, format="json")
    assert entered.status_code == 201, entered.content
    assert entered.json()["decided"]
    confirmed = phone(winner).post(f"/api/matches/{match.pk}/confirm", {}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    match.refresh_from_db()
    return match


def playing(event: Event) -> list[Pairing]:
    return list(
        Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING)
        .select_related("match", "entry_a__player", "entry_b__player")
        .order_by("round__number", "table")
    )


def better(pairing: Pairing, seeds: dict[int, int]):
    a, b = pairing.entry_a, pairing.entry_b
    return (a if seeds[a.pk] < seeds[b.pk] else b).player


def seeded(players, format: str, **options) -> Event:
    event = event_with(players, format, venue="tables", seeding="manual", **options)
    for seed, entry in enumerate(event.entries.order_by("pk"), start=1):
        entry.seed = seed
        entry.save(update_fields=["seed"])
    return event


def test_a_rated_round_robin_at_tables_exports_rates_and_notifies_as_online(
    django_capture_on_commit_callbacks,
):
    players = humans(4)
    event = seeded(players, "round_robin", rated=True)
    seeds = dict(event.entries.values_list("pk", "seed"))
    deadwood = iter(range(26, 60))
    finished: list[Match] = []
    with Receiver() as receiver:
        Webhook.objects.create(event=event, url=receiver.url, events=["match.finished"])
        with django_capture_on_commit_callbacks(execute=True):
            services.event_start(event=event)
        while live := playing(event):
            for p in live:
                assert p.match.venue == Match.Venue.TABLE and p.match.table == p.table
                with django_capture_on_commit_callbacks(execute=True):
                    finished.append(play_at_table(p, better(p, seeds), next(deadwood)))
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and len(finished) == 6

    # Standings: seed 1 beat everyone, seed 4 no one.
    anyone = APIClient()
    standings = anyone.get(f"/api/events/{event.pk}/standings").json()["rows"]
    assert [row["seed"] for row in standings] == [1, 2, 3, 4]
    assert [row["match_points"] for row in standings] == [3, 2, 1, 0]

    # The TRF-16 report reads every table result as a played game.
    report = check_the_report(anyone.get(f"/api/events/{event.pk}/trf").content.decode(), event)
    assert all(result in "10" for p in report.values() for _, _, result in p["rounds"])

    # The results CSV: each match once, its table, winner, games and margin as entered.
    text = anyone.get(f"/api/events/{event.pk}/results.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 6
    for row in rows:
        match = next(m for m in finished if str(m.pk) == row["match"])
        assert row["result"] == "played" and row["winner"] == match.winner.name
        assert int(row["table"]) == match.table
        assert int(row["margin_a"]) == match.margin_a != 0
        assert (int(row["games_a"]), int(row["games_b"])) == (match.games_won_a, match.games_won_b)

    # Rated: two rating changes a match; one match.finished webhook a match, with its score.
    for match in finished:
        assert RatingChange.objects.filter(match=match).count() == 2
    bodies = [json.loads(body) for _, body in receiver.requests]
    assert sorted(b["data"]["match"] for b in bodies) == sorted(m.pk for m in finished)
    assert {b["data"]["result"] for b in bodies} == {"played"}


def test_a_two_stage_event_at_tables_plays_its_groups_and_playoff_at_tables():
    players = humans(8)
    event = seeded(players, "two_stage", group_count=2, advance_per_group=2)
    services.event_start(event=event)
    seeds = dict(event.entries.values_list("pk", "seed"))
    stages = []
    while live := playing(event):
        stages.append({p.key[0] for p in live})
        tables = sorted(p.match.table for p in live)
        assert tables == list(range(1, len(live) + 1))  # each round's boards from 1
        for p in live:
            assert p.match.venue == Match.Venue.TABLE
            play_at_table(p, better(p, seeds), 30)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert stages[0] == {"G"} and "G" not in stages[-1]  # the playoff came after the groups
    champion = APIClient().get(f"/api/events/{event.pk}").json()["champion"]
    assert champion["id"] == event.entries.get(seed=1).player_id
