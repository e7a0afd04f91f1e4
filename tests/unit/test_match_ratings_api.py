"""A rated match says what it did to each rating: GET /api/matches/{id} ``rating_pool`` and
``ratings``, null until there is something to show."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from games import services as games_services
from games.signals import match_finished
from ladders import services
from tests.ladders import finish, make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard", provisional_matches=2)


def answer(client, match):
    response = client.get(f"/api/matches/{match.pk}")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_rated_ladder_match_shows_each_players_rating_before_and_after(
    alice, bob, ladder, alice_client
):
    match = play_ladder_match(ladder, alice, bob)
    data = answer(alice_client, match)
    assert data["rating_pool"] == {
        "id": ladder.pk,
        "name": "Standard",
        "slug": "standard",
        "kind": "ladder",
        "system": "elo",
        "provisional_matches": 2,
        "provisional_deviation": None,
    }
    assert data["ratings"] == [
        {
            "player": alice.pk,
            "before": 1500.0,
            "after": 1520.0,
            "change": 20.0,
            "provisional": True,
            "rated_matches": 1,
            "deviation": None,
            "counted": True,
        },
        {
            "player": bob.pk,
            "before": 1500.0,
            "after": 1480.0,
            "change": -20.0,
            "provisional": True,
            "rated_matches": 1,
            "deviation": None,
            "counted": True,
        },
    ]


def test_the_change_is_the_difference_of_the_numbers_shown(alice, bob, ladder, alice_client):
    play_ladder_match(ladder, alice, bob)
    second = play_ladder_match(ladder, bob, alice)  # an uneven change: 1480 v 1520
    for row in answer(alice_client, second)["ratings"]:
        assert row["change"] == round(row["after"] - row["before"], 1)
        assert row["change"] != 0


def test_a_rating_is_provisional_until_the_pools_count_of_rated_matches(
    alice, bob, ladder, alice_client
):
    first = play_ladder_match(ladder, alice, bob)
    second = play_ladder_match(ladder, alice, bob)
    assert [r["provisional"] for r in answer(alice_client, first)["ratings"]] == [True, True]
    later = answer(alice_client, second)["ratings"]
    assert [r["rated_matches"] for r in later] == [2, 2]
    assert [r["provisional"] for r in later] == [False, False]
    # Each match keeps what was true after it, whatever came later.
    assert [r["provisional"] for r in answer(alice_client, first)["ratings"]] == [True, True]


def test_a_glicko_rating_is_provisional_while_its_deviation_is_wide(alice, bob, alice_client):
    pool = make_ladder(rating_system="glicko2", provisional_deviation=110)
    data = answer(alice_client, play_ladder_match(pool, alice, bob))
    assert data["rating_pool"]["system"] == "glicko2"
    assert data["rating_pool"]["provisional_deviation"] == 110
    assert data["rating_pool"]["provisional_matches"] is None
    alice_row = data["ratings"][0]
    assert alice_row["deviation"] > 110 and alice_row["provisional"] is True


def test_a_ladder_match_in_play_names_its_pool_but_has_no_ratings_yet(
    alice, bob, ladder, alice_client
):
    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    data = answer(alice_client, match)
    assert data["rating_pool"]["id"] == ladder.pk
    assert data["ratings"] is None


def test_a_match_rated_late_shows_its_ratings_once_they_exist(alice, bob, ladder, alice_client):
    def broken(sender, match, **kwargs):
        raise RuntimeError("listener bug")

    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    match_finished.connect(broken, dispatch_uid="test.broken")
    try:
        finish(match, alice)
    finally:
        match_finished.disconnect(dispatch_uid="test.broken")
    data = answer(alice_client, match)
    assert data["status"] == "finished" and data["ratings"] is None
    services.ladders_sweep()
    assert answer(alice_client, match)["ratings"][0]["after"] == 1520.0


def test_a_challenge_is_unrated(alice, bob, alice_client):
    match = games_services.match_create(player_a=alice, player_b=bob, best_of=1)
    finish(match, alice)
    data = answer(alice_client, match)
    assert data["rating_pool"] is None and data["ratings"] is None


def test_a_farmed_match_shows_it_did_not_count(alice, bob, ladder, alice_client, settings):
    settings.RATING_PAIR_LIMIT = 1
    play_ladder_match(ladder, alice, bob)
    again = play_ladder_match(ladder, alice, bob)
    rows = answer(alice_client, again)["ratings"]
    assert [r["counted"] for r in rows] == [False, False]
    assert [r["change"] for r in rows] == [0.0, 0.0]
    assert [r["rated_matches"] for r in rows] == [1, 1]


def test_the_match_list_leaves_the_ratings_to_the_match(alice, bob, ladder, alice_client):
    play_ladder_match(ladder, alice, bob)
    rows = alice_client.get("/api/matches").json()["results"]
    assert rows and all("ratings" not in row and "rating_pool" not in row for row in rows)


def test_the_schema_describes_the_ratings_of_a_match():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    match = schema["components"]["schemas"]["Match"]["properties"]
    assert match["ratings"]["nullable"] is True
    assert match["ratings"]["type"] == "array"
    assert match["rating_pool"]["nullable"] is True
    rating = schema["components"]["schemas"]["MatchRating"]["properties"]
    assert {"player", "before", "after", "change", "provisional"} <= set(rating)
