"""Fair play in rating pools: every rated match between people is analysed in the background,
each account's agreement with the house expert is kept, and an implausible one is flagged for
staff to review (never punished automatically). docs/fair-play.md has the test and its
validation.

- :func:`fairplay_watch`: a pool's finished match between two people (no bot, no guest):
  its analysis is queued on the batch queue (:func:`games.services.analysis.analysis_queue`).
- :func:`fairplay_count`: an analysis is done (``games.signals.analysis_finished``): each
  person's decisions are added to their :class:`~ladders.models.FairPlayRecord` in the pool,
  once per match (:class:`~ladders.models.FairPlayMatch`), then :func:`fairplay_check` runs.
- :func:`fairplay_check`: per phase (draws, discards) with ``k`` of ``n`` decisions agreeing,
  flagged when ``n >= FAIRPLAY_MIN_DECISIONS`` and ``P(Bin(n, c) >= k) < FAIRPLAY_ALPHA / 2``,
  ``c`` the band's ceiling (:func:`band_ceilings`).
- :func:`flag_dismiss`: staff close a flag after review.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import Player
from games.models import Match, MatchAnalysis
from games.services import analysis as analysis_service
from ladders.models import FairPlayFlag, FairPlayMatch, FairPlayRecord, LadderMatch, Rating

PHASES = ("draws", "discards")
#: The standard error the band's ceiling adds to the band's high agreement: a binomial one
#: at this many decisions.
CEILING_DECISIONS = 300


def _people(match: Match) -> bool:
    kinds = set(
        Player.objects.filter(pk__in=match.players).values_list("kind", flat=True).distinct()
    )
    return kinds == {Player.Kind.HUMAN}


def fairplay_watch(*, match: Match) -> MatchAnalysis | None:
    """Queue the analysis of a pool's finished match between two people (None otherwise)."""
    if not settings.FAIRPLAY_ANALYSE or match.status != Match.Status.FINISHED:
        return None
    if not _people(match):
        return None
    return analysis_service.analysis_queue(match=match)


def _phase(row: dict[str, Any]) -> str:
    return "discards" if row["phase"] == "discard" else "draws"


def fairplay_count(*, match: Match, analysis: MatchAnalysis) -> list[FairPlayFlag]:
    """Add a done analysis of a pool's match between people to its players' records, once;
    the flags this raised."""
    link = LadderMatch.objects.filter(match_id=match.pk).select_related("ladder").first()
    if link is None or analysis.result is None or not _people(match):
        return []
    flags = []
    with transaction.atomic():
        try:
            with transaction.atomic():
                FairPlayMatch.objects.create(match=match)
        except IntegrityError:
            return []  # counted already
        rows = [r for g in analysis.result["games"] for d in g["deals"] for r in d["decisions"]]
        for index, player_id in enumerate(match.players):
            mine = [r for r in rows if r["player"] == index]
            add: dict[str, Any] = {"matches": F("matches") + 1}
            for phase in PHASES:
                taken = [r for r in mine if _phase(r) == phase]
                add[phase] = F(phase) + len(taken)
                add[f"{phase}_agreed"] = F(f"{phase}_agreed") + sum(
                    1 for r in taken if r["agrees_expert"]
                )
            add["loss_total"] = F("loss_total") + sum(r["loss"] for r in mine)
            record = FairPlayRecord.objects.get_or_create(ladder=link.ladder, player_id=player_id)[
                0
            ]
            FairPlayRecord.objects.filter(pk=record.pk).update(**add)
            record.refresh_from_db()
            flag = fairplay_check(record=record, match=match)
            if flag is not None:
                flags.append(flag)
    return flags


def binomial_tail(n: int, k: int, c: float) -> float:
    """``P(Bin(n, c) >= k)``: the chance an account whose true agreement is ``c`` agrees
    ``k`` times or more in ``n`` decisions."""
    if k <= 0:
        return 1.0
    if c >= 1.0:
        return 1.0
    if c <= 0.0:
        return 0.0
    total = 0.0
    for i in range(k, n + 1):
        total += math.exp(
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * math.log(c)
            + (n - i) * math.log1p(-c)
        )
    return min(1.0, total)


