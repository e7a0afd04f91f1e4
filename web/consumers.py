"""The player's own socket, ``ws://HOST/ws/me`` (signed in only: anonymous closes 4401).

On connect (and on ``{"type": "sync"}``) the server sends what is pending for the player
right now::

    {"type": "summary", "challenges": [<challenge>, ...], "match_ready": <match_ready>|null,
     "active": {"match", "game", "source", "opponent"}|null}

then pushes, as they happen (each rendered for this player by the service that made the
change, and sent to this player's sockets only; see ``accounts.live``):

- ``{"type": "challenge", "status", "match", "game", "challenger", "opponent", "clock",
  "rules", "challenger_rating", ...}``: a challenge to them (``challenged``), their challenge
  ``accepted`` (``game``: the table to open), ``declined``, ``withdrawn`` by its challenger,
  or ``cancelled`` by staff (``games.live.challenge_message``);
- ``{"type": "pairing", "match", "game", "ladder", "opponent"}``: the ladder matchmaker
  paired them and the match has started;
- ``{"type": "match_ready", "status", "match", "game", "event", "round", "deadline",
  "opponent", "you_ready", "opponent_ready"}``: their tournament match is waiting for them
  (``scheduled``: show up by ``deadline`` or forfeit), has started (``active``, with the
  game), or is over.

Pushes carry no sequence number: the summary on every (re)connect is the resynchronisation.

While a socket is open its player counts as on the site (``accounts.presence``): news about
their tournament match then reaches them here, and no e-mail is sent about it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.live import player_group
from accounts.models import Player
from accounts.presence import REFRESH_SECONDS, site_join, site_leave
from accounts.selectors import player_for_user
from common.api import OUTAGE_ERRORS
from common.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    group_join,
    group_leave,
    socket_db,
)
from games.live import challenge_message
from games.models import Game, Match
from tournaments.live import match_ready_message
from tournaments.models import Pairing

logger = logging.getLogger(__name__)


def player_summary(*, player: Player) -> dict[str, Any]:
    """What is pending for ``player`` now: open challenges to them, a tournament match
    waiting for them (with its deadline), a match in play to return to."""
    challenges = (
        Match.objects.filter(status=Match.Status.CHALLENGED, player_b=player)
        .select_related("player_a", "player_b")
        .order_by("pk")
    )
    waiting = (
        Pairing.objects.filter(
            match__status=Match.Status.SCHEDULED, match__source=Match.Source.TOURNAMENT
        )
        .filter(Q(match__player_a=player) | Q(match__player_b=player))
        .select_related(
            "event", "round", "entry_a", "entry_b", "match__player_a", "match__player_b"
        )
        .order_by("match__start_deadline", "pk")
        .first()
    )
    active = None
    game = (
        Game.objects.filter(status=Game.Status.ACTIVE, match__status=Match.Status.ACTIVE)
        .filter(Q(match__player_a=player) | Q(match__player_b=player))
        .select_related("match__player_a", "match__player_b")
        .order_by("match_id")
        .first()
    )
    if game is not None:
        match = game.match
        opponent = match.player_b if match.player_a_id == player.pk else match.player_a
        active = {
            "match": match.pk,
            "game": game.pk,
            "source": match.source,
            "opponent": {"id": opponent.pk, "name": opponent.name, "kind": opponent.kind},
        }
    return {
        "type": "summary",
        "challenges": [challenge_message(m, "challenged") for m in challenges],
        "match_ready": (
            None
            if waiting is None
            else match_ready_message(pairing=waiting, match=waiting.match, player=player)
        ),
        "active": active,
    }


class MeConsumer(JsonSocket):
    """One socket of a signed-in player: their own news."""

    metrics_name = "me"

    types = ("sync",)
    reads = ("sync",)

    async def connect(self):
        self.group = None
        if self.scope.get("auth_failed") or not self.user.is_authenticated:
            await self.refuse_connection(CLOSE_UNAUTHENTICATED)
            return
        try:
            self.player = await socket_db(player_for_user)(user=self.user)
        except OUTAGE_ERRORS:
            await self.refuse_connection(1013)  # try again later
            return
        if self.player is None:  # a staff account without a player has no news
            await self.refuse_connection(CLOSE_FORBIDDEN)
            return
        # Join before reading the summary: news committed meanwhile arrives after it.
        self.group = player_group(self.player.pk)
        await group_join(self.channel_layer, self.group, self.channel_name)
        await self.accept()
        await self._site_join()
        self.present = asyncio.create_task(self._on_site())
        await self._send_summary()

    async def _site_join(self) -> None:
        try:
            await asyncio.to_thread(site_join, self.player.pk, self.channel_name)
        except Exception:  # Redis away: they get an e-mail too, no harm
            logger.debug("joining the site presence failed", exc_info=True)

    async def _on_site(self) -> None:
        """Keep the player counted as on the site (``accounts.presence``) while this socket
        is open: their match-ready news reaches them here, not by e-mail."""
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            await self._site_join()

    async def disconnect(self, code):
        if getattr(self, "present", None) is not None:
            self.present.cancel()
            try:
                await asyncio.to_thread(site_leave, self.player.pk, self.channel_name)
            except Exception:  # Redis gone: the entry expires by itself
                logger.debug("leaving the site presence failed", exc_info=True)
        if self.group is not None:
            await group_leave(self.channel_layer, self.group, self.channel_name)

    async def _send_summary(self) -> None:
        try:
            summary = await socket_db(player_summary)(player=self.player)
        except OUTAGE_ERRORS:
            await self.send_error("service_unavailable", _("try again shortly"))
            return
        await self.send_json(summary)

    async def on_sync(self, message: dict) -> None:
        await self._send_summary()
