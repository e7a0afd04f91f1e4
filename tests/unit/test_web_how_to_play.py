"""The "How to play" page: every preset and scoring word, its numbers the engine's."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services
from games.engine import OKLAHOMA, STANDARD, EnteredHand, HandKind, card_index
from games.engine.game import score_game
from ladders import services as ladder_services
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db

TERMS = (
    "deadwood",
    "knock",
    "gin",
    "big gin",
    "undercut",
    "lay off",
    "box bonus",
    "game bonus",
    "shutout",
    "best of 5 to 250",
)


@pytest.fixture
def page() -> str:
    response = Client().get("/how-to-play")
    assert response.status_code == 200
    return response.content.decode()


def example(html: str, name: str) -> str:
    found = re.search(rf'data-example="{re.escape(name)}">([^<]*)<', html)
    assert found, f"no example {name!r} on the page"
    return found[1]


def plain(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", html).split()).lower()


def test_the_page_explains_every_preset_and_every_scoring_word(page):
    text = plain(page)
    for preset in ("standard gin", "oklahoma gin", "straight gin", "hollywood scoring"):
        assert preset in text
    for term in TERMS:
        assert term in text, term
    for question in ("clocks", "between two deals", "slow connection", "provisional", "fair play"):
        assert question in text, question


def test_the_examples_are_the_engines_scores(page):
    # Scored here by the engine as a score pad enters them: the page must say the same.
    hands = {
        "knock": EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(6, 31)),
        "undercut": EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(8, 5)),
        "gin": EnteredHand(HandKind.GIN, knocker=0, deadwood=(None, 12)),
        "big_gin": EnteredHand(HandKind.BIG_GIN, knocker=0, deadwood=(None, 12)),
    }
    for key, hand in hands.items():
        assert example(page, f"entered-{key}") == str(hand.score(STANDARD).points)
    oklahoma = EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(3, 20), upcard=card_index("4S"))
    assert example(page, "oklahoma-points") == str(oklahoma.score(OKLAHOMA).points)
    assert example(page, "oklahoma-limit") == str(OKLAHOMA.knock_limit_for(card_index("4S")))
    shutout = score_game(STANDARD, 0, (255, 0), (3, 0))
    assert example(page, "shutout-margin") == str(shutout.margin)
    assert example(page, "target") == str(STANDARD.target)
    assert example(page, "best-of") == str(STANDARD.best_of)
    assert example(page, "games-to-win") == str(STANDARD.games_to_win)


def test_the_header_the_lobby_and_the_table_link_to_it(db):
    alice = PlayerFactory(user__username="alice", name="Alice")
    bob = PlayerFactory(user__username="bob", name="Bob")
    client = Client()
    client.force_login(alice.user)
    match = services.match_create(player_a=alice, player_b=bob, best_of=1, target=50)
    game = match.games.get()
    for path in ("/", "/lobby", f"/games/{game.pk}", "/events"):
        assert 'href="/how-to-play"' in client.get(path).content.decode(), path
    assert 'id="lobby-how-to-play"' in client.get("/lobby").content.decode()
    assert 'id="table-how-to-play"' in client.get(f"/games/{game.pk}").content.decode()


def test_the_faq_names_each_open_ladders_provisional_rule(db):
    ladder_services.ladder_create(name="Weekend ladder", provisional_matches=12)
    text = plain(Client().get("/how-to-play").content.decode())
    assert "weekend ladder: elo, provisional for 12 rated matches" in text
