"""The table socket, with Channels' communicator and the in-memory layer."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from games import services
from games.models import Action, Deal, Game
from tests.live import Socket, WebsocketCommunicator, fresh_layer, run, token_for
from tests.play import active_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_layer():
    fresh_layer()


@pytest.fixture
def table(alice, bob):
    """Alice (player A, to act first or second) v Bob, untimed, started."""
    match = services.match_create(player_a=alice, player_b=bob)
    return match, active_game(match)


def legal_move(game: Game, player) -> tuple[int, dict]:
    from games.selectors import game_view

    game.refresh_from_db()
    view = game_view(game=game, viewer=player)
    return view["ply"], view["legal_actions"][0]


def test_a_move_on_the_socket_reaches_the_opponent_as_their_own_view(table, alice, bob):
    _, game = table

    async def scenario():
        a = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        b = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(bob)
        )
        first_a, first_b = await a.receive("view"), await b.receive("view")
        assert first_a["seq"] == first_b["seq"] == 0
        assert first_a["view"]["you"] == 0 and first_b["view"]["you"] == 1
        mover, other = (a, b) if first_a["view"]["your_turn"] else (b, a)
        player = alice if mover is a else bob
        ply, action = await database_sync_to_async(legal_move)(game, player)
        await mover.send({"type": "move", "id": "m1", "ply": ply, "action": action})
        ack = await mover.receive("ack")
        assert ack == {"type": "ack", "id": "m1", "ply": ply}
        pushed = await other.receive("view")
        assert pushed["seq"] == 1 and pushed["view"]["ply"] == ply + 1
        # The opponent's own view: their hand, never the mover's.
        assert pushed["view"]["you"] == (1 if mover is a else 0)
        mine = await mover.receive("view")
        assert mine["seq"] == 1 and mine["view"]["hand"] != pushed["view"]["hand"]
        await a.close()
        await b.close()

    run(scenario)


def test_a_repeated_client_id_is_answered_again_and_applied_once(table, alice, bob):
    _, game = table

    async def scenario():
        player = alice if game.to_act == 0 else bob
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(player)
        )
        await s.receive("view")
        ply, action = await database_sync_to_async(legal_move)(game, player)
        move = {"type": "move", "id": "same", "ply": ply, "action": action}
        await s.send(move)
        assert (await s.receive("ack"))["ply"] == ply
        await s.send(move)
        again = await s.receive("ack")
        assert again["id"] == "same" and again["ply"] == ply and again["repeat"] is True
        await s.close()
        # After a reconnect too.
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(player)
        )
        await s.receive("view")
        await s.send(move)
        assert (await s.receive("ack"))["repeat"] is True
        await s.close()

    run(scenario)
    assert Action.objects.filter(deal__game=game, client_id="same").count() == 1
    game.refresh_from_db()
    assert game.ply == 1


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("not json", "malformed"),
        ("[1, 2]", "malformed"),
        ('{"no": "type"}', "malformed"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": "move", "ply": 0, "action": {"type": "draw_stock"}}', "invalid"),
        ('{"type": "move", "id": "x", "ply": "zero", "action": {"type": "draw_stock"}}', "invalid"),
        ('{"type": "move", "id": "x", "ply": 0, "action": {"type": "fly"}}', "invalid"),
        ('{"type": "move", "id": "x", "ply": 0, "action": "draw"}', "invalid"),
        (
            '{"type": "move", "id": "x", "ply": 0, "game": 999999, "action": {"type": "pass"}}',
            "wrong_game",
        ),
        ('{"type": "move", "id": "x", "ply": 7, "action": {"type": "pass"}}', "stale_ply"),
        (
            '{"type": "move", "id": "x", "ply": 0, "action": {"type": "discard", "card": "ZZ"}}',
            None,
        ),
        ('{"type": "continue"}', "not_paused"),
    ],
)
def test_every_refusal_is_an_error_message_the_socket_stays_open_and_nothing_is_written(
    table, alice, message, code
):
    _, game = table

    async def scenario():
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        await s.receive("view")
        await s.send(message)
        error = await s.receive("error")
        assert error["detail"]
        if code is not None:
            assert error["code"] == code, error
        # Still open: it answers a ping.
        await s.send({"type": "ping", "t": 5})
        assert (await s.receive("pong"))["t"] == 5
        await s.close()

    run(scenario)
    game.refresh_from_db()
    assert game.ply == 0 and game.seq == 0
    assert not Action.objects.filter(deal__game=game).exists()


def test_a_move_out_of_turn_gets_the_rest_apis_code(table, alice, bob):
    _, game = table
    waiting = bob if game.to_act == 0 else alice

    async def scenario():
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(waiting)
        )
        await s.receive("view")
        await s.send({"type": "move", "id": "x", "ply": 0, "action": {"type": "pass"}})
        error = await s.receive("error")
        assert error["code"] == "not_your_turn" and error["ply"] == 0 and error["id"] == "x"
        await s.close()

    run(scenario)


def test_a_spectator_watches_without_hidden_cards_and_cannot_move(table, alice, charlie):
    _, game = table

    async def scenario():
        watcher = await Socket.open(f"/ws/games/{game.pk}")  # anonymous
        view = (await watcher.receive("view"))["view"]
        assert view["you"] is None and view["hand"] is None and view["legal_actions"] == []
        await watcher.send({"type": "move", "id": "x", "ply": 0, "action": {"type": "pass"}})
        assert (await watcher.receive("error"))["code"] == "not_a_player"
        signed_in = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(charlie)
        )
        assert (await signed_in.receive("view"))["view"]["hand"] is None
        await watcher.close()
        await signed_in.close()

    run(scenario)


def test_a_missing_game_closes_4404_and_a_bad_token_4401(table):
    _, game = table

    async def scenario():
        missing = await Socket.open("/ws/games/999999")
        assert (await missing.receive())["code"] == 4404
        bad = await Socket.open(f"/ws/games/{game.pk}", token="not-a-token")
        assert (await bad.receive())["code"] == 4401

    run(scenario)


def test_a_private_challenge_has_no_game_to_watch(alice, bob):
    match = services.challenge_create(challenger=alice, opponent=bob)
    assert not Game.objects.filter(match=match).exists()


def test_a_handshake_from_another_sites_page_is_refused(table, settings):
    _, game = table
    settings.ALLOWED_HOSTS = ["rummy.example.org"]
    settings.DEBUG = False
    from channels.routing import URLRouter

    from common.sockets import socket_stack
    from config.routing import websocket_urlpatterns

    app = socket_stack(URLRouter(websocket_urlpatterns))

    async def scenario():
        evil = WebsocketCommunicator(
            app, f"/ws/games/{game.pk}", headers=[(b"origin", b"https://evil.example.com")]
        )
        connected, _ = await evil.connect(timeout=5)
        assert not connected
        own = WebsocketCommunicator(
            app,
            f"/ws/games/{game.pk}",
            headers=[(b"host", b"rummy.example.org"), (b"origin", b"https://rummy.example.org")],
        )
        own.scope["scheme"] = "wss"
        connected, _ = await own.connect(timeout=5)
        assert connected
        await own.disconnect()
        program = WebsocketCommunicator(app, f"/ws/games/{game.pk}")  # no Origin at all
        connected, _ = await program.connect(timeout=5)
        assert connected
        await program.disconnect()

    run(scenario)


def test_too_many_messages_are_throttled_and_a_huge_one_refused(table, alice, settings):
    settings.SOCKET_RATE_PER_SECOND = 5
    settings.SOCKET_MAX_MESSAGE_BYTES = 1000
    _, game = table

    async def scenario():
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        await s.receive("view")
        await s.send(json.dumps({"type": "ping", "pad": "x" * 2000}))
        assert (await s.receive("error"))["code"] == "too_large"
        codes = []
        for _ in range(15):
            await s.send({"type": "sync"})
        for _ in range(15):
            message = await s.receive()
            codes.append(message.get("code") or message["type"])
        assert "throttled" in codes and "view" in codes
        await s.close()

    run(scenario)


def test_presence_says_when_the_opponent_leaves(table, alice, bob):
    _, game = table

    async def scenario():
        a = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        b = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(bob)
        )
        while True:
            state = (await a.receive("presence"))["players"]
            if state[1]["connected"]:
                break
        await b.close()
        state = (await a.receive("presence"))["players"]
        assert state[0]["connected"] and not state[1]["connected"]
        assert state[1]["away_since"] is not None
        await a.close()

    run(scenario)


def test_pong_answers_measure_the_lag(table, alice):
    _, game = table

    async def scenario():
        s = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        ping = await s.receive("ping")
        await s.send({"type": "pong", "id": ping["id"]})
        lag = await s.receive("lag")
        assert lag["lag_ms"] >= 0
        await s.close()

    run(scenario)


# --- the pause between deals --------------------------------------------------------------


def _end_a_deal(match, players) -> Game:
    """Play the match's current deal to its end through the services (quick legal moves)."""
    import random

    from games.engine.actions import Action as EngineAction
    from games.selectors import game_view
    from tests.play import pick

    rng = random.Random(3)
    game = active_game(match)
    deal = game.deals.order_by("-number").first().number
    for _ in range(500):
        game.refresh_from_db()
        if game.paused or game.status != Game.Status.ACTIVE:
            return game
        if game.deals.order_by("-number").first().number != deal:
            return game
        player = players[game.to_act]
        data = game_view(game=game, viewer=player)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
    raise AssertionError("the deal did not end")


