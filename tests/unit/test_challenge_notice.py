"""A challenge as its notice shows it: the challenger's rating, the clock and the rules in
words, on the push and in the summary alike; and the refusals of a challenge answered or
withdrawn already, in words a person reads."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db
from django.test import Client
from django.utils import timezone

from games import services as play
from games.engine.rules import RuleSet
from games.live import challenge_message
from games.models import Match
from games.services import TimeControl
from games.sheets import rules_line
from ladders.models import LadderMatch, Rating
from tests.hidden import Secrets
from tests.ladders import make_ladder
from tests.live import fresh_layer, run
from tests.unit.test_live_me import me, quiet
from web.consumers import player_summary

pytestmark = pytest.mark.django_db(transaction=True)

OKLAHOMA_BEST_OF_3 = {"rules": "oklahoma", "best_of": 3, "target": 100}
BLITZ = TimeControl(base_seconds=300, increment_seconds=5, turn_limit_seconds=30)


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


def rate(player, ladder, *, rating, matches, provisional=False):
    return Rating.objects.create(
        ladder=ladder,
        player=player,
        rating=rating,
        peak=rating,
        matches_played=matches,
        provisional=provisional,
        last_active=timezone.now(),
    )


def test_the_offer_names_the_challengers_main_rating_the_clock_and_the_rules(alice, bob):
    # Alice played most of her rated matches in the Evening ladder: that rating is her main one.
    evening = make_ladder(name="Evening ladder")
    rate(alice, make_ladder(name="Blitz ladder"), rating=1790, matches=3)
    rate(alice, evening, rating=1612.34, matches=12)

    async def pushed():
        b = await me(bob)
        await db(play.challenge_create)(
            challenger=alice, opponent=bob, time_control=BLITZ, **OKLAHOMA_BEST_OF_3
        )
        offer = await b.receive("challenge")
        await quiet(b)
        return offer

    offer = run(pushed)
    assert offer["challenger_rating"] == {
        "rating": 1612.3,
        "provisional": False,
        "pool": {"id": evening.pk, "name": "Evening ladder"},
    }
    assert offer["clock"] == "5 min + 5 s, 30 s a turn"
    match = Match.objects.get(pk=offer["match"])
    assert offer["rules"] == rules_line(RuleSet.from_dict(match.rules))
    assert offer["rules"].startswith("Oklahoma · the first upcard sets the knock limit")
    assert offer["rules"].endswith("best of 3 to 100")

    # A page opened later reads the same offer from the summary.
    (listed,) = player_summary(player=bob)["challenges"]
    assert listed == offer


def test_an_unrated_challenger_shows_no_rating_and_an_untimed_challenge_says_so(alice, bob):
    match = play.challenge_create(challenger=alice, opponent=bob)
    message = challenge_message(match, "challenged")
    assert message["challenger_rating"] is None
    assert message["clock"] == "untimed"
    assert message["rules"].startswith("Standard · knock at 10 or less")


def test_a_match_a_pool_rates_shows_the_rating_in_that_pool(alice, bob):
    # Her main rating is elsewhere; the pool that rates this match has none of hers yet: a
    # newcomer's provisional initial rating there, not her main one.
    rate(alice, make_ladder(name="Other ladder"), rating=1900, matches=40)
    pool = make_ladder(name="Rated pool", initial_rating=1450)
    match = play.challenge_create(challenger=alice, opponent=bob)
    LadderMatch.objects.create(match=match, ladder=pool)
    rating = challenge_message(match, "challenged")["challenger_rating"]
    assert rating == {
        "rating": 1450.0,
        "provisional": True,
        "pool": {"id": pool.pk, "name": "Rated pool"},
    }


def test_the_accepted_answer_gives_away_nothing_of_the_deal(alice, bob):
    match = play.challenge_create(challenger=alice, opponent=bob)
    play.challenge_answer(match=match, player=bob, accept=True)
    match.refresh_from_db()
    message = challenge_message(match, "accepted")
    assert message["game"] is not None
    for viewer in (0, 1, None):
        assert Secrets.of(match, viewer).leaks(message) == []


def test_answering_a_withdrawn_challenge_is_refused_in_words(alice_client, bob_client, bob):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    assert alice_client.post(f"/api/matches/{created['id']}/cancel").status_code == 200
    for answer in ("accept", "decline"):
        response = bob_client.post(f"/api/matches/{created['id']}/{answer}")
        assert response.status_code == 409
        assert response.json()["code"] == "not_pending"
        assert response.json()["detail"] == "this challenge was withdrawn"


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        ("decline", "this challenge was declined already: there is nothing to withdraw"),
        ("accept", "this challenge was accepted already: there is nothing to withdraw"),
    ],
)
def test_withdrawing_an_answered_challenge_is_refused_in_words(
    alice_client, bob_client, bob, answer, detail
):
    created = alice_client.post("/api/matches", {"opponent": bob.pk}, format="json").json()
    assert bob_client.post(f"/api/matches/{created['id']}/{answer}").status_code == 200
    response = alice_client.post(f"/api/matches/{created['id']}/cancel")
    assert response.status_code == 409
    assert response.json()["code"] == "too_late"
    assert response.json()["detail"] == detail
    again = bob_client.post(f"/api/matches/{created['id']}/{answer}")
    assert again.status_code == 409 and again.json()["detail"].startswith("this challenge was")


def test_the_match_page_offers_the_challenger_a_withdraw_and_the_challenged_an_answer(
    alice, bob, charlie
):
    match = play.challenge_create(challenger=alice, opponent=bob)
    pages = {}
    for player in (alice, bob, charlie):
        web = Client()
        web.force_login(player.user)
        response = web.get(f"/matches/{match.pk}")
        pages[player.name] = (response.status_code, response.content.decode())
    status, page = pages["Alice"]
    assert status == 200
    assert f'data-url="/api/matches/{match.pk}/cancel">Withdraw the challenge<' in page
    assert 'data-answer="accept"' not in page
    status, page = pages["Bob"]
    assert status == 200
    assert 'data-answer="accept"' in page and 'data-answer="decline"' in page
    assert "Withdraw the challenge" not in page
    # Charlie may not even see another pair's challenge.
    assert pages["Charlie"][0] == 404
