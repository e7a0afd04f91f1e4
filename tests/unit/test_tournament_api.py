"""The tournaments API: events, registration, bracket, standings, CSV, and every refusal."""

import csv
import io

import pytest
from django.utils import timezone

from games.models import Match
from tests.factories import BotFactory
from tests.tournaments import by_seed, decide, event_with, humans, pairing
from tournaments import services
from tournaments.models import Entry, Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_event():
    event = services.event_create(name="Club night", format="single_elim", capacity=3)
    return services.event_open_registration(event=event)


def error(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) >= {"detail", "code"}
    return response.status_code, body["code"]


def test_events_are_listed_newest_first_and_drafts_only_for_staff(client, admin_client):
    draft = services.event_create(name="Draft", format="swiss")
    shown = services.event_open_registration(
        event=services.event_create(name="Open", format="round_robin")
    )
    names = [e["name"] for e in client.get("/api/events").json()["results"]]
    assert names == ["Open"]
    assert client.get(f"/api/events/{draft.pk}").status_code == 404
    staff = [e["id"] for e in admin_client.get("/api/events").json()["results"]]
    assert staff == [shown.pk, draft.pk]


def test_events_filter_by_status_and_format(client):
    swiss = services.event_open_registration(event=services.event_create(name="S", format="swiss"))
    services.event_open_registration(event=services.event_create(name="R", format="round_robin"))
    by_format = client.get("/api/events?format=swiss").json()["results"]
    assert [e["id"] for e in by_format] == [swiss.pk]
    assert client.get("/api/events?status=running").json()["results"] == []
    assert len(client.get("/api/events?status=registration").json()["results"]) == 2


@pytest.mark.parametrize("query", ["format=ladder_of_doom", "status=paused"])
def test_an_unknown_filter_value_is_a_400(client, query):
    response = client.get(f"/api/events?{query}")
    assert error(response) == (400, "invalid")
    assert list(response.json()["errors"]) == [query.split("=")[0]]


def test_event_detail_shows_the_match_format_and_your_entry(alice_client, alice, open_event):
    services.entry_register(event=open_event, player=alice)
    body = alice_client.get(f"/api/events/{open_event.pk}").json()
    assert body["format"] == "single_elim" and body["best_of"] == 5 and body["target"] == 250
    assert body["time_control"] == {
        "base_seconds": 600,
        "increment_seconds": 5,
        "turn_limit_seconds": None,
        "timeout_policy": "forfeit",
    }
    assert body["registration_open"] is True and body["entries_count"] == 1
    assert body["your_entry"]["status"] == "registered"


def test_a_player_registers_and_withdraws(alice_client, alice, open_event):
    response = alice_client.post(f"/api/events/{open_event.pk}/register")
    assert response.status_code == 201
    assert response.json()["player"]["id"] == alice.pk
    assert alice_client.get(f"/api/events/{open_event.pk}/entries").json()[0]["status"] == (
        "registered"
    )
    response = alice_client.post(f"/api/events/{open_event.pk}/withdraw")
    assert response.status_code == 200 and response.json()["status"] == "withdrawn"
    # A player who withdrew before the start may register again.
    assert alice_client.post(f"/api/events/{open_event.pk}/register").status_code == 201


def test_registering_twice_is_a_409_and_changes_nothing(alice_client, open_event):
    alice_client.post(f"/api/events/{open_event.pk}/register")
    assert error(alice_client.post(f"/api/events/{open_event.pk}/register")) == (
        409,
        "already_registered",
    )
    assert Entry.objects.count() == 1


def test_registering_after_registration_closed_is_a_409(alice_client, open_event):
    services.event_close_registration(event=open_event)
    assert error(alice_client.post(f"/api/events/{open_event.pk}/register")) == (
        409,
        "registration_closed",
    )
    assert not Entry.objects.exists()


def test_registering_before_registration_opens_is_a_409(alice_client):
    later = timezone.now() + timezone.timedelta(days=1)
    event = services.event_create(name="Later", format="swiss", registration_opens_at=later)
    event.status = Event.Status.REGISTRATION
    event.save()
    assert error(alice_client.post(f"/api/events/{event.pk}/register")) == (
        409,
        "registration_closed",
    )


def test_registering_to_a_full_event_is_a_409(alice_client, open_event):
    for bot in (BotFactory(), BotFactory(), BotFactory()):
        services.entry_add(event=open_event, player=bot)
    assert error(alice_client.post(f"/api/events/{open_event.pk}/register")) == (409, "event_full")
    assert Entry.objects.count() == 3


