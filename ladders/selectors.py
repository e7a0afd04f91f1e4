"""Reads of ladders: leaderboards, a player's rating and history, head-to-head, queue status.

The leaderboard reads a page's player ids in rank order from the ``ladders_rating_board``
index alone (its trailing keys carry every column eligibility and the filters test, so no
table row is visited to skip the pages before), then those rows. Page 500 costs an index walk
of ten thousand small entries, never a scan of the table. The API reads both in one prepared
statement as plain values (:func:`leaderboard_values`); the web pages read them as models
(:func:`leaderboard_page`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.models import Count, F, Q, QuerySet, Sum
from django.utils import timezone
from psycopg import pq

from accounts.models import Player
from common.compiled import statement_cursor
from games.matchmaking import WindowPolicy
from games.models import IN_PROGRESS, Match
from ladders.models import (
    Ladder,
    LadderMatch,
    QueueEntry,
    Rating,
    RatingChange,
    Season,
    SeasonEntry,
    deviation_as_of,
)
from ladders.pools import RATED_EVENTS_POOL, standing_key, window_policy

#: Seconds a leaderboard's size is cached: counting 100,000 eligible players on every page
#: request would cost more than the page itself.
COUNT_TTL = 30


@dataclass(frozen=True)
class BoardFilters:
    """Filters of a leaderboard on top of the ladder's eligibility rules."""

    hide_provisional: bool = False
    active_days: int | None = None
    kind: str | None = None  # "human" or "bot"

    def cache_key(self, ladder: Ladder) -> str:
        return (
            f"ladders:board-count:{ladder.pk}:{int(self.hide_provisional)}:"
            f"{self.active_days or 0}:{self.kind or ''}"
        )


def eligible_ratings(
    *, ladder: Ladder, filters: BoardFilters | None = None, now: datetime | None = None
) -> QuerySet[Rating]:
    """Ratings on the ladder's leaderboard: enough rated matches, one of them recent."""
    filters = filters or BoardFilters()
    now = now or timezone.now()
    days = ladder.leaderboard_active_days
    if filters.active_days is not None:
        days = min(days, filters.active_days)
    qs = Rating.objects.filter(
        ladder=ladder,
        matches_played__gte=ladder.leaderboard_min_matches,
        last_active__gte=now - timedelta(days=days),
    )
    if filters.hide_provisional:
        # As of each player's last rated match (under Glicko-2 the deviation then; the
        # activity window keeps the growth since small).
        qs = qs.filter(provisional=False)
    if filters.kind is not None:
        qs = qs.filter(is_bot=filters.kind == Player.Kind.BOT)
    return qs


@dataclass(frozen=True)
class BoardPage:
    """One page of a leaderboard: ``(rank, rating)`` rows, and whether more follow."""

    rows: list[tuple[int, Rating]]
    has_next: bool


def leaderboard_page(
    *,
    ladder: Ladder,
    page: int,
    page_size: int,
    filters: BoardFilters | None = None,
    now: datetime | None = None,
) -> BoardPage:
    """Page ``page`` (from 1) of the ladder's leaderboard, ranked by rating.

    Ranks are positions: equal ratings are ordered by player id (the earlier member first).
    """
    offset = (page - 1) * page_size
    ranked = eligible_ratings(ladder=ladder, filters=filters, now=now).order_by(
        "-rating", "player_id"
    )
    # One extra id says whether a next page exists, without counting.
    ids = list(ranked.values_list("player_id", flat=True)[offset : offset + page_size + 1])
    has_next = len(ids) > page_size
    ids = ids[:page_size]
    by_player = {
        r.player_id: r
        for r in Rating.objects.filter(ladder=ladder, player_id__in=ids).select_related("player")
    }
    for r in by_player.values():
        r.ladder = ladder  # the deviation as of now needs the ladder's settings: no query a row
    rows = [(offset + i + 1, by_player[pid]) for i, pid in enumerate(ids) if pid in by_player]
    return BoardPage(rows, has_next)


@dataclass(frozen=True)
class BoardValues:
    """One page of a leaderboard as plain values: ``(rank, row)`` pairs, each row the
    columns of :data:`BOARD_COLUMNS` (the deviation as of now), and whether more follow."""

    rows: list[tuple[int, tuple]]
    has_next: bool