def band_ceilings(*, record: FairPlayRecord) -> dict[str, float]:
    """The highest agreement an honest account of the record's rating band is taken to show,
    per phase.

    The band: the pool's accounts rated within ``FAIRPLAY_BAND`` points of this one, with at
    least :data:`CEILING_DECISIONS` decisions of the phase counted. With at least
    ``FAIRPLAY_BAND_ACCOUNTS`` of them (this account left out), the band's 95th percentile plus
    a binomial standard error at :data:`CEILING_DECISIONS` decisions, but never below the
    default ceiling (``FAIRPLAY_CEILING_DRAWS`` and ``_DISCARDS``, measured on simulated
    players by ``make bench-fairplay``); otherwise the default.
    """
    defaults = {
        "draws": settings.FAIRPLAY_CEILING_DRAWS,
        "discards": settings.FAIRPLAY_CEILING_DISCARDS,
    }
    rating = (
        Rating.objects.filter(ladder_id=record.ladder_id, player_id=record.player_id)
        .values_list("rating", flat=True)
        .first()
    )
    if rating is None:
        return defaults
    band = Rating.objects.filter(
        ladder_id=record.ladder_id,
        rating__gte=rating - settings.FAIRPLAY_BAND,
        rating__lte=rating + settings.FAIRPLAY_BAND,
    ).values_list("player_id", flat=True)
    others = FairPlayRecord.objects.filter(ladder_id=record.ladder_id, player_id__in=band).exclude(
        pk=record.pk
    )
    out = {}
    for phase in PHASES:
        rates = sorted(
            agreed / n
            for n, agreed in others.filter(**{f"{phase}__gte": CEILING_DECISIONS}).values_list(
                phase, f"{phase}_agreed"
            )
        )
        if len(rates) < settings.FAIRPLAY_BAND_ACCOUNTS:
            out[phase] = defaults[phase]
            continue
        top = rates[min(len(rates) - 1, math.ceil(0.95 * len(rates)) - 1)]
        ceiling = min(0.999, top + math.sqrt(top * (1 - top) / CEILING_DECISIONS))
        out[phase] = max(defaults[phase], ceiling)
    return out


def fairplay_check(*, record: FairPlayRecord, match: Match | None = None) -> FairPlayFlag | None:
    """Flag the record's account if its agreement is implausible for its band (and it has no
    open flag in the pool); the new flag, or None."""
    ceilings = band_ceilings(record=record)
    alpha = settings.FAIRPLAY_ALPHA
    figures = {}
    implausible = False
    for phase in PHASES:
        n = getattr(record, phase)
        k = getattr(record, f"{phase}_agreed")
        p = binomial_tail(n, k, ceilings[phase])
        figures[phase] = {
            "decisions": n,
            "agreed": k,
            "agreement": round(100 * k / n, 1) if n else None,
            "ceiling": round(100 * ceilings[phase], 1),
            "p": p,
        }
        if n >= settings.FAIRPLAY_MIN_DECISIONS and p < alpha / 2:
            implausible = True
    if not implausible:
        return None
    if FairPlayFlag.objects.filter(
        ladder_id=record.ladder_id, player_id=record.player_id, status=FairPlayFlag.Status.OPEN
    ).exists():
        return None
    counted = list(
        FairPlayMatch.objects.filter(
            match__ladder_link__ladder_id=record.ladder_id, match__in=_matches_of(record)
        ).values_list("match_id", flat=True)
    )
    evidence = {
        "phases": figures,
        "alpha": alpha,
        "matches": counted,
        "flagged_after": match.pk if match else None,
        "average_loss": round(record.loss_total / max(1, record.draws + record.discards), 2),
        "matches_counted": record.matches,
    }
    return FairPlayFlag.objects.create(
        ladder_id=record.ladder_id, player_id=record.player_id, evidence=evidence
    )


def _matches_of(record: FairPlayRecord):
    return Match.objects.filter(Q(player_a_id=record.player_id) | Q(player_b_id=record.player_id))


def flag_dismiss(*, flag: FairPlayFlag, by: AbstractBaseUser, note: str = "") -> FairPlayFlag:
    """Staff close an open flag after review (the account keeps its figures)."""
    FairPlayFlag.objects.filter(pk=flag.pk, status=FairPlayFlag.Status.OPEN).update(
        status=FairPlayFlag.Status.DISMISSED, reviewed_by=by, reviewed_at=timezone.now(), note=note
    )
    flag.refresh_from_db()
    return flag
