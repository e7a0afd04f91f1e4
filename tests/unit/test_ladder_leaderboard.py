"""Leaderboards, a player's rating and history, head-to-head; bad page numbers."""

import json
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladders import selectors
from ladders.api.ratings import BoardRowSerializer
from ladders.models import Rating
from tests.factories import BotFactory
from tests.ladders import humans, make_ladder, play_ladder_match, seed_ratings

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard")


def board(client, ladder, **params):
    response = client.get(f"/api/ladders/{ladder.pk}/leaderboard", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_players_are_ranked_by_rating_with_rank_numbers(client, ladder):
    players = humans(4)
    seed_ratings(ladder, players, [1500, 1720, 1610, 1390])
    body = board(client, ladder)
    assert body["count"] == 4 and body["page"] == 1
    assert [(r["rank"], r["player"]["id"], r["rating"]) for r in body["results"]] == [
        (1, players[1].pk, 1720),
        (2, players[2].pk, 1610),
        (3, players[0].pk, 1500),
        (4, players[3].pk, 1390),
    ]
    row = body["results"][0]
    assert set(row) == {
        "rank",
        "player",
        "rating",
        "deviation",
        "volatility",
        "peak",
        "matches_played",
        "wins",
        "losses",
        "provisional",
        "last_active",
    }
    assert row["deviation"] is None and row["volatility"] is None  # Elo has neither


def test_equal_ratings_rank_the_earlier_member_first(client, ladder):
    players = humans(3)
    seed_ratings(ladder, players, [1600, 1600, 1600])
    ranked = [r["player"]["id"] for r in board(client, ladder)["results"]]
    assert ranked == sorted(p.pk for p in players)


def test_pages_carry_on_the_rank_numbers(client, ladder):
    players = humans(7)
    seed_ratings(ladder, players, [1500 + 10 * i for i in range(7)])
    first = board(client, ladder, page_size=3)
    third = board(client, ladder, page=3, page_size=3)
    assert [r["rank"] for r in first["results"]] == [1, 2, 3]
    assert first["next"].endswith("page=2&page_size=3") or "page=2" in first["next"]
    assert first["previous"] is None
    assert [r["rank"] for r in third["results"]] == [7] and third["next"] is None
    assert "page=2" in third["previous"]


def test_only_players_with_ten_rated_matches_one_recent_are_ranked(client, ladder):
    regular, newcomer, absent = humans(3)
    seed_ratings(ladder, [regular], [1500])
    seed_ratings(ladder, [newcomer], [2400], matches=9)
    seed_ratings(ladder, [absent], [2500], last_active=timezone.now() - timedelta(days=31))
    ranked = [r["player"]["id"] for r in board(client, ladder)["results"]]
    assert ranked == [regular.pk], "no camping the top: the absent player drops off"


def test_filters_hide_provisional_players_bots_or_the_inactive(client, ladder):
    veteran, fresh, lapsed = humans(3)
    bot = BotFactory(bot_strategy="expert")
    seed_ratings(ladder, [veteran, bot], [1600, 1900], matches=40)
    seed_ratings(ladder, [fresh], [1700], matches=12)
    seed_ratings(ladder, [lapsed], [1650], matches=40, last_active=timezone.now() - timedelta(10))

    def ids(**params):
        return [r["player"]["id"] for r in board(client, ladder, **params)["results"]]

    assert ids() == [bot.pk, fresh.pk, lapsed.pk, veteran.pk]
    assert ids(hide_provisional="true") == [bot.pk, lapsed.pk, veteran.pk]
    assert ids(active_days=7) == [bot.pk, fresh.pk, veteran.pk]
    assert ids(kind="human") == [fresh.pk, lapsed.pk, veteran.pk]
    assert ids(kind="bot") == [bot.pk]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": -1}, "page"),
        ({"page": 0}, "page"),
        ({"page": "abc"}, "page"),
        ({"page": 10**30}, "page"),
        ({"page": 1_000_001}, "page"),
        ({"page_size": 0}, "page_size"),
        ({"page_size": 101}, "page_size"),
        ({"active_days": 0}, "active_days"),
        ({"kind": "alien"}, "kind"),
        ({"hide_provisional": "maybe"}, "hide_provisional"),
    ],
)
def test_bad_leaderboard_parameters_are_a_400_naming_them(client, ladder, params, field):
    seed_ratings(ladder, humans(1), [1500])
    response = client.get(f"/api/ladders/{ladder.pk}/leaderboard", params)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]


