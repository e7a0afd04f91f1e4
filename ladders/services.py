"""Writes of ladders and rating pools: join and leave the queue, pair, rate, reconcile.

Exactly-once rating: :func:`rating_apply` locks the two players' rating rows (in player id
order, so two matches sharing a player cannot deadlock), looks for the match's rating changes
and writes them only if there are none; the unique constraint on (match, player) backs the
check, so a receiver run twice or a redelivered task cannot rate a match twice.

Atomic matchmaking: one pass per ladder at a time (the ladder row is locked with SKIP LOCKED:
a second pass finds it taken and leaves the work to the first). The pass then locks the queue
entries it chose, in id order, and deletes them in the transaction that creates the matches;
an entry that left meanwhile (or that a second pass, past a switched-off ladder lock, paired
first) is gone and its pair is dropped. A player has at most one entry: nobody can be paired
twice.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import Player, stable_of
from config.enqueue import task_on_commit
from config.errors import ServiceError
from games import services as games_services
from games.engine import bots as engine_bots
from games.matchmaking import Seeker, pair
from games.models import IN_PROGRESS, Match, seed_commitment
from games.selectors import moves_made
from ladders.bulk import bulk_insert, delete_ids, fetch_rows, gc_paused, lock_ids, stream_rows
from ladders.live import pairing_tell
from ladders.models import Ladder, LadderMatch, QueueEntry, Rating, RatingChange, Season
from ladders.pools import RATED_EVENTS_POOL, window_policy
from ratings import glicko2
from ratings.elo import MatchResult, RatingUpdate, Side, rate_match
from ratings.glicko2 import GlickoSide, GlickoUpdate, deviation_after_absence

logger = logging.getLogger(__name__)

_unfinished = Match.objects.filter(status__in=IN_PROGRESS).values("pk")
#: Matches handed to one start task.
START_CHUNK = 200
#: Matches one matchmaker pass writes at most; a pass that found more runs again at once.
MAX_MATCHES_PER_PASS = 500
#: A ladder match still waiting to start after this long lost its start task: the sweep starts it.
START_GRACE = timedelta(seconds=15)


# --- errors ---------------------------------------------------------------------------------


class LadderError(ServiceError):
    """A refused request of the ladders."""


class Conflict(LadderError):
    """The request does not fit the current state (already queued, in a match, ...)."""

    status = 409
    code = "conflict"


# --- ladders and memberships ----------------------------------------------------------------


def ladder_create(*, name: str, slug: str | None = None, **fields: Any) -> Ladder:
    """A ladder (or, with ``kind=Ladder.Kind.POOL``, a rated pool); fields are validated.

    The rule set must be one the engine accepts (LadderError ``invalid_rules`` otherwise).
    """
    ladder = Ladder(name=name, slug=slug or slugify(name), **fields)
    ladder_rules_check(ladder)
    ladder.full_clean()
    ladder.save()
    return ladder


def ladder_rules_check(ladder: Ladder) -> None:
    """Refuse a ladder's rule set unless the engine accepts it (PlayError ``invalid_rules``
    naming the option) and it plays no duplicate deals (LadderError): the check of the
    organiser API and of the admin's form alike."""
    rules = games_services.rules_build(
        ladder.rules or None, best_of=ladder.best_of, target=ladder.target
    )
    if rules.duplicate_deals:
        # A ladder pairs people (see games.services.rules_check_players).
        raise LadderError(
            "a ladder cannot play duplicate deals: they are for house bots only",
            code="duplicate_deals_need_bots",
        )


def membership_ensure(*, ladder: Ladder, player: Player) -> Rating:
    """The player's rating row in the pool, created at the initial rating if missing."""
    rating, _ = Rating.objects.get_or_create(
        ladder=ladder,
        player=player,
        defaults={"is_bot": player.is_bot, **ladder.newcomer()},
    )
    return rating


# --- the queue ------------------------------------------------------------------------------