@pytest.mark.parametrize("ending", ["finished", "cancelled"])
def test_registering_to_an_event_that_ended_is_a_409(alice_client, open_event, ending):
    Event.objects.filter(pk=open_event.pk).update(status=ending)
    assert error(alice_client.post(f"/api/events/{open_event.pk}/register")) == (409, "event_over")
    assert not Entry.objects.exists()


def test_registering_to_a_started_event_is_a_409(alice_client, bob, charlie, open_event):
    services.entry_add(event=open_event, player=bob)
    services.entry_add(event=open_event, player=charlie)
    services.event_start(event=open_event)
    assert error(alice_client.post(f"/api/events/{open_event.pk}/register")) == (
        409,
        "registration_closed",
    )


def test_registration_needs_a_signed_in_player(client, admin_client, open_event):
    assert error(client.post(f"/api/events/{open_event.pk}/register"))[0] == 401
    # A staff user without a player cannot register either.
    assert error(admin_client.post(f"/api/events/{open_event.pk}/register")) == (
        403,
        "permission_denied",
    )


def test_withdrawing_without_an_entry_is_a_409(alice_client, open_event):
    assert error(alice_client.post(f"/api/events/{open_event.pk}/withdraw")) == (
        409,
        "not_registered",
    )


def test_withdrawing_after_the_event_ended_is_a_409(alice_client, alice, bob):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    decide(event, "R1.1", bob)
    assert error(alice_client.post(f"/api/events/{event.pk}/withdraw")) == (409, "event_over")
    assert Entry.objects.get(player=alice).status == "registered"


def test_withdrawing_from_a_running_event_forfeits_your_match(alice_client, alice, bob):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    assert alice_client.post(f"/api/events/{event.pk}/withdraw").status_code == 200
    event.refresh_from_db()
    assert event.status == "finished" and event.champion == bob


def test_check_in(alice_client, alice):
    event = event_with([alice], "swiss", check_in_opens_at=timezone.now())
    response = alice_client.post(f"/api/events/{event.pk}/check-in")
    assert response.status_code == 200 and response.json()["status"] == "checked_in"


def test_check_in_without_a_check_in_window_is_a_409(alice_client, alice, open_event):
    services.entry_register(event=open_event, player=alice)
    assert error(alice_client.post(f"/api/events/{open_event.pk}/check-in")) == (
        409,
        "no_check_in",
    )


def test_the_bracket_shows_rounds_matches_and_where_winners_and_losers_go(client):
    event = event_with(humans(3), "double_elim")
    services.event_start(event=event)
    body = client.get(f"/api/events/{event.pk}/bracket").json()
    assert [r["name"] for r in body["rounds"]][:3] == [
        "Winners round 1",
        "Winners round 2",
        "Losers round 1",
    ]
    w11, w12 = body["rounds"][0]["pairings"]
    assert w11["status"] == "bye" and w11["winner_to"] == "W2.1:a" and w11["loser_to"] == "L1.1:a"
    assert w12["status"] == "playing" and w12["match"] is not None
    assert w12["a"]["seed"] == 2 and w12["b"]["seed"] == 3
    gf = body["rounds"][-2]["pairings"][0]
    assert gf["key"] == "GF" and gf["winner_to"] == "GF2:b if b wins"
    assert gf["loser_to"] == "GF2:a if b wins"


def test_standings_have_tiebreak_columns_and_ratings(client, monkeypatch):
    from tournaments.selectors import standings as standings_reads

    event = event_with(humans(4), "swiss", tiebreaks=["direct_encounter", "buchholz"])
    services.event_start(event=event)
    for p in event.pairings.filter(status="playing"):
        decide(event, p.key, p.entry_a.player)
    monkeypatch.setattr(standings_reads, "ratings_for", lambda ids: dict.fromkeys(ids, 1512))
    body = client.get(f"/api/events/{event.pk}/standings").json()
    assert body["tiebreaks"] == ["match_points", "direct_encounter", "buchholz"]
    top = body["rows"][0]
    assert top["rank"] == 1 and top["match_points"] == 1 and top["rating"] == 1512
    for column in ("buchholz", "median_buchholz", "sonneborn_berger", "games_won", "margin"):
        assert column in top


def test_elimination_standings_say_how_far_each_player_came(client):
    event = event_with(humans(4), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[1])
    decide(event, "R1.2", s[2])
    decide(event, "R2.1", s[2])
    rows = client.get(f"/api/events/{event.pk}/standings").json()["rows"]
    assert [(r["player"]["id"], r["reached"]) for r in rows[:2]] == [
        (s[2].pk, "Champion"),
        (s[1].pk, "Final"),
    ]
    assert {r["reached"] for r in rows[2:]} == {"Semifinals"}


