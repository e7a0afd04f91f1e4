"""Glicko-2 ratings as pure functions: no Django, no I/O, plain floats in and out.

Each player has a rating, a deviation (how sure the rating is: a 95% interval is about two
deviations either side) and a volatility (how erratic their results are). As on the online
servers that use it, every rated match is a rating period of its own, and before a match each
side's deviation grows with the time since their last one, up to a new player's deviation:
a player back from months away moves fast again, as a newcomer does.

>>> config = GlickoConfig()
>>> newcomer = GlickoSide(1500, 350, 0.06)
>>> a, b = rate_match(newcomer, newcomer, MatchResult(winner=0), config)
>>> (round(a.after, 1), round(b.after, 1), round(a.deviation_after, 1))
(1662.3, 1337.7, 290.3)
>>> round(expected_score(1700, 50, 1500, 50), 3)
0.755

The update is Glickman's (*Example of the Glicko-2 system*, 2013; the worked example is a
test in tests/unit/test_glicko2.py). A rating's expected score against another, recorded with
each change and used to measure predictions, combines both deviations (Glickman's prediction
formula), so the two sides' expectations sum to one; the update itself, as in the paper, uses
the opponent's deviation only.

Shared with Elo (:mod:`ratings.elo`): the match score (1/0, or the share of games won), the
damping of a change between a human and a bot, and an optional rating floor. Glicko-2 has no
K to weight by the margin of victory, so ``Scoring.MARGIN`` is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ratings.elo import MatchResult, Scoring, score_of

__all__ = [
    "SCALE",
    "GlickoConfig",
    "GlickoSide",
    "GlickoUpdate",
    "Rating",
    "deviation_after_absence",
    "expected_score",
    "rate_match",
    "rate_period",
]

#: Glicko-2's scale factor between the Glicko scale (1500, 350) and its own (0, 2.01).
SCALE = 173.7178
#: The convergence tolerance of the volatility iteration (the paper's epsilon).
EPSILON = 1e-6


@dataclass(frozen=True)
class GlickoConfig:
    """Every setting of a pool's Glicko-2 system; the defaults are the house defaults."""

    initial: float = 1500.0
    #: A new player's deviation, and the most that time away can grow one to.
    deviation: float = 350.0
    #: A new player's volatility.
    volatility: float = 0.06
    #: The system constant: how much the volatility may change (the paper suggests 0.3-1.2).
    tau: float = 0.5
    #: Days of absence that count as one rating period without play (deviation growth).
    period_days: float = 7.0
    #: A rating is provisional while its deviation is above this.
    provisional_deviation: float = 110.0
    scoring: Scoring = Scoring.MATCH
    human_bot_factor: float = 1.0
    floor: float | None = None

    def __post_init__(self) -> None:
        if self.deviation <= 0 or self.volatility <= 0 or self.tau <= 0:
            raise ValueError("deviation, volatility and tau must be positive")
        if self.period_days <= 0:
            raise ValueError("period_days must be positive")
        if self.provisional_deviation < 0:
            raise ValueError("provisional_deviation must not be negative")
        if self.scoring is Scoring.MARGIN:
            raise ValueError("Glicko-2 has no K to weight by the margin: use match or games")
        if not 0 < self.human_bot_factor <= 1:
            raise ValueError("human_bot_factor must be in (0, 1]")
        if self.floor is not None and self.floor > self.initial:
            raise ValueError("the rating floor cannot be above the initial rating")


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: rating, deviation, volatility."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True)
class GlickoSide:
    """One player as the match finds them; ``idle_days`` since their last rated match."""

    rating: float
    deviation: float
    volatility: float
    is_bot: bool = False
    idle_days: float = 0.0