@pytest.fixture
def timed(alice, bob):
    match = services.match_create(
        player_a=alice,
        player_b=bob,
        time_control=services.TimeControl(base_seconds=300, pause_seconds=15),
    )
    return match


def test_after_a_deal_no_clock_runs_until_both_continue(
    timed, alice, bob, alice_client, bob_client
):
    from datetime import timedelta

    from django.utils import timezone

    game = _end_a_deal(timed, {0: alice, 1: bob})
    assert game.paused and game.turn_deadline is None
    view = alice_client.get(f"/api/games/{game.pk}").json()
    assert view["pause"]["continued"] == [False, False] and view["pause"]["remaining_ms"] > 14_000
    assert view["hand"] is None and view["legal_actions"] == [] and view["last_deal"] is not None
    assert not any(clock["running"] for clock in view["clocks"])
    clocks = [clock["remaining_ms"] for clock in view["clocks"]]
    # A move is refused during the pause.
    refused = alice_client.post(
        f"/api/games/{game.pk}/actions", {"ply": game.ply, "type": "draw_stock"}, format="json"
    )
    assert refused.status_code == 409 and refused.json()["code"] == "paused"
    # Ten seconds on, the clocks have not moved.
    later = timezone.now() + timedelta(seconds=10)
    game.refresh_from_db()
    from games.selectors import game_view

    assert [
        c["remaining_ms"] for c in game_view(game=game, viewer=alice, now=later)["clocks"]
    ] == clocks
    first = alice_client.post(f"/api/games/{game.pk}/continue")
    assert first.status_code == 200 and first.json()["pause"]["continued"] == [True, False]
    second = bob_client.post(f"/api/games/{game.pk}/continue")
    assert second.status_code == 200 and second.json()["pause"] is None
    game.refresh_from_db()
    assert not game.paused and game.turn_deadline is not None
    assert bob_client.post(f"/api/games/{game.pk}/continue").json()["code"] == "not_paused"


