"""Seasons: opened, counted, closed on time by the sweep, frozen; divisions move up and down."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ladders import selectors, services, tasks
from ladders.models import Rating, RatingChange, Season, SeasonEntry
from ladders.services import seasons
from tests.factories import PlayerFactory
from tests.ladders import humans, make_ladder, play_ladder_match, seed_ratings

pytestmark = pytest.mark.django_db


def open_season(ladder, *, days_left: float = 1.0, **fields) -> Season:
    now = timezone.now()
    for name, value in fields.items():
        setattr(ladder, name, value)
    ladder.save()
    return seasons.season_open(
        ladder=ladder, starts_at=now - timedelta(days=1), ends_at=now + timedelta(days=days_left)
    )


def frozen(season: Season):
    return sorted(
        SeasonEntry.objects.filter(season=season).values_list(
            "player_id", "division", "rank", "rating", "wins", "losses", "movement"
        )
    )


def board(season: Season, division: int = 1):
    return [
        (r.rank, r.player.pk, round(r.rating), r.wins, r.movement)
        for r in selectors.season_standings(
            season=Season.objects.get(pk=season.pk), division=division
        )
    ]


def test_the_sweep_closes_a_season_at_its_end_and_freezes_its_standings(alice, bob, charlie):
    ladder = make_ladder()
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(ladder, alice, charlie)
    assert services.ladders_sweep(now=season.ends_at - timedelta(seconds=1)).closed == 0
    assert Season.objects.get(pk=season.pk).closed_at is None
    assert services.ladders_sweep(now=season.ends_at).closed == 1
    season.refresh_from_db()
    assert season.closed_at == season.ends_at
    assert board(season) == [
        (1, alice.pk, 1539, 2, "stayed"),
        (2, charlie.pk, 1481, 0, "stayed"),
        (3, bob.pk, 1480, 0, "stayed"),
    ]
    rows = {r.player.pk: r for r in selectors.season_standings(season=season)}
    assert (rows[alice.pk].matches_played, rows[alice.pk].wins, rows[alice.pk].losses) == (2, 2, 0)
    assert rows[alice.pk].rank == 1 and rows[alice.pk].rating == pytest.approx(
        Rating.objects.get(player=alice).rating
    )


def test_closing_twice_changes_nothing(alice, bob):
    ladder = make_ladder(season_days=7, season_pull=0.5)
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    assert seasons.season_close(season_id=season.pk, now=season.ends_at) is True
    after = (frozen(season), sorted(Rating.objects.values_list("player_id", "rating")))
    assert seasons.season_close(season_id=season.pk, now=season.ends_at) is False
    assert services.ladders_sweep(now=season.ends_at + timedelta(seconds=5)).closed == 0
    assert tasks.sweep.apply().get() >= 0
    assert (frozen(season), sorted(Rating.objects.values_list("player_id", "rating"))) == after
    assert Season.objects.filter(ladder=ladder).count() == 2  # the next one, opened once


def test_a_season_is_not_closed_before_its_end(alice, bob):
    ladder = make_ladder()
    season = open_season(ladder)
    assert seasons.season_close(season_id=season.pk) is False
    assert Season.objects.get(pk=season.pk).closed_at is None


def test_a_match_finishing_after_the_end_counts_in_the_next_season_only(alice, bob, charlie):
    ladder = make_ladder(season_days=7)
    first = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    # The end passes before the sweep comes round: the next rating closes the season first.
    Season.objects.filter(pk=first.pk).update(ends_at=timezone.now())
    late = play_ladder_match(ladder, charlie, alice)
    first.refresh_from_db()
    assert first.closed_at is not None
    second = Season.objects.get(ladder=ladder, number=2)
    assert set(RatingChange.objects.filter(match=late).values_list("season", flat=True)) == {
        second.pk
    }
    assert not SeasonEntry.objects.filter(season=first, player=charlie).exists()
    assert SeasonEntry.objects.get(season=first, player=alice).wins == 1
    assert SeasonEntry.objects.filter(season=second, player=charlie).exists()
    assert services.ladders_sweep(now=first.ends_at + timedelta(seconds=1)).closed == 0


def test_the_standings_of_a_closed_season_never_change(alice, bob, charlie):
    ladder = make_ladder(season_days=7)
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    before = (board(season), frozen(season))
    for _ in range(3):
        play_ladder_match(ladder, bob, alice)
        play_ladder_match(ladder, charlie, alice)
    seasons.season_close(season_id=season.pk, now=season.ends_at + timedelta(days=30))
    assert (board(season), frozen(season)) == before


def test_an_open_season_ranks_live_by_rating(alice, bob):
    ladder = make_ladder()
    season = open_season(ladder)
    play_ladder_match(ladder, bob, alice)
    assert [(r[0], r[1], r[4]) for r in board(season)] == [(1, bob.pk, ""), (2, alice.pk, "")]


def test_ratings_are_pulled_toward_the_initial_rating_at_the_end():
    ladder = make_ladder(season_days=7, season_pull=0.25)
    players = humans(2)
    seed_ratings(ladder, players, [1900, 1300])
    season = open_season(ladder)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    assert sorted(Rating.objects.filter(ladder=ladder).values_list("rating", flat=True)) == [
        1350,
        1800,
    ]
    # The final standings keep the ratings as they were at the end.
    assert sorted(SeasonEntry.objects.filter(season=season).values_list("rating", flat=True)) == [
        1300,
        1900,
    ]


def test_divisions_are_placed_by_rating_and_the_last_takes_the_rest():
    ladder = make_ladder(divisions=3, division_size=2, promotion=1)
    players = humans(7)
    seed_ratings(ladder, players, [1900, 1800, 1700, 1600, 1500, 1400, 1300])
    season = open_season(ladder)
    placed = dict(SeasonEntry.objects.filter(season=season).values_list("player_id", "division"))
    assert [placed[p.pk] for p in players] == [1, 1, 2, 2, 3, 3, 3]


def test_promotion_and_relegation_with_ties():
    ladder = make_ladder(divisions=2, division_size=3, promotion=1, season_days=7)
    top = humans(3, prefix="top")
    low = humans(3, prefix="low")
    # Division 1 ends with two players tied at the bottom, division 2 with two tied on top.
    seed_ratings(ladder, top, [1800, 1700, 1650])
    seed_ratings(ladder, low, [1600, 1550, 1500])
    season = open_season(ladder)
    Rating.objects.filter(player__in=top[1:]).update(rating=1600)
    Rating.objects.filter(player__in=low[:2]).update(rating=1620)
    # The tie is broken by the season's wins, then by the earlier member: top[2] won a match.
    play_ladder_match(ladder, top[2], low[2])
    Rating.objects.filter(player__in=top[1:]).update(rating=1600)
    Rating.objects.filter(player__in=low[:2]).update(rating=1620)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    division_1 = board(season, 1)
    division_2 = board(season, 2)
    assert [(r[1], r[4]) for r in division_1] == [
        (top[0].pk, "stayed"),
        (top[2].pk, "stayed"),
        (top[1].pk, "relegated"),
    ]
    assert [(r[1], r[4]) for r in division_2] == [
        (low[0].pk, "promoted"),
        (low[1].pk, "stayed"),
        (low[2].pk, "stayed"),
    ]
    following = Season.objects.get(ladder=ladder, number=2)
    placed = dict(SeasonEntry.objects.filter(season=following).values_list("player_id", "division"))
    assert placed[top[1].pk] == 2 and placed[low[0].pk] == 1
    assert placed[top[0].pk] == placed[top[2].pk] == 1 and placed[low[2].pk] == 2


def test_a_player_first_rated_during_a_season_joins_the_bottom_division(alice, bob):
    ladder = make_ladder(divisions=2, division_size=2, promotion=1)
    seed_ratings(ladder, humans(3), [1700, 1600, 1500])
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    assert SeasonEntry.objects.get(season=season, player=alice).division == 2
    assert SeasonEntry.objects.get(season=season, player=bob).division == 2


# --- the API and the player's page -------------------------------------------------------------


@pytest.fixture
def staff_client(db):
    boss = PlayerFactory(user__username="boss", user__is_staff=True, user__is_superuser=True)
    client = APIClient()
    client.force_authenticate(boss.user)
    return client


def test_staff_open_a_season_and_anyone_reads_its_standings(staff_client, client, alice, bob):
    ladder = make_ladder(divisions=1)
    ends = (timezone.now() + timedelta(days=30)).isoformat()
    response = staff_client.post(f"/api/ladders/{ladder.pk}/seasons", {"ends_at": ends})
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 1 and response.json()["status"] == "open"
    play_ladder_match(ladder, alice, bob)
    body = client.get(f"/api/ladders/{ladder.pk}/seasons/1").json()
    assert body["final"] is False and body["divisions"] == 1
    assert [r["player"]["id"] for r in body["results"]] == [alice.pk, bob.pk]
    assert client.get(f"/api/ladders/{ladder.pk}/seasons").json()[0]["number"] == 1
    again = staff_client.post(f"/api/ladders/{ladder.pk}/seasons", {"ends_at": ends})
    assert again.status_code == 409 and again.json()["code"] == "season_open"
    seasons.season_close(season_id=Season.objects.get().pk, now=timezone.now() + timedelta(days=31))
    mine = client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}").json()["seasons"]
    assert mine[0]["rank"] == 1 and mine[0]["movement"] == "stayed"
    assert mine[0]["season"]["status"] == "closed"


def test_opening_a_season_is_refused_with_a_reason(staff_client, alice_client):
    ladder = make_ladder()
    url = f"/api/ladders/{ladder.pk}/seasons"
    past = (timezone.now() - timedelta(days=1)).isoformat()
    assert staff_client.post(url, {"ends_at": past}).json()["code"] == "invalid_season"
    assert staff_client.post(url, {"ends_at": "soon"}).status_code == 400
    future = (timezone.now() + timedelta(days=1)).isoformat()
    refused = alice_client.post(url, {"ends_at": future})
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert APIClient().post(url, {"ends_at": future}).status_code == 401
    assert not Season.objects.exists()


def test_a_bad_division_is_a_400(client):
    ladder = make_ladder()
    season = open_season(ladder)
    response = client.get(f"/api/ladders/{ladder.pk}/seasons/{season.number}", {"division": 0})
    assert response.status_code == 400 and "division" in response.json()["errors"]


def test_the_player_page_shows_their_seasons(client, alice, bob):
    ladder = make_ladder(name="Summer ladder")
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    page = client.get(f"/players/{alice.pk}").content.decode()
    assert "Seasons" in page and "Summer ladder" in page and "Stayed" in page


def test_staff_read_a_season_and_its_standings_in_the_admin(alice, bob):
    from django.test import Client

    ladder = make_ladder()
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    boss = PlayerFactory(user__username="admin", user__is_staff=True, user__is_superuser=True)
    browser = Client()
    browser.force_login(boss.user)
    page = browser.get(f"/admin/ladders/season/{season.pk}/change/")
    assert page.status_code == 200 and alice.name in page.content.decode()
    assert browser.get("/admin/ladders/season/add/").status_code == 403


@pytest.mark.parametrize("system", ["elo", "glicko2"])
def test_replay_pulls_at_each_close_as_the_close_did(system, alice, bob, charlie):
    ladder = make_ladder(rating_system=system, season_days=7, season_pull=0.5)
    season = open_season(ladder)
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(ladder, alice, charlie)
    seasons.season_close(season_id=season.pk, now=season.ends_at)
    play_ladder_match(ladder, bob, alice)
    second = Season.objects.get(ladder=ladder, number=2)
    seasons.season_close(season_id=second.pk, now=second.ends_at)
    report = services.ratings_replay(pool=ladder)
    assert (report.matches, report.mismatches, report.drifted) == (3, 0, 0), report
