"""Nobody misses their tournament match for another game: while a player's tournament match
waits for them to show up or is in play online, every route that would start another game
for them answers 409 ``in_tournament_match`` with the match and the page to go to."""

import pytest

from games import services as play
from games.models import Game, Match
from ladders import services as ladders
from ladders.models import QueueEntry
from tests.factories import BotFactory, PlayerFactory
from tests.tournaments import decide, event_with, pairing
from tournaments import services as events
from tournaments.models import Event


@pytest.fixture
def greta(db):
    return BotFactory(name="Greta (greedy)", bot_strategy="greedy")


@pytest.fixture
def dora(db):
    return PlayerFactory(user__username="dora", name="Dora")


@pytest.fixture
def final(alice, dora) -> Event:
    """Alice v Dora, an online elimination's only match, waiting for both to show up."""
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    return event


def matches() -> list[tuple]:
    return list(Match.objects.order_by("pk").values_list("pk", "status", "player_a", "player_b"))


def assert_refused(response, match: Match, url: str, player) -> None:
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["code"] == "in_tournament_match"
    assert (body["match"], body["url"], body["player"]) == (match.pk, url, player.pk)
    assert isinstance(body["detail"], str) and body["detail"]


def test_challenging_a_bot_while_your_tournament_match_is_ready_is_a_409(
    alice_client, alice, greta, final
):
    ready = pairing(final, "R1.1").match
    before = matches()
    response = alice_client.post("/api/matches", {"opponent": greta.pk}, format="json")
    assert_refused(response, ready, f"/matches/{ready.pk}", alice)
    assert response.json()["detail"] == f"your tournament match {ready.pk} is ready: play it first"
    assert matches() == before, "nothing is written on a refusal"


def test_challenging_a_person_while_your_tournament_match_is_ready_is_a_409(
    alice_client, alice, bob, final
):
    ready = pairing(final, "R1.1").match
    before = matches()
    response = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json")
    assert_refused(response, ready, f"/matches/{ready.pk}", alice)
    assert matches() == before


def test_accepting_while_your_tournament_match_is_ready_is_a_409_and_the_challenge_waits(
    alice_client, alice, bob_client, bob, dora
):
    challenge = play.challenge_create(challenger=bob, opponent=alice)
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    ready = pairing(event, "R1.1").match
    response = alice_client.post(f"/api/matches/{challenge.pk}/accept")
    assert_refused(response, ready, f"/matches/{ready.pk}", alice)
    challenge.refresh_from_db()
    assert challenge.status == Match.Status.CHALLENGED
    assert not Game.objects.filter(match=challenge).exists()


def test_accepting_the_challenge_of_a_player_whose_tournament_match_is_ready_is_a_409(
    alice, bob_client, bob, dora
):
    challenge = play.challenge_create(challenger=alice, opponent=bob)
    event = event_with([alice, dora], "single_elim")
    events.event_start(event=event)
    ready = pairing(event, "R1.1").match
    response = bob_client.post(f"/api/matches/{challenge.pk}/accept")
    assert_refused(response, ready, f"/matches/{ready.pk}", alice)
    assert response.json()["detail"] == (
        f"Alice's tournament match {ready.pk} is ready: try again when it ends"
    )
    challenge.refresh_from_db()
    assert challenge.status == Match.Status.CHALLENGED


def test_a_tournament_match_in_play_sends_the_player_to_its_table(
    alice_client, alice, dora, greta, final
):
    match = pairing(final, "R1.1").match
    events.match_ready(match=match, player=alice)
    events.match_ready(match=match, player=dora)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    response = alice_client.post("/api/matches", {"opponent": greta.pk}, format="json")
    assert_refused(response, match, f"/games/{game.pk}", alice)
    assert "is in play" in response.json()["detail"]


def test_once_the_tournament_match_is_over_the_player_plays_again(
    alice_client, alice, greta, final
):
    decide(final, "R1.1", alice)
    response = alice_client.post("/api/matches", {"opponent": greta.pk}, format="json")
    assert response.status_code == 201, response.content


def test_other_players_and_matches_at_a_table_are_not_held_back(
    alice, bob_client, bob, charlie, dora, greta, final
):
    # Bob plays in no event: Alice's match is none of his business.
    assert bob_client.post("/api/matches", {"opponent": greta.pk}, format="json").status_code == 201
    # Charlie's match is at a numbered table with real cards: nothing on the site to miss.
    erin = PlayerFactory(user__username="erin", name="Erin")
    at_tables = event_with([charlie, erin], "single_elim", venue="tables")
    events.event_start(event=at_tables)
    assert pairing(at_tables, "R1.1").match.venue == Match.Venue.TABLE
    match = play.challenge_create(challenger=charlie, opponent=greta)
    assert match.status == Match.Status.ACTIVE


def test_joining_a_ladder_while_your_tournament_match_is_ready_is_a_409_too(
    alice_client, alice, final
):
    ladder = ladders.ladder_create(name="Quick ladder", best_of=1, target=100)
    ready = pairing(final, "R1.1").match
    response = alice_client.post(f"/api/ladders/{ladder.pk}/queue")
    assert response.status_code == 409, response.content
    body = response.json()
    assert (body["code"], body["match"]) == ("match_in_progress", ready.pk)
    assert body["detail"].startswith(f"you have a match in progress (match {ready.pk},")
    assert not QueueEntry.objects.exists()
