"""Seasons of a ladder: open one, count each rated match in one season, close it on time.

A season runs from ``starts_at`` to ``ends_at``. Opening it places the ladder's rated players
in its divisions: by rating for a ladder's first season, by last season's promotions and
relegations after that (newcomers start in the bottom division, as does anyone first rated
during the season). Closing it freezes every division's final standings (rank, rating,
deviation, the season's record, promoted, relegated or stayed), pulls the ratings toward the
initial rating by the ladder's ``season_pull``, and (with ``season_days``) opens the next one.

Exactly one season per rated match: :func:`season_for_rating`, called by the rating service
before it locks the two players' rating rows, holds the open season in share mode (a
PostgreSQL advisory lock on its id, until commit); a close takes it exclusively. So a close
waits for the ratings in flight to commit (they count in the season being closed), and a
rating that comes after the close sees it closed and counts in the next season (the one the
close opened, even if the match finished a moment before the end). A rating whose match
finished at or after the season's end closes the season first (the boundary is exact even
between two sweeps). The same order (season, then rating rows) on both paths means the two
cannot deadlock. On SQLite (embedded) every write transaction takes the database's write
lock up front: they run one at a time.

Closing twice changes nothing: the close claims the season under its row lock and returns
early once ``closed_at`` is set; the frozen rows are never written again.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ladders.models import Ladder, Rating, RatingChange, Season, SeasonEntry
from ladders.pools import standing_key
from ladders.services.base import Conflict, LadderError

logger = logging.getLogger(__name__)

Movement = SeasonEntry.Movement


def season_open(
    *, ladder: Ladder, starts_at: datetime, ends_at: datetime, now: datetime | None = None
) -> Season:
    """Open the ladder's next season and place its players in the divisions.

    Refusals (nothing changes): LadderError ``invalid_season`` when it would end before it
    starts or has already ended; Conflict ``season_open`` while another season of the ladder
    is not closed.
    """
    now = now or timezone.now()
    if ends_at <= starts_at:
        raise LadderError(_("a season must end after it starts"), code="invalid_season")
    if ends_at <= now:
        raise LadderError(_("that season would already be over"), code="invalid_season")
    with transaction.atomic():
        Ladder.objects.select_for_update(no_key=True).filter(pk=ladder.pk).first()
        current = Season.objects.filter(ladder=ladder, closed_at__isnull=True).first()
        if current is not None:
            raise Conflict(
                _("season %(number)s of %(ladder)s is not closed yet")
                % {"number": current.number, "ladder": ladder.name},
                code="season_open",
                season=current.number,
            )
        return _open(ladder, starts_at, ends_at)


def _open(ladder: Ladder, starts_at: datetime, ends_at: datetime) -> Season:
    last = Season.objects.filter(ladder=ladder).aggregate(n=Max("number"))["n"] or 0
    previous = Season.objects.filter(ladder=ladder, number=last).first()
    season = Season.objects.create(
        ladder=ladder, number=last + 1, starts_at=starts_at, ends_at=ends_at
    )
    SeasonEntry.objects.bulk_create(
        SeasonEntry(season=season, player_id=player, division=division)
        for player, division in placement(ladder, previous).items()
    )
    return season


def placement(ladder: Ladder, previous: Season | None) -> dict[int, int]:
    """Each rated player's division in a new season (1 is the top).

    The first season (or a ladder without divisions) places by rating, ``division_size`` a
    division and the rest in the last; after a season, each player moves as it decided and
    players new since start in the bottom division.
    """
    count = ladder.divisions
    ranked = list(
        Rating.objects.filter(ladder=ladder, matches_played__gt=0)
        .order_by("-rating", "player_id")
        .values_list("player_id", flat=True)
    )
    if count == 1:
        return dict.fromkeys(ranked, 1)
    moves = {}
    if previous is not None:
        moves = {
            e.player_id: e.division
            + (-1 if e.movement == Movement.PROMOTED else 0)
            + (1 if e.movement == Movement.RELEGATED else 0)
            for e in previous.entries.all()
        }
    if not moves:
        return {
            player: min(count, 1 + i // ladder.division_size) for i, player in enumerate(ranked)
        }
    return {player: max(1, min(count, moves.get(player, count))) for player in ranked}


def season_for_rating(*, pool: Ladder, when: datetime) -> Season | None:
    """The season a match the pool is rating now counts in, its row locked in share mode.

    Called inside the rating transaction before the rating rows are locked. A season that is
    due (its end at or before ``when``) is closed first, here, so the match counts in the next.
    """
    while True:
        season = (
            Season.objects.filter(ladder=pool, closed_at__isnull=True).order_by("number").first()
        )
        if season is None or (season.starts_at > when and not _follows_a_close(season)):
            return None
        if season.ends_at <= when:
            season_close(season_id=season.pk, now=when)
            continue
        if not _share_lock(season):
            continue  # closed while we waited: look again (the next season, or none)
        return season


def _follows_a_close(season: Season) -> bool:
    """Whether the season was opened by its predecessor's close (it starts where that ended).

    A match that finished just before the end but is rated just after the close (it waited
    for the season's row) counts in this season, not in none.
    """
    previous = Season.objects.filter(ladder_id=season.ladder_id, number=season.number - 1).first()
    return (
        previous is not None
        and previous.closed_at is not None
        and previous.closed_at >= season.starts_at
    )


#: The namespace of the seasons' advisory locks (the other key is the season's id).
LOCK_NAMESPACE = 0x5EA5


def _share_lock(season: Season) -> bool:
    """Hold the season in share mode until commit; False if it was closed meanwhile."""
    if connection.vendor != "postgresql":  # SQLite: one writer at a time already
        return True
    _advisory_lock(season.pk, shared=True)
    return Season.objects.filter(pk=season.pk, closed_at__isnull=True).exists()


def _advisory_lock(season_id: int, *, shared: bool) -> None:
    # An advisory lock, not the row's FOR SHARE: the lock manager queues a new share request
    # behind a waiting close, where row share locks would let a busy ladder's stream of
    # ratings starve the close for as long as matches keep finishing.
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [LOCK_NAMESPACE, season_id])


def season_entries_ensure(*, season: Season, pool: Ladder, player_ids: list[int]) -> None:
    """Players first rated during the season join it in the bottom division."""
    SeasonEntry.objects.bulk_create(
        [SeasonEntry(season=season, player_id=p, division=pool.divisions) for p in player_ids],
        ignore_conflicts=True,  # those placed already keep their division
    )


def season_close(*, season_id: int, now: datetime | None = None) -> bool:
    """Close a season that is due: freeze its standings, move the players, pull the ratings.

    Returns True if this call closed it; False if it was closed already or is not due yet.
    Idempotent and safe to race: the season row is locked and claimed by ``closed_at``.
    """
    now = now or timezone.now()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            _advisory_lock(season_id, shared=False)  # waits for the ratings in flight
        season = (
            Season.objects.select_for_update().select_related("ladder").filter(pk=season_id).first()
        )
        if season is None or season.closed_at is not None or season.ends_at > now:
            return False
        ladder = season.ladder
        _freeze(season, ladder)
        season.closed_at = now
        season.pull = ladder.season_pull  # kept: ladder_replay pulls the same way
        season.save(update_fields=["closed_at", "pull"])
        if ladder.season_pull:
            pull, mean = ladder.season_pull, ladder.initial_rating
            Rating.objects.filter(ladder=ladder).update(
                rating=F("rating") - pull * (F("rating") - mean)
            )
        if ladder.season_days:
            ends = season.ends_at + timedelta(days=ladder.season_days)
            _open(ladder, season.ends_at, ends)
    logger.info("ladder %s: season %s closed", ladder.pk, season.number)
    return True


def _freeze(season: Season, ladder: Ladder) -> None:
    entries = list(season.entries.all())
    record = {
        row["player_id"]: row
        for row in RatingChange.objects.filter(season=season, k__gt=0, voided=False)
        .values("player_id")
        .annotate(played=Count("pk"), won=Count("pk", filter=Q(won=True)))
    }
    ratings = {
        r.player_id: r
        for r in Rating.objects.filter(ladder=ladder, player_id__in=[e.player_id for e in entries])
    }
    now = timezone.now()
    by_division: dict[int, list[SeasonEntry]] = {}
    for entry in entries:
        stats = record.get(entry.player_id, {"played": 0, "won": 0})
        rating = ratings.get(entry.player_id)
        entry.rating = rating.rating if rating else ladder.initial_rating
        entry.deviation = rating.deviation_now(now) if rating else None
        entry.matches_played, entry.wins = stats["played"], stats["won"]
        entry.losses = stats["played"] - stats["won"]
        by_division.setdefault(entry.division, []).append(entry)
    n = ladder.promotion
    for division, members in by_division.items():
        members.sort(key=lambda e: standing_key(e.rating, e.wins, e.player_id))
        size = len(members)
        for rank, entry in enumerate(members, start=1):
            entry.rank = rank
            if ladder.divisions > 1 and division > 1 and rank <= n:
                entry.movement = Movement.PROMOTED
            elif ladder.divisions > 1 and division < ladder.divisions and rank > size - n:
                entry.movement = Movement.RELEGATED
            else:
                entry.movement = Movement.STAYED
    SeasonEntry.objects.bulk_update(
        entries,
        ["rank", "rating", "deviation", "matches_played", "wins", "losses", "movement"],
        batch_size=500,
    )


def seasons_sweep(*, now: datetime | None = None, limit: int = 20) -> int:
    """Close every season that is due (the ladders' sweep runs this every second)."""
    now = now or timezone.now()
    due = Season.objects.filter(closed_at__isnull=True, ends_at__lte=now).order_by("ends_at")
    return sum(
        season_close(season_id=pk, now=now) for pk in due.values_list("pk", flat=True)[:limit]
    )
