"""The pages of ranked play: the table's ratings, the match page's rating change, and the
leaderboard's note of the reader's ladders."""

import json
import re

import pytest
from django.test import Client

from games import services as games_services
from games.models import Game
from games.signals import match_finished
from ladders import services
from tests.ladders import finish, make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard", provisional_matches=2)


def signed_in(player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def table_ratings(client, match):
    game = Game.objects.filter(match=match).order_by("number").first()
    html = client.get(f"/games/{game.pk}").content.decode()
    found = re.search(r'<script id="table-ratings" type="application/json">(.*?)</script>', html)
    assert found, "no table-ratings block"
    return json.loads(found.group(1))


def test_the_table_of_a_ladder_match_shows_both_ratings_as_they_stand(alice, bob, ladder):
    play_ladder_match(ladder, alice, bob)  # alice 1520, bob 1480
    match = services.ladder_match_create(ladder=ladder, player_a=bob, player_b=alice)
    services.ladder_match_start(match_id=match.pk)
    data = table_ratings(signed_in(alice), match)
    assert data["pool"]["name"] == "Standard"
    assert data["players"] == [
        {"rating": 1480.0, "provisional": True},
        {"rating": 1520.0, "provisional": True},
    ]


def test_after_a_rated_match_the_table_shows_what_it_left_each_player_with(alice, bob, ladder):
    first = play_ladder_match(ladder, alice, bob)
    play_ladder_match(ladder, alice, bob)  # later matches do not change the first one's table
    data = table_ratings(signed_in(bob), first)
    assert data["players"] == [
        {"rating": 1520.0, "provisional": True},
        {"rating": 1480.0, "provisional": True},
    ]


def test_a_challenge_has_no_ratings_at_the_table(alice, bob):
    match = games_services.match_create(player_a=alice, player_b=bob, best_of=1)
    assert table_ratings(signed_in(alice), match) is None


def test_the_match_page_shows_the_readers_own_change_first(alice, bob, ladder):
    match = play_ladder_match(ladder, bob, alice)
    html = signed_in(alice).get(f"/matches/{match.pk}").content.decode()
    text = re.sub(r"<[^>]+>", "", html)
    assert "Standard rating" in text
    rows = re.findall(r"(You|Bob) (\d+) → (\d+) \(([^)]+)\)", text)
    assert rows == [("You", "1500", "1480", "\u221220"), ("Bob", "1500", "1520", "+20")]
    assert "Provisional: a new rating moves fast for the first 2 rated matches." in text


def test_anyone_else_reads_the_seats_in_order(alice, bob, charlie, ladder):
    match = play_ladder_match(ladder, bob, alice)
    text = re.sub(r"<[^>]+>", "", signed_in(charlie).get(f"/matches/{match.pk}").content.decode())
    rows = re.findall(r"(Alice|Bob) (\d+) → (\d+)", text)
    assert rows == [("Bob", "1500", "1520"), ("Alice", "1500", "1480")]


def test_the_match_page_waits_for_a_rating_not_written_yet(alice, bob, ladder):
    def broken(sender, match, **kwargs):
        raise RuntimeError("listener bug")

    match = services.ladder_match_create(ladder=ladder, player_a=alice, player_b=bob)
    match_finished.connect(broken, dispatch_uid="test.broken")
    try:
        finish(match, alice)
    finally:
        match_finished.disconnect(dispatch_uid="test.broken")
    html = signed_in(alice).get(f"/matches/{match.pk}").content.decode()
    assert "being worked out" in html and f'data-pending="{match.pk}"' in html
    assert "web/js/match" in html  # the script that shows it once written
    services.ladders_sweep()
    html = signed_in(alice).get(f"/matches/{match.pk}").content.decode()
    assert "being worked out" not in html and "data-pending" not in html


def test_the_leaderboard_knows_the_readers_ladders(alice, bob, ladder):
    other = make_ladder()
    play_ladder_match(ladder, alice, bob)
    html = signed_in(alice).get("/leaderboard").content.decode()
    assert f'data-me="{alice.pk}" data-my-ladders="{ladder.pk}"' in html
    assert str(other.pk) not in re.search(r'data-my-ladders="([^"]*)"', html).group(1).split()
    assert "data-me" not in Client().get("/leaderboard").content.decode()
