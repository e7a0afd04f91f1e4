"""Best-of-five matches: who deals, when it ends, forfeits, and replay from the log."""

import json
import random

import pytest

from games.engine.errors import DealOverError
from games.engine.match import Match, MatchTermination
from games.engine.rules import HOLLYWOOD, STANDARD

from .helpers import choose

SHORT = STANDARD.replace(target=60)


def play(match: Match, seed: int = 0, stop=lambda m: False) -> Match:
    rng = random.Random(seed)
    while not match.is_over and not stop(match):
        match.apply(choose(match.legal_actions(), rng, ending_bias=1.0))
    return match


@pytest.mark.parametrize("seed", range(3))
def test_a_match_is_won_by_the_first_to_three_games(seed):
    match = play(Match(seed, SHORT), seed)
    won = match.games_won
    assert max(won) == 3 and min(won) < 3
    assert match.winner == won.index(3)
    assert 3 <= len(match.results) <= 5 and len(match.games) == len(match.results)
    assert match.termination is MatchTermination.GAMES
    assert match.margins[0] == -match.margins[1]
    assert match.margins[0] == sum(r.final[0] - r.final[1] for r in match.results)


def test_the_first_deal_of_each_game_alternates_between_the_players():
    match = play(Match(21, SHORT), 21)
    first_dealers = [g.first_dealer for g in match.games]
    assert first_dealers[0] == match.cut_dealer
    assert first_dealers == [match.cut_dealer ^ (i % 2) for i in range(len(first_dealers))]
    for game in match.games:
        record = game.deals[0]
        assert record.dealer ^ record.swap == game.first_dealer


def test_a_forfeited_game_counts_and_the_match_goes_on():
    match = Match(4, SHORT)
    match.forfeit_game(0, "no show")
    assert match.games_won == [0, 1] and not match.is_over
    assert match.results[0].reason == "no show"
    assert len(match.games) == 2


def test_a_forfeited_match_ends_at_once():
    match = play(Match(8, SHORT), 8, stop=lambda m: len(m.results) == 1)
    match.forfeit_match(match.to_act_player, "bot failed")
    assert match.is_over and match.termination is MatchTermination.FORFEIT
    assert match.reason == "bot failed"
    with pytest.raises(DealOverError):
        match.forfeit_game(0)


@pytest.mark.parametrize(
    "rules",
    [
        SHORT,
        SHORT.replace(duplicate_deals=True),
        HOLLYWOOD.replace(target=60),
        SHORT.replace(fiftieth_card=True),
    ],
    ids=["standard", "duplicate", "hollywood", "fiftieth"],
)
def test_a_match_replays_from_its_json_log_to_the_same_result(rules):
    match = play(Match(31, rules), 31, stop=lambda m: len(m.results) == 2)
    match.forfeit_game(1, "timeout")
    play(match, 32)
    log = match.log_json()
    again = Match.replay(json.loads(json.dumps(log)))
    assert again.log_json() == log
    assert again.games_won == match.games_won and again.winner == match.winner


def test_hollywood_match_takes_games_from_the_columns_of_a_set():
    match = play(Match(9, HOLLYWOOD.replace(target=60)), 9)
    assert match.is_over
    first_set = match.games[0]
    assert len(first_set.results) >= 1
    assert len(match.results) >= 3


@pytest.mark.parametrize(
    "rules",
    [SHORT, SHORT.replace(duplicate_deals=True), HOLLYWOOD.replace(target=60)],
    ids=["standard", "duplicate", "hollywood"],
)
def test_a_match_restored_from_a_snapshot_plays_on_exactly_like_the_original(rules):
    original = Match(41, rules)
    rng = random.Random(41)
    restored = None
    step = 0
    while not original.is_over:
        if step % 97 == 0:
            # A snapshot is plain JSON, and the match rebuilt from it is the same match.
            restored = Match.from_snapshot(json.loads(json.dumps(original.snapshot())))
            assert restored.snapshot() == original.snapshot()
        action = choose(original.legal_actions(), rng, ending_bias=1.0)
        assert restored.legal_actions() == original.legal_actions()
        assert restored.to_act_player == original.to_act_player
        original.apply(action)
        restored.apply(action)
        step += 1
    assert restored.is_over and restored.winner == original.winner
    assert [r.to_json() for r in restored.results] == [r.to_json() for r in original.results]
    assert restored.snapshot() == original.snapshot()


def test_a_snapshot_keeps_a_forfeit():
    match = Match(5, SHORT)
    match.forfeit_game(1, "timeout")
    restored = Match.from_snapshot(match.snapshot())
    assert restored.games_won == [1, 0] and restored.results[0].reason == "timeout"
    match.forfeit_match(0, "no show")
    restored = Match.from_snapshot(match.snapshot())
    assert restored.is_over and restored.termination is MatchTermination.FORFEIT
