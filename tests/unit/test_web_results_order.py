"""A match's result reads in one order on every page: the viewer's side first for a player,
the seats in order for anyone else; an organiser's decision said once."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services
from games.models import Match
from tests.factories import PlayerFactory
from web.templatetags.cards import match_result

pytestmark = pytest.mark.django_db


def plain(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", html).split()).lower()


@pytest.fixture
def decided() -> Match:
    ada = PlayerFactory(user__username="ada", name="Ada")
    bea = PlayerFactory(user__username="bea", name="Bea")
    match = services.match_create(player_a=ada, player_b=bea, best_of=3, target=50)
    services.match_forfeit(
        match=match,
        loser=ada,
        reason="decided by an organiser: left the venue",
        end_reason=Match.EndReason.ADMIN,
    )
    match.refresh_from_db()
    return match


def test_a_player_reads_their_own_side_first(decided):
    ada, bea = decided.player_a, decided.player_b
    assert (
        match_result(decided, ada) == "You lost 0\u20131 (decided by an organiser: left the venue)"
    )
    assert (
        match_result(decided, bea) == "You won 1\u20130 (decided by an organiser: left the venue)"
    )


def test_anyone_else_reads_the_seats_in_order(decided):
    assert match_result(decided, None) == (
        "Ada 0\u20131 Bea: Bea won (decided by an organiser: left the venue)"
    )
    other = PlayerFactory(name="Cy")
    assert match_result(decided, other) == match_result(decided, None)


def test_the_match_page_says_the_organisers_decision_once(decided):
    client = Client()
    client.force_login(decided.player_a.user)
    html = client.get(f"/matches/{decided.pk}").content.decode()
    result = re.search(r'<p class="match-result">([^<]*)</p>', html)[1]
    assert result == "You lost 0\u20131 (decided by an organiser: left the venue)."
    assert plain(html).count("decided by an organiser") <= 2  # the result and the game's row
