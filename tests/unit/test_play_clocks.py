"""Clocks of timed games: charged by the server, Fischer increment, timeouts, the sweep."""

import random
import threading
from datetime import timedelta

import pytest

from games import selectors, services
from games.engine.actions import Action as EngineAction
from games.models import Action, Game, Match, TimeoutPolicy
from tests.play import active_game

T = timedelta(seconds=1)


def timed_duel(
    alice,
    bob,
    *,
    seed=None,
    base=60,
    increment=5,
    turn_limit=None,
    policy="forfeit",
    best_of=3,
    target=50,
):
    match = services.match_create(
        player_a=alice,
        player_b=bob,
        best_of=best_of,
        target=target,
        seed=seed,
        time_control=services.TimeControl(base, increment, turn_limit, policy),
    )
    match.refresh_from_db()
    return match


def act(match, kind, at, **extra):
    game = active_game(match)
    player = match.player_a if game.to_act == 0 else match.player_b
    action = EngineAction.from_parts(kind, extra.get("card"))
    return services.action_submit(
        game_id=game.pk, player=player, ply=game.ply, action=action, now=at
    )


@pytest.fixture
def duel(alice, bob):
    return timed_duel(alice, bob)


def test_a_new_game_gives_both_players_the_base_time_and_a_deadline(duel):
    game = active_game(duel)
    assert (game.clock_a_ms, game.clock_b_ms) == (60_000, 60_000)
    assert game.turn_deadline == game.clock_charged_at + 60 * T


def test_time_is_charged_from_when_the_turn_became_yours_plus_the_increment(duel):
    game = active_game(duel)
    mover, start = game.to_act, game.clock_charged_at
    game = act(duel, "pass", start + 10 * T)
    assert game.clock_ms(mover) == 60_000 - 10_000 + 5_000
    assert game.clock_ms(1 - mover) == 60_000
    assert game.turn_deadline == start + 10 * T + 60 * T


def test_the_increment_comes_only_when_the_turn_is_complete(duel):
    start = active_game(duel).clock_charged_at
    act(duel, "pass", start + T)
    act(duel, "pass", start + 2 * T)
    drawer = active_game(duel).to_act
    game = act(duel, "draw_stock", start + 5 * T)
    assert game.to_act == drawer, "after drawing the same player discards"
    assert game.clock_ms(drawer) == 60_000 + 5_000 - 1_000 - 3_000 - 0
    hand_card = _any_discard(duel)
    game = act(duel, "discard", start + 7 * T, card=hand_card)
    assert game.clock_ms(drawer) == 60_000 + 5_000 - 1_000 - 3_000 - 2_000 + 5_000


def _legal(match) -> list[dict]:
    """The legal actions of the player to act."""
    game = active_game(match)
    player = match.player_a if game.to_act == 0 else match.player_b
    return selectors.game_view(game=game, viewer=player)["legal_actions"]


def _any_discard(match):
    return next(a["card"] for a in _legal(match) if a["type"] == "discard")


def test_running_out_forfeits_the_game_and_the_next_game_starts(duel):
    game = active_game(duel)
    loser = game.to_act
    assert services.clock_settle(match_id=duel.pk, now=game.turn_deadline - T) is False
    assert services.clock_settle(match_id=duel.pk, now=game.turn_deadline) is True
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.clock_ms(loser) == 0
    (result,) = game.results
    assert result["winner"] == 1 - loser and result["termination"] == "forfeit"
    assert result["reason"] == "ran out of time"
    duel.refresh_from_db()
    assert duel.status == Match.Status.ACTIVE and duel.games_won[1 - loser] == 1
    assert active_game(duel).number == 1


def test_a_move_arriving_after_the_deadline_loses_on_time_instead(duel):
    game = active_game(duel)
    before = Action.objects.count()
    with pytest.raises(services.Conflict) as refused:
        act(duel, "pass", game.turn_deadline + T)
    assert refused.value.code == "game_over"
    game.refresh_from_db()
    assert game.results[0]["termination"] == "forfeit" and Action.objects.count() == before


def test_the_per_turn_limit_ends_a_turn_before_the_clock_does(alice, bob):
    match = timed_duel(alice, bob, base=600, turn_limit=15)
    game = active_game(match)
    assert game.turn_deadline == game.turn_began_at + 15 * T
    services.clock_settle(match_id=match.pk, now=game.turn_began_at + 15 * T)
    game.refresh_from_db()
    assert game.results[0]["termination"] == "forfeit"
    assert game.clock_ms(game.forfeit_by) == 600_000 - 15_000, "the main clock is not used up"


def test_the_view_shows_what_is_left_of_the_turn_beside_the_clock(alice, bob):
    match = timed_duel(alice, bob, base=600, turn_limit=15)
    game = active_game(match)
    clocks = selectors.game_view(game=game, viewer=alice, now=game.turn_began_at + 4 * T)["clocks"]
    running = clocks[game.to_act]
    assert running["running"] and running["turn_remaining_ms"] == 11_000
    assert running["remaining_ms"] == 596_000
    assert clocks[1 - game.to_act]["turn_remaining_ms"] is None
    untimed_turns = timed_duel(alice, bob, base=600)
    game = active_game(untimed_turns)
    clocks = selectors.game_view(game=game, viewer=alice, now=game.turn_began_at)["clocks"]
    assert [c["turn_remaining_ms"] for c in clocks] == [None, None]


