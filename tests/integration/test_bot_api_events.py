"""Bot events and bot ladders over the wire: a real uvicorn serving config.asgi, the Redis
channel layer, the Celery worker playing the house bots, and the reference client
(clients/python) playing each external bot through its streams, in threads.

An open event stream is the bot being there: it shows up for its tournament matches when it
connects and when one is announced. A bot whose stream is closed is a no-show like a person.

The cast: alice owns the external bots Robo and Rex; Gus and Grace are house greedy bots; bob
is a person.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts import services as accounts
from accounts.models import Player
from games import selectors
from games.engine.match import Match as EngineMatch
from games.models import Action, Match
from ladders.models import LadderMatch, QueueEntry, Rating
from tests.factories import BotFactory
from tests.integration.conftest import ROOT, token_for, wait_for
from tests.integration.live import AsgiServer, api
from tests.ladders import make_ladder
from tournaments import services, tasks
from tournaments.models import Entry, Event, Pairing

sys.path.insert(0, str(ROOT / "clients" / "python"))
sys.path.insert(0, str(ROOT))  # ginrummy_bot.house plays the engine's strategies

from ginrummy_bot import ApiClient, Runner
from ginrummy_bot.house import Greedy

pytestmark = pytest.mark.django_db(transaction=True)

#: One game to the lowest target the API allows: a deal or two between greedy players (a
#: deal played over the API takes some seconds on a busy machine).
QUICK = {"best_of": 1, "target": 25}


@pytest.fixture
def server(tmp_path, celery_worker):
    started = AsgiServer(
        log_path=tmp_path / "uvicorn.log",
        channel_redis_url=settings.CHANNEL_REDIS_URL,
        env={"BOT_STREAM_KEEPALIVE_SECONDS": "1"},  # a stream's first line comes at once
    ).start()
    yield started
    started.stop()


@pytest.fixture
def robo(alice) -> Player:
    return accounts.bot_register(owner=alice, name="Robo")


@pytest.fixture
def rex(charlie) -> Player:
    """Another author's bot: two bots of one owner never meet on a rated ladder."""
    return accounts.bot_register(owner=charlie, name="Rex")


def token_of(bot: Player) -> str:
    return accounts.bot_token_issue(bot=bot)[1]


@contextmanager
def connected(server: AsgiServer, token: str, **options) -> Iterator[Runner]:
    """The reference client playing the engine's greedy strategy, once its event stream is
    open (its first line has come: the server has shown the bot up and joined it to its
    group by then)."""
    client = ApiClient(server.base_url, token, read_timeout=20)
    runner = Runner(client, Greedy(seed=5), backoff=(0.5, 2.0), **options)
    opened = threading.Event()
    events = client.events

    def events_told():
        for line in events():
            opened.set()
            yield line

    client.events = events_told
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        assert opened.wait(15), "the event stream did not open"
        yield runner
    finally:
        runner.stop()
        thread.join(25)


def assert_replays(match: Match) -> None:
    """The log replayed by the engine gives exactly the snapshot kept on the match row."""
    match.refresh_from_db()
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
    assert Action.objects.filter(deal__game__match=match).count() == match.ply


def finished_lines(runner: Runner) -> dict[int, dict]:
    return {line["match"]: line for line in runner.finished}


def test_a_bots_only_event_is_played_to_a_champion_by_external_and_house_bots(
    server, robo, rex, bob
):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    grace = BotFactory(name="Grace", bot_strategy="greedy")
    event = services.event_create(
        name="Bot cup",
        format="single_elim",
        bots_only=True,
        check_in_opens_at=timezone.now() - timedelta(minutes=1),
        **QUICK,
    )
    services.event_open_registration(event=event)
    tokens = {robo.pk: token_of(robo), rex.pk: token_of(rex)}

    # A person is refused; each external bot enters and checks in with its own token.
    status, refused = api(server, "POST", f"/api/events/{event.pk}/register", token_for("bob"))
    assert (status, refused.get("code")) == (403, "bots_only"), refused
    for token in tokens.values():
        status, body = api(server, "POST", f"/api/events/{event.pk}/register", token)
        assert status == 201, body
        status, body = api(server, "POST", f"/api/events/{event.pk}/check-in", token)
        assert status == 200, body
    for house in (gus, grace):
        services.entry_check_in(entry=services.entry_add(event=event, player=house))
    assert not Entry.objects.filter(event=event, player=bob).exists()

    with (
        connected(server, tokens[robo.pk]) as robo_runner,
        connected(server, tokens[rex.pk]) as rex_runner,
    ):
        services.event_start(event=event)
        event = wait_for(
            lambda: Event.objects.filter(pk=event.pk, status=Event.Status.FINISHED).first(),
            timeout=90,
            interval=0.5,
        )
        runners = {robo.pk: robo_runner, rex.pk: rex_runner}
        pairings = list(Pairing.objects.filter(event=event).select_related("match", "round"))
        matches = [p.match for p in pairings if p.match is not None]
        # Each bot hears of each of its matches ending (the last one may come just now).
        for bot_id, runner in runners.items():
            mine = {m.pk for m in matches if bot_id in (m.player_a_id, m.player_b_id)}
            wait_for(lambda r=runner, m=mine: m <= set(finished_lines(r)))

    assert event.champion_id is not None
    assert Entry.objects.filter(event=event, status__in=Entry.ACTIVE).count() == 4
    assert len(matches) == 3  # two semi-finals and the final
    externals = 0
    for match in matches:
        assert match.status == Match.Status.FINISHED, match
        # Played out, not forfeited: every bot was there and moved for itself.
        assert match.end_reason == Match.EndReason.GAMES, match.end_detail
        assert not Action.objects.filter(deal__game__match=match, auto=True).exists()
        for bot_id, runner in runners.items():
            if bot_id in (match.player_a_id, match.player_b_id):
                externals += 1
                moves = Action.objects.filter(deal__game__match=match, player_id=bot_id)
                assert moves.filter(auto=False).exists()
                line = finished_lines(runner)[match.pk]
                assert line["winner"]["id"] == match.winner_id
                assert line["end_reason"] == Match.EndReason.GAMES
        assert_replays(match)
    assert externals >= 2  # each external bot played at least its first match
    final = max(pairings, key=lambda p: p.round.number)
    assert final.match.winner_id == event.champion_id