def queue_join(
    *,
    ladder: Ladder,
    player: Player,
    now: datetime | None = None,
    new_opponent: bool = False,
) -> QueueEntry:
    """Put the player in the ladder's queue; the matchmaker runs once this commits.

    The matchmaker pairs nobody with their last opponent while anyone else is in reach; with
    ``new_opponent`` ("New opponent" after a ladder match) the opponent of the player's last
    finished match of this ladder is never their opponent in this wait, however long it lasts.

    Refusals (nothing changes): Conflict ``not_a_ladder`` (a rated pool has no queue),
    ``ladder_closed``, ``already_queued`` (this ladder), ``queued_elsewhere`` (another
    ladder's queue), ``in_match`` (a match of this ladder in progress) and
    ``match_in_progress`` (any other match in progress, e.g. under another rule set);
    LadderError ``unknown_bot`` for a bot whose strategy is not installed, 403 ``bots_only``
    for a person on a ladder for bots only, 403 ``guest_cannot_queue`` for a guest (who has
    no account to play online with).
    """
    now = now or timezone.now()
    if not ladder.has_queue:
        raise Conflict(f"{ladder.name} is a rated pool without a queue", code="not_a_ladder")
    if not ladder.is_open:
        raise Conflict(f"{ladder.name} is closed to new entries", code="ladder_closed")
    if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
        raise LadderError(
            f"bot {player.name!r} plays an unknown strategy {player.bot_strategy!r}",
            code="unknown_bot",
        )
    if ladder.bots_only and not player.is_any_bot:
        raise LadderError(
            f"{ladder.name} is for bots only: a person may watch it, or play through a bot",
            code="bots_only",
            status=403,
        )
    if player.is_guest:
        raise LadderError(
            f"{player.name} is a guest without an account: a ladder is played online",
            code="guest_cannot_queue",
            status=403,
        )
    with transaction.atomic():
        existing = QueueEntry.objects.select_related("ladder").filter(player=player).first()
        if existing is not None:
            _refuse_queued(existing, ladder)
        match = games_services.match_in_progress(player)
        if match is not None:
            _refuse_busy(match, ladder)
        membership = membership_ensure(ladder=ladder, player=player)
        avoid = last_opponent(ladder=ladder, player=player) if new_opponent else None
        try:
            with transaction.atomic():
                entry = QueueEntry.objects.create(
                    ladder=ladder,
                    player=player,
                    membership=membership,
                    joined_at=now,
                    available_at=now,
                    avoid_id=avoid,
                )
        except IntegrityError:
            # A second join raced this one past the check: the one-entry-per-player
            # constraint refused it.
            raise Conflict(
                f"you are already in the queue of {ladder.name}", code="already_queued"
            ) from None
        task_on_commit("ladders.matchmake", ladder.pk)
    return entry


def last_opponent(*, ladder: Ladder, player: Player) -> int | None:
    """The opponent of the player's last finished match of this ladder (None: no such match)."""
    last = (
        Match.objects.filter(ladder_link__ladder=ladder, status=Match.Status.FINISHED)
        .filter(Q(player_a=player) | Q(player_b=player))
        .order_by("-finished_at", "-pk")
        .values_list("player_a_id", "player_b_id")
        .first()
    )
    if last is None:
        return None
    return last[1] if last[0] == player.pk else last[0]


def _refuse_queued(existing: QueueEntry, ladder: Ladder) -> None:
    if existing.ladder_id == ladder.pk:
        raise Conflict(
            f"you are already in the queue of {ladder.name}",
            code="already_queued",
            joined_at=existing.joined_at.isoformat(),
        )
    raise Conflict(
        f"you are waiting in the queue of {existing.ladder.name}: leave it first",
        code="queued_elsewhere",
        ladder=existing.ladder_id,
    )