#: The columns of a row of :class:`BoardValues`: the rating's (``r``) and its player's (``p``).
BOARD_COLUMNS = (
    ("r", Rating._meta.get_field("player")),
    ("p", Player._meta.get_field("name")),
    ("p", Player._meta.get_field("kind")),
    *(
        ("r", Rating._meta.get_field(name))
        for name in (
            "rating",
            "deviation",
            "volatility",
            "peak",
            "matches_played",
            "wins",
            "losses",
            "provisional",
            "last_active",
        )
    ),
)

#: One page of a leaderboard with its players, in one statement: the page's player ids in
#: rank order from the ``ladders_rating_board`` index alone (as :func:`leaderboard_page`
#: reads them), then those ratings and players. ``{filters}`` takes the optional conditions.
_BOARD_SQL = (
    "SELECT "
    + ", ".join(f"{alias}.{field.column}" for alias, field in BOARD_COLUMNS)
    + f"""
FROM (
    SELECT player_id, rating FROM {Rating._meta.db_table}
    WHERE ladder_id = %s AND matches_played >= %s AND last_active >= %s{{filters}}
    ORDER BY rating DESC, player_id
    LIMIT %s OFFSET %s
) AS ranked
JOIN {Rating._meta.db_table} r ON r.ladder_id = %s AND r.player_id = ranked.player_id
JOIN {Player._meta.db_table} p ON p.id = ranked.player_id
ORDER BY ranked.rating DESC, ranked.player_id
"""
)

_BOARD_CONVERTERS: dict[str, list[tuple[int, list, Any]]] = {}


def _board_converters(connection: Any) -> list[tuple[int, list, Any]]:
    """The converters Django's compiler would apply to each column of :data:`_BOARD_SQL`
    (SQLite's booleans and datetimes, say), by column position, per database vendor."""
    found = _BOARD_CONVERTERS.get(connection.vendor)
    if found is None:
        found = []
        for position, (alias, field) in enumerate(BOARD_COLUMNS):
            column = field.get_col(alias)
            functions = connection.ops.get_db_converters(column)
            functions += column.get_db_converters(connection)
            if functions:
                found.append((position, functions, column))
        _BOARD_CONVERTERS[connection.vendor] = found
    return found


#: What of its ladder a leaderboard page reads: the eligibility rules, and the Glicko-2
#: settings that grow a deviation with time away (``Ladder.glicko_config``).
BOARD_LADDER_FIELDS = (
    "leaderboard_min_matches",
    "leaderboard_active_days",
    "rating_system",
    "initial_rating",
    "glicko_deviation",
    "glicko_volatility",
    "glicko_tau",
    "glicko_period_days",
    "provisional_deviation",
    "scoring",
    "human_bot_factor",
    "rating_floor",
)


def leaderboard_values(
    *,
    ladder: Ladder,
    page: int,
    page_size: int,
    filters: BoardFilters | None = None,
    now: datetime | None = None,
) -> BoardValues:
    """Page ``page`` (from 1) of the ladder's leaderboard as :func:`leaderboard_page` ranks
    it, read in one statement as plain values rather than model instances."""
    filters = filters or BoardFilters()
    now = now or timezone.now()
    days = ladder.leaderboard_active_days
    if filters.active_days is not None:
        days = min(days, filters.active_days)
    since = connection.ops.adapt_datetimefield_value(now - timedelta(days=days))
    conditions = ""
    params: list[Any] = [ladder.pk, ladder.leaderboard_min_matches, since]
    if filters.hide_provisional:
        conditions += " AND provisional = %s"
        params.append(False)
    if filters.kind is not None:
        conditions += " AND is_bot = %s"
        params.append(filters.kind == Player.Kind.BOT)
    offset = (page - 1) * page_size
    # One extra row says whether a next page exists, without counting.
    params += [page_size + 1, offset, ladder.pk]
    # Prepared once per connection where the hot path's statements are (common.compiled),
    # and then read in binary: no text to parse back into numbers and times.
    with statement_cursor(connection) as cursor:
        if isinstance(cursor.cursor, ServerBindingCursor):
            cursor.cursor.format = pq.Format.BINARY
        cursor.execute(_BOARD_SQL.format(filters=conditions), params)
        found = cursor.fetchall()
    has_next = len(found) > page_size
    converters = _board_converters(connection)
    config = None
    rows = []
    for rank, row in enumerate(found[:page_size], offset + 1):
        if converters:
            row = list(row)
            for position, functions, column in converters:
                for function in functions:
                    row[position] = function(row[position], column, connection)
        if row[4] is not None and row[5] is not None:
            config = config or ladder.glicko_config
            row = (*row[:4], deviation_as_of(row[4], row[5], row[11], config, now), *row[5:])
        rows.append((rank, tuple(row)))
    return BoardValues(rows, has_next)


