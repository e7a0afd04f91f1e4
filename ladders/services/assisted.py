"""An account staff mark as assisted (fair play): it leaves the leaderboards, is paired with
bots only from then on, and in every pool it played in, its rated results are taken back.

- :func:`account_mark_assisted`: staff's decision, after reviewing a flag (or on their own
  evidence). Sets ``Player.assisted_at``, closes the account's open flags as assisted, takes it
  out of every ladder queue, then refunds each pool (:func:`pool_refund`).
- :func:`pool_refund`: once per pool and account (:class:`~ladders.models.FairPlayRefund`, with
  a unique constraint). Under every rating row of the pool locked (in player id order, the
  order a rating takes them, so the two cannot deadlock and no match is rated meanwhile), the
  account's rating changes and their opponents' in the same matches are voided, and the pool's
  ratings are replayed from its history without them (:func:`ratings_replay` with ``write``):
  every rating ends as a from-scratch replay without those matches would leave it, and each
  opponent gets back what it lost to the account (and gives back what it won from it). The
  refund row is the audit: who decided, when, each opponent's rating before and after.
- Marking an account again makes the refunds still missing (after a crash between the mark
  and a pool's refund) and changes nothing else.

Later matches of the account (against bots, or started before the mark) are recorded without
counting (:func:`ladders.services.rating.rating_exemption`), so the account stays out.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.models import Player
from ladders.models import FairPlayFlag, FairPlayRefund, Ladder, QueueEntry, Rating, RatingChange
from ladders.services.base import LadderError
from ladders.services.replay import ratings_replay


def account_mark_assisted(
    *,
    player: Player,
    by: AbstractBaseUser | None,
    note: str = "",
    now: datetime | None = None,
) -> list[FairPlayRefund]:
    """Mark ``player`` as assisted and refund every pool it was rated in; the refunds made.

    Only a person's account (LadderError ``not_a_person`` for a bot or a guest). Marking an
    account again changes nothing and makes only the refunds still missing.
    """
    now = now or timezone.now()
    if player.kind != Player.Kind.HUMAN:
        raise LadderError("only a person's account can be marked as assisted", code="not_a_person")
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        if locked.assisted_at is None:
            locked.assisted_at = now
            locked.save(update_fields=["assisted_at"])
        player.assisted_at = locked.assisted_at
        FairPlayFlag.objects.filter(player=player, status=FairPlayFlag.Status.OPEN).update(
            status=FairPlayFlag.Status.ASSISTED, reviewed_by=by, reviewed_at=now, note=note
        )
        QueueEntry.objects.filter(player=player).delete()
    pools = Ladder.objects.filter(
        pk__in=RatingChange.objects.filter(player=player).values("ladder_id")
    ).order_by("pk")
    return [pool_refund(pool=pool, player=player, by=by) for pool in pools]


def pool_refund(
    *, pool: Ladder, player: Player, by: AbstractBaseUser | None = None
) -> FairPlayRefund:
    """Take ``player``'s rated matches in ``pool`` back and replay the pool without them,
    exactly once (the existing refund when it was made already)."""
    with transaction.atomic():
        # Every rating row of the pool, in the order rating_apply locks two of them.
        list(
            Rating.objects.select_for_update(no_key=True)
            .filter(ladder=pool)
            .order_by("player_id")
            .values_list("pk", flat=True)
        )
        done = FairPlayRefund.objects.filter(ladder=pool, player=player).first()
        if done is not None:
            return done
        theirs = RatingChange.objects.filter(ladder=pool, player=player, voided=False)
        matches = list(theirs.values_list("match_id", flat=True))
        opponents = set(theirs.values_list("opponent_id", flat=True))
        rated = Rating.objects.filter(ladder=pool, player_id__in=opponents)
        before = dict(rated.values_list("player_id", "rating"))
        RatingChange.objects.filter(ladder=pool, match_id__in=matches).update(voided=True)
        report = ratings_replay(pool=pool, write=True)
        after = dict(rated.values_list("player_id", "rating"))
        rows = [
            {"player": p, "before": round(before.get(p, 0.0), 3), "after": round(after[p], 3)}
            for p in sorted(opponents)
            if p in after
        ]
        last = RatingChange.objects.filter(ladder=pool).aggregate(last=Max("pk"))["last"] or 0
        return FairPlayRefund.objects.create(
            ladder=pool,
            player=player,
            marked_by=by,
            matches=len(matches),
            opponents=len(rows),
            points=round(sum(r["after"] - r["before"] for r in rows), 3),
            ratings_written=report.written,
            last_change=last,
            report={
                "opponents": rows,
                "replay": {
                    "changes": report.changes,
                    "matches": report.matches,
                    "voided": report.voided,
                    "drifted": report.drifted,
                },
            },
        )