def test_a_page_past_the_end_is_a_404_saying_how_many_there_are(client, ladder):
    seed_ratings(ladder, humans(3), [1500, 1501, 1502])
    response = client.get(f"/api/ladders/{ladder.pk}/leaderboard", {"page": 999_999})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found" and "1 page" in response.json()["detail"]
    # An empty leaderboard still has a first page.
    empty = make_ladder(name="Empty")
    assert board(client, empty) == {
        "count": 0,
        "page": 1,
        "page_size": 20,
        "next": None,
        "previous": None,
        "results": [],
    }


def test_an_unknown_ladder_has_no_leaderboard(client):
    assert client.get("/api/ladders/987654/leaderboard").status_code == 404


def test_a_page_is_what_the_row_serializer_shows_of_the_ratings(client):
    elo, glicko = make_ladder(name="Elo"), make_ladder(name="Glicko", rating_system="glicko2")
    players = [*humans(9), BotFactory(bot_strategy="expert"), BotFactory(bot_strategy="greedy")]
    scores = [1500, 1720, 1610, 1390, 1610, 1500.04, 1987.65, 1200, 1610, 1830, 1499.96]
    for ladder in (elo, glicko):
        rows = seed_ratings(ladder, players, scores, matches=25)
        seed_ratings(ladder, humans(2), [2100, 1400], matches=9)  # not eligible
        for n, row in enumerate(rows):
            deviation = 50 + 17.5 * n if ladder.is_glicko else None
            Rating.objects.filter(pk=row.pk).update(
                peak=row.rating + n * 3.33,
                matches_played=12 + 4 * n,
                wins=n,
                last_active=timezone.now() - timedelta(days=n, hours=n),
                deviation=deviation,
                volatility=0.06 + n / 10**4 if ladder.is_glicko else None,
                provisional=deviation > 110 if deviation else 12 + 4 * n < 30,
            )
    queries = [{}, {"page": 2, "page_size": 4}, {"page": 3, "page_size": 4}]
    queries += [{"hide_provisional": "true"}, {"kind": "bot"}, {"active_days": 3}]
    frozen = timezone.now()
    with mock.patch("django.utils.timezone.now", return_value=frozen):
        for ladder in (elo, glicko):
            for params in queries:
                filters = selectors.BoardFilters(
                    hide_provisional="hide_provisional" in params,
                    active_days=params.get("active_days"),
                    kind=params.get("kind"),
                )
                page = selectors.leaderboard_page(
                    ladder=ladder,
                    page=params.get("page", 1),
                    page_size=params.get("page_size", 20),
                    filters=filters,
                )
                for rank, rating in page.rows:
                    rating.rank = rank
                expected = BoardRowSerializer([r for _, r in page.rows], many=True).data
                assert expected, params
                # As text: the same fields in the same order, false not 0, 1500.0 not 1500.
                shown = board(client, ladder, **params)["results"]
                assert json.dumps(shown) == json.dumps(expected), params


#: A leaderboard page read anonymously: the ladder, then the page's ratings with their players
#: in one statement (the count of the board is cached).
BOARD_QUERIES = 2


@pytest.mark.parametrize("system", ["elo", "glicko2"])
@pytest.mark.parametrize("params", [{}, {"page": 2}, {"page": 2, "page_size": 5, "kind": "human"}])
def test_a_leaderboard_page_costs_two_queries(client, params, system):
    ladder = make_ladder(rating_system=system)
    rows = seed_ratings(ladder, humans(30), [1400 + 7 * i for i in range(30)])
    if ladder.is_glicko:
        Rating.objects.filter(pk__in=[r.pk for r in rows]).update(deviation=80, volatility=0.06)
    board(client, ladder, **params)
    with CaptureQueriesContext(connection) as queries:
        body = board(client, ladder, **params)
    assert len(queries) == BOARD_QUERIES, [q["sql"] for q in queries]
    assert body["results"]
    assert all((r["deviation"] is None) != ladder.is_glicko for r in body["results"])


