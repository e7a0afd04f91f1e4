"""Rating a finished match in its pool (Elo or Glicko-2), exactly once; what does not count.

Exactly-once rating: :func:`rating_apply` locks the two players' rating rows (in player id
order, so two matches sharing a player cannot deadlock), looks for the match's rating changes
and writes them only if there are none; the unique constraint on (match, player) backs the
check, so a receiver run twice or a redelivered task cannot rate a match twice.
:func:`ladder_match_finished` rates a pool's finished match and sends its bots back to the
queue, once per match.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from games.engine import bots as engine_bots
from games.models import Match
from games.selectors import moves_made
from ladders.models import Ladder, LadderMatch, QueueEntry, Rating, RatingChange, Season
from ladders.pools import RATED_EVENTS_POOL
from ladders.services import seasons
from ladders.services.base import Conflict, LadderError
from ladders.services.fairplay import fairplay_watch
from ladders.services.memberships import membership_ensure
from ratings import glicko2
from ratings.elo import MatchResult, RatingUpdate, Side, rate_match
from ratings.glicko2 import GlickoSide, GlickoUpdate

logger = logging.getLogger(__name__)


def rated_events_pool() -> Ladder:
    """The rated pool of rated events (tournaments), created with the defaults if missing."""
    pool = Ladder.objects.filter(slug=RATED_EVENTS_POOL).first()
    if pool is None:
        pool, _created = Ladder.objects.get_or_create(
            slug=RATED_EVENTS_POOL,
            defaults={
                "name": "Rated events",
                "kind": Ladder.Kind.POOL,
                "is_open": False,
                "description": "Ratings from the matches of rated tournaments.",
            },
        )
    return pool


def pool_match_register(*, pool: Ladder, match: Match) -> LadderMatch:
    """Have ``pool`` rate ``match`` when it finishes (rated events call this on creation).

    The ``match_finished`` receiver then applies the rating in the finishing transaction,
    and the sweep catches up if that ever failed. Idempotent.
    """
    link, _created = LadderMatch.objects.get_or_create(match=match, defaults={"ladder": pool})
    if link.ladder_id != pool.pk:
        raise Conflict(
            _("match %(match)s is already rated in pool %(pool)s")
            % {"match": match.pk, "pool": link.ladder_id},
            code="other_pool",
        )
    return link


def rating_apply(*, pool: Ladder, match: Match, now: datetime | None = None) -> list[RatingChange]:
    """Rate a finished match in ``pool``, exactly once; returns its two rating changes.

    Calling it again (a redelivered task, a receiver run twice, two workers at once) returns
    the changes already written and changes nothing. LadderError ``not_finished`` for a match
    without a result; Conflict ``other_pool`` if another pool rates this match.
    """
    now = now or timezone.now()
    if match.status != Match.Status.FINISHED or match.winner_id is None:
        raise LadderError(
            _("match %(match)s has no result to rate") % {"match": match.pk}, code="not_finished"
        )
    with transaction.atomic():
        link = LadderMatch.objects.filter(match=match).first()
        if link is None:
            link = LadderMatch.objects.create(match=match, ladder=pool, processed_at=now)
        elif link.ladder_id != pool.pk:
            raise Conflict(
                _("match %(match)s is rated in pool %(pool)s")
                % {"match": match.pk, "pool": link.ladder_id},
                code="other_pool",
            )
        existing = list(RatingChange.objects.filter(match=match).order_by("pk"))
        if existing:
            return existing
        players = Player.objects.in_bulk([match.player_a_id, match.player_b_id])
        for player in players.values():
            membership_ensure(ladder=pool, player=player)
        # The season first (its row before the rating rows, as a season's close takes them):
        # the match counts in the season open now, and a close waits for it (see seasons).
        season = seasons.season_for_rating(pool=pool, when=match.finished_at or now)
        # Lock both rows in player id order; a concurrent application of the same match waits
        # here and then finds the changes below. (NO KEY UPDATE: a join's queue entry points
        # at its rating row, and its foreign-key check need not wait for this.)
        locked = {
            r.player_id: r
            for r in Rating.objects.select_for_update(no_key=True)
            .filter(ladder=pool, player_id__in=players)
            .order_by("player_id")
        }
        existing = list(RatingChange.objects.filter(match=match).order_by("pk"))
        if existing:
            return existing
        changes = _rate(
            pool, match, locked[match.player_a_id], locked[match.player_b_id], now, season, players
        )
        if season is not None:
            seasons.season_entries_ensure(season=season, pool=pool, player_ids=list(players))
        return changes


def rating_exemption(
    *,
    pool: Ladder,
    match: Match,
    players: dict[int, Player],
    a: Rating,
    b: Rating,
    now: datetime,
) -> str:
    """Why this finished match is recorded without counting, or '' when it counts.

    - The two players are of one stable (:attr:`accounts.models.Player.stable_id`): a person
      and a bot they own, or two bots of one owner. Pairing keeps them apart; this is the
      last word for a match that came about otherwise.
    - It was resigned before each player had made ``RATING_MIN_MOVES`` moves of their own:
      nothing was played, only handed over.
    - It is one too many between the same two people (:func:`farmed`).
    - A player is an account staff marked as assisted (fair play): its earlier results were
      taken back (:mod:`ladders.services.assisted`) and later ones do not count.

    Uncounted, the match is recorded with K 0: no rating change, no record, and the history
    still replays to the ratings.
    """
    first, second = players[match.player_a_id], players[match.player_b_id]
    if first.is_assisted or second.is_assisted:
        return "an account marked as assisted (fair play)"
    if first.stable_id is not None and first.stable_id == second.stable_id:
        return "one stable (a person and their own bot, or two bots of one owner)"
    if match.end_reason == Match.EndReason.RESIGNED and settings.RATING_MIN_MOVES:
        made = moves_made(match=match)
        if min(made.get(first.pk, 0), made.get(second.pk, 0)) < settings.RATING_MIN_MOVES:
            return f"resigned before each player made {settings.RATING_MIN_MOVES} moves"
    if farmed(pool, a, b, now):
        return (
            f"rated match number {settings.RATING_PAIR_LIMIT + 1} or more between the two in "
            f"{settings.RATING_PAIR_WINDOW_HOURS} h (rating farming)"
        )
    return ""


def farmed(pool: Ladder, a: Rating, b: Rating, now: datetime) -> bool:
    """Whether a match between these two would be one too many for the rating (farming).

    Two people who play each other over and over could trade rating back and forth (or one
    could feed the other). Of the rated matches between the same two humans in a pool within
    ``RATING_PAIR_WINDOW_HOURS``, only the first ``RATING_PAIR_LIMIT`` count; the rest are
    recorded with K 0: no rating change, no record (matches, wins, losses), so they cannot
    make a player eligible for the leaderboard either. Bots are exempt: they are paired by
    the matchmaker or an organiser, never by choice, and calibration plays them many times.
    """
    if a.is_bot or b.is_bot:
        return False
    since = now - timedelta(hours=settings.RATING_PAIR_WINDOW_HOURS)
    counted = RatingChange.objects.filter(
        ladder=pool, player_id=a.player_id, opponent_id=b.player_id, k__gt=0, created_at__gte=since
    ).count()
    return counted >= settings.RATING_PAIR_LIMIT


@dataclass(frozen=True)
class Standing:
    """A player's rating state as a match finds it (a rating row, or a replay's state)."""

    rating: float
    matches_played: int
    is_bot: bool
    deviation: float | None = None
    volatility: float | None = None
    last_active: datetime | None = None


def match_rate(
    *, pool: Ladder, a: Standing, b: Standing, result: MatchResult, when: datetime
) -> tuple[RatingUpdate | GlickoUpdate, RatingUpdate | GlickoUpdate]:
    """Both sides' updates under the pool's rating system (the live path and the replay's).

    Under Glicko-2 each side's deviation first grows with the days from its last rated match
    to ``when`` (the match's finish).
    """
    if not pool.is_glicko:
        return rate_match(
            Side(a.rating, a.matches_played, a.is_bot),
            Side(b.rating, b.matches_played, b.is_bot),
            result,
            pool.rating_config,
        )
    config = pool.glicko_config

    def side(s: Standing) -> GlickoSide:
        idle = 0.0
        if s.last_active is not None:
            idle = max(0.0, (when - s.last_active).total_seconds() / 86400)
        return GlickoSide(
            s.rating,
            config.deviation if s.deviation is None else s.deviation,
            config.volatility if s.volatility is None else s.volatility,
            s.is_bot,
            idle,
        )

    return glicko2.rate_match(side(a), side(b), result, config)


def _standing(r: Rating) -> Standing:
    return Standing(r.rating, r.matches_played, r.is_bot, r.deviation, r.volatility, r.last_active)


def _rate(
    pool: Ladder,
    match: Match,
    a: Rating,
    b: Rating,
    now: datetime,
    season: Season | None,
    players: dict[int, Player],
) -> list[RatingChange]:
    result = MatchResult(
        winner=0 if match.winner_id == match.player_a_id else 1,
        games_won=(match.games_won_a, match.games_won_b),
        margin_a=match.margin_a,
    )
    when = match.finished_at or now
    updates = match_rate(pool=pool, a=_standing(a), b=_standing(b), result=result, when=when)
    exemption = rating_exemption(pool=pool, match=match, players=players, a=a, b=b, now=now)
    counts = not exemption
    if not counts:
        logger.warning(
            "pool %s: match %s between players %s and %s recorded without counting: %s",
            pool.pk,
            match.pk,
            a.player_id,
            b.player_id,
            exemption,
        )
    changes = []
    for rating, opponent, update in ((a, b, updates[0]), (b, a, updates[1])):
        won = match.winner_id == rating.player_id
        glicko = update if isinstance(update, GlickoUpdate) else None
        changes.append(
            RatingChange(
                ladder=pool,
                match=match,
                player_id=rating.player_id,
                opponent_id=opponent.player_id,
                won=won,
                rating_before=update.before,
                # Uncounted (farming): recorded with K 0, the rating row left as it is.
                rating_after=update.after if counts else update.before,
                delta=update.delta if counts else 0.0,
                expected=update.expected,
                score=update.score,
                k=update.k if counts else 0.0,
                season=season,
                # Uncounted, the deviation and volatility stay as stored too.
                deviation_before=glicko and glicko.deviation_before,
                deviation_after=glicko and (glicko.deviation_after if counts else rating.deviation),
                volatility_before=glicko and glicko.volatility_before,
                volatility_after=glicko
                and (glicko.volatility_after if counts else rating.volatility),
            )
        )
        if not counts:
            continue
        rating.rating = update.after
        rating.peak = max(rating.peak, update.after)
        rating.matches_played += 1
        rating.wins += won
        rating.losses += not won
        if glicko is not None:
            rating.deviation = glicko.deviation_after
            rating.volatility = glicko.volatility_after
        rating.provisional = pool.is_provisional(rating.matches_played, rating.deviation)
        rating.last_active = max(when, rating.last_active) if rating.last_active else when
        rating.last_opponent_id = opponent.player_id
    # The unique constraint on (match, player) is the last word: a second writer fails here.
    RatingChange.objects.bulk_create(changes)
    if not counts:
        return changes
    Rating.objects.bulk_update(
        [a, b],
        [
            "rating",
            "peak",
            "matches_played",
            "wins",
            "losses",
            "deviation",
            "volatility",
            "provisional",
            "last_active",
            "last_opponent",
        ],
    )
    return changes


def ladder_match_finished(*, match: Match, now: datetime | None = None) -> bool:
    """A finished or cancelled match of a pool: rate it and send its bots back to the queue.

    Runs once per match: the link row is claimed with a conditional update (``processed_at``
    from empty to now), so the receiver, the sweep and a rerun cannot do it twice. Returns
    True if this call did the work; False for a match no pool rates, or one already done.
    """
    now = now or timezone.now()
    with transaction.atomic():
        link = LadderMatch.objects.select_related("ladder").filter(match_id=match.pk).first()
        if link is None or match.status not in (Match.Status.FINISHED, Match.Status.CANCELLED):
            return False
        claimed = LadderMatch.objects.filter(pk=link.pk, processed_at__isnull=True).update(
            processed_at=now
        )
        if not claimed:
            return False
        ladder = link.ladder
        if match.status == Match.Status.FINISHED:
            rating_apply(pool=ladder, match=match, now=now)
            fairplay_watch(match=match)  # people only: analysed in the background
        _bots_requeue(ladder, match, now)
    return True


def _bots_requeue(ladder: Ladder, match: Match, now: datetime) -> None:
    """Bots rejoin the ladder's queue after ``bot_requeue_seconds`` (if the ladder says so)."""
    if not ladder.has_queue or ladder.bot_requeue_seconds is None or not ladder.is_open:
        return
    at = now + timedelta(seconds=ladder.bot_requeue_seconds)
    bots = Player.objects.filter(pk__in=match.players, kind=Player.Kind.BOT)
    for bot in bots:
        if bot.bot_strategy not in engine_bots.BOTS:
            continue
        membership = membership_ensure(ladder=ladder, player=bot)
        # A bot already waiting somewhere keeps its place (one entry per player).
        QueueEntry.objects.bulk_create(
            [
                QueueEntry(
                    ladder=ladder, player=bot, membership=membership, joined_at=at, available_at=at
                )
            ],
            ignore_conflicts=True,
        )
