"""On PostgreSQL the hot path's statements are prepared once per connection (common.compiled):
a move's reads and writes and the token's sign-in run as prepared statements, every other
query keeps client-side binding, and the moves still give the log's state."""

import random

import pytest
from django.db import connection
from rest_framework.test import APIClient

from games import selectors, services
from games.engine.match import Match as EngineMatch
from games.models import Action
from tests.integration.conftest import token_for
from tests.play import active_game, move, pick, view

pytestmark = pytest.mark.django_db(transaction=True)


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
    for _ in range(20):
        game = active_game(match)
        mover = clients[game.to_act]
        seen = view(mover, game)
        answer = move(mover, game, seen["ply"], pick(seen["legal_actions"], rng, seen["hand"]))
        assert answer.status_code == 200, answer.content
    statements = prepared_statements()
    assert any('FOR UPDATE OF "games_match"' in s for s in statements), statements
    assert any(s.startswith('INSERT INTO "games_action"') for s in statements), statements
    assert any(s.startswith('UPDATE "games_match" SET') for s in statements), statements
    assert any('FROM "knox_authtoken"' in s for s in statements), statements
    # Django's own queries (the test's reads, the views' other reads) are not prepared: only
    # the hot path's few statements are held on the server.
    assert len(statements) <= 8, statements
    match.refresh_from_db()
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
    assert Action.objects.filter(deal__game__match=match).count() == match.ply
