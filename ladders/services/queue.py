"""The queue of a ladder: join it (the matchmaker runs once the join commits) and leave it.

A player has at most one queue entry (a unique constraint backs the check), and joins no
queue while a match of theirs is in progress.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from common.enqueue import task_on_commit
from games import services as games_services
from games.engine import bots as engine_bots
from games.models import IN_PROGRESS, Match
from ladders.models import Ladder, LadderMatch, QueueEntry
from ladders.services.base import Conflict, LadderError
from ladders.services.memberships import membership_ensure


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
        raise Conflict(
            _("%(ladder)s is a rated pool without a queue") % {"ladder": ladder.name},
            code="not_a_ladder",
        )
    if not ladder.is_open:
        raise Conflict(
            _("%(ladder)s is closed to new entries") % {"ladder": ladder.name},
            code="ladder_closed",
        )
    if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
        raise LadderError(
            _("bot %(name)s plays an unknown strategy %(strategy)s")
            % {"name": repr(player.name), "strategy": repr(player.bot_strategy)},
            code="unknown_bot",
        )
    if ladder.bots_only and not player.is_any_bot:
        raise LadderError(
            _("%(ladder)s is for bots only: a person may watch it, or play through a bot")
            % {"ladder": ladder.name},
            code="bots_only",
            status=403,
        )
    if player.is_guest:
        raise LadderError(
            _("%(name)s is a guest without an account: a ladder is played online")
            % {"name": player.name},
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
                _("you are already in the queue of %(ladder)s") % {"ladder": ladder.name},
                code="already_queued",
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
            _("you are already in the queue of %(ladder)s") % {"ladder": ladder.name},
            code="already_queued",
            joined_at=existing.joined_at.isoformat(),
        )
    raise Conflict(
        _("you are waiting in the queue of %(ladder)s: leave it first")
        % {"ladder": existing.ladder.name},
        code="queued_elsewhere",
        ladder=existing.ladder_id,
    )


def _refuse_busy(match: Match, ladder: Ladder) -> None:
    link = LadderMatch.objects.filter(match=match).first()
    if link is not None and link.ladder_id == ladder.pk:
        raise Conflict(
            _("you are playing match %(match)s of %(ladder)s: finish it first")
            % {"match": match.pk, "ladder": ladder.name},
            code="in_match",
            match=match.pk,
        )
    rules = (match.rules or {}).get("name", "standard")
    raise Conflict(
        _(
            "you have a match in progress (match %(match)s, %(rules)s rules, best of "
            "%(best_of)s): finish it before joining %(ladder)s"
        )
        % {"match": match.pk, "rules": rules, "best_of": match.best_of, "ladder": ladder.name},
        code="match_in_progress",
        match=match.pk,
    )


def queue_leave(*, ladder: Ladder, player: Player) -> None:
    """Take the player out of the ladder's queue.

    Conflict ``not_queued`` (nothing changes) when they are not waiting in it: never joined,
    waiting in another ladder, or already paired (the message names the match).
    """
    with transaction.atomic():
        deleted, _by_model = QueueEntry.objects.filter(ladder=ladder, player=player).delete()
        if deleted:
            return
        elsewhere = QueueEntry.objects.filter(player=player).select_related("ladder").first()
        if elsewhere is not None:
            raise Conflict(
                _("you are not in the queue of %(ladder)s but of %(other)s")
                % {"ladder": ladder.name, "other": elsewhere.ladder.name},
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
                _("you were already paired: match %(match)s") % {"match": match.pk},
                code="not_queued",
                match=match.pk,
            )
        raise Conflict(
            _("you are not in the queue of %(ladder)s") % {"ladder": ladder.name},
            code="not_queued",
        )
