"""Match analysis: asked for on a finished match, computed in steps on the batch queue.

The method is :mod:`games.engine.analysis` (each decision's expected loss from the player's
seat); this module holds who may ask, the row that keeps the work, and the steps:

- :func:`analysis_request`: staff or either player of a finished match played online asks;
  the row is created with a fresh seed and the first step is queued on commit. Asking again
  answers the same row (a failed one is started again).
- :func:`analysis_queue`: the same without a person asking (fair play analyses every rated
  match of people in the background).
- :func:`analysis_step`: analyses decisions for ``ANALYSIS_STEP_SECONDS`` of CPU, appends
  their rows under the row's lock, and queues the next step; the last one stores the result.
  The engine's work runs outside any transaction; a step that finds the rows moved on since it
  read them (the same step delivered twice) throws its work away.
- :func:`analysis_sweep`: queues a step again for an analysis whose last step was lost with
  its worker (nothing written for a while).
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.selectors import player_for_user
from common.enqueue import task_on_commit
from games import selectors
from games.engine import analysis as method
from games.models import Match, MatchAnalysis
from games.services.base import Conflict, NotAPlayer, PlayError
from games.signals import analysis_finished

logger = logging.getLogger(__name__)

#: The task that runs one step (games.tasks).
STEP_TASK = "games.analyse_match"
#: An analysis queued or running with nothing written for this long lost its step.
STALE_AFTER = timedelta(minutes=3)


class NotFinished(Conflict):
    code = "not_finished"


class NothingToAnalyse(Conflict):
    code = "no_decisions"


class TooManyAnalyses(PlayError):
    status = 429
    code = "too_many_analyses"


#: A person (not staff) may have this many analyses waiting or running at once.
OPEN_PER_USER = 3


#: The permission a staff member needs to ask for the analysis of a match they did not play.
PERMISSION = "games.add_matchanalysis"


def may_request(*, match: Match, user: AbstractBaseUser | AnonymousUser) -> bool:
    """The people who played the match, and staff holding :data:`PERMISSION`, may ask for
    its analysis."""
    if not user.is_authenticated:
        return False
    if user.is_staff and user.has_perm(PERMISSION):
        return True
    player = player_for_user(user=user)
    return player is not None and match.index_of(player.pk) is not None


def analysis_request(
    *, match: Match, user: AbstractBaseUser | AnonymousUser
) -> tuple[MatchAnalysis, bool]:
    """The match's analysis, asked for by ``user``; whether this call queued work.

    Refused: ``not_a_player`` (403) for anyone but the match's players and staff with the
    permission,
    ``not_finished`` (409) while the match is not finished (an analysis reads both hands),
    ``no_decisions`` (409) for a match played with real cards (its hands were entered as
    scores: there is no decision to judge), ``too_many_analyses`` (429) when a person who is
    not staff already has :data:`OPEN_PER_USER` analyses waiting or running.
    """
    if not may_request(match=match, user=user):
        raise NotAPlayer(_("Only the match's players and staff may ask for its analysis."))
    if match.status != Match.Status.FINISHED:
        raise NotFinished(_("A match is analysed once it is finished."))
    if match.at_table:
        raise NothingToAnalyse(
            _("This match was played with real cards: there are no decisions to analyse.")
        )
    with transaction.atomic():
        analysis, created = MatchAnalysis.objects.select_for_update().get_or_create(
            match=match,
            defaults={
                "seed": secrets.randbits(62),
                "samples": settings.ANALYSIS_SAMPLES,
                "requested_by": user if user.is_authenticated else None,
            },
        )
        if not created and analysis.status != MatchAnalysis.Status.FAILED:
            return analysis, False
        if not user.has_perm(PERMISSION) and _open_for(user, analysis.pk) >= OPEN_PER_USER:
            raise TooManyAnalyses(
                _("You have %(count)d analyses under way: ask again when one is done.")
                % {"count": OPEN_PER_USER}
            )
        if not created:  # failed: start again from nothing, with the same seed
            analysis.status = MatchAnalysis.Status.QUEUED
            analysis.rows = []
            analysis.error = ""
            analysis.save(update_fields=["status", "rows", "error", "updated_at"])
        task_on_commit(STEP_TASK, analysis.pk)
    return analysis, True


def analysis_queue(*, match: Match) -> MatchAnalysis | None:
    """Queue the analysis of a finished online match, asked by nobody (the service itself);
    the existing analysis if there is one; None for a match that has nothing to analyse."""
    if match.status != Match.Status.FINISHED or match.at_table:
        return None
    analysis, created = MatchAnalysis.objects.get_or_create(
        match=match, defaults={"seed": secrets.randbits(62), "samples": settings.ANALYSIS_SAMPLES}
    )
    if created:
        task_on_commit(STEP_TASK, analysis.pk)
    return analysis


def _open_for(user: AbstractBaseUser, exclude: int) -> int:
    return (
        MatchAnalysis.objects.filter(
            requested_by=user,
            status__in=(MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING),
        )
        .exclude(pk=exclude)
        .count()
    )


def analysis_step(*, analysis_id: int, budget: float | None = None) -> bool:
    """Analyse the next decisions of an analysis; True when another step was queued.

    An analysis that is done or failed (or gone) is left alone.
    """
    row = (
        MatchAnalysis.objects.filter(pk=analysis_id)
        .values("status", "seed", "samples", "match_id", "rows")
        .first()
    )
    if row is None or row["status"] in (MatchAnalysis.Status.DONE, MatchAnalysis.Status.FAILED):
        return False
    start = len(row["rows"])
    match = Match.objects.get(pk=row["match_id"])
    log = selectors.match_log(match=match)
    started = time.process_time()
    budget = settings.ANALYSIS_STEP_SECONDS if budget is None else budget
    try:
        rows, total = method.analyse_some(log, row["seed"], row["samples"], start, budget)
        error = ""
    except Exception as exc:  # a log the engine refuses: told, not retried forever
        rows, total, error = [], 0, f"{type(exc).__name__}: {exc}"
    spent = time.process_time() - started
    with transaction.atomic():
        analysis = MatchAnalysis.objects.select_for_update().get(pk=analysis_id)
        if analysis.status in (MatchAnalysis.Status.DONE, MatchAnalysis.Status.FAILED):
            return False
        if len(analysis.rows) != start:  # another delivery of this step got there first
            return False
        analysis.cpu_seconds += spent
        if error:
            analysis.status = MatchAnalysis.Status.FAILED
            analysis.error = error
            analysis.finished_at = timezone.now()
            analysis.save()
            return False
        analysis.rows = analysis.rows + rows
        analysis.decisions_total = total
        if len(analysis.rows) >= total:
            analysis.result = method.assemble(log, analysis.rows, analysis.seed, analysis.samples)
            analysis.rows = []  # all in the result now: not kept twice
            analysis.status = MatchAnalysis.Status.DONE
            analysis.finished_at = timezone.now()
            analysis.save()
            _announce(analysis)
            return False
        analysis.status = MatchAnalysis.Status.RUNNING
        analysis.save()
        task_on_commit(STEP_TASK, analysis.pk)
    return True


def _announce(analysis: MatchAnalysis) -> None:
    """Send ``analysis_finished`` in a savepoint: a receiver's failure leaves the analysis."""
    try:
        with transaction.atomic():
            analysis_finished.send(sender=MatchAnalysis, match=analysis.match, analysis=analysis)
    except Exception:
        logger.exception("an analysis_finished receiver failed for match %s", analysis.match_id)


def analysis_sweep(*, now=None) -> int:
    """Queue a step again for every analysis queued or running with nothing written for
    :data:`STALE_AFTER` (its step was lost); how many."""
    now = now or timezone.now()
    stale = MatchAnalysis.objects.filter(
        status__in=(MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING),
        updated_at__lt=now - STALE_AFTER,
    ).values_list("pk", flat=True)
    count = 0
    for pk in list(stale[:50]):
        with transaction.atomic():
            # Touched, so the next sweep waits for this step before it asks again.
            MatchAnalysis.objects.filter(pk=pk).update(updated_at=now)
            task_on_commit(STEP_TASK, pk)
        count += 1
    return count
