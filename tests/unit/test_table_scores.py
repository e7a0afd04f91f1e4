"""What the table shows of the score and the clocks once a game is over or a turn ran out."""

import random
from datetime import timedelta

from games import selectors, services
from games.engine.actions import Action as EngineAction
from games.models import Deal, Game, TimeoutPolicy
from tests.play import active_game, pick, play_out, view

T = timedelta(seconds=1)


def duel(alice, bob, *, best_of=1, target=50, time_control=None):
    match = services.match_create(
        player_a=alice, player_b=bob, best_of=best_of, target=target, time_control=time_control
    )
    match.refresh_from_db()
    return match


def test_a_finished_game_shows_its_final_totals_and_hands_won(alice, bob, alice_client):
    match = play_out(duel(alice, bob, best_of=3), {0: alice, 1: bob}, random.Random(5))
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert len(games) >= 2
    for game in games:
        (result,) = game.results
        scores = view(alice_client, game)["scores"]
        assert scores["hand_points"] == result["hand_points"]
        assert scores["hands_won"] == result["hands_won"]
        assert sum(result["hands_won"]) >= 1
    # The row stops before the last deal: the view must not read it once the game is over.
    last = games[-1]
    assert [last.score_a, last.score_b] != last.results[0]["hand_points"]


def test_hands_won_are_shown_between_deals_too(alice, bob):
    timed = services.TimeControl(base_seconds=600, increment_seconds=0, pause_seconds=30)
    match = duel(alice, bob, target=500, time_control=timed)
    rng = random.Random(3)
    game = active_game(match)
    while not game.paused:
        player = alice if game.to_act == 0 else bob
        data = selectors.game_view(game=game, viewer=player)
        action = EngineAction.from_json(pick(data["legal_actions"], rng, data["hand"]))
        game = services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
    (deal,) = Deal.objects.filter(game=game, status=Deal.Status.FINISHED)
    scores = selectors.game_view(game=game, viewer=alice)["scores"]
    winner = deal.outcome["winner"]  # a seat, None for a drawn deal
    won = [0, 0]
    if winner is not None:
        won[winner ^ deal.swap] = 1
    assert scores["hands_won"] == won
    assert scores["hand_points"] == [game.score_a, game.score_b]


def turn_limited(alice, bob, policy=TimeoutPolicy.FORFEIT):
    timed = services.TimeControl(
        base_seconds=600, increment_seconds=0, turn_limit_seconds=15, timeout_policy=policy
    )
    return duel(alice, bob, best_of=3, time_control=timed)


def test_a_turn_limit_that_runs_out_keeps_the_rest_of_the_main_clock(alice, bob):
    match = turn_limited(alice, bob)
    game = active_game(match)
    loser, began = game.to_act, game.turn_began_at
    assert services.clock_settle(match_id=match.pk, now=began + 15 * T)
    game.refresh_from_db()
    assert game.clock_ms(loser) == 600_000 - 15_000
    assert game.forfeit_by == loser
    assert game.results[0]["reason"] == "ran out of time for the turn"
    clocks = selectors.game_view(game=game, viewer=alice, now=began + 20 * T)["clocks"]
    assert clocks[loser]["remaining_ms"] == 585_000
    assert selectors.clocks_from_log(game=game) == [game.clock_a_ms, game.clock_b_ms]


def test_a_main_clock_that_runs_out_is_at_zero_and_says_so(alice, bob):
    timed = services.TimeControl(base_seconds=10, increment_seconds=0, turn_limit_seconds=60)
    match = duel(alice, bob, best_of=3, time_control=timed)
    game = active_game(match)
    loser = game.to_act
    assert services.clock_settle(match_id=match.pk, now=game.turn_deadline)
    game.refresh_from_db()
    assert game.clock_ms(loser) == 0
    assert game.results[0]["reason"] == "ran out of time"
    assert selectors.clocks_from_log(game=game) == [game.clock_a_ms, game.clock_b_ms]


def test_an_autoplayed_turn_after_a_turn_limit_keeps_the_main_clock(alice, bob):
    match = turn_limited(alice, bob, policy=TimeoutPolicy.AUTOPLAY)
    game = active_game(match)
    sleeper, began = game.to_act, game.turn_began_at
    assert services.clock_settle(match_id=match.pk, now=began + 15 * T)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.to_act != sleeper
    assert game.clock_ms(sleeper) == 600_000 - 15_000
    assert selectors.clocks_from_log(game=game) == [game.clock_a_ms, game.clock_b_ms]