def _refuse_busy(match: Match, ladder: Ladder) -> None:
    link = LadderMatch.objects.filter(match=match).first()
    if link is not None and link.ladder_id == ladder.pk:
        raise Conflict(
            f"you are playing match {match.pk} of {ladder.name}: finish it first",
            code="in_match",
            match=match.pk,
        )
    rules = (match.rules or {}).get("name", "standard")
    raise Conflict(
        f"you have a match in progress (match {match.pk}, {rules} rules, best of "
        f"{match.best_of}): finish it before joining {ladder.name}",
        code="match_in_progress",
        match=match.pk,
    )


def queue_leave(*, ladder: Ladder, player: Player) -> None:
    """Take the player out of the ladder's queue.

    Conflict ``not_queued`` (nothing changes) when they are not waiting in it: never joined,
    waiting in another ladder, or already paired (the message names the match).
    """
    with transaction.atomic():
        deleted, _ = QueueEntry.objects.filter(ladder=ladder, player=player).delete()
        if deleted:
            return
        elsewhere = QueueEntry.objects.filter(player=player).select_related("ladder").first()
        if elsewhere is not None:
            raise Conflict(
                f"you are not in the queue of {ladder.name} but of {elsewhere.ladder.name}",
                code="not_queued",
                ladder=elsewhere.ladder_id,
            )
        match = (
            Match.objects.filter(ladder_link__ladder=ladder, status__in=IN_PROGRESS)
            .filter(Q(player_a=player) | Q(player_b=player))
            .first()
        )
        if match is not None:
            raise Conflict(
                f"you were already paired: match {match.pk}", code="not_queued", match=match.pk
            )
        raise Conflict(f"you are not in the queue of {ladder.name}", code="not_queued")


# --- matchmaking ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PassResult:
    """What one matchmaker pass did."""

    waiting: int  # entries looked at
    busy: int  # of those, players already playing (left waiting)
    matches: list[int]  # ids of the matches created
    found: int = 0  # pairs found (more than written when a burst exceeds the cap)
    dropped: int = 0  # pairs given up: a player left, was paired by another pass, or began a match
    timings: dict[str, float] = field(default_factory=dict)  # ms by phase, for benchmarks

    @property
    def paired(self) -> int:
        return 2 * len(self.matches)


