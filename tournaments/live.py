"""What a change to an event pushes, and to whom.

An event has one audience: what its page shows (the event, its bracket or rounds, the
standings) is the same for everyone who may see it, apart from the viewer's own entry.
So a service that changes an event calls :func:`event_changed` inside its transaction,
and on commit a small notice, ``{"type": "event.changed", "event": id, "seq": n}``, goes
to the event's group; each process that holds sockets of the event then renders the event
once (``tournaments.consumers``, at most once per short interval however many notices
arrive) and sends it to each of its sockets with that viewer's entry.

Coalescing: one transaction counts one change and sends one notice, however many times it
calls :func:`event_changed` (starting an event pairs a round and starts its matches; a
match finishing may finish a round, pair the next and finish the event). A burst of
transactions (128 bot matches finishing in a second) sends a notice each, but the
consumers' renderer turns the burst into one render per interval.

``Event.seq`` counts the committed changes (the event row is locked by every change of a
running event, so the numbers follow the commit order). Every message is the whole event,
so a client keeps the one with the highest ``seq`` and a jump in the numbers loses nothing.

A player's own news from tournaments (``match_ready``: their match is waiting for them,
has started, or is over) goes to their own socket (``accounts.live``); while their match
waits for them and they are not on the site, to their e-mail too (``accounts.mail``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F

from accounts.live import player_tell
from accounts.models import Player
from accounts.outbox import mail_unless_on_site
from common.live import publish
from games.models import Game, Match
from tournaments.mails import MATCH_READY, match_ready_mail
from tournaments.models import Entry, Event, Pairing


def group(event_id: int) -> str:
    """The channel-layer group of the sockets watching one event."""
    return f"event.{event_id}"


class _Notice:
    """The on-commit callback of one transaction's changes to one event (found again by
    :func:`event_changed` in the connection's list, so a transaction sends one)."""

    def __init__(self, event_id: int, seq: int) -> None:
        self.event_id = event_id
        self.seq = seq

    def __call__(self) -> None:
        publish(group(self.event_id), notice(self.event_id, self.seq))


def notice(event_id: int, seq: int) -> dict[str, Any]:
    """The message published to an event's group: "event N changed, seq S"."""
    return {"type": "event.changed", "event": event_id, "seq": seq}


def event_changed(event: Event) -> None:
    """Count a change of ``event`` and tell its sockets on commit (once per transaction)."""
    connection = transaction.get_connection()
    for entry in connection.run_on_commit:
        callback = entry[1]
        if isinstance(callback, _Notice) and callback.event_id == event.pk:
            return  # this transaction counted a change already; it sends one notice
    Event.objects.filter(pk=event.pk).update(seq=F("seq") + 1)
    event.seq = Event.objects.values_list("seq", flat=True).get(pk=event.pk)
    transaction.on_commit(_Notice(event.pk, event.seq))


# --- the player's own socket --------------------------------------------------------------


def _brief(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def match_ready_message(*, pairing: Pairing, match: Match, player: Player) -> dict[str, Any]:
    """``match_ready`` for one player of a tournament match: the match, the game to open
    once it has started, the event, the deadline to show up by, who is here already; for a
    match at a table, its table number (nobody has to show up on the site: it is in play)."""
    game = (
        Game.objects.filter(match=match, status=Game.Status.ACTIVE)
        .values_list("pk", flat=True)
        .first()
    )
    event = pairing.event
    mine = 0 if match.player_a_id == player.pk else 1
    opponent = match.player_b if mine == 0 else match.player_a
    # The pairing's sides are its entries; the match's are its players (the same order
    # when the tournament creates the match, but read them by player to be sure).
    ready = {
        pairing.entry_a.player_id: pairing.ready_a_at is not None,
        pairing.entry_b.player_id: pairing.ready_b_at is not None,
    }
    return {
        "type": "match_ready",
        "status": match.status,
        "match": match.pk,
        "game": game,
        "event": {"id": event.pk, "name": event.name},
        "round": pairing.round.name,
        "deadline": match.start_deadline,
        "venue": match.venue,
        "table": match.table,
        "opponent": _brief(opponent),
        "you_ready": ready.get(player.pk, False),
        "opponent_ready": opponent.is_bot or ready.get(opponent.pk, False),
    }


def match_players_tell(*, pairing: Pairing, match: Match) -> None:
    """Tell the human players of a tournament match how it stands (on commit); while it waits
    for them to show up online, e-mail each who has not yet and is not on the site then
    (once per player and match; :func:`_match_ready_mail`)."""
    for player in (match.player_a, match.player_b):
        if not player.is_bot:
            message = match_ready_message(pairing=pairing, match=match, player=player)
            player_tell(player.pk, message)
            waiting = match.status == Match.Status.SCHEDULED and not match.at_table
            if waiting and not message["you_ready"]:
                _match_ready_mail(pairing=pairing, match=match, player=player)


def _match_ready_mail(*, pairing: Pairing, match: Match, player: Player) -> None:
    """Your match is ready, by e-mail: decided and sent by a task after the commit (the
    pairing's transaction only registers it): not if the player is on the site then (the
    banner tells them), nor after the match's deadline."""
    subject, body = match_ready_mail(pairing=pairing, match=match, player=player)
    mail_unless_on_site(
        player=player,
        kind=MATCH_READY,
        about=match.pk,
        subject=subject,
        body=body,
        expires_at=match.start_deadline,
    )


def entry_withdrawn_tell(*, entry: Entry, event: Event, reason: str) -> None:
    """Tell a player (on commit, on their own socket) they were withdrawn from ``event``."""
    if entry.player.is_bot:
        return  # a house bot has no socket
    player_tell(
        entry.player_id,
        {
            "type": "entry_withdrawn",
            "event": {"id": event.pk, "name": event.name},
            "entry": entry.pk,
            "reason": reason,
        },
    )