def test_autoplay_moves_for_a_player_out_of_time_and_three_in_a_row_forfeit(alice, bob):
    # To 250: an autoplayed knock cannot end the game before the third timeout in a row (no
    # two deals make 250), whatever the shuffle.
    match = timed_duel(alice, bob, increment=0, policy=TimeoutPolicy.AUTOPLAY, target=250)
    game = active_game(match)
    sleeper = game.to_act
    now = game.turn_deadline
    autoplayed_turns = 0
    while game.status == Game.Status.ACTIVE and autoplayed_turns < 5:
        if game.paused:  # an autoplayed knock ended the deal: both read it, the next starts
            for player in (alice, bob):
                services.game_continue(game_id=game.pk, player=player, now=now)
        elif game.to_act == sleeper:
            assert services.clock_settle(match_id=match.pk, now=now)
            autoplayed_turns += 1
        else:  # the opponent plays their turn at once
            legal = {a["type"] for a in _legal(match)}
            act(match, "pass" if "pass" in legal else "draw_stock", now)
            game = active_game(match)
            if game.to_act != sleeper:
                act(match, "discard", now, card=_any_discard(match))
        game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED and game.forfeit_by == sleeper
    assert "3 turns in a row" in game.forfeit_reason
    assert Action.objects.filter(auto=True).exists()
    assert not Action.objects.filter(auto=True).exclude(player_id=match.players[sleeper]).exists()


def _play_turn(match) -> None:
    """The player to act plays a whole turn one second into it (pass, or draw and discard).

    In the pause after a deal (the last turn ended it) both players continue instead.
    """
    game = active_game(match)
    if game.paused:
        for player in (match.player_a, match.player_b):
            services.game_continue(game_id=game.pk, player=player, now=game.pause_deadline - T)
        return
    at = game.clock_charged_at + T
    if "pass" in {a["type"] for a in _legal(match)}:
        act(match, "pass", at)
        return
    act(match, "draw_stock", at)
    act(match, "discard", at, card=_any_discard(match))


def _until_to_act(match, player: int) -> None:
    """Turns are played (and a pause between deals continued) until ``player`` is to act.

    A timed-out turn is played by autoplay, which may knock and end the deal; about one
    shuffle in sixty does so here.
    """
    while (game := active_game(match)).paused or game.to_act != player:
        _play_turn(match)


def test_a_move_of_ones_own_starts_the_count_of_timeouts_in_a_row_again(alice, bob):
    """Out of time, a move of their own, out of time twice: two in a row, not three, so the
    game goes on; the third in a row forfeits it.

    The deal is fixed: with a random one, an autoplayed knock could end the deal, or the game
    to 50, in the middle of the count (4 shuffles in 150 did).
    """
    match = timed_duel(alice, bob, seed=0, increment=10, policy=TimeoutPolicy.AUTOPLAY)
    sleeper = active_game(match).to_act

    def time_out() -> Game:
        game = active_game(match)
        assert game.to_act == sleeper
        assert services.clock_settle(match_id=match.pk, now=game.turn_deadline)
        game = Game.objects.get(pk=game.pk)
        if game.status == Game.Status.ACTIVE:
            _until_to_act(match, sleeper)  # the opponent plays at once
        return game

    time_out()
    _play_turn(match)  # the sleeper's own move, in time
    _until_to_act(match, sleeper)
    time_out()
    game = time_out()
    assert game.status == Game.Status.ACTIVE and game.forfeit_by is None
    assert game.autoplays(sleeper) == 2
    game = time_out()
    assert game.status == Game.Status.FINISHED and game.forfeit_by == sleeper
    assert "3 turns in a row" in game.forfeit_reason
    autoplayed = Action.objects.filter(deal__game=game, auto=True)
    assert len([a for a in autoplayed if a.kind in selectors.TURN_ENDING]) == 3  # turns


def test_the_sweeper_settles_due_games_and_leaves_the_rest(alice, bob, charlie):
    due = timed_duel(alice, bob)
    later = timed_duel(alice, charlie, base=600)
    deadline = active_game(due).turn_deadline
    assert services.clocks_sweep(now=deadline + T) == 1
    assert active_game(due).number == 1
    assert active_game(later).number == 0 and active_game(later).ply == 0