def matchmaker_pass(
    *, ladder_id: int, now: datetime | None = None, lock: bool = True
) -> PassResult:
    """Pair the waiting players of one ladder and create their matches.

    Players already playing a match (any source) stay in the queue for a later pass. The
    matches are created waiting to start and started by tasks once this commits (and by the
    sweep if such a task is lost). ``lock=False`` skips the ladder lock (the tests use it to
    show the entry locks alone never pair a player twice).
    """
    now = now or timezone.now()
    clock = _Stopwatch()
    with transaction.atomic():
        ladders = Ladder.objects.filter(pk=ladder_id, kind=Ladder.Kind.LADDER)
        if lock:
            # One pass per ladder at a time; a pass that finds the ladder taken has nothing
            # to do: the running one sees the same queue. NO KEY UPDATE, not UPDATE: the
            # foreign-key checks of rows pointing at the ladder (a join's queue entry, the
            # links of the matches) take KEY SHARE, which it does not block.
            ladders = ladders.select_for_update(skip_locked=True, no_key=True)
        ladder = ladders.first()
        if ladder is None:
            return PassResult(0, 0, [])
        # Each waiting player, with whether they are busy: a match of theirs (any source)
        # waiting to start or in play. Two index probes a player, whatever else is played.
        with gc_paused():
            rows = fetch_rows(queue_rows(ladder_id=ladder.pk, now=now))
            if len(rows) < 2:
                return PassResult(len(rows), 0, [])
            clock.lap("read")
            spread = _uncertainty(ladder, now)
            seekers = [
                Seeker(
                    row[0],
                    row[1],
                    row[3],
                    (now - row[2]).total_seconds(),
                    row[4],
                    row[5],
                    spread(*row[8:11]),
                    stable_of(row[1], row[11], row[12]),
                    row[13],
                )
                for row in rows
                if not (row[6] or row[7])  # busy: a match of theirs waits or is in play
            ]
            pairs = pair(seekers, window_policy(ladder))
            clock.lap("pair")
        found = len(pairs)
        more = found > MAX_MATCHES_PER_PASS
        if more:
            # A burst: write the longest-waiting pairs now and run again once this commits,
            # so one transaction stays short (and its matches start sooner).
            pairs.sort(key=lambda p: -max(p[0].waited, p[1].waited))
            pairs = pairs[:MAX_MATCHES_PER_PASS]
        match_ids: list[int] = []
        dropped = 0
        if pairs:
            # Lock the chosen entries in id order (two passes cannot deadlock; a second one
            # waits here) and keep the pairs whose two entries are still there: a player may
            # have left, or another pass may have paired them, since the queue was read.
            present = lock_ids(QueueEntry, [s.key for p in pairs for s in p])
            kept = [(a, b) for a, b in pairs if a.key in present and b.key in present]
            # Then their players, as a challenge that starts a match does, and look again:
            # a match of theirs committed since the read (a challenge accepted, a bot
            # challenged) keeps them waiting here.
            players = [s.player for p in kept for s in p]
            lock_ids(Player, players, no_key=True)
            busy = _busy_players(players)
            kept = [(a, b) for a, b in kept if a.player not in busy and b.player not in busy]
            dropped = len(pairs) - len(kept)
            pairs = kept
            claimed = [s.key for p in pairs for s in p]
            deleted = delete_ids(QueueEntry, claimed)
            if deleted != len(claimed):  # cannot happen: the entries are locked
                raise RuntimeError(f"claimed {len(claimed)} queue entries, deleted {deleted}")
            clock.lap("claim")
            match_ids = _ladder_matches_create(ladder, pairs, now) if pairs else []
            clock.lap("write")
        for start in range(0, len(match_ids), START_CHUNK):
            task_on_commit("ladders.start_matches", match_ids[start : start + START_CHUNK])
        if more:
            task_on_commit("ladders.matchmake", ladder.pk)
    clock.lap("commit")
    return PassResult(len(rows), len(rows) - len(seekers), match_ids, found, dropped, clock.laps)


def _uncertainty(ladder: Ladder, now: datetime):
    """How much wider a seeker's window is for an uncertain rating (Glicko-2 pools only).

    The deviation as of now (grown by the time away) above the provisional threshold, times
    the ladder's ``window_deviation_factor``: a newcomer at 350 with the defaults accepts gaps
    240 points wider, a settled player none. Elo ratings carry no deviation: nothing widens.
    """
    config = ladder.glicko_config if ladder.is_glicko else None
    factor, threshold = ladder.window_deviation_factor, ladder.provisional_deviation

    def spread(deviation: float | None, volatility: float | None, active: datetime | None) -> float:
        if config is None or deviation is None or volatility is None or not factor:
            return 0.0
        if active is not None:
            days = (now - active).total_seconds() / 86400
            deviation = deviation_after_absence(deviation, volatility, days, config)
        return factor * max(0.0, deviation - threshold)

    return spread