def leaderboard_size(
    *, ladder: Ladder, filters: BoardFilters | None = None, now: datetime | None = None
) -> int:
    """How many players the leaderboard ranks (cached for ``COUNT_TTL`` seconds)."""
    filters = filters or BoardFilters()
    key = filters.cache_key(ladder)
    size = cache.get(key)
    if size is None:
        size = eligible_ratings(ladder=ladder, filters=filters, now=now).count()
        cache.set(key, size, COUNT_TTL)
    return size


def rating_for(*, pool: Ladder, player: Player) -> Rating:
    """The player's rating in the pool; an unsaved row at the initial rating if they have none.

    For seeding rated events: ``rating_for(pool=pool, player=p).rating``.
    """
    rating = Rating.objects.filter(ladder=pool, player=player).first()
    if rating is None:
        rating = Rating(ladder=pool, player=player, is_bot=player.is_bot, **pool.newcomer())
    return rating


def ratings_for(*, pool: Ladder, players: list[Player]) -> dict[int, float]:
    """Ratings of several players by id (the initial rating for those without one)."""
    found = dict(
        Rating.objects.filter(ladder=pool, player__in=players).values_list("player_id", "rating")
    )
    return {p.pk: found.get(p.pk, pool.initial_rating) for p in players}


def ratings_for_players(*, player_ids: list[int], pool: Ladder | None = None) -> dict[int, float]:
    """Ratings by player id in ``pool`` (default: the rated-events pool); unrated ones left out.

    What tournaments reads to seed rated events by rating.
    """
    if pool is None:
        pool = Ladder.objects.filter(slug=RATED_EVENTS_POOL).first()
        if pool is None:
            return {}
    return dict(
        Rating.objects.filter(ladder=pool, player_id__in=list(player_ids)).values_list(
            "player_id", "rating"
        )
    )


def rank_of(*, rating: Rating, now: datetime | None = None) -> int | None:
    """The player's rank on the default leaderboard, or None if they are not eligible."""
    if rating.pk is None:
        return None
    board = eligible_ratings(ladder=rating.ladder, now=now)
    if not board.filter(pk=rating.pk).exists():
        return None
    ahead = board.filter(
        Q(rating__gt=rating.rating) | Q(rating=rating.rating, player_id__lt=rating.player_id)
    ).count()
    return ahead + 1


def rating_history(*, pool: Ladder, player: Player) -> QuerySet[RatingChange]:
    """The player's rating changes in the pool, newest first."""
    return (
        RatingChange.objects.filter(ladder=pool, player=player)
        .select_related("opponent")
        .order_by("-id")
    )


@dataclass(frozen=True)
class HeadToHead:
    matches: int
    wins: int
    losses: int
    rating_delta: float  # what A gained (or lost) against B in all
    recent: list[RatingChange]  # A's side, newest first


def head_to_head(*, pool: Ladder, a: Player, b: Player, recent: int = 10) -> HeadToHead:
    """A's record against B in the pool's rated matches (those taken back for fair play left
    out)."""
    rows = RatingChange.objects.filter(ladder=pool, player=a, opponent=b, voided=False)
    totals = rows.aggregate(
        matches=Count("pk"), wins=Count("pk", filter=Q(won=True)), delta=Sum("delta")
    )
    return HeadToHead(
        matches=totals["matches"],
        wins=totals["wins"],
        losses=totals["matches"] - totals["wins"],
        rating_delta=totals["delta"] or 0.0,
        recent=list(rows.select_related("opponent").order_by("-id")[:recent]),
    )