def test_a_countdown_settles_a_due_clock_and_reads_only_when_nothing_is_due(
    duel, django_assert_num_queries
):
    from games import tasks

    game = active_game(duel)
    with django_assert_num_queries(1):  # the read, no lock, no transaction
        assert tasks.settle_clock(duel.pk) is False
    assert not services.clock_due(match_id=duel.pk, now=game.turn_deadline - T)
    assert services.clock_due(match_id=duel.pk, now=game.turn_deadline)
    past = 120 * T
    Game.objects.filter(pk=game.pk).update(
        clock_charged_at=game.clock_charged_at - past,
        turn_began_at=game.turn_began_at - past,
        turn_deadline=game.turn_deadline - past,
    )
    assert tasks.settle_clock(duel.pk) is True
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and "time" in game.forfeit_reason


def test_reading_a_game_settles_an_expired_clock(duel, alice_client):
    game = active_game(duel)
    past = 120 * T
    Game.objects.filter(pk=game.pk).update(
        clock_charged_at=game.clock_charged_at - past,
        turn_began_at=game.turn_began_at - past,
        turn_deadline=game.turn_deadline - past,
    )
    response = alice_client.get(f"/api/games/{game.pk}")
    assert response.status_code == 200
    assert response.json()["status"] == "finished"
    assert response.json()["results"][0]["termination"] == "forfeit"


def test_the_view_shows_both_clocks_and_which_one_runs(duel, alice_client):
    game = active_game(duel)
    clocks = alice_client.get(f"/api/games/{game.pk}").json()["clocks"]
    assert [c["running"] for c in clocks] == [game.to_act == 0, game.to_act == 1]
    assert all(0 < c["remaining_ms"] <= 60_000 for c in clocks)


@pytest.mark.parametrize("seed", range(200))
def test_a_move_the_sweeper_and_the_countdown_at_the_deadline_have_one_outcome(alice, bob, seed):
    """Whatever the order and timing around the deadline: the move or the timeout, never both."""
    rng = random.Random(seed)
    match = timed_duel(alice, bob, best_of=1)
    game = active_game(match)
    moment = game.turn_deadline + timedelta(milliseconds=rng.randint(-3, 3))
    order = ["move", "sweep", "countdown"]
    rng.shuffle(order)
    mover = match.player_a if game.to_act == 0 else match.player_b
    moved = timed_out = 0
    for step in order:
        if step == "move":
            try:
                services.action_submit(
                    game_id=game.pk,
                    player=mover,
                    ply=0,
                    action=EngineAction.parse("pass"),
                    now=moment,
                )
                moved += 1
            except services.Conflict:
                pass
        elif step == "sweep":
            services.clocks_sweep(now=moment)
        else:
            services.clock_settle(match_id=match.pk, now=moment)
    game.refresh_from_db()
    timed_out = int(game.forfeit_by is not None)
    assert moved + timed_out == 1
    assert Action.objects.filter(deal__game=game).count() == moved


def test_the_embedded_clock_sweeper_starts_once_per_process(monkeypatch):
    from common import embedded

    started = []

    class Thread:  # records the start instead of running a sweep loop in the test process
        def __init__(self, *, target, args, name, daemon):
            self.name = name

        def start(self):
            started.append(self.name)

    # A process of its own: whether the WSGI module started one already does not matter.
    monkeypatch.setattr(embedded, "_started", threading.Event())
    monkeypatch.setattr(embedded.threading, "Thread", Thread)
    assert embedded.start_clock_sweeper(interval=3600) is True
    assert embedded.start_clock_sweeper(interval=3600) is False
    assert started == ["clock-sweeper"]


def test_a_match_decided_by_a_timeout_says_so(alice, bob):
    match = timed_duel(alice, bob, best_of=1)
    game = active_game(match)
    services.clock_settle(match_id=match.pk, now=game.turn_deadline)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.end_reason == "timeout"
    assert match.winner_id == match.players[1 - game.to_act]
    from games.engine.match import Match as EngineMatch
    from games.selectors import match_log

    assert EngineMatch.replay(match_log(match=match)).snapshot() == match.state


@pytest.mark.parametrize(("base", "sent"), [(600, False), (5, True)])
def test_a_countdown_is_sent_for_a_near_deadline_only(
    alice, bob, settings, monkeypatch, django_capture_on_commit_callbacks, base, sent
):
    """A move sends its game's countdown (a shortcut to the deadline) only when the deadline
    is at most ``CLOCK_COUNTDOWN_SECONDS`` away; the sweep settles a farther one."""
    from games.services import publishing

    settings.CLOCK_COUNTDOWN_SECONDS = 10
    settings.CELERY_EMBEDDED = False  # workers take the countdowns
    sent_countdowns = []
    monkeypatch.setattr(
        publishing,
        "shortcut_on_commit",
        lambda name, args=(), countdown=None: sent_countdowns.append((name, args, countdown)),
    )
    match = timed_duel(alice, bob, base=base, increment=0)
    act(match, "pass", active_game(match).turn_began_at + T)  # the first turn's upcard

    # The match's start sends one for the first turn, the move one for the next.
    countdowns = [c for c in sent_countdowns if c[0] == "games.settle_clock"]
    assert len(countdowns) == (2 if sent else 0)
    for _name, args, countdown in countdowns:
        assert args == (match.pk,) and 0 < countdown <= base + 1.1
