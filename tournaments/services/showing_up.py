"""Showing up: players ready for their match, no-shows past the grace period, the sweep.

The sweep (beat, or the embedded worker's loop) also records results a failed receiver
missed.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from games import services as play
from games.models import IN_PROGRESS, Match
from tournaments.live import event_changed, match_players_tell
from tournaments.models import Event, Pairing
from tournaments.services.advancing import advance
from tournaments.services.base import Conflict, TournamentError, lock_event
from tournaments.services.results import announce_result, pairing_record


def match_ready(*, match: Match, player: Player, now: datetime | None = None) -> Pairing:
    """A player shows up for their tournament match; when every human has, it starts.

    After the grace period it is too late: the no-show is settled (and committed) first, then
    the call is refused with 409.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(of=("self",))
            .select_related("player_a", "player_b")
            .get(pk=match.pk)
        )
        found = Pairing.objects.filter(match=match).values_list("event_id", flat=True).first()
        if found is None:
            raise TournamentError(_("this is not a tournament match"), code="not_found", status=404)
        side = match.index_of(player.pk)
        if side is None:
            raise TournamentError(
                _("you are not a player of this match"), code="not_a_player", status=403
            )
        event = lock_event(found)
        pairing = Pairing.objects.select_for_update(of=("self",)).get(match=match)
        settled = False
        if match.status == Match.Status.SCHEDULED:
            if match.start_deadline is not None and now >= match.start_deadline:
                settled = _no_show_settle(event, pairing, match, now)
            else:
                field = "ready_a_at" if pairing.entry_a.player_id == player.pk else "ready_b_at"
                if getattr(pairing, field) is None:
                    setattr(pairing, field, now)
                    pairing.save(update_fields=[field])
                _start_if_ready(pairing, match, now)
                event_changed(event)  # who is here; the match in play once both are
                match_players_tell(pairing=pairing, match=match)
    if settled:
        raise Conflict(_("the grace period is over: the match was forfeited"), code="too_late")
    if match.status not in IN_PROGRESS:
        raise Conflict(_("the match is %(status)s") % {"status": match.status}, code="match_over")
    return pairing


def _humans_missing(pairing: Pairing, match: Match) -> list[Player]:
    """The human players of the match who have not shown up."""
    ready = {
        pairing.entry_a.player_id: pairing.ready_a_at,
        pairing.entry_b.player_id: pairing.ready_b_at,
    }
    return [p for p in (match.player_a, match.player_b) if not p.is_bot and ready[p.pk] is None]


def _start_if_ready(pairing: Pairing, match: Match, now: datetime) -> bool:
    if _humans_missing(pairing, match):
        return False
    play.match_start(match=match, now=now)
    return True


def _no_show_settle(event: Event, pairing: Pairing, match: Match, now: datetime) -> bool:
    """With match, event and pairing locked, past the deadline: whoever did not show forfeits.

    If neither player showed up the match is cancelled and both lose (nobody advances).
    """
    missing = _humans_missing(pairing, match)
    if not missing:
        return _start_if_ready(pairing, match, now)
    if len(missing) == 2:
        play.match_cancel(match=match, reason="neither player showed up")
        pairing.result = Pairing.Result.DOUBLE_NO_SHOW
        pairing.winner = None
        pairing.status = Pairing.Status.FINISHED
        pairing.decided_at = now
        pairing.save()
        announce_result(event, pairing, None)
        advance(event, now)
        event_changed(event)
        match_players_tell(pairing=pairing, match=match)
        return True
    ended = play.match_forfeit(
        match=match,
        loser=missing[0],
        reason="did not show up within the grace period",
        end_reason=Match.EndReason.NO_SHOW,
    )
    pairing_record(match=ended)
    return True


def no_shows_sweep(*, now: datetime | None = None, limit: int = 200) -> int:
    """Forfeit every tournament match whose grace period is over (beat runs this)."""
    now = now or timezone.now()
    due = list(
        Match.objects.filter(
            source=Match.Source.TOURNAMENT,
            status=Match.Status.SCHEDULED,
            start_deadline__lte=now,
        )
        .order_by("start_deadline")
        .values_list("pk", flat=True)[:limit]
    )
    settled = 0
    for match_id in due:
        with transaction.atomic():
            match = (
                Match.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("player_a", "player_b")
                .filter(pk=match_id, status=Match.Status.SCHEDULED)
                .first()
            )
            if match is None:
                continue  # taken by a player showing up right now, or settled already
            event_id = (
                Pairing.objects.filter(match=match).values_list("event_id", flat=True).first()
            )
            if event_id is None:
                continue
            event = lock_event(event_id)
            pairing = (
                Pairing.objects.select_for_update(of=("self",))
                .select_related("entry_a", "entry_b")
                .get(match=match)
            )
            if _no_show_settle(event, pairing, match, now):
                settled += 1
    return settled


def events_reconcile() -> int:
    """Record results a failed receiver missed (games logs such a failure and goes on)."""
    missed = list(
        Pairing.objects.filter(
            event__status=Event.Status.RUNNING,
            status=Pairing.Status.PLAYING,
            match__status=Match.Status.FINISHED,
        ).values_list("match_id", flat=True)[:200]
    )
    recorded = 0
    for match_id in missed:
        with transaction.atomic():
            match = Match.objects.select_for_update().get(pk=match_id)
            if pairing_record(match=match) is not None:
                recorded += 1
    return recorded


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The periodic pass: no-shows, then results a receiver missed."""
    return {"no_shows": no_shows_sweep(now=now), "reconciled": events_reconcile()}
