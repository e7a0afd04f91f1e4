"""Glicko-2 ladders: three numbers per player, rated once, replayed, shown, and matchmaking."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from games.models import Match
from games.signals import match_finished
from ladders import services
from ladders.models import Rating, RatingChange
from ratings.elo import MatchResult
from ratings.glicko2 import GlickoSide, rate_match
from tests.ladders import humans, make_ladder, play_ladder_match, seed_ratings

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Glicko", rating_system="glicko2")


def test_a_new_member_starts_at_350_and_provisional(alice, ladder):
    rating = services.membership_ensure(ladder=ladder, player=alice)
    assert (rating.rating, rating.deviation, rating.volatility) == (1500, 350, 0.06)
    assert rating.provisional


def test_a_first_match_records_all_three_numbers(alice, bob, ladder):
    match = play_ladder_match(ladder, alice, bob)
    newcomer = GlickoSide(1500, 350, 0.06)
    expected = rate_match(newcomer, newcomer, MatchResult(0), ladder.glicko_config)[0]
    a = Rating.objects.get(ladder=ladder, player=alice)
    assert a.rating == pytest.approx(expected.after) and a.rating > 1600
    assert a.deviation == pytest.approx(expected.deviation_after) and a.deviation < 350
    assert a.volatility == pytest.approx(expected.volatility_after)
    change = RatingChange.objects.get(match=match, player=alice)
    assert (change.rating_before, change.deviation_before, change.volatility_before) == (
        1500,
        350,
        0.06,
    )
    assert change.rating_after == a.rating and change.deviation_after == a.deviation
    assert change.volatility_after == a.volatility
    assert change.expected == 0.5 and change.k > 0
    b = Rating.objects.get(ladder=ladder, player=bob)
    assert b.rating == pytest.approx(3000 - a.rating)


def test_the_receiver_run_twice_rates_once(alice, bob, ladder):
    match = play_ladder_match(ladder, alice, bob)
    before = list(Rating.objects.order_by("pk").values_list("rating", "deviation", "volatility"))
    match_finished.send(sender=Match, match=match)
    services.rating_apply(pool=ladder, match=match)
    after = list(Rating.objects.order_by("pk").values_list("rating", "deviation", "volatility"))
    assert after == before and RatingChange.objects.filter(match=match).count() == 2


def test_time_away_widens_the_deviation_the_next_match_finds(alice, bob, charlie, ladder):
    play_ladder_match(ladder, alice, bob)
    stored = Rating.objects.get(ladder=ladder, player=alice)
    Rating.objects.filter(pk=stored.pk).update(
        deviation=80, last_active=timezone.now() - timedelta(days=120)
    )
    stored.refresh_from_db()
    assert stored.deviation_now(timezone.now()) > stored.deviation + 10
    match = play_ladder_match(ladder, alice, charlie)
    change = RatingChange.objects.get(match=match, player=alice)
    assert change.deviation_before == pytest.approx(stored.deviation_now(match.finished_at))
    assert change.deviation_before > stored.deviation + 10


def test_provisional_ends_when_the_deviation_falls_below_the_threshold(alice, ladder):
    ladder.provisional_deviation = 200
    ladder.save()
    opponents = humans(8)
    rating = None
    for opponent in opponents:
        play_ladder_match(ladder, alice, opponent)
        rating = Rating.objects.get(ladder=ladder, player=alice)
        assert rating.provisional == (rating.deviation > 200)
    assert rating is not None and not rating.provisional


def test_replay_recomputes_a_glicko_pool_and_repairs_a_drift(alice, bob, charlie, ladder):
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(ladder, bob, charlie)
    play_ladder_match(ladder, charlie, alice)
    report = services.ratings_replay(pool=ladder)
    assert (report.matches, report.mismatches, report.drifted) == (3, 0, 0)
    Rating.objects.filter(ladder=ladder, player=bob).update(deviation=40)
    assert services.ratings_replay(pool=ladder).drifted == 1
    call_command("ladder_replay", ladder.slug, "--write")
    assert services.ratings_replay(pool=ladder).drifted == 0


def test_switching_a_pool_to_glicko_and_replaying_gives_every_player_a_deviation(alice, bob):
    pool = make_ladder(name="Switch")
    play_ladder_match(pool, alice, bob)
    assert Rating.objects.get(ladder=pool, player=alice).deviation is None
    pool.rating_system = "glicko2"
    pool.save()
    report = services.ratings_replay(pool=pool, write=True)
    assert report.mismatches == 2 and report.written == 2  # Elo's history differs
    a = Rating.objects.get(ladder=pool, player=alice)
    assert a.deviation < 350 and a.volatility == pytest.approx(0.06, abs=1e-3)


def test_margin_scoring_is_refused_for_glicko():
    with pytest.raises(ValidationError) as error:
        make_ladder(name="Bad", rating_system="glicko2", scoring="margin")
    assert "scoring" in error.value.message_dict


def test_the_leaderboard_shows_the_deviation_and_hides_provisional_ratings(client, ladder):
    players = humans(3)
    rows = seed_ratings(ladder, players, [1700, 1600, 1500])
    for row, deviation in zip(rows, [60, 150, 80], strict=True):
        Rating.objects.filter(pk=row.pk).update(
            deviation=deviation, volatility=0.06, provisional=deviation > 110
        )
    url = f"/api/ladders/{ladder.pk}/leaderboard"
    body = client.get(url).json()
    assert [r["deviation"] for r in body["results"]] == pytest.approx([60, 150, 80], abs=1)
    assert [r["volatility"] for r in body["results"]] == [0.06] * 3
    hidden = client.get(url, {"hide_provisional": "true"}).json()
    assert [r["player"]["id"] for r in hidden["results"]] == [players[0].pk, players[2].pk]


def test_the_history_carries_the_three_numbers(client, alice, bob, ladder):
    play_ladder_match(ladder, alice, bob)
    body = client.get(f"/api/ladders/{ladder.pk}/ratings/{alice.pk}/history").json()
    change = body["results"][0]
    assert change["deviation_before"] == 350 and change["deviation_after"] < 350
    assert change["volatility_before"] == 0.06 and change["volatility_after"] is not None
    settings = client.get(f"/api/ladders/{ladder.pk}").json()["rating_settings"]
    assert settings["system"] == "glicko2"
    assert settings["glicko2"]["provisional_deviation"] == 110


def test_an_uncertain_rating_is_paired_across_a_wider_gap(ladder):
    newcomer, settled, other = humans(3)
    rows = seed_ratings(ladder, [newcomer, settled, other], [1500, 1750, 1500])
    Rating.objects.filter(pk=rows[0].pk).update(deviation=350, volatility=0.06)
    Rating.objects.filter(pk=rows[1].pk).update(deviation=60, volatility=0.06)
    Rating.objects.filter(pk=rows[2].pk).update(deviation=60, volatility=0.06)
    services.queue_join(ladder=ladder, player=newcomer)
    services.queue_join(ladder=ladder, player=settled)
    # 250 apart: beyond the 50 a fresh window allows, within the newcomer's 50 + 240.
    result = services.matchmaker_pass(ladder_id=ladder.pk)
    assert len(result.matches) == 1
    services_match = Match.objects.get(pk=result.matches[0])
    assert {services_match.player_a_id, services_match.player_b_id} == {newcomer.pk, settled.pk}


def test_settled_ratings_250_apart_are_not_paired(ladder):
    a, b = humans(2)
    rows = seed_ratings(ladder, [a, b], [1500, 1750])
    Rating.objects.filter(pk__in=[r.pk for r in rows]).update(deviation=60, volatility=0.06)
    services.queue_join(ladder=ladder, player=a)
    services.queue_join(ladder=ladder, player=b)
    assert services.matchmaker_pass(ladder_id=ladder.pk).matches == []