def test_the_pause_runs_out_by_itself_and_the_clock_starts_then(timed, alice, bob):
    from datetime import timedelta

    game = _end_a_deal(timed, {0: alice, 1: bob})
    deadline = game.pause_deadline
    assert services.clocks_sweep(now=deadline - timedelta(seconds=1)) == 0
    assert services.clocks_sweep(now=deadline + timedelta(milliseconds=5)) == 1
    game.refresh_from_db()
    assert not game.paused and game.clock_charged_at == deadline
    assert game.turn_deadline == deadline + timedelta(milliseconds=game.clock_ms(game.to_act))


def test_a_bot_continues_at_once_and_waits_for_the_person(alice):
    from tests.factories import BotFactory

    bot = BotFactory(bot_strategy="greedy")
    match = services.match_create(
        player_a=alice, player_b=bot, time_control=services.TimeControl(base_seconds=300)
    )
    game = _end_a_deal_vs_bot(match, alice)
    assert game.paused and game.continued == 2
    ply = game.ply
    finished = Deal.objects.filter(game=game, status=Deal.Status.FINISHED).count()
    services.game_continue(game_id=game.pk, player=alice)
    game.refresh_from_db()
    # The next deal has started: the person's turn, or the bot has played in it already; a
    # greedy bot dealt a knock may even end that deal at once, and then waits again.
    ended_at_once = Deal.objects.filter(game=game, status=Deal.Status.FINISHED).count() > finished
    assert ended_at_once or (not game.paused and (game.to_act == 0 or game.ply > ply))


def _end_a_deal_vs_bot(match, alice) -> Game:
    import random

    from games.engine.actions import Action as EngineAction
    from games.selectors import game_view
    from tests.play import pick

    rng = random.Random(5)
    for _ in range(500):
        game = active_game(match)
        if game.paused:
            return game
        data = game_view(game=game, viewer=alice)
        if not data["your_turn"]:
            raise AssertionError("the bot did not reply inline")
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(game_id=game.pk, player=alice, ply=game.ply, action=action)
    raise AssertionError("the deal did not end")


