"""What a move costs the database, and that the cheap answer is the true one.

The move's answer is the view the service pushed to the mover's sockets (rendered once under
the lock), not a fresh read: it must equal what a GET answers just after.
"""

import random

import pytest

from games.models import Match
from tests.play import active_game, move, pick, view

#: Queries of one move over the API in a timed game between people: the token's sign-in
#: (the token with its user and player), the savepoint (2), the match locked, the game read
#: under the lock (with the id of its deal in play), the action written, the game and the
#: match saved. The pushed views read the last finished deal from the match's state.
MOVE_QUERIES = 8
#: A move that ends a deal writes two more: the deal's outcome, and the next deal started
#: (the game's seeds are random, so whether one of the twelve moves below ends a deal is
#: left to chance).
DEAL_ENDING_QUERIES = 10
ENDINGS = ("knock", "gin", "big_gin")


@pytest.fixture
def timed_duel(alice_client, bob_client, bob):
    created = alice_client.post(
        "/api/matches",
        {
            "opponent": bob.pk,
            "target": 100,
            "best_of": 1,
            "time_control": {"base_seconds": 600, "increment_seconds": 2},
        },
        format="json",
    ).json()
    bob_client.post(f"/api/matches/{created['id']}/accept")
    return Match.objects.get(pk=created["id"]), {0: alice_client, 1: bob_client}


def test_a_move_costs_a_bounded_number_of_queries(timed_duel, django_assert_max_num_queries):
    match, clients = timed_duel
    rng = random.Random(3)
    for _ in range(12):
        game = active_game(match)
        seen = view(clients[0], game)
        if seen["pause"]:  # a deal ended (the seeds are random): both read it, the next starts
            for client in clients.values():
                assert client.post(f"/api/games/{game.pk}/continue").status_code == 200
            game = active_game(match)
        mover = clients[game.to_act]
        seen = view(mover, game)
        action = pick(seen["legal_actions"], rng, seen["hand"])
        bound = DEAL_ENDING_QUERIES if action["type"] in ENDINGS else MOVE_QUERIES
        with django_assert_max_num_queries(bound):
            answer = move(mover, game, seen["ply"], action)
        assert answer.status_code == 200, answer.content


def test_the_answer_to_a_move_is_the_view_a_read_gives_after_it(timed_duel):
    match, clients = timed_duel
    rng = random.Random(4)
    for _ in range(40):
        game = active_game(match)
        mover = clients[game.to_act]
        seen = view(mover, game)
        answer = move(mover, game, seen["ply"], pick(seen["legal_actions"], rng, seen["hand"]))
        assert answer.status_code == 200, answer.content
        after = mover.get(f"/api/games/{game.pk}")
        assert answer["ETag"] == after["ETag"]
        mine, read = answer.json(), after.json()
        for data in (mine, read):  # the clocks count down between the two
            for clock in data["clocks"]:
                clock.pop("remaining_ms"), clock.pop("turn_remaining_ms")
            if data["pause"]:
                data["pause"].pop("remaining_ms")
        assert mine == read
        assert mine["seq"] == seen["seq"] + 1 and mine["ply"] == seen["ply"] + 1
        if mine["pause"]:  # a deal ended: both read it, and the next one starts
            for client in clients.values():
                assert client.post(f"/api/games/{game.pk}/continue").status_code == 200


#: A game's view read in full by a player: the token's sign-in and the game with its match and
#: players. The last finished deal comes from the match's state (no query of the deals).
VIEW_QUERIES = 2


def test_a_view_costs_two_queries(timed_duel, django_assert_num_queries):
    match, clients = timed_duel
    rng = random.Random(5)
    for _ in range(30):
        game = active_game(match)
        if view(clients[0], game)["pause"]:
            for client in clients.values():
                assert client.post(f"/api/games/{game.pk}/continue").status_code == 200
            continue
        for client in clients.values():
            with django_assert_num_queries(VIEW_QUERIES):
                seen = view(client, game)
        mover = clients[game.to_act]
        seen = view(mover, game)
        assert move(mover, game, seen["ply"], pick(seen["legal_actions"], rng, seen["hand"]))


#: A move on the table socket, the socket's database call (games.consumers._move): the
#: savepoint (2), the match locked, the game read under the lock, the action written, the
#: game and match saved. Its token is not read again: it was checked as the socket opened,
#: and its revocation is pushed to the socket (common.sockets.still_signed_in). (On
#: PostgreSQL the three writes are one statement: tests/integration/test_play_prepared.py.)
SOCKET_MOVE_QUERIES = 7


def test_a_socket_move_costs_a_bounded_number_of_queries(
    timed_duel, alice, bob, django_assert_max_num_queries
):
    from common.sockets import still_signed_in
    from games.consumers import _move
    from tests.live import token_for

    match, clients = timed_duel
    players = {0: alice, 1: bob}
    scopes = {i: {"user": p.user, "token": token_for(p).encode()} for i, p in players.items()}
    for scope in scopes.values():
        assert still_signed_in(scope)  # as the socket's handshake checks its token
    rng = random.Random(6)
    moved = 0
    for number in range(12):
        game = active_game(match)
        seen = view(clients[0], game)
        if seen["pause"]:
            for client in clients.values():
                assert client.post(f"/api/games/{game.pk}/continue").status_code == 200
            continue
        index = game.to_act
        seen = view(clients[index], game)
        action = pick(seen["legal_actions"], rng, seen["hand"])
        bound = SOCKET_MOVE_QUERIES + (2 if action["type"] in ENDINGS else 0)
        message = {"type": "move", "id": f"m{number}", "ply": seen["ply"], "action": action}
        with django_assert_max_num_queries(bound):
            answer = _move(game.pk, players[index], message, 0, scopes[index])
        assert answer["type"] == "ack", answer
        moved += 1
    assert moved >= 8