def test_a_rated_match_shows_on_the_next_page_read(client, ladder, alice, bob):
    seed_ratings(ladder, [alice, bob], [1500, 1510])
    assert [r["player"]["id"] for r in board(client, ladder)["results"]] == [bob.pk, alice.pk]
    play_ladder_match(ladder, alice, bob)
    after = board(client, ladder)["results"]
    assert [r["player"]["id"] for r in after] == [alice.pk, bob.pk]
    assert [r["matches_played"] for r in after] == [21, 21]


# --- one player -----------------------------------------------------------------------------


def test_a_players_rating_and_rank(client, ladder):
    players = humans(3)
    seed_ratings(ladder, players, [1500, 1700, 1600])
    body = client.get(f"/api/ladders/{ladder.pk}/ratings/{players[2].pk}").json()
    assert body["rank"] == 2 and body["eligible"] and body["rating"] == 1600
    assert body["player"]["id"] == players[2].pk


def test_a_player_not_yet_eligible_has_no_rank(client, alice, bob, ladder):
    play_ladder_match(ladder, alice, bob)
    body = client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}").json()
    assert body["rank"] is None and not body["eligible"] and body["matches_played"] == 1
    assert client.get(f"/api/ladders/{ladder.pk}/ratings/999999").status_code == 404


def test_rating_history_newest_first(client, alice, bob, ladder):
    first = play_ladder_match(ladder, alice, bob)
    second = play_ladder_match(ladder, bob, alice)
    body = client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}/history").json()
    assert body["count"] == 2
    latest, earlier = body["results"]
    assert (latest["match"], earlier["match"]) == (second.pk, first.pk)
    assert earlier == {
        **earlier,
        "won": True,
        "rating_before": 1500,
        "rating_after": 1520,
        "delta": 20,
        "opponent": {"id": bob.pk, "name": "Bob", "kind": "human"},
    }
    assert latest["rating_before"] == 1520 and not latest["won"]
    assert latest["rating_after"] == pytest.approx(1520 - 40 * (1 / (1 + 10 ** (-40 / 400))), 0.1)


@pytest.mark.parametrize("page", ["-1", "0", "x", str(10**30)])
def test_bad_history_pages_are_a_400(client, alice, bob, ladder, page):
    play_ladder_match(ladder, alice, bob)
    response = client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}/history", {"page": page})
    assert response.status_code == 400 and "page" in response.json()["errors"]


def test_a_history_page_past_the_end_is_a_404(client, alice, bob, ladder):
    play_ladder_match(ladder, alice, bob)
    url = f"/api/ladders/{ladder.pk}/ratings/{alice.pk}/history"
    assert client.get(url, {"page": 2}).status_code == 404
    assert client.get("/api/ladders", {"page": -5}).status_code == 400


def test_head_to_head(client, alice, bob, charlie, ladder):
    for winner, loser in [(alice, bob), (alice, bob), (bob, alice), (alice, charlie)]:
        play_ladder_match(ladder, winner, loser)
    url = f"/api/ladders/{ladder.pk}/head-to-head"
    body = client.get(url, {"player": alice.pk, "opponent": bob.pk}).json()
    assert (body["matches"], body["wins"], body["losses"]) == (3, 2, 1)
    assert body["player"]["id"] == alice.pk and body["opponent"]["id"] == bob.pk
    assert len(body["recent"]) == 3 and body["recent"][0]["won"] is False
    deltas = Rating.objects.get(player=alice).rating - 1500
    charlie_delta = body["rating_delta"]
    assert charlie_delta < deltas, "what alice took from charlie is not counted against bob"
    mirror = client.get(url, {"player": bob.pk, "opponent": alice.pk}).json()
    assert (mirror["wins"], mirror["losses"]) == (1, 2)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"opponent": "me"}, "player"),
        ({"player": "x", "opponent": "me"}, "player"),
        ({"player": "me", "opponent": 999999}, "opponent"),
        ({"player": "me"}, "opponent"),
    ],
)
def test_bad_head_to_head_queries(client, alice, ladder, params, field):
    params = {k: alice.pk if v == "me" else v for k, v in params.items()}
    response = client.get(f"/api/ladders/{ladder.pk}/head-to-head", params)
    assert response.status_code == 400 and field in response.json()["errors"]


def test_the_same_player_twice_is_not_a_head_to_head(client, alice, ladder):
    response = client.get(
        f"/api/ladders/{ladder.pk}/head-to-head", {"player": alice.pk, "opponent": alice.pk}
    )
    assert response.status_code == 400 and "opponent" in response.json()["errors"]
