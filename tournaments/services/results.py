"""Results: a finished match recorded on its pairing, an organiser's override, a bot re-run."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from games import services as play
from games.models import IN_PROGRESS, Match
from games.signals import rated_match_finished
from tournaments import webhooks
from tournaments.live import event_changed, match_players_tell
from tournaments.models import Event, Pairing
from tournaments.services import two_stage
from tournaments.services.advancing import advance, drop_match, void_result
from tournaments.services.base import (
    Conflict,
    TournamentError,
    User,
    event_is,
    lock_event,
    lock_live_matches,
    log_action,
)
from tournaments.services.payloads import pairing_json

_RESULT_OF = {
    Match.EndReason.NO_SHOW: Pairing.Result.NO_SHOW,
    Match.EndReason.FORFEIT: Pairing.Result.FORFEIT,
    Match.EndReason.ADMIN: Pairing.Result.OVERRIDE,
}


def pairing_record(*, match: Match) -> Pairing | None:
    """Record a finished tournament match on its pairing and advance the event.

    The ``match_finished`` receiver: runs inside the transaction that finished the match
    (its row is locked). Idempotent: a pairing that already has this match's result is left
    alone, so a redelivered task or a second call never advances the event twice.
    """
    if match.source != Match.Source.TOURNAMENT or match.status != Match.Status.FINISHED:
        return None
    found = Pairing.objects.filter(match_id=match.pk).values_list("pk", "event_id").first()
    if found is None:
        return None  # not ours, or a match its pairing has since dropped
    pairing_id, event_id = found
    event = lock_event(event_id)
    pairing = (
        Pairing.objects.select_for_update(of=("self",))
        .select_related("entry_a", "entry_b")
        .get(pk=pairing_id)
    )
    if pairing.match_id != match.pk or pairing.result in Pairing.RECORDED:
        return pairing
    if event.status != Event.Status.RUNNING:
        return pairing
    now = timezone.now()
    assert pairing.entry_a is not None and pairing.entry_b is not None
    a_is_player_a = pairing.entry_a.player_id == match.player_a_id
    won_a, won_b = match.games_won_a, match.games_won_b
    pairing.games_a, pairing.games_b = (won_a, won_b) if a_is_player_a else (won_b, won_a)
    pairing.margin_a = match.margin_a if a_is_player_a else -match.margin_a
    pairing.winner = (
        pairing.entry_a if match.winner_id == pairing.entry_a.player_id else pairing.entry_b
    )
    pairing.result = _RESULT_OF.get(match.end_reason, Pairing.Result.PLAYED)
    pairing.status = Pairing.Status.FINISHED
    pairing.decided_at = now
    pairing.save()
    announce_result(event, pairing, match)
    advance(event, now)
    event_changed(event)
    if not match.is_bot_match:
        match_players_tell(pairing=pairing, match=match)
    return pairing


def announce_result(
    event: Event, pairing: Pairing, match: Match | None, *, override: bool = False
) -> None:
    webhooks.emit(event, "match.finished", lambda: pairing_json(pairing, override=override))
    if event.rated and match is not None:
        rated_match_finished.send(
            sender=Event, event=event, pairing=pairing, match=match, override=override
        )


def pairing_override(
    *, pairing: Pairing, winner: Player, reason: str, by: User | None = None
) -> Pairing:
    """An organiser decides a pairing (audited: who, when, why); the bracket is repaired.

    A match still in play is ended as decided by an organiser. In a bracket every match
    downstream that the change affects is replaced (cancelled, or its result voided) and
    played again with the right players; in a Swiss or round robin the standings change.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError(_("give a reason for the override"), code="reason_required")
    with transaction.atomic():
        lock_live_matches(pairing.event_id)
        event = lock_event(pairing.event_id)
        pairing = (
            Pairing.objects.select_for_update(of=("self",))
            .select_related("entry_a", "entry_b", "match", "winner")
            .get(pk=pairing.pk)
        )
        if event.status != Event.Status.RUNNING:
            raise Conflict(event_is(event.status), code="event_not_running")
        two_stage.group_results_open(event, pairing)
        if pairing.entry_a is None or pairing.entry_b is None:
            raise Conflict(_("this pairing has no match between two players"), code="no_match")
        players = {
            pairing.entry_a.player_id: pairing.entry_a,
            pairing.entry_b.player_id: pairing.entry_b,
        }
        if winner.pk not in players:
            raise TournamentError(
                _("%(name)s did not play in this match") % {"name": winner.name},
                code="not_in_match",
            )
        entry = players[winner.pk]
        loser = pairing.entry_b if entry == pairing.entry_a else pairing.entry_a
        previous = pairing.winner_id
        now = timezone.now()
        match = pairing.match
        if match is not None and match.status in IN_PROGRESS:
            ended = play.match_forfeit(
                match=match,
                loser=Player.objects.get(pk=loser.player_id),
                reason=f"decided by an organiser: {reason}"[:300],
                end_reason=Match.EndReason.ADMIN,
            )
            pairing_record(match=ended)
            pairing.refresh_from_db()
        else:
            if pairing.result in Pairing.RECORDED and pairing.winner_id == entry.pk:
                raise Conflict(
                    _("%(name)s already won this match") % {"name": winner.name}, code="no_change"
                )
            pairing.winner = entry
            pairing.result = Pairing.Result.OVERRIDE
            pairing.status = Pairing.Status.FINISHED
            pairing.decided_at = now
            pairing.save()
            announce_result(event, pairing, match, override=True)
        log_action(
            event,
            "override_result",
            by,
            reason,
            pairing=pairing,
            previous_winner=previous,
            winner=entry.pk,
            match=match.pk if match else None,
        )
        advance(event, now)
        event_changed(event)
    return pairing


def pairing_rerun(*, pairing: Pairing, by: User | None = None) -> Pairing:
    """Play a failed bot match again (a new match, a new seed); downstream is repaired.

    Failed: a bot failed (the match ended with ``bot_failure``), or the match was cancelled
    or never finished. A match decided by its games is not re-run (override it instead).
    """
    with transaction.atomic():
        lock_live_matches(pairing.event_id)
        event = lock_event(pairing.event_id)
        pairing = (
            Pairing.objects.select_for_update(of=("self",))
            .select_related("match")
            .get(pk=pairing.pk)
        )
        if event.status != Event.Status.RUNNING:
            raise Conflict(event_is(event.status), code="event_not_running")
        two_stage.group_results_open(event, pairing)
        match = pairing.match
        if match is None:
            raise Conflict(_("this pairing has no match to re-run"), code="no_match")
        if not match.is_bot_match:
            raise Conflict(_("only a bot match is re-run"), code="not_bots")
        failed = match.end_reason == Match.EndReason.BOT_FAILURE or match.status in (
            *IN_PROGRESS,
            Match.Status.CANCELLED,
        )
        if not failed:
            raise Conflict(
                _("this match did not fail; override its result instead"), code="not_failed"
            )
        now = timezone.now()
        if pairing.result in Pairing.RECORDED:
            void_result(pairing, "re-run", now)
        drop_match(pairing, "re-run", now)
        pairing.status = Pairing.Status.WAITING
        pairing.save()
        log_action(event, "rerun", by, pairing=pairing, match=match.pk)
        advance(event, now)
        event_changed(event)
        pairing.refresh_from_db()
    return pairing
