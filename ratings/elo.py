"""Elo ratings as pure functions: no Django, no I/O, plain floats in and out.

A rating pool (a ladder, or the rated pool of rated events) keeps, per player, a rating and
the number of rated matches played; this module says what one finished match does to them.

>>> config = RatingConfig()
>>> round(expected_score(1600, 1400), 3)
0.76
>>> a, b = rate_match(Side(1500, 0), Side(1500, 0), MatchResult(winner=0), config)
>>> (a.delta, b.delta)
(20.0, -20.0)

Defaults follow the chess federations: initial rating 1500; K 40 while provisional (the first
30 rated matches), then 20, and 10 from 2400. A match scores 1 or 0; two options score it by
the games won in the match, or weight K by the margin of victory (none of the big sites rates a
match by its margin, so it is off unless a pool asks for it). A change between a human and a
bot can be damped (e.g. halved), so farming a weak bot buys little and a strong bot cannot
sink a human far. An optional floor stops a rating from falling below it.

Properties (tests/unit/test_ratings.py checks them with hypothesis): expected scores of the
two sides sum to 1; two players with the same K gain and lose the same amount; swapping the
two sides swaps the changes; a better result never gives a smaller change.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

__all__ = [
    "INITIAL_RATING",
    "MatchResult",
    "RatingConfig",
    "RatingUpdate",
    "Scoring",
    "Side",
    "expected_score",
    "k_factor",
    "margin_multiplier",
    "match_score",
    "rate_match",
    "score_of",
    "update",
]

#: The rating every player starts a pool with.
INITIAL_RATING = 1500.0


class Scoring(enum.StrEnum):
    """How a finished match turns into a score between 0 and 1."""

    MATCH = "match"  # the winner scores 1, the loser 0
    GAMES = "games"  # the share of games won (3-1 scores 0.75); 1/0 if no game was completed
    MARGIN = "margin"  # 1/0, with K weighted by the margin of victory in points


@dataclass(frozen=True)
class RatingConfig:
    """Every setting of a pool's rating system; the defaults are the house defaults."""

    initial: float = INITIAL_RATING
    k_provisional: float = 40.0
    provisional_matches: int = 30
    k_established: float = 20.0
    k_top: float = 10.0
    top_threshold: float = 2400.0
    floor: float | None = None
    scoring: Scoring = Scoring.MATCH
    #: Scoring.MARGIN: K is multiplied by 1 + ln(1 + margin / margin_scale), at most margin_cap.
    margin_scale: float = 250.0
    margin_cap: float = 2.0
    #: Factor on both changes of a match between a human and a bot (1: not damped).
    human_bot_factor: float = 1.0

    def __post_init__(self) -> None:
        if not all(k > 0 for k in (self.k_provisional, self.k_established, self.k_top)):
            raise ValueError("K factors must be positive")
        if self.provisional_matches < 0:
            raise ValueError("provisional_matches must not be negative")
        if not 0 < self.human_bot_factor <= 1:
            raise ValueError("human_bot_factor must be in (0, 1]")
        if self.margin_scale <= 0 or self.margin_cap < 1:
            raise ValueError("margin_scale must be positive and margin_cap at least 1")
        if self.floor is not None and self.floor > self.initial:
            raise ValueError("the rating floor cannot be above the initial rating")


@dataclass(frozen=True)
class Side:
    """One player as the match finds them: rating, rated matches played so far, a bot or not."""

    rating: float
    matches_played: int = 0
    is_bot: bool = False


@dataclass(frozen=True)
class MatchResult:
    """A finished match from side A's point of view.

    ``winner`` is 0 (A) or 1 (B); ``games_won`` the games each side won; ``margin_a`` A's total
    points margin over the games (negative when B scored more).
    """

    winner: int
    games_won: tuple[int, int] = (0, 0)
    margin_a: int = 0

    def __post_init__(self) -> None:
        if self.winner not in (0, 1):
            raise ValueError("winner must be 0 (side A) or 1 (side B)")
        if min(self.games_won) < 0:
            raise ValueError("games won cannot be negative")


@dataclass(frozen=True)
class RatingUpdate:
    """What a match did to one side's rating."""

    before: float
    after: float
    delta: float
    expected: float
    score: float
    k: float


def expected_score(rating: float, opponent: float) -> float:
    """The score ``rating`` is expected to make against ``opponent`` (between 0 and 1).

    400 points of difference make the stronger side ten times as likely to win. Beyond
    8000 points the odds stop growing (and the power cannot overflow).
    """
    exponent = max(-20.0, min(20.0, (opponent - rating) / 400.0))
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def k_factor(rating: float, matches_played: int, config: RatingConfig) -> float:
    """K for a player with ``matches_played`` rated matches before this one."""
    if matches_played < config.provisional_matches:
        return config.k_provisional
    if rating >= config.top_threshold:
        return config.k_top
    return config.k_established


def match_score(result: MatchResult, config: RatingConfig) -> float:
    """Side A's score: 1/0 by default, the share of games won under Scoring.GAMES."""
    return score_of(result, config.scoring)


def score_of(result: MatchResult, scoring: Scoring) -> float:
    """Side A's score under ``scoring`` (Glicko-2 scores a match the same way)."""
    if scoring is Scoring.GAMES:
        won, lost = result.games_won
        if won + lost > 0:
            return won / (won + lost)
    return 1.0 if result.winner == 0 else 0.0


def margin_multiplier(margin: int, config: RatingConfig) -> float:
    """The factor on K of a match won by ``margin`` points (1 unless Scoring.MARGIN)."""
    if config.scoring is not Scoring.MARGIN:
        return 1.0
    return min(config.margin_cap, 1.0 + math.log1p(abs(margin) / config.margin_scale))


def update(rating: float, delta: float, config: RatingConfig) -> float:
    """``rating`` moved by ``delta``; a loss stops at the floor if the pool has one.

    A rating already under the floor (the floor was raised later) loses nothing more.
    """
    after = rating + delta
    if config.floor is not None and delta < 0 and after < config.floor:
        return min(rating, config.floor)
    return after


def rate_match(
    a: Side, b: Side, result: MatchResult, config: RatingConfig
) -> tuple[RatingUpdate, RatingUpdate]:
    """The rating updates of both sides of one finished match.

    B's expectation is computed as ``1 - E(A)`` and B's change from the same factor as A's,
    so with equal K the two changes are exact opposites (until a floor holds one side up).
    """
    expected_a = expected_score(a.rating, b.rating)
    expected_b = 1.0 - expected_a
    score_a = match_score(result, config)
    score_b = 1.0 - score_a
    factor = margin_multiplier(result.margin_a, config)
    if a.is_bot != b.is_bot:
        factor *= config.human_bot_factor
    k_a = k_factor(a.rating, a.matches_played, config) * factor
    k_b = k_factor(b.rating, b.matches_played, config) * factor
    surprise = score_a - expected_a  # B's is exactly the negation
    change_a = k_a * surprise
    change_b = -(k_b * surprise)
    return (
        _side_update(a.rating, change_a, expected_a, score_a, k_a, config),
        _side_update(b.rating, change_b, expected_b, score_b, k_b, config),
    )


def _side_update(
    before: float, change: float, expected: float, score: float, k: float, config: RatingConfig
) -> RatingUpdate:
    after = update(before, change, config)
    # ``after == before + delta`` holds exactly (the same float addition) unless the floor
    # held the rating up; then the delta is what was really lost.
    delta = change if after == before + change else after - before
    return RatingUpdate(before, after, delta, expected, score, k)
