"""Receivers of games' signals: a finished tournament match advances its event; a change to a
table match is told to the event's sockets and, an organiser's, written in its audit log."""

from typing import Any

from games.models import Match
from tournaments.live import event_changed
from tournaments.models import Pairing
from tournaments.services.base import log_action
from tournaments.services.results import pairing_record


def advance_on_match_finished(sender, match: Match, **kwargs) -> None:
    """``games.signals.match_finished``: record the result and advance, in the same transaction.

    Idempotent (see :func:`tournaments.services.results.pairing_record`). If it fails, games logs it
    and keeps the result; the periodic sweep records it later.
    """
    if match.source == Match.Source.TOURNAMENT:
        pairing_record(match=match)


#: Changes to a table match written in the event's audit log even when a player makes them.
_LOGGED_FOR_PLAYERS = {"result_disputed"}


def table_match_changed(
    sender: Any,
    match: Match,
    action: str,
    by: Any,
    organiser: bool,
    reason: str,
    detail: dict[str, Any],
    **kwargs: Any,
) -> None:
    """``games.signals.table_match_changed``: the event's sockets are told (its page shows the
    running score); an organiser's change, or a player's dispute, goes in the audit log with
    who and why. In the transaction of the change: an audit line that fails undoes it."""
    if match.source != Match.Source.TOURNAMENT:
        return
    pairing = Pairing.objects.filter(match_id=match.pk).select_related("event").first()
    if pairing is None:
        return
    event = pairing.event
    if organiser or action in _LOGGED_FOR_PLAYERS:
        why = reason or match.dispute_reason
        log_action(event, f"table_{action}", by, why, pairing=pairing, match=match.pk, **detail)
    event_changed(event)
