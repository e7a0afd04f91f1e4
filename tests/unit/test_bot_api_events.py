"""Bot events: an event may be for bots only; external bots enter with their own tokens; a
bot shows up for its match by being connected (its event stream open), and one that is not
connected when its match starts is a no-show like a person.

The cast: alice owns the bot Robo; bob is a person.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import Player
from games.models import Match
from tests.factories import BotFactory
from tests.live import published, run
from tests.tournaments import QUICK, event_with, pairing
from tests.unit.test_bot_api_streams import Stream, db
from tournaments import services
from tournaments.models import Entry, Event

LATER = timedelta(seconds=301)  # just past the default grace period of 300 s


@pytest.fixture
def robo(alice) -> Player:
    return accounts.bot_register(owner=alice, name="Robo")


def token_client(bot: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.bot_token_issue(bot=bot)[1]}")
    return client


def open_event(**options) -> Event:
    event = services.event_create(name="Bot cup", format="single_elim", **{**QUICK, **options})
    services.event_open_registration(event=event)
    return event


@pytest.mark.django_db
def test_an_external_bot_enters_an_event_with_its_token_and_withdraws(robo):
    event = open_event()
    client = token_client(robo)
    response = client.post(f"/api/events/{event.pk}/register")
    assert response.status_code == 201, response.content
    assert Entry.objects.get(event=event, player=robo).is_active
    response = client.post(f"/api/events/{event.pk}/withdraw")
    assert response.status_code == 200, response.content
    assert not Entry.objects.get(event=event, player=robo).is_active


@pytest.mark.django_db
def test_a_bot_not_connected_when_its_match_starts_is_a_no_show(robo, bob):
    event = event_with([robo, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    assert match.status == Match.Status.SCHEDULED  # the bot is not here
    services.match_ready(match=match, player=bob)
    services.no_shows_sweep(now=timezone.now() + LATER)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.NO_SHOW and match.winner_id == bob.pk


@pytest.mark.django_db(transaction=True)
def test_a_connected_bot_shows_up_when_its_match_starts(settings, robo):
    settings.BOT_STREAM_KEEPALIVE_SECONDS = 1
    from tests.live import fresh_layer

    fresh_layer()
    token = accounts.bot_token_issue(bot=robo)[1]
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    event = event_with([robo, gus], "single_elim")

    async def scenario():
        stream = await Stream.open("/api/bot/stream/event", token)
        assert stream.status == 200
        await db(services.event_start)(event=event)
        await db(published)()
        kinds, beats = [], 0
        while "game_start" not in kinds and beats < 5:  # keep-alives: a second each
            line = await stream.line(timeout=5)
            if line is None:
                beats += 1
            else:
                kinds.append(line["type"])
        await stream.close()
        return kinds

    kinds = run(scenario)
    assert (
        kinds[0] == "match_ready" and "game_start" in kinds
    )  # the match waiting for the bot, then it starts
    match = pairing(event, "R1.1").match
    assert match.status in (Match.Status.ACTIVE, Match.Status.FINISHED)
    shown = pairing(event, "R1.1")
    ready = shown.ready_a_at if shown.entry_a.player_id == robo.pk else shown.ready_b_at
    assert ready is not None


@pytest.mark.django_db(transaction=True)
def test_a_bot_that_connects_within_the_grace_period_shows_up_on_connecting(settings, robo, bob):
    settings.BOT_STREAM_KEEPALIVE_SECONDS = 1
    from tests.live import fresh_layer

    fresh_layer()
    token = accounts.bot_token_issue(bot=robo)[1]
    event = event_with([robo, bob], "single_elim")
    services.event_start(event=event)
    match = pairing(event, "R1.1").match
    services.match_ready(match=match, player=bob)
    assert Match.objects.get(pk=match.pk).status == Match.Status.SCHEDULED

    async def scenario():
        stream = await Stream.open("/api/bot/stream/event", token)
        line = await stream.event(timeout=5)
        await stream.close()
        return line

    line = run(scenario)
    assert line["type"] == "game_start" and line["match"] == match.pk
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