@dataclass(frozen=True)
class GlickoUpdate:
    """What a match did to one side: all three numbers before and after.

    ``deviation_before`` is the deviation the match found (grown by the time away); ``k`` the
    rating points this match moved the rating per point of surprise (Elo's K, here set by the
    deviations).
    """

    before: float
    after: float
    delta: float
    expected: float
    score: float
    k: float
    deviation_before: float
    deviation_after: float
    volatility_before: float
    volatility_after: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    # Clamped like Elo's: beyond that the odds stop growing and exp cannot overflow.
    exponent = max(-50.0, min(50.0, -_g(phi_j) * (mu - mu_j)))
    return 1.0 / (1.0 + math.exp(exponent))


def expected_score(
    rating: float, deviation: float, opponent: float, opponent_deviation: float
) -> float:
    """The score ``rating`` is expected to make against ``opponent`` (between 0 and 1).

    Both deviations widen the uncertainty, so the expectations of the two sides sum to one.
    """
    phi = math.hypot(deviation, opponent_deviation) / SCALE
    return _e((rating - opponent) / SCALE, 0.0, phi)


def deviation_after_absence(
    deviation: float, volatility: float, idle_days: float, config: GlickoConfig
) -> float:
    """The deviation after ``idle_days`` without a rated match (never above a newcomer's)."""
    periods = max(0.0, idle_days) / config.period_days
    if periods == 0:
        return min(deviation, config.deviation)
    phi = math.sqrt((deviation / SCALE) ** 2 + periods * volatility * volatility)
    # max(): the round trip through the Glicko-2 scale must not shrink it by a rounding error.
    return min(max(phi * SCALE, deviation), config.deviation)


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)
    phi2, delta2 = phi * phi, delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate_period(
    player: Rating, results: Sequence[tuple[Rating, float]], tau: float = 0.5
) -> Rating:
    """The player's rating after one rating period with these ``(opponent, score)`` results.

    The paper's algorithm, steps 2 to 8; an empty period only grows the deviation.
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    inverse_v = 0.0
    gain = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        g, e = _g(phi_j), _e(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inverse_v
    sigma_new = _volatility(phi, sigma, v * gain, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * gain
    return Rating(mu_new * SCALE + 1500.0, phi_new * SCALE, sigma_new)


def rate_match(
    a: GlickoSide, b: GlickoSide, result: MatchResult, config: GlickoConfig
) -> tuple[GlickoUpdate, GlickoUpdate]:
    """The updates of both sides of one finished match (one rating period each).

    Each side's deviation first grows with its time away; then each is rated against the
    other as the match found them. Two equal players (same rating, deviation, volatility and
    time away) move by exact opposites.
    """
    score_a = score_of(result, config.scoring)
    factor = config.human_bot_factor if a.is_bot != b.is_bot else 1.0
    ra, rb = _found(a, config), _found(b, config)
    expected_a = expected_score(ra.rating, ra.deviation, rb.rating, rb.deviation)
    return (
        _side_update(ra, rb, score_a, expected_a, factor, config),
        _side_update(rb, ra, 1.0 - score_a, 1.0 - expected_a, factor, config),
    )


def _found(side: GlickoSide, config: GlickoConfig) -> Rating:
    deviation = deviation_after_absence(side.deviation, side.volatility, side.idle_days, config)
    return Rating(side.rating, deviation, side.volatility)


def _side_update(
    me: Rating,
    opponent: Rating,
    score: float,
    expected: float,
    factor: float,
    config: GlickoConfig,
) -> GlickoUpdate:
    new = rate_period(me, [(opponent, score)], config.tau)
    deviation = min(new.deviation, config.deviation)
    change = (new.rating - me.rating) * factor
    after = me.rating + change
    if config.floor is not None and change < 0 and after < config.floor:
        after = min(me.rating, config.floor)
    delta = change if after == me.rating + change else after - me.rating
    # The update moved the rating by k * (score - E) with the paper's E: k is that factor.
    k = SCALE * (new.deviation / SCALE) ** 2 * _g(opponent.deviation / SCALE) * factor
    return GlickoUpdate(
        before=me.rating,
        after=after,
        delta=delta,
        expected=expected,
        score=score,
        k=k,
        deviation_before=me.deviation,
        deviation_after=deviation,
        volatility_before=me.volatility,
        volatility_after=new.volatility,
    )
