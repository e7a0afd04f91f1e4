"""On PostgreSQL the hot path's statements are prepared once per connection (common.compiled):
a move's reads and writes and the token's sign-in run as prepared statements, every other
query keeps client-side binding, a move writes its action, game and match rows in one
statement, and the moves still give the log's state."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import selectors, services
from games.engine.match import Match as EngineMatch
from games.models import Action
from tests.integration.conftest import token_for
from tests.play import active_game, move, pick, view

pytestmark = pytest.mark.django_db(transaction=True)

#: Statements of a move over the API on PostgreSQL: the token's sign-in, BEGIN, the match
#: locked, the game read under the lock, one write of the action with the game and match rows,
#: COMMIT (8 when the three writes were a statement each).
MOVE_STATEMENTS = 6


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_moves_statements_are_prepared_and_the_log_is_the_state(alice, bob):
    assert connection.vendor == "postgresql"
    match = services.match_create(player_a=alice, player_b=bob, seed=5, best_of=1, target=100)
    clients = {}
    for index, player in enumerate((alice, bob)):
        clients[index] = APIClient()
        clients[index].credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user.username)}")
    rng = random.Random(5)
    counted = []
    for _ in range(20):
        game = active_game(match)
        mover = clients[game.to_act]
        seen = view(mover, game)
        action = pick(seen["legal_actions"], rng, seen["hand"])
        with CaptureQueriesContext(connection) as queries:
            answer = move(mover, game, seen["ply"], action)
        assert answer.status_code == 200, answer.content
        if action["type"] not in ("knock", "gin", "big_gin"):
            counted.append([q["sql"][:60] for q in queries.captured_queries])
    assert counted and {len(c) for c in counted} == {MOVE_STATEMENTS}, counted[0]
    statements = prepared_statements()
    assert any('FOR UPDATE OF "games_match"' in s for s in statements), statements
    assert any(
        s.startswith('WITH w0 AS (INSERT INTO "games_action"')
        and 'UPDATE "games_game" SET' in s
        and 'UPDATE "games_match" SET' in s
        for s in statements
    ), statements
    assert any('FROM "knox_authtoken"' in s for s in statements), statements
    # Django's own queries (the test's reads, the views' other reads) are not prepared: only
    # the hot path's few statements are held on the server.
    assert len(statements) <= 8, statements
    match.refresh_from_db()
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
    assert Action.objects.filter(deal__game__match=match).count() == match.ply


def test_one_write_of_several_rows_writes_all_or_nothing(alice, bob):
    from django.db import DatabaseError, IntegrityError, transaction
    from django.utils import timezone

    from common.compiled import write_rows
    from games.models import Deal

    match = services.match_create(player_a=alice, player_b=bob, seed=6, best_of=1, target=100)
    game = active_game(match)
    deal = Deal.objects.get(game=game)
    row = Action(
        deal=deal, ply=0, seat=0, player=alice, kind="pass", card="", melds=None, auto=False,
        lag_ms=0, client_id="", created_at=timezone.now(),
    )  # fmt: skip
    gone = active_game(match)
    gone.pk = 987_654_321  # no such row
    with pytest.raises(DatabaseError, match="no row to update"), transaction.atomic():
        write_rows([row], [(gone, None)])
    assert not Action.objects.filter(deal=deal).exists()
    Action.objects.create(
        deal=deal, ply=0, seat=0, player=alice, kind="pass", card="", created_at=timezone.now()
    )
    game.ply = 1
    with pytest.raises(IntegrityError), transaction.atomic():
        write_rows([row], [(game, None)])  # the ply is logged already
    assert active_game(match).ply == 0


#: Statements of a move on the table socket on PostgreSQL (games.consumers._move): BEGIN, the
#: match locked, the game read under the lock, the one write, COMMIT. The socket's token was
#: checked as it opened; its revocation is pushed to it (common.sockets.still_signed_in).
SOCKET_MOVE_STATEMENTS = 5


def test_a_socket_moves_statements_on_postgresql(alice, bob):
    from common.sockets import still_signed_in
    from games.consumers import _move

    match = services.match_create(player_a=alice, player_b=bob, seed=7, best_of=1, target=100)
    players = {0: alice, 1: bob}
    scopes = {
        index: {"user": player.user, "token": token_for(player.user.username).encode()}
        for index, player in players.items()
    }
    for scope in scopes.values():
        assert still_signed_in(scope)  # as the socket's handshake checks its token
    clients = {}
    for index, player in players.items():
        clients[index] = APIClient()
        clients[index].credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user.username)}")
    rng = random.Random(7)
    counted = []
    for number in range(20):
        game = active_game(match)
        index = game.to_act
        seen = view(clients[index], game)
        action = pick(seen["legal_actions"], rng, seen["hand"])
        message = {"type": "move", "id": f"m{number}", "ply": seen["ply"], "action": action}
        with CaptureQueriesContext(connection) as queries:
            answer = _move(game.pk, players[index], message, 0, scopes[index])
        assert answer["type"] == "ack", answer
        if action["type"] not in ("knock", "gin", "big_gin"):
            counted.append([q["sql"][:60] for q in queries.captured_queries])
    assert counted and {len(c) for c in counted} == {SOCKET_MOVE_STATEMENTS}, counted[0]
    match.refresh_from_db()
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