class _Stopwatch:
    """Milliseconds spent in each phase of a pass (the benchmark prints them)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = (now - self._last) * 1000
        self._last = now


def _busy_players(player_ids: list[int]) -> set[int]:
    """Those of these players with a match waiting to start or in play.

    Two index probes a player, as in :func:`queue_rows` (an ``IN`` list over the unfinished
    matches would compare every one of them with every id).
    """
    return set(
        Player.objects.filter(pk__in=player_ids)  # at most 2 x MAX_MATCHES_PER_PASS ids
        .filter(
            Exists(_unfinished.filter(player_a=OuterRef("pk")))
            | Exists(_unfinished.filter(player_b=OuterRef("pk")))
        )
        .values_list("pk", flat=True)
    )


def queue_rows(*, ladder_id: int, now: datetime) -> QuerySet[QueueEntry]:
    """What a pass reads: each waiting player's entry, player, join time, rating, last
    opponent, bot flag, whether a match of theirs (any source) is waiting to start or in play,
    (for Glicko-2's wider windows) deviation, volatility and last rated match, (for their
    stable, :func:`accounts.models.stable_of`) kind and owner, and whom they avoid."""
    return (
        QueueEntry.objects.filter(ladder_id=ladder_id, available_at__lte=now)
        .annotate(
            busy_a=Exists(_unfinished.filter(player_a=OuterRef("player"))),
            busy_b=Exists(_unfinished.filter(player_b=OuterRef("player"))),
        )
        .order_by()
        .values_list(
            "pk",
            "player_id",
            "joined_at",
            "membership__rating",
            "membership__last_opponent_id",
            "membership__is_bot",
            "busy_a",
            "busy_b",
            "membership__deviation",
            "membership__volatility",
            "membership__last_active",
            "player__kind",
            "player__owner_id",
            "avoid_id",
        )
    )


def _ladder_matches_create(
    ladder: Ladder, pairs: list[tuple[Seeker, Seeker]], now: datetime
) -> list[int]:
    """Create the matches of one pass in bulk, waiting to start, each linked to the ladder.

    What ``games.services.match_create(start=False)`` does for one match, for thousands at
    once: the same validated rule set, a secret seed and its public commitment.
    """
    rules = games_services.rules_build(
        ladder.rules or None, best_of=ladder.best_of, target=ladder.target
    )
    template = Match(
        player_a_id=None,
        player_b_id=None,
        source=Match.Source.LADDER,
        rules=rules.to_dict(),
        best_of=rules.best_of,
        target=rules.target,
        seed=0,
        seed_commitment="",
        status=Match.Status.SCHEDULED,
    )
    time_control = ladder.time_control()
    if time_control is not None:
        template.base_seconds = time_control.base_seconds
        template.increment_seconds = time_control.increment_seconds
        template.turn_limit_seconds = time_control.turn_limit_seconds
        template.timeout_policy = time_control.timeout_policy
    rows = []
    for a, b in pairs:
        # Player A is whoever waited longer (who deals first comes from the seed anyway).
        first, second = (a, b) if a.waited >= b.waited else (b, a)
        seed = secrets.randbits(63)
        rows.append((first.player, second.player, seed, seed_commitment(seed)))
    match_ids = bulk_insert(
        template, varying=("player_a_id", "player_b_id", "seed", "seed_commitment"), rows=rows
    )
    bulk_insert(
        LadderMatch(ladder=ladder, created_at=now),
        varying=("match_id",),
        rows=[(match_id,) for match_id in match_ids],
    )
    return match_ids


def ladder_match_start(*, match_id: int) -> bool:
    """Start a ladder match waiting to start (a bot match goes to a worker). True if it did."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(of=("self",))  # the match row, not its players'
            .select_related("player_a", "player_b")
            .filter(pk=match_id)
            .first()
        )
        if match is None or match.status != Match.Status.SCHEDULED:
            return False  # started already (a redelivered task) or cancelled
        games_services.match_start(match=match)
        link = LadderMatch.objects.filter(match=match).select_related("ladder").first()
        if link is not None:
            pairing_tell(match=match, ladder=link.ladder)  # the table to open, on commit
        return True


