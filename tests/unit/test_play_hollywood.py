"""Hollywood matches: three games scored at once, and nothing dealt after the match is decided.

A Hollywood game keeps three columns; a best-of-five match can be decided by one column while
the game's other columns are still open. The match then ends at once: the log, the replay and
the database hold no deal after the deciding one.
"""

from __future__ import annotations

import pytest

from games import services
from games.engine import HOLLYWOOD
from games.engine.bots import make_bot
from games.engine.match import Match as EngineMatch
from games.engine.views import view_for
from games.models import Deal, Game, Match
from games.selectors import match_log

pytestmark = pytest.mark.django_db

#: Best of five to 25: with two greedy players this seed's match is decided in its second
#: game while that game's third column is still open (the tests check it), in 118 moves.
RULES = HOLLYWOOD.replace(best_of=5, target=25)
SEED = 153


def greedy_moves(seed: int) -> list:
    """The moves two greedy players make in the match of ``seed``, played in the engine."""
    engine = EngineMatch(seed, RULES)
    bots = (make_bot("greedy", seed=1), make_bot("greedy", seed=2))
    moves = []
    while not engine.is_over:
        game = engine.game
        player = game.to_act_player
        action = bots[player].choose(view_for(game.deal, game.seat_of_player(player)))
        engine.apply(action, player)
        moves.append((player, action))
    return moves


def hollywood_match(alice, bob) -> Match:
    """Alice and Bob play the seed's match through the services, move by move."""
    match = services.match_create(player_a=alice, player_b=bob, rules=RULES, seed=SEED)
    players = (alice, bob)
    for player, action in greedy_moves(SEED):
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        services.action_submit(game_id=game.pk, player=players[player], ply=game.ply, action=action)
    match.refresh_from_db()
    return match


def test_hollywood_match_logs_no_empty_deal_after_it_was_decided(alice, bob):
    match = hollywood_match(alice, bob)

    assert match.status == Match.Status.FINISHED
    last = match.games.order_by("number").last()
    assert len(last.results) < 3, "the scenario: decided while a column was still open"
    deals = Deal.objects.filter(game__match=match)
    assert not deals.filter(actions__isnull=True).exists()
    assert set(deals.values_list("status", flat=True)) == {Deal.Status.FINISHED}
    log = match_log(match=match)
    for game in log["games"]:
        for deal in game["deals"]:
            assert deal["actions"] and deal["outcome"] is not None


def test_the_engine_log_of_a_decided_hollywood_match_ends_with_the_deciding_deal(alice, bob):
    match = hollywood_match(alice, bob)
    engine = EngineMatch.replay(match_log(match=match))

    assert engine.is_over and not engine.game.is_over  # decided with a column open
    last = engine.log_json()["games"][-1]["deals"][-1]
    assert last["actions"] and last["outcome"] is not None
    assert EngineMatch.replay(engine.log_json()).winner == engine.winner


def test_hollywood_counts_every_column_toward_the_match(alice, bob):
    match = hollywood_match(alice, bob)

    results = [r for game in match.games.order_by("number") for r in game.results]
    assert max(match.games_won_a, match.games_won_b) == HOLLYWOOD.replace(best_of=5).games_to_win
    assert match.games_won_a + match.games_won_b == len(results)