def test_results_and_standings_export_as_csv(client):
    event = event_with(humans(2), "single_elim")
    services.event_start(event=event)
    s = by_seed(event)
    decide(event, "R1.1", s[2])
    response = client.get(f"/api/events/{event.pk}/results.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows == [
        {
            "round": "1",
            "table": "1",
            "key": "R1.1",
            "player_a": s[1].name,
            "player_b": s[2].name,
            "winner": s[2].name,
            "result": "forfeit",
            "games_a": "0",
            "games_b": "1",
            "margin_a": rows[0]["margin_a"],
            "match": str(pairing(event, "R1.1").match_id),
        }
    ]
    standings = client.get(f"/api/events/{event.pk}/standings.csv").content.decode()
    lines = list(csv.DictReader(io.StringIO(standings)))
    assert [(r["rank"], r["player"], r["reached"]) for r in lines] == [
        ("1", s[2].name, "Champion"),
        ("2", s[1].name, "Final"),
    ]


def test_a_tournament_match_shows_every_game_score(client):
    bots = [BotFactory(bot_strategy="greedy"), BotFactory(bot_strategy="greedy")]
    event = event_with(bots, "single_elim", best_of=3)
    services.event_start(event=event)
    from games import services as play

    match = pairing(event, "R1.1").match
    play.match_play_bots(match_id=match.pk)
    body = client.get(f"/api/matches/{match.pk}").json()
    assert body["source"] == "tournament" and body["status"] == "finished"
    assert len(body["games"]) == sum(body["games_won"]) >= 2
    assert all(g["results"] for g in body["games"])
    assert pairing(event, "R1.1").games_a + pairing(event, "R1.1").games_b == len(body["games"])


def test_staff_create_an_event_through_the_api(admin_client):
    response = admin_client.post(
        "/api/events",
        {"name": "API open", "format": "double_elim", "best_of": 3, "tiebreaks": ["margin"]},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["format"] == "double_elim" and response.json()["status"] == "draft"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "format": "ladder_of_doom"}, "format"),
        ({"name": "x", "format": "swiss", "seeding": "by_shoe_size"}, "seeding"),
        ({"name": "x", "format": "swiss", "tiebreaks": ["coin_toss"]}, "tiebreaks.0"),
    ],
)
def test_an_unknown_format_or_seeding_method_is_a_400(admin_client, body, field):
    response = admin_client.post("/api/events", body, content_type="application/json")
    assert error(response) == (400, "invalid") and field in response.json()["errors"]
    assert not Event.objects.exists()


def test_bad_rules_are_a_400_naming_the_option(admin_client):
    response = admin_client.post(
        "/api/events",
        {"name": "x", "format": "swiss", "rules": {"knock_limit": "ten"}},
        content_type="application/json",
    )
    assert error(response) == (400, "invalid_rules")
    assert "knock_limit" in response.json()["detail"]
    assert not Event.objects.exists()


def test_only_staff_create_events(alice_client):
    assert error(alice_client.post("/api/events", {"name": "x", "format": "swiss"}))[0] == 403


def test_an_unknown_event_is_a_404(client):
    assert error(client.get("/api/events/999/bracket")) == (404, "not_found")


def test_showing_up_starts_a_match_when_both_players_have(alice_client, bob_client, alice, bob):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    url = f"/api/events/{event.pk}/matches/{match.pk}/ready"
    first = alice_client.post(url).json()
    assert first["status"] == "scheduled" and sum(first["ready"]) == 1
    second = bob_client.post(url).json()
    assert second["status"] == "active" and second["ready"] == [True, True]
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.games.count() == 1


def test_showing_up_for_someone_elses_match_is_a_403(charlie_client, alice, bob, charlie):
    event = event_with([alice, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    response = charlie_client.post(f"/api/events/{event.pk}/matches/{match.pk}/ready")
    assert error(response) == (403, "not_a_player")
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED


def test_showing_up_for_a_match_of_another_event_is_a_404(alice_client, alice, bob):
    event = event_with([alice, bob], "single_elim")
    other = services.event_open_registration(event=services.event_create(name="o", format="swiss"))
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    response = alice_client.post(f"/api/events/{other.pk}/matches/{match.pk}/ready")
    assert error(response) == (404, "not_found")