def test_a_bot_not_connected_when_its_match_is_announced_is_a_no_show(server, robo, rex):
    event = services.event_create(
        name="Bot duel", format="single_elim", bots_only=True, grace_seconds=3, **QUICK
    )
    services.event_open_registration(event=event)
    tokens = {robo.pk: token_of(robo), rex.pk: token_of(rex)}
    for token in tokens.values():  # Rex enters, then goes away
        assert api(server, "POST", f"/api/events/{event.pk}/register", token)[0] == 201

    with connected(server, tokens[robo.pk]) as robo_runner:
        services.event_start(event=event)
        pairing = Pairing.objects.get(event=event)
        match = pairing.match
        # Robo's open stream showed it up; the match waits for Rex.
        robo_side = "ready_a_at" if pairing.entry_a.player_id == robo.pk else "ready_b_at"
        rex_side = "ready_b_at" if robo_side == "ready_a_at" else "ready_a_at"
        shown = wait_for(
            lambda: (
                Pairing.objects.filter(pk=pairing.pk, **{f"{robo_side}__isnull": False})
                .values(rex_side)
                .first()
            )
        )
        assert shown[rex_side] is None
        assert Match.objects.get(pk=match.pk).status == Match.Status.SCHEDULED
        # Past the grace period the worker's sweep forfeits the absent bot.
        wait_for(lambda: timezone.now() > match.start_deadline, timeout=10)
        assert tasks.sweep.delay().get(timeout=30)["no_shows"] == 1
        line = wait_for(lambda: finished_lines(robo_runner).get(match.pk))

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.NO_SHOW and match.winner_id == robo.pk
    assert line["winner"]["id"] == robo.pk and line["end_reason"] == Match.EndReason.NO_SHOW
    assert not Action.objects.filter(deal__game__match=match).exists()
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.champion_id == robo.pk


def test_two_external_bots_queue_on_a_bots_only_ladder_play_and_queue_again(server, robo, rex, bob):
    ladder = make_ladder(bots_only=True, **QUICK)
    status, refused = api(server, "POST", f"/api/ladders/{ladder.pk}/queue", token_for("bob"))
    assert (status, refused.get("code")) == (403, "bots_only"), refused
    assert not QueueEntry.objects.filter(player=bob).exists()

    bots = (robo.pk, rex.pk)
    with (
        connected(server, token_of(robo), ladder=ladder.pk) as robo_runner,
        connected(server, token_of(rex), ladder=ladder.pk) as rex_runner,
    ):
        first = wait_for(
            lambda: (
                LadderMatch.objects.filter(
                    ladder=ladder, match__status=Match.Status.FINISHED, processed_at__isnull=False
                )
                .select_related("match")
                .first()
            ),
            timeout=90,
            interval=0.5,
        ).match
        # Each client heard the match end and joined the queue again: they meet once more.
        wait_for(
            lambda: LadderMatch.objects.filter(ladder=ladder).exclude(match=first).exists(),
            timeout=30,
            interval=0.2,
        )
        for runner in (robo_runner, rex_runner):
            assert finished_lines(runner)[first.pk]["winner"]["id"] == first.winner_id

    assert {first.player_a_id, first.player_b_id} == set(bots)
    assert first.end_reason == Match.EndReason.GAMES, first.end_detail
    for bot_id in bots:
        moves = Action.objects.filter(deal__game__match=first, player_id=bot_id)
        assert moves.filter(auto=False).exists()
    assert not Action.objects.filter(deal__game__match=first, auto=True).exists()
    assert_replays(first)
    ratings = {r.player_id: r for r in Rating.objects.filter(ladder=ladder, player_id__in=bots)}
    winner, loser = first.winner_id, next(b for b in bots if b != first.winner_id)
    assert ratings[winner].rating > ladder.initial_rating > ratings[loser].rating
    assert ratings[winner].matches_played == ratings[loser].matches_played == 1