def test_continue_on_the_socket_and_the_views_pushed_in_order(timed, alice, bob):
    game = _end_a_deal(timed, {0: alice, 1: bob})

    async def scenario():
        a = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        b = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(bob)
        )
        seq = (await a.receive("view"))["seq"]
        await b.receive("view")
        await a.send({"type": "continue"})
        assert (await a.receive("ack"))["continued"] is True
        await b.send({"type": "continue"})
        await b.receive("ack")
        pushed = [await a.receive("view"), await a.receive("view")]
        assert [p["seq"] for p in pushed] == [seq + 1, seq + 2]
        assert pushed[0]["view"]["pause"]["continued"] == [True, False]
        assert pushed[1]["view"]["pause"] is None and pushed[1]["view"]["hand"]
        await a.close()
        await b.close()

    run(scenario)


def test_lag_measured_on_the_socket_is_credited_to_the_movers_clock(timed, alice, bob):
    from datetime import timedelta

    game = active_game(timed)
    mover = alice if game.to_act == 0 else bob
    index = game.to_act
    before = game.clock_ms(index)
    later = game.clock_charged_at + timedelta(seconds=2)
    ply, action = legal_move(game, mover)
    from games.engine.actions import Action as EngineAction

    services.action_submit(
        game_id=game.pk,
        player=mover,
        ply=ply,
        action=EngineAction.from_json(action),
        now=later,
        lag_ms=300,
    )
    game.refresh_from_db()
    logged = Action.objects.get(deal__game=game, ply=0)
    assert logged.lag_ms == 300
    # Charged 2 s less the 300 ms of lag (plus the increment if the turn passed: none here).
    assert game.clock_ms(index) == before - 2000 + 300
    # At most the bank (one quota) on the first move, whatever is claimed.
    game2 = services.match_create(
        player_a=alice, player_b=bob, time_control=services.TimeControl(base_seconds=300)
    )
    g = active_game(game2)
    mover = alice if g.to_act == 0 else bob
    ply, action = legal_move(g, mover)
    services.action_submit(
        game_id=g.pk,
        player=mover,
        ply=ply,
        action=EngineAction.from_json(action),
        now=g.clock_charged_at + timedelta(seconds=3),
        lag_ms=5000,
    )
    assert Action.objects.get(deal__game=g, ply=0).lag_ms == services.LAG_QUOTA_MS


def test_no_lag_credit_without_lag_compensation(alice, bob):
    from datetime import timedelta

    from games.engine.actions import Action as EngineAction

    match = services.match_create(
        player_a=alice,
        player_b=bob,
        time_control=services.TimeControl(base_seconds=300, lag_compensation=False),
    )
    game = active_game(match)
    mover = alice if game.to_act == 0 else bob
    ply, action = legal_move(game, mover)
    services.action_submit(
        game_id=game.pk,
        player=mover,
        ply=ply,
        action=EngineAction.from_json(action),
        now=game.clock_charged_at + timedelta(seconds=2),
        lag_ms=300,
    )
    assert Action.objects.get(deal__game=game, ply=0).lag_ms == 0


def test_a_socket_whose_token_is_revoked_moves_no_more(table, alice, bob):
    _, game = table
    player = alice if game.to_act == 0 else bob

    async def scenario():
        token = await database_sync_to_async(token_for)(player)
        s = await Socket.open(f"/ws/games/{game.pk}", token=token)
        await s.receive("view")
        from knox.models import AuthToken

        await database_sync_to_async(lambda: AuthToken.objects.filter(user=player.user).delete())()
        # The revocation is pushed to the socket: it closes without being asked.
        error = await s.receive("error")
        assert error["code"] == "not_authenticated"
        assert (await s.receive("closed"))["code"] == 4401
        # A move sent after the close is not played, and nothing goes out (an ASGI server
        # refuses a send then).
        ply, action = await database_sync_to_async(legal_move)(game, player)
        await s.send({"type": "move", "id": "late", "ply": ply, "action": action})
        await s.send({"type": "sync"})
        assert await s.communicator.receive_nothing(timeout=0.3)

    run(scenario)
    game.refresh_from_db()
    assert game.ply == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_socket_message_names_a_card_its_viewer_may_not_know(alice, bob, seed):
    """Random games between people, watched by both players and a spectator: after every
    move each socket gets one view, and none names a hidden card (the hands' and the stock's)."""
    import random

    from games.engine.actions import Action as EngineAction
    from games.selectors import game_view
    from tests.play import pick
    from tests.unit.test_security_hidden_info import cards_in, hidden_cards, leaked

    match = services.match_create(player_a=alice, player_b=bob, seed=seed, best_of=1, target=50)
    game = active_game(match)
    players = {0: alice, 1: bob}
    rng = random.Random(seed)

    def move() -> bool:
        game.refresh_from_db()
        match.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return False
        player = players[game.to_act]
        data = game_view(game=game, viewer=player)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
        return True

    async def scenario():
        sockets = {
            0: await Socket.open(
                f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
            ),
            1: await Socket.open(
                f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(bob)
            ),
            None: await Socket.open(f"/ws/games/{game.pk}"),
        }
        for socket in sockets.values():
            await socket.receive("view")
        checked = 0
        for _ in range(80):
            if not await database_sync_to_async(move)():
                break
            for index, socket in sockets.items():
                message = await socket.receive("view")
                hidden = await database_sync_to_async(hidden_cards)(match, index)
                body = {k: v for k, v in message["view"].items() if k != "last_deal"}
                assert not leaked(json.dumps(body), hidden), (index, message["seq"])
                checked += 1
        assert checked >= 60
        for socket in sockets.values():
            # Nothing else a socket received (presence, pings, lag) names a card at all.
            for other in socket.seen:
                if other["type"] != "view":
                    assert not cards_in(json.dumps(other)), other
            await socket.close()

    run(scenario)


