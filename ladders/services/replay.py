"""Replaying a pool's rating history: recompute every rating from the results, in order,
compare with what was stored, and (asked to) set the rating rows to the replayed end state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from ladders.bulk import fetch_rows, stream_rows
from ladders.models import FairPlayRefund, Ladder, Rating, RatingChange, Season
from ladders.services.rating import Standing, match_rate
from ratings.elo import MatchResult, Side, rate_match
from ratings.glicko2 import GlickoUpdate


@dataclass
class ReplayReport:
    """What replaying a pool's rating history found."""

    changes: int = 0  # rating change rows read
    matches: int = 0  # matches recomputed
    mismatches: int = 0  # rows whose stored before/after differ from the recomputation
    # Rows that differ because a fair-play refund took earlier matches back: written after
    # the first match taken back and before the refund, they were rated from ratings the
    # refund has since restored.
    revised: int = 0
    voided: int = 0  # rating change rows left out: matches taken back (fair play)
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
    is never rewritten. Matches taken back by a fair-play refund (their changes ``voided``)
    are left out; a change rated between the first of them and the refund is counted as
    ``revised``, not as a mismatch.
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
    history = RatingChange.objects.filter(ladder=pool)
    report.voided = history.filter(voided=True).count()
    revised_from = revised_to = 0
    if report.voided:
        first = history.filter(voided=True).order_by("pk").values_list("pk", flat=True).first()
        revised_from = first or 0
        revised_to = (
            FairPlayRefund.objects.filter(ladder=pool)
            .order_by("-last_change")
            .values_list("last_change", flat=True)
            .first()
        ) or 0
    columns.append("pk")  # last: read only to tell a revised change from a mismatch
    rows = history.filter(voided=False).order_by("pk").values_list(*columns)
    fresh = pool.newcomer()
    start, deviation, volatility = fresh["rating"], fresh["deviation"], fresh["volatility"]
    initial = [start, 0, start, 0, 0, None, deviation, volatility]
    pulled = 0  # of ``pulls``, those replayed so far
    for row in stream_rows(rows, chunk_size=20_000):
        match_id, player, before, after, pa, pb, winner, won_a, won_b, margin, k = row[:11]
        report.changes += 1
        season = number_of.get(row[-2])
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
            if revised_from < row[-1] <= revised_to:
                report.revised += 1
                continue
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
