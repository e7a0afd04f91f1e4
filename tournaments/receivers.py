"""Receivers of games' signals: a finished tournament match advances its event."""

from games.models import Match
from tournaments.services.results import pairing_record


def advance_on_match_finished(sender, match: Match, **kwargs) -> None:
    """``games.signals.match_finished``: record the result and advance, in the same transaction.

    Idempotent (see :func:`tournaments.services.results.pairing_record`). If it fails, games logs it
    and keeps the result; the periodic sweep records it later.
    """
    if match.source == Match.Source.TOURNAMENT:
        pairing_record(match=match)
