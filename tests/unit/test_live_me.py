"""The player's own socket ws/me: challenges, ladder pairings and tournament matches ready,
each to the right player and nobody else, and a summary of what is pending on connect."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import services as play
from games.models import Game, Match
from ladders import services as ladder_services
from tests.factories import BotFactory, UserFactory
from tests.ladders import make_ladder
from tests.live import Socket, fresh_layer, published, run, token_for
from tests.tournaments import event_with, pairing
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


async def me(player) -> Socket:
    """A signed-in player's own socket, past its summary."""
    socket = await Socket.open("/ws/me", token=await db(token_for)(player))
    socket.summary = await socket.receive("summary")
    return socket


async def quiet(*sockets: Socket) -> None:
    """None of these sockets receives anything more (after every push was handed over).

    The communicator ends the socket's application when a receive times out: call it last.
    """
    await db(published)()
    for socket in sockets:
        try:
            message = await socket.receive(timeout=0.3)
        except TimeoutError:
            continue
        raise AssertionError(f"unexpected message: {message}")


def test_a_challenge_reaches_the_challenged_and_the_answer_the_challenger(alice, bob, charlie):
    async def scenario():
        a, b, c = await me(alice), await me(bob), await me(charlie)
        match = await db(play.challenge_create)(challenger=alice, opponent=bob)
        offer = await b.receive("challenge")
        assert offer["status"] == "challenged" and offer["match"] == match.pk
        assert offer["challenger"]["id"] == alice.pk and offer["game"] is None
        await db(play.challenge_answer)(match=match, player=bob, accept=True)
        answer = await a.receive("challenge")
        game = await db(Game.objects.get)(match=match)
        assert answer["status"] == "accepted" and answer["game"] == game.pk
        await quiet(a, b, c)  # the challenger heard nothing of the offer; Charlie nothing

    run(scenario)


def test_a_declined_and_a_withdrawn_challenge(alice, bob, charlie):
    async def scenario():
        a, b, c = await me(alice), await me(bob), await me(charlie)
        first = await db(play.challenge_create)(challenger=alice, opponent=bob)
        await b.receive("challenge")
        await db(play.challenge_answer)(match=first, player=bob, accept=False)
        assert (await a.receive("challenge"))["status"] == "declined"
        second = await db(play.challenge_create)(challenger=alice, opponent=bob)
        await b.receive("challenge")
        await db(play.match_cancel)(match=second, player=alice)
        withdrawn = await b.receive("challenge")
        assert withdrawn["status"] == "withdrawn" and withdrawn["match"] == second.pk
        await quiet(a, b, c)

    run(scenario)


def test_a_ladder_pairing_reaches_both_players_with_the_table_to_open(alice, bob, charlie):
    ladder = make_ladder(name="Blitz")

    async def scenario():
        a, b, c = await me(alice), await me(bob), await me(charlie)
        await db(ladder_services.queue_join)(ladder=ladder, player=alice)
        await db(ladder_services.queue_join)(ladder=ladder, player=bob)  # the pass runs
        match = await db(Match.objects.get)(source=Match.Source.LADDER)
        game = await db(Game.objects.get)(match=match)
        for socket, opponent in ((a, bob), (b, alice)):
            paired = await socket.receive("pairing")
            assert paired["match"] == match.pk and paired["game"] == game.pk
            assert paired["opponent"]["id"] == opponent.pk and paired["ladder"]["name"] == "Blitz"
        await quiet(a, b, c)

    run(scenario)


def test_a_tournament_match_ready_reaches_its_players_then_its_start(alice, bob, charlie):
    event = event_with([alice, bob], "single_elim", grace_seconds=600)

    async def scenario():
        a, b, c = await me(alice), await me(bob), await me(charlie)
        await db(tournament_services.event_start)(event=event)
        match = (await db(pairing)(event, "R1.1")).match
        for socket in (a, b):
            ready = await socket.receive("match_ready")
            assert ready["status"] == "scheduled" and ready["match"] == match.pk
            assert ready["event"] == {"id": event.pk, "name": event.name}
            assert ready["deadline"] and ready["game"] is None and not ready["you_ready"]
        await db(tournament_services.match_ready)(match=match, player=alice)
        assert (await a.receive("match_ready"))["you_ready"] is True
        assert (await b.receive("match_ready"))["opponent_ready"] is True
        await db(tournament_services.match_ready)(match=match, player=bob)
        game = await db(Game.objects.get)(match=match)
        for socket in (a, b):
            started = await socket.receive("match_ready")
            assert started["status"] == "active" and started["game"] == game.pk
        await quiet(a, b, c)

    run(scenario)


def test_the_summary_on_connect_shows_what_is_pending(alice, bob, charlie):
    challenge = play.challenge_create(challenger=charlie, opponent=alice)
    # Alice is in a game with Bob when her tournament match is paired (no game can be begun
    # once it is ready).
    in_play = play.challenge_create(challenger=bob, opponent=alice)
    play.challenge_answer(match=in_play, player=alice, accept=True)
    event = event_with([alice, BotFactory(bot_strategy="greedy")], "single_elim")
    tournament_services.event_start(event=event)
    waiting = pairing(event, "R1.1").match

    async def scenario():
        a, c = await me(alice), await me(charlie)
        summary = a.summary
        assert [m["match"] for m in summary["challenges"]] == [challenge.pk]
        ready = summary["match_ready"]
        assert ready["match"] == waiting.pk and ready["status"] == "scheduled"
        deadline = timezone.now() + timedelta(seconds=event.grace_seconds)
        assert abs(datetime.fromisoformat(ready["deadline"]) - deadline).seconds < 5
        active = summary["active"]
        assert active["match"] == in_play.pk and active["opponent"]["id"] == bob.pk
        # Charlie's own summary holds nothing of Alice's.
        assert c.summary["challenges"] == [] and c.summary["match_ready"] is None
        assert c.summary["active"] is None
        await a.close()
        await c.close()

    run(scenario)


def test_anonymous_is_closed_4401_and_a_player_less_account_4403(alice):
    staff = UserFactory(is_staff=True)

    async def scenario():
        anonymous = await Socket.open("/ws/me")
        assert (await anonymous.receive())["code"] == 4401
        bad = await Socket.open("/ws/me", token="not-a-token")
        assert (await bad.receive())["code"] == 4401
        from knox.models import AuthToken

        _, token = await db(AuthToken.objects.create)(staff)
        nobody = await Socket.open("/ws/me", token=token)
        assert (await nobody.receive())["code"] == 4403

    run(scenario)


@pytest.mark.parametrize(
    ("message", "code"),
    [("{oops", "malformed"), ("[]", "malformed"), ('{"type": "accept"}', "unknown_type")],
)
def test_a_bad_message_is_answered_with_an_error_and_the_socket_stays_open(alice, message, code):
    async def scenario():
        a = await me(alice)
        await a.send(message)
        assert (await a.receive("error"))["code"] == code
        await a.send({"type": "sync"})
        assert (await a.receive("summary"))["challenges"] == []
        await a.close()

    run(scenario)
