"""The master bot as a house bot: the lobby lists it as the strongest, events add it, a
ladder takes it, and a match against it is played by the server."""

import pytest
from django.test import Client

from games import selectors, services
from games.engine.bots import BOTS
from games.engine.bots.master import MasterBot
from games.engine.match import Match as EngineMatch
from games.models import Match
from ladders import services as ladder_services
from tests.factories import BotFactory
from tournaments import services as tournament_services
from web import selectors as web_selectors

pytestmark = pytest.mark.django_db


def test_master_is_the_strongest_house_strength():
    strategies = [strategy for strategy, _ in web_selectors.BOT_STRENGTHS]
    assert strategies[-1] == "master"
    # Every registered strategy has its lobby group (other tests register "tests-" bots).
    assert set(strategies) == {name for name in BOTS if not name.startswith("tests-")}


def test_the_lobby_lists_a_master_bot_in_its_own_group_after_the_expert(alice):
    BotFactory(name="Ada (expert)", bot_strategy="expert")
    BotFactory(name="Magnus (master)", bot_strategy="master")
    client = Client()
    client.force_login(alice.user)
    page = client.get("/lobby").content.decode()
    page = page[page.index('<select id="opponent"') :]  # the custom game's list
    expert = page.index("Strong bots: expert, track the cards")
    master = page.index("Master bots: master, search the hidden cards")
    assert expert < master < page.index("Magnus (master)")


def test_an_event_adds_master_bots():
    event = tournament_services.event_create(name="Masters", format="single_elim")
    entries = tournament_services.bots_add(event=event, count=2, strategy="master")
    assert [e.player.bot_strategy for e in entries] == ["master", "master"]


def test_a_ladder_takes_a_master_bot():
    ladder = ladder_services.ladder_create(name="Bots", slug="bots-master")
    bot = BotFactory(name="Magnus (master)", bot_strategy="master")
    entry = ladder_services.queue_join(ladder=ladder, player=bot)
    assert entry.player == bot


@pytest.mark.django_db(transaction=True)
def test_the_server_plays_a_whole_match_of_the_master(monkeypatch):
    monkeypatch.setattr(MasterBot, "samples", 4)  # the same search, fewer samples: quicker
    magnus = BotFactory(name="Magnus (master)", bot_strategy="master")
    gus = BotFactory(name="Gus (greedy)", bot_strategy="greedy")
    match = services.match_create(player_a=magnus, player_b=gus, seed=31, target=30, best_of=1)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.end_reason == "games"
    replayed = EngineMatch.replay(selectors.match_log(match=match))
    assert replayed.games_won == list(match.games_won)
