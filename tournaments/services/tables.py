"""Tables: a mixed event's match moved from the site to a numbered table."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from games import services as play
from games import tables
from tournaments.live import event_changed, match_players_tell
from tournaments.models import Event, Pairing, Venue
from tournaments.services.advancing import table_number
from tournaments.services.base import (
    Conflict,
    User,
    event_is,
    lock_event,
    lock_live_matches,
    log_action,
)


def pairing_to_table(*, pairing: Pairing, by: User | None = None) -> Pairing:
    """Play a pairing's match at the round's next free table instead of online (a mixed
    event; the organiser's choice, audited). The match must not have started online: its
    show-up deadline and clock go, and it is in play at once, its hands entered.

    409 ``not_mixed`` (an event played online or at tables throughout),
    ``event_not_running``, ``no_match``, ``already_at_table``, ``match_started``,
    ``bots_play_online``.
    """
    with transaction.atomic():
        lock_live_matches(pairing.event_id)
        event = lock_event(pairing.event_id)
        pairing = (
            Pairing.objects.select_for_update(of=("self",))
            .select_related("entry_a", "entry_b", "match", "round")
            .get(pk=pairing.pk)
        )
        if event.venue != Venue.MIXED:
            raise Conflict(
                _("the event's venue is %(venue)s: only a mixed event moves single matches")
                % {"venue": event.venue},
                code="not_mixed",
            )
        if event.status != Event.Status.RUNNING:
            raise Conflict(event_is(event.status), code="event_not_running")
        if pairing.match is None:
            raise Conflict(_("this pairing has no match to move"), code="no_match")
        table = pairing.match.table if pairing.match.at_table else table_number(pairing)
        try:
            match = tables.match_move_to_table(
                match_id=pairing.match_id,
                table=table,
                confirm_result=not event.accept_entered_results,
            )
        except play.PlayError as error:
            raise Conflict(str(error), code=error.code) from None
        log_action(event, "to_table", by, pairing=pairing, match=match.pk, table=table)
        event_changed(event)
        match_players_tell(pairing=pairing, match=match)
    return pairing