def _one_decimal(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def pool_brief(pool: Ladder) -> dict[str, Any]:
    """A pool as a match names it: what a rating in it is, and when one stops being provisional."""
    return {
        "id": pool.pk,
        "name": pool.name,
        "slug": pool.slug,
        "kind": pool.kind,
        "system": pool.rating_system,
        "provisional_matches": None if pool.is_glicko else pool.provisional_matches,
        "provisional_deviation": pool.provisional_deviation if pool.is_glicko else None,
    }


def match_rating(*, match_id: int) -> dict[str, Any] | None:
    """What rating the match plays for and, once it is rated, what it did to each player.

    None for a match no pool rates. Otherwise ``{"pool": ..., "ratings": ...}`` where
    ``ratings`` is None until the pool has rated the finished match (in the transaction that
    finished it, or by the sweep if that failed), then one entry per player in seat order:
    ``before`` and ``after`` (one decimal), ``change`` (``after - before`` as shown),
    ``provisional`` (whether the rating after this match still is: under Elo fewer than the
    pool's provisional count of rated matches, ``rated_matches`` being the count up to and
    including this one; under Glicko-2 a deviation above the pool's threshold), ``deviation``
    (Glicko-2, after) and ``counted`` (False for a match recorded without counting, e.g.
    rating farming: nothing changed).
    """
    link = LadderMatch.objects.select_related("ladder").filter(match_id=match_id).first()
    if link is None:
        return None
    pool = link.ladder
    match = Match.objects.filter(pk=match_id).values("player_a_id", "player_b_id").first()
    changes = {c.player_id: c for c in RatingChange.objects.filter(match_id=match_id)}
    if match is None or not changes:
        return {"pool": pool_brief(pool), "ratings": None}
    ratings = []
    for player_id in (match["player_a_id"], match["player_b_id"]):
        change = changes.get(player_id)
        if change is None:  # cannot happen: a match is rated for both players at once
            return {"pool": pool_brief(pool), "ratings": None}
        # Counted matches up to this one (the history index: ladder, player, id).
        played = RatingChange.objects.filter(
            ladder=pool, player_id=player_id, pk__lte=change.pk, k__gt=0
        ).count()
        before, after = _one_decimal(change.rating_before), _one_decimal(change.rating_after)
        ratings.append(
            {
                "player": player_id,
                "before": before,
                "after": after,
                "change": round(after - before, 1),
                "provisional": pool.is_provisional(played, change.deviation_after),
                "rated_matches": played,
                "deviation": _one_decimal(change.deviation_after),
                "counted": change.k > 0,
            }
        )
    return {"pool": pool_brief(pool), "ratings": ratings}


def player_rating_brief(*, player_id: int, match_id: int) -> dict[str, Any] | None:
    """A player's rating as a match shows them (a challenge to them, before it is accepted).

    In the pool that would rate the match (``match_rating``'s pool) if one does, a newcomer's
    initial rating there if they have none yet (``rating_for``); otherwise their main rating:
    the one of the pool they played most rated matches in (the most recent on a tie). None
    for a player with no rating anywhere and an unrated match.
    ``{"rating": one decimal, "provisional", "pool": {"id", "name"}}``.
    """
    rated = match_rating(match_id=match_id)
    if rated is not None:
        pool = Ladder.objects.get(pk=rated["pool"]["id"])
        row = rating_for(pool=pool, player=Player.objects.get(pk=player_id))
    else:
        row = (
            Rating.objects.filter(player_id=player_id)
            .select_related("ladder")
            .order_by("-matches_played", F("last_active").desc(nulls_last=True), "pk")
            .first()
        )
        if row is None:
            return None
        pool = row.ladder
    return {
        "rating": _one_decimal(row.rating),
        "provisional": bool(row.provisional),
        "pool": {"id": pool.pk, "name": pool.name},
    }


def ratings_at_table(*, match: Match) -> dict[str, Any] | None:
    """What a table shows of a rated match: the pool, and each player's rating in seat order.

    Until the match is rated, the players' ratings now (a newcomer's initial rating if they
    have none yet); once it is, the ratings it left them with (``match_rating``'s ``after``),
    whatever they played since. None for an unrated match.
    """
    rated = match_rating(match_id=match.pk)
    if rated is None:
        return None
    if rated["ratings"] is not None:
        players = [
            {"rating": r["after"], "provisional": r["provisional"]} for r in rated["ratings"]
        ]
        return {"pool": rated["pool"], "players": players}
    pool = Ladder.objects.get(pk=rated["pool"]["id"])
    rows = {r.player_id: r for r in Rating.objects.filter(ladder=pool, player_id__in=match.players)}
    fresh = pool.newcomer()
    players = []
    for player_id in match.players:
        row = rows.get(player_id)
        players.append(
            {
                "rating": _one_decimal(row.rating if row else fresh["rating"]),
                "provisional": row.provisional if row else bool(fresh["provisional"]),
            }
        )
    return {"pool": rated["pool"], "players": players}


@dataclass(frozen=True)
class QueueStatus:
    """Where a player stands with a ladder's queue."""

    entry: QueueEntry | None
    waited_seconds: float | None
    window: float | None
    match: Match | None  # their ladder match waiting to start or in play
    last_match: Match | None  # their latest finished ladder match


def queue_status(*, ladder: Ladder, player: Player, now: datetime | None = None) -> QueueStatus:
    now = now or timezone.now()
    entry = QueueEntry.objects.filter(ladder=ladder, player=player).first()
    waited = window = None
    if entry is not None:
        policy: WindowPolicy = window_policy(ladder)
        waited = max(0.0, (now - entry.joined_at).total_seconds())
        window = policy.width(waited)
    mine = Match.objects.filter(ladder_link__ladder=ladder).filter(
        Q(player_a=player) | Q(player_b=player)
    )
    related = ("player_a", "player_b", "winner")
    match = mine.filter(status__in=IN_PROGRESS).select_related(*related).order_by("-pk").first()
    last = (
        mine.filter(status=Match.Status.FINISHED).select_related(*related).order_by("-pk").first()
    )
    return QueueStatus(entry, waited, window, match, last)


def queue_size(*, ladder: Ladder) -> int:
    return QueueEntry.objects.filter(ladder=ladder).count()


# --- seasons ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingRow:
    """A row of a season's division: final once the season is closed, live while it is open."""

    rank: int
    player: Player
    division: int
    rating: float
    deviation: float | None
    matches_played: int
    wins: int
    losses: int
    movement: str  # promoted, relegated or stayed once closed; empty while open


def season_standings(
    *, season: Season, division: int = 1, now: datetime | None = None
) -> list[StandingRow]:
    """A division's standings: the frozen final rows of a closed season, or live ratings.

    While the season is open, its players of that division are ranked by their current rating
    (ties: the season's wins, then the earlier member), their record counted from the rating
    changes of the season. Once closed, the rows written at the close and nothing else.
    """
    entries = SeasonEntry.objects.filter(season=season, division=division).select_related("player")
    if season.closed_at is not None:
        return [
            StandingRow(
                e.rank or 0,
                e.player,
                e.division,
                e.rating or 0.0,
                e.deviation,
                e.matches_played,
                e.wins,
                e.losses,
                e.movement,
            )
            for e in entries.order_by("rank", "player_id")
        ]
    now = now or timezone.now()
    members = {e.player_id: e for e in entries}
    ratings = {
        r.player_id: r
        for r in Rating.objects.filter(ladder=season.ladder, player_id__in=list(members))
    }
    record = {
        row["player_id"]: (row["played"], row["won"])
        for row in RatingChange.objects.filter(
            season=season, k__gt=0, voided=False, player_id__in=list(members)
        )
        .values("player_id")
        .annotate(played=Count("pk"), won=Count("pk", filter=Q(won=True)))
    }
    rows = []
    for player_id, entry in members.items():
        rating = ratings.get(player_id)
        for_rating = rating.rating if rating else season.ladder.initial_rating
        played, won = record.get(player_id, (0, 0))
        if rating is not None:
            rating.ladder = season.ladder
        deviation = rating.deviation_now(now) if rating else None
        rows.append((for_rating, won, player_id, entry, deviation, played))
    rows.sort(key=lambda r: standing_key(r[0], r[1], r[2]))
    return [
        StandingRow(rank, entry.player, division, value, deviation, played, won, played - won, "")
        for rank, (value, won, _, entry, deviation, played) in enumerate(rows, start=1)
    ]


def seasons_of_player(*, player: Player, ladder: Ladder | None = None) -> list[SeasonEntry]:
    """The player's seasons (in every ladder, or in ``ladder``), newest first, with the season
    and its ladder."""
    entries = SeasonEntry.objects.filter(player=player)
    if ladder is not None:
        entries = entries.filter(season__ladder=ladder)
    return list(
        entries.select_related("season", "season__ladder").order_by(
            "-season__starts_at", "season__ladder__name"
        )
    )
