"""Games to the target: bonuses, who deals, duplicate deals, Hollywood columns, forfeits."""

import random

import pytest

from games.engine.game import Game, GameTermination, cut_for_deal, derive_seed, score_game
from games.engine.rules import STANDARD, NextDealer, ScoringStyle, ShutoutStyle

from .helpers import choose


def play_game(game: Game, seed: int = 0) -> Game:
    """Finish a game with random players who knock whenever they may (short games)."""
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(choose(game.legal_actions(), rng, ending_bias=1.0))
    return game


# --- end-of-game scoring --------------------------------------------------------------------


def test_game_bonus_and_line_bonus_are_added_to_hand_points():
    result = score_game(STANDARD, 0, (262, 140), (6, 4))
    assert result.game_bonus == (100, 0)
    assert result.line_bonus == (150, 100)
    assert result.final == (262 + 100 + 150, 140 + 100)
    assert result.margin == 512 - 240
    assert not result.shutout


def test_shutout_doubles_the_winners_hand_points_before_the_line_bonus():
    result = score_game(STANDARD, 1, (0, 255), (0, 5))
    assert result.shutout
    assert result.hand_points == (0, 510)
    assert result.final == (0, 510 + 100 + 125)


def test_shutout_option_doubles_the_game_bonus_instead():
    rules = STANDARD.replace(shutout=ShutoutStyle.DOUBLE_GAME_BONUS)
    result = score_game(rules, 1, (0, 255), (0, 5))
    assert result.final == (0, 255 + 200 + 125)


def test_bonuses_are_options():
    rules = STANDARD.replace(game_bonus=50, line_bonus=10, shutout=ShutoutStyle.NONE)
    result = score_game(rules, 0, (300, 0), (4, 0))
    assert result.final == (300 + 50 + 40, 0) and not result.shutout


# --- the run of deals ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_a_game_ends_when_a_player_first_reaches_the_target(seed):
    game = play_game(Game(derive_seed(seed, "g"), seed % 2, STANDARD.replace(target=100)), seed)
    (result,) = game.results
    totals = [0, 0]
    wins = [0, 0]
    for record in game.deals:
        assert max(totals) < 100, "no deal is played after the target is reached"
        if record.winner_player is not None:
            totals[record.winner_player] += record.outcome.points
            wins[record.winner_player] += 1
    assert result.winner == totals.index(max(totals)) and max(totals) >= 100
    assert result.hands_won == tuple(wins)
    assert result.termination is GameTermination.TARGET


@pytest.mark.parametrize("seed", range(3))
def test_the_deal_alternates_and_a_drawn_hand_is_dealt_again_by_the_same_dealer(seed):
    game = play_game(Game(seed, 1, STANDARD.replace(target=150)), seed)
    dealers = [r.dealer ^ r.swap for r in game.deals]
    assert dealers[0] == 1
    for prev, nxt, record in zip(dealers, dealers[1:], game.deals, strict=False):
        drawn = record.winner_player is None
        assert nxt == (prev if drawn else 1 - prev)


def test_option_the_loser_of_the_hand_deals_next():
    game = play_game(Game(7, 0, STANDARD.replace(target=150, next_dealer=NextDealer.LOSER)), 7)
    for record, following in zip(game.deals, game.deals[1:], strict=False):
        dealer_next = following.dealer ^ following.swap
        if record.winner_player is None:
            assert dealer_next == record.dealer ^ record.swap
        else:
            assert dealer_next == 1 - record.winner_player


def test_duplicate_deals_play_every_seed_twice_with_the_players_swapped():
    game = play_game(Game(11, 0, STANDARD.replace(target=120, duplicate_deals=True)), 11)
    assert len(game.deals) % 2 == 0, "the target is checked only after both deals of a pair"
    for first, second in zip(game.deals[::2], game.deals[1::2], strict=True):
        assert first.seed == second.seed
        assert (first.swap, second.swap) == (0, 1)
        assert first.dealer == second.dealer, "the same seat deals: the players change seats"
        assert first.dealer ^ first.swap != second.dealer ^ second.swap
    pair_dealers = [r.dealer ^ r.swap for r in game.deals[::2]]
    assert pair_dealers == [i % 2 for i in range(len(pair_dealers))]


def test_hollywood_scores_a_players_nth_winning_hand_into_the_first_n_games():
    rules = STANDARD.replace(scoring=ScoringStyle.HOLLYWOOD, target=100)
    game = play_game(Game(5, 0, rules), 5)
    assert len(game.results) == 3
    columns = [[0, 0] for _ in range(3)]
    closed = [False] * 3
    wins = [0, 0]
    for record in game.deals:
        p = record.winner_player
        if p is None:
            continue
        wins[p] += 1
        for i in range(min(wins[p], 3)):
            if not closed[i]:
                columns[i][p] += record.outcome.points
        for i in range(3):
            if not closed[i] and max(columns[i]) >= 100:
                closed[i] = True
    assert all(closed)
    for result, col in zip(game.results, columns, strict=True):
        expected = list(col)
        if result.shutout:
            expected[result.winner] *= 2
        assert list(result.hand_points) == expected


def test_forfeit_awards_the_game_scored_as_it_stands():
    game = Game(3, 0, STANDARD)
    rng = random.Random(3)
    while not game.deals or game.deals[-1].winner_player is None:
        game.apply(choose(game.legal_actions(), rng, ending_bias=1.0))
    hands_won = tuple(game.hands_won)
    scores = tuple(game.scores)
    game.forfeit(1, "clock ran out")
    (result,) = game.results
    assert game.is_over and result.winner == 0
    assert result.termination is GameTermination.FORFEIT and result.reason == "clock ran out"
    assert result.line_bonus == (hands_won[0] * 25, hands_won[1] * 25)
    assert result.game_bonus[0] in (100, 200) and result.hand_points[1] == scores[1]


def test_the_cut_for_the_first_deal_is_seeded_and_low_card_deals():
    results = {cut_for_deal(s) for s in range(40)}
    assert results == {0, 1}
    assert cut_for_deal(12345) == cut_for_deal(12345)


def test_mirrored_players_tied_at_the_target_play_sudden_death_deals():
    """Two copies of one deterministic bot score every pair of duplicate deals alike."""
    from games.engine.bots import make_bot
    from games.engine.bots.runner import play_match
    from games.engine.match import Match

    rules = STANDARD.replace(duplicate_deals=True, target=100, best_of=1)
    match = Match(8, rules)
    assert play_match(match, (make_bot("greedy", 1), make_bot("greedy", 2))) is None
    game = match.games[0]
    pairs = [r for r in game.deals if r.swap == 1]
    tiebreaks = game.deals[2 * len(pairs) :]
    assert tiebreaks, "the pairs alone left the mirrored players tied"
    assert all(r.swap == 0 for r in tiebreaks)
    assert [r.winner_player for r in tiebreaks[:-1]] == [None] * (len(tiebreaks) - 1)
    winner = tiebreaks[-1].winner_player
    assert match.winner == winner and game.results[0].winner == winner
    (result,) = game.results
    assert result.hand_points[winner] > result.hand_points[1 - winner] >= 100