def test_the_clocks_replay_from_the_log_with_pauses_and_lag_credits(alice, bob):
    """A timed match between people, moves at varied times and with varied lag, across
    deals and their pauses: the clocks recomputed from the log equal the clocks kept."""
    import random
    from datetime import timedelta

    from games.engine.actions import Action as EngineAction
    from games.selectors import clocks_from_log, game_view
    from tests.play import pick

    def new_match():
        return services.match_create(
            player_a=alice,
            player_b=bob,
            best_of=1,
            target=60,
            time_control=services.TimeControl(
                base_seconds=600, increment_seconds=2, pause_seconds=9
            ),
        )

    match = new_match()
    players = {0: alice, 1: bob}
    rng = random.Random(11)
    now = active_game(match).clock_charged_at
    checked = pauses = 0
    for _ in range(400):  # the deals are shuffled at random: a match can end early
        game = active_game(match)
        now += timedelta(milliseconds=rng.randint(50, 4000))
        if game.paused:
            pauses += 1
            if rng.random() < 0.5:  # both continue at once, or the pause runs out
                for player in players.values():
                    services.game_continue(game_id=game.pk, player=player, now=now)
            else:
                now = game.pause_deadline + timedelta(milliseconds=rng.randint(1, 900))
                services.clocks_sweep(now=now)
            continue
        player = players[game.to_act]
        data = game_view(game=game, viewer=player, now=now)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        services.action_submit(
            game_id=game.pk,
            player=player,
            ply=game.ply,
            action=action,
            now=now,
            lag_ms=rng.choice([0, 0, 40, 180, 900]),
        )
        game.refresh_from_db()
        assert clocks_from_log(game=game) == [game.clock_a_ms, game.clock_b_ms]
        checked += 1
        match.refresh_from_db()
        if match.status != "active":
            if checked > 50 and pauses >= 1:
                break
            match = new_match()
            now = active_game(match).clock_charged_at
    assert checked > 50 and pauses >= 1
    assert Action.objects.filter(deal__game__match=match, lag_ms__gt=0).exists()


def test_a_push_is_not_held_back_by_a_busy_request_thread(table, alice):
    """Django runs a process's synchronous views on one thread; a push to a socket must not
    wait for it (Channels' consumers check the database connections there before each
    message unless told otherwise)."""
    import asyncio
    import threading

    from asgiref.sync import sync_to_async
    from channels.layers import get_channel_layer

    from games import live

    _, game = table
    hold = 30.0  # the request holds its thread until the push has arrived, or this long

    async def scenario():
        a = await Socket.open(
            f"/ws/games/{game.pk}", token=await database_sync_to_async(token_for)(alice)
        )
        seq = (await a.receive("view"))["seq"]
        release = threading.Event()
        started = threading.Event()

        def slow_request():
            started.set()
            release.wait(hold)

        busy = asyncio.ensure_future(sync_to_async(slow_request)())
        while not started.is_set():
            await asyncio.sleep(0.01)
        text = json.dumps({"type": "view", "seq": seq + 1, "view": {}})
        await get_channel_layer().group_send(
            live.group(game.pk, 0), {"type": "game.view", "seq": seq + 1, "text": text}
        )
        try:
            pushed = await a.receive("view", timeout=hold / 2)
            request_still_busy = not busy.done()
        finally:
            release.set()
        await busy
        await a.close()
        return pushed, request_still_busy

    pushed, request_still_busy = run(scenario)
    assert pushed["seq"] == 1
    assert request_still_busy, "the push waited for the request thread"