def ladder_match_create(
    *, ladder: Ladder, player_a: Player, player_b: Player, seed: int | None = None
) -> Match:
    """One ladder match between two given players, created waiting to start.

    For the calibration command and staff; players from the queue are paired by
    :func:`matchmaker_pass`. Conflict ``same_stable`` for a person and a bot they own, or two
    bots of one owner: they never meet in rated play.
    """
    if player_a.stable_id is not None and player_a.stable_id == player_b.stable_id:
        raise Conflict(
            f"{player_a.name} and {player_b.name} are a person and their own bot, or two bots "
            "of one owner: they do not meet in rated play",
            code="same_stable",
        )
    with transaction.atomic():
        match = games_services.match_create(
            player_a=player_a,
            player_b=player_b,
            rules=ladder.rules or None,
            best_of=ladder.best_of,
            target=ladder.target,
            time_control=ladder.time_control(),
            source=Match.Source.LADDER,
            start=False,
            seed=seed,
        )
        LadderMatch.objects.create(match=match, ladder=ladder)
    return match


# --- ratings --------------------------------------------------------------------------------


def rated_events_pool() -> Ladder:
    """The rated pool of rated events (tournaments), created with the defaults if missing."""
    pool = Ladder.objects.filter(slug=RATED_EVENTS_POOL).first()
    if pool is None:
        pool, _ = Ladder.objects.get_or_create(
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
    link, _ = LadderMatch.objects.get_or_create(match=match, defaults={"ladder": pool})
    if link.ladder_id != pool.pk:
        raise Conflict(
            f"match {match.pk} is already rated in pool {link.ladder_id}", code="other_pool"
        )
    return link


def rating_apply(*, pool: Ladder, match: Match, now: datetime | None = None) -> list[RatingChange]:
    """Rate a finished match in ``pool``, exactly once; returns its two rating changes.

    Calling it again (a redelivered task, a receiver run twice, two workers at once) returns
    the changes already written and changes nothing. LadderError ``not_finished`` for a match
    without a result; Conflict ``other_pool`` if another pool rates this match.
    """
    from ladders import seasons

    now = now or timezone.now()
    if match.status != Match.Status.FINISHED or match.winner_id is None:
        raise LadderError(f"match {match.pk} has no result to rate", code="not_finished")
    with transaction.atomic():
        link = LadderMatch.objects.filter(match=match).first()
        if link is None:
            link = LadderMatch.objects.create(match=match, ladder=pool, processed_at=now)
        elif link.ladder_id != pool.pk:
            raise Conflict(f"match {match.pk} is rated in pool {link.ladder_id}", code="other_pool")
        existing = list(RatingChange.objects.filter(match=match).order_by("pk"))
        if existing:
            return existing
        players = Player.objects.in_bulk([match.player_a_id, match.player_b_id])
        for player in players.values():
            membership_ensure(ladder=pool, player=player)
        # The season first (its row before the rating rows, as a season's close takes them):
        # the match counts in the season open now, and a close waits for it (ladders.seasons).
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

    Uncounted, the match is recorded with K 0: no rating change, no record, and the history
    still replays to the ratings.
    """
    first, second = players[match.player_a_id], players[match.player_b_id]
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


# --- the periodic sweep ---------------------------------------------------------------------


@dataclass(frozen=True)
class SweepResult:
    processed: int  # finished or cancelled matches rated / requeued by the sweep
    started: int  # ladder matches whose start task was lost
    paired: int  # players paired
    closed: int = 0  # seasons closed (they were due)


def ladders_sweep(*, now: datetime | None = None, limit: int = 200) -> SweepResult:
    """What Celery beat runs every second (and the embedded sweeper thread).

    Closes the seasons that are due, catches up on finished ladder matches the receiver
    missed, starts ladder matches whose start task was lost, and runs a matchmaker pass for
    every ladder with players waiting.
    """
    from ladders import seasons

    now = now or timezone.now()
    closed = seasons.seasons_sweep(now=now)
    processed = 0
    pending = (
        LadderMatch.objects.filter(
            processed_at__isnull=True,
            match__status__in=(Match.Status.FINISHED, Match.Status.CANCELLED),
        )
        .select_related("match")
        .order_by("created_at")[:limit]
    )
    for link in pending:
        processed += ladder_match_finished(match=link.match, now=now)
    started = 0
    stale = LadderMatch.objects.filter(
        processed_at__isnull=True,
        match__status=Match.Status.SCHEDULED,
        created_at__lte=now - START_GRACE,
    ).values_list("match_id", flat=True)[:limit]
    for match_id in stale:
        started += ladder_match_start(match_id=match_id)
    paired = 0
    ladder_ids = (
        QueueEntry.objects.filter(available_at__lte=now)
        .order_by()
        .values_list("ladder_id", flat=True)
        .distinct()
    )
    for ladder_id in list(ladder_ids):
        paired += matchmaker_pass(ladder_id=ladder_id, now=now).paired
    return SweepResult(processed, started, paired, closed)


# --- replaying the history ------------------------------------------------------------------


@dataclass
class ReplayReport:
    """What replaying a pool's rating history found."""

    changes: int = 0  # rating change rows read
    matches: int = 0  # matches recomputed
    mismatches: int = 0  # rows whose stored before/after differ from the recomputation
    players: int = 0  # players with a rating at the end
    drifted: int = 0  # rating rows that differ from the replayed end state
    written: int = 0  # rating rows rewritten (write=True)
    first_mismatch: str = ""


@dataclass(frozen=True)
class _Unchanged:
    """The replayed update of a change recorded without counting: before and after equal."""

    before: float

    @property
    def after(self) -> float:
        return self.before


def _pull_all(state: dict[int, list[Any]], share: float, mean: float) -> None:
    """A season's close, replayed: every rating ``share`` of the way to ``mean``."""
    for s in state.values():
        s[0] = s[0] - share * (s[0] - mean)


def ratings_replay(*, pool: Ladder, write: bool = False, tolerance: float = 1e-6) -> ReplayReport:
    """Recompute every rating of ``pool`` from its history, match by match, in order.

    Reads the rating changes in the order they were written (a match that shares a player
    with an earlier one was rated after it: it waited for that player's row lock), recomputes
    each match with the pool's current settings and rating system (Elo or Glicko-2) from the
    match result, and compares with what was stored. With ``write`` the rating rows are set to
    the replayed end state (after a settings change, or to repair a drift). The history itself
    is never rewritten.
    """
    glicko = pool.is_glicko
    config = pool.rating_config
    report = ReplayReport()
    is_bot = dict(fetch_rows(Rating.objects.filter(ladder=pool).values_list("player_id", "is_bot")))
    # player -> [rating, matches, peak, wins, losses, last, deviation, volatility]
    state: dict[int, list[Any]] = {}
    pending: dict[int, tuple[Any, ...]] = {}  # match -> recomputed (a update, b update, a id)
    columns = [
        "match_id",
        "player_id",
        "rating_before",
        "rating_after",
        "match__player_a_id",
        "match__player_b_id",
        "match__winner_id",
        "match__games_won_a",
        "match__games_won_b",
        "match__margin_a",
        "k",
    ]
    timed = write or glicko  # Glicko-2's deviation grows with the time between matches
    if timed:
        columns += ["match__finished_at", "created_at"]
    # Each season's close pulled every rating toward the initial one: replayed before the
    # first change of a later season, and at the end for the seasons closed since.
    pulls = list(
        Season.objects.filter(ladder=pool, closed_at__isnull=False, pull__gt=0)
        .order_by("number")
        .values_list("number", "pull")
    )
    number_of = dict(Season.objects.filter(ladder=pool).values_list("pk", "number"))
    columns.append("season_id")
    rows = RatingChange.objects.filter(ladder=pool).order_by("pk").values_list(*columns)
    fresh = pool.newcomer()
    start, deviation, volatility = fresh["rating"], fresh["deviation"], fresh["volatility"]
    initial = [start, 0, start, 0, 0, None, deviation, volatility]
    pulled = 0  # of ``pulls``, those replayed so far
    for row in stream_rows(rows, chunk_size=20_000):
        match_id, player, before, after, pa, pb, winner, won_a, won_b, margin, k = row[:11]
        report.changes += 1
        season = number_of.get(row[-1])
        while pulled < len(pulls) and season is not None and pulls[pulled][0] < season:
            _pull_all(state, pulls[pulled][1], start)
            pulled += 1
        done = pending.pop(match_id, None)
        if done is None:
            report.matches += 1
            sa = state.get(pa) or state.setdefault(pa, list(initial))
            sb = state.get(pb) or state.setdefault(pb, list(initial))
            if k == 0:
                # Recorded without counting (rating farming, see farmed()): nothing changes.
                done = (_Unchanged(sa[0]), _Unchanged(sb[0]), pa)
                pending[match_id] = done
            else:
                result = MatchResult(0 if winner == pa else 1, (won_a, won_b), margin)
                when = (row[11] or row[12]) if timed else None
                if glicko:
                    ua, ub = match_rate(
                        pool=pool,
                        a=Standing(sa[0], sa[1], is_bot.get(pa, False), sa[6], sa[7], sa[5]),
                        b=Standing(sb[0], sb[1], is_bot.get(pb, False), sb[6], sb[7], sb[5]),
                        result=result,
                        when=when,
                    )
                else:  # the hot path of a million-row Elo replay: no wrappers
                    ua, ub = rate_match(
                        Side(sa[0], sa[1], is_bot.get(pa, False)),
                        Side(sb[0], sb[1], is_bot.get(pb, False)),
                        result,
                        config,
                    )
                for s, u, me in ((sa, ua, pa), (sb, ub, pb)):
                    s[0] = u.after
                    s[1] += 1
                    if u.after > s[2]:
                        s[2] = u.after
                    s[3 if winner == me else 4] += 1
                    if when is not None and (s[5] is None or when > s[5]):
                        s[5] = when
                    if isinstance(u, GlickoUpdate):
                        s[6], s[7] = u.deviation_after, u.volatility_after
                done = (ua, ub, pa)
                pending[match_id] = done
        ua, ub, pa = done
        update = ua if player == pa else ub
        if abs(update.before - before) > tolerance or abs(update.after - after) > tolerance:
            report.mismatches += 1
            if not report.first_mismatch:
                report.first_mismatch = (
                    f"match {match_id}, player {player}: stored {before:.3f} -> {after:.3f}, "
                    f"replayed {update.before:.3f} -> {update.after:.3f}"
                )
    for _, share in pulls[pulled:]:
        _pull_all(state, share, start)
    report.players = len(state)
    # Compare with the rating rows (a member who never played should still be at the start).
    stored = Rating.objects.filter(ladder=pool).values_list(
        "pk", "player_id", "rating", "matches_played", "peak", "wins", "losses", "deviation"
    )
    stale: list[Rating] = []
    for pk, player, rating, played, peak, wins, losses, deviation in stream_rows(stored):
        s = state.get(player, initial)
        drifted = abs(rating - s[0]) > tolerance or played != s[1]
        if glicko:
            drifted = drifted or deviation is None or abs(deviation - s[6]) > tolerance
        report.drifted += drifted
        if write and (drifted or abs(peak - s[2]) > tolerance or (wins, losses) != (s[3], s[4])):
            stale.append(
                Rating(
                    pk=pk,
                    rating=s[0],
                    matches_played=s[1],
                    peak=s[2],
                    wins=s[3],
                    losses=s[4],
                    last_active=s[5],
                    deviation=s[6],
                    volatility=s[7],
                    provisional=pool.is_provisional(s[1], s[6]),
                )
            )
    if write:
        # Only the rows that differ: a repair touches a few, a settings change all of them.
        fields = ["rating", "matches_played", "peak", "wins", "losses", "last_active"]
        with transaction.atomic():
            Rating.objects.bulk_update(
                stale, [*fields, "deviation", "volatility", "provisional"], batch_size=500
            )
        report.written = len(stale)
    return report
