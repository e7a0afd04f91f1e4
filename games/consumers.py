"""The table socket, ``ws://HOST/ws/games/<game id>``.

On connect, and after every change at the table, the server sends
``{"type": "view", "seq": N, "view": {...}}``: ``view`` is what ``GET /api/games/{id}``
answers this viewer, and ``seq`` the game's change number (see ``games.live``). A client
that reconnects gets the current view at once, so it resynchronises from whatever it last
saw; a gap in ``seq`` means a message was lost (the server repairs one it notices itself).

A player may move (``{"type": "move", "id", "ply", "action": {"type", "card"?,
"melds"?}}``, answered ``ack`` or ``error`` with the REST API's codes; a repeated ``id`` is
answered again and never applied twice) and continue after a deal (``{"type":
"continue"}``). ``{"type": "sync"}`` asks for the current view. ``presence`` messages say
whether each player is connected (and since when not). The server pings players every
:data:`PING_SECONDS`; the round trips estimate their network lag, which is credited back to
a mover's clock in timed games between people (``games.services.timing.charge``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict

from django.utils.translation import gettext as _

from accounts.selectors import player_for_user
from common.api import OUTAGE_ERRORS, flatten
from common.live import dumps, stats
from common.metrics import PUSH_SECONDS
from common.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    group_join,
    group_leave,
    socket_db,
    still_signed_in,
)
from games import live, seeks, selectors, services
from games.engine.actions import Action as EngineAction
from games.engine.errors import EngineError
from games.models import Action, Game
from games.presence import presence_join, presence_leave, presence_state
from games.requests import ActionSerializer, move_data

logger = logging.getLogger(__name__)

#: How often the server pings a player's socket (lag estimate, presence refresh).
PING_SECONDS = 5.0
#: Every this many pings a socket joins its group again (see _ping_loop).
REJOIN_EVERY = 6
#: How long a push that arrived ahead of a missing one waits for it before a resync.
GAP_WAIT_SECONDS = 1.0
#: Round trips kept for the lag estimate (the median of these, halved).
LAG_SAMPLES = 5


def _load(game_id: int, user):
    """The game, the viewer's player and their audience, or a close code."""
    game = Game.objects.select_related("match", "match__player_a", "match__player_b").filter(
        pk=game_id
    )
    game = game.first()
    if game is None:
        return None, None, CLOSE_NOT_FOUND
    player = player_for_user(user=user)
    if not selectors.match_visible(match=game.match, viewer=player):
        return None, None, CLOSE_FORBIDDEN
    return game, player, live.audience_of(game.match, None if player is None else player.pk)


#: The spectators' view of a game, (seq, text), as this process last rendered or was pushed
#: it: one render serves every spectator's ``sync`` until the table changes.
_spectator_views: OrderedDict[int, tuple[int, str]] = OrderedDict()
#: Games whose spectators' view is kept (the least recently used goes first).
SPECTATOR_VIEWS_KEPT = 1024


def _keep_spectator_view(game_id: int, seq: int, text: str) -> None:
    kept = _spectator_views.get(game_id)
    if kept is None or kept[0] < seq:
        _spectator_views[game_id] = (seq, text)
    _spectator_views.move_to_end(game_id)
    while len(_spectator_views) > SPECTATOR_VIEWS_KEPT:
        _spectator_views.popitem(last=False)


def _current_view(game_id: int, player) -> tuple[int, str]:
    """(seq, message text) of the viewer's view now, a due clock settled first (as REST)."""
    game = Game.objects.select_related("match", "match__player_a", "match__player_b").get(
        pk=game_id
    )
    if services.clock_settle_if_due(game=game):
        game = Game.objects.select_related("match", "match__player_a", "match__player_b").get(
            pk=game_id
        )
    stats["view_renders"] += 1
    return game.seq, live.view_message(game, selectors.game_view(game=game, viewer=player))


def _seq_now(game_id: int) -> int | None:
    """The game's ``seq`` now (one row, no render), a due clock settled first; None when
    settling it changed the game or there is no such game (render it then)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or services.clock_settle_if_due(game=game):
        return None
    return game.seq


def _signed_out(message: dict) -> dict:
    return _error(
        message.get("id"), "not_authenticated", _("your sign-in has ended: sign in again")
    )


def _move(game_id: int, player, message: dict, lag_ms: int, scope) -> dict:
    """Validate and submit a move; the ``ack`` or ``error`` message that answers it."""
    if not still_signed_in(scope):
        return _signed_out(message)
    client_id = message.get("id")
    if not isinstance(client_id, str | int) or isinstance(client_id, bool) or client_id == "":
        return _error(
            None, "invalid", _('a move needs an "id" of your choosing (text, at most 64)')
        )
    client_id = str(client_id)
    if len(client_id) > 64:
        return _error(None, "invalid", _('a move\'s "id" is at most 64 characters'))
    # A repeat (a resend after a reconnect) is not looked up first: it carries the ply it was
    # made at, which its first delivery moved past, so the service refuses it as stale and
    # the refusal below finds it applied. A new move costs no lookup.
    action = message.get("action")
    if not isinstance(action, dict):
        return _error(client_id, "invalid", _('a move needs an "action" object'))
    body = {**action, "ply": message.get("ply")}
    data = move_data(body)  # a well-formed move is read without the serializer
    if data is None:
        serializer = ActionSerializer(data=body)
        if not serializer.is_valid():
            errors = flatten(serializer.errors)
            return _error(client_id, "invalid", _("Invalid input."), errors=errors)
        data = serializer.validated_data
    try:
        engine_action = EngineAction.from_parts(
            data["type"], data.get("card") or None, data.get("melds")
        )
    except EngineError as error:
        return _error(client_id, error.rule, services.engine_text(error))
    try:
        services.action_submit(
            game_id=game_id,
            player=player,
            ply=data["ply"],
            action=engine_action,
            lag_ms=lag_ms,
            client_id=client_id,
        )
    except services.PlayError as error:
        # The same id may have been applied already: by this socket before it dropped, or by
        # another of the player's (a repeat). Answered as applied, once.
        done = services.action_by_client_id(game_id=game_id, player=player, client_id=client_id)
        if done is not None:
            return {"type": "ack", "id": client_id, "ply": _game_ply(done), "repeat": True}
        return _error(client_id, error.code, str(error), **error.extra)
    return {"type": "ack", "id": client_id, "ply": data["ply"]}


def _game_ply(action: Action) -> int:
    """The game's ply of a logged move (the log numbers plies per deal)."""
    earlier = Action.objects.filter(deal__game_id=action.deal.game_id)
    return earlier.filter(deal__number__lt=action.deal.number).count() + action.ply


def _continue(game_id: int, player, scope, message: dict) -> dict:
    if not still_signed_in(scope):
        return _signed_out(message)
    try:
        services.game_continue(game_id=game_id, player=player)
    except services.PlayError as error:
        return _error(message.get("id"), error.code, str(error), **error.extra)
    return {"type": "ack", "id": message.get("id"), "continued": True}


def _error(client_id, code: str, detail: str, **extra) -> dict:
    return {"type": "error", "id": client_id, "code": code, "detail": detail, **extra}


class GameConsumer(JsonSocket):
    """One socket at one table: a player's or a spectator's."""

    metrics_name = "game"

    types = ("move", "continue", "sync")
    checks_own_sign_in = ("move", "continue")
    reads = ("sync",)

    async def connect(self):
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.seq = -1
        self.last_text: str | None = None  # the view at self.seq, as sent
        self.pending: dict[int, str] = {}
        self.gap_timer: asyncio.Task | None = None
        self.pinger: asyncio.Task | None = None
        self.pings: dict[int, float] = {}
        self.round_trips: list[float] = []
        self.presence: list[dict] | None = None
        self.index: int | None = None
        self.groups_joined: list[str] = []
        if self.scope.get("auth_failed"):
            await self.refuse_connection(CLOSE_UNAUTHENTICATED)
            return
        try:
            game, self.player, audience = await socket_db(_load)(self.game_id, self.user)
        except OUTAGE_ERRORS:
            await self.refuse_connection(1013)  # try again later
            return
        if game is None:
            await self.refuse_connection(audience)
            return
        self.index = audience if isinstance(audience, int) else None
        # Join before reading the view: a change committed meanwhile arrives after it.
        self.groups_joined = [live.group(self.game_id, audience)]
        try:
            for name in self.groups_joined:
                await group_join(self.channel_layer, name, self.channel_name)
        except OUTAGE_ERRORS:
            await self.refuse_connection(1013)  # the channel layer is down: try again later
            return
        await self.accept()
        if self.index is None:
            await self._send_fresh()  # the spectators' view this process keeps, if current
        else:
            await self._send_current()
        if self.index is not None:
            await presence_join(self.game_id, self.index, self.channel_name)
            await self._announce_presence()
        else:
            await self._send_presence(await presence_state(self.game_id))
        self.pinger = asyncio.create_task(self._ping_loop())

    async def disconnect(self, code):
        for task in (self.pinger, self.gap_timer):
            if task is not None:
                task.cancel()
        for name in self.groups_joined:
            await group_leave(self.channel_layer, name, self.channel_name)
        if self.index is not None:
            try:
                await presence_leave(self.game_id, self.index, self.channel_name)
                await self._announce_presence()
            except Exception:  # Redis gone: the entry expires by itself
                logger.debug("presence leave failed", exc_info=True)

    # --- views ---------------------------------------------------------------------------

    async def _send_current(self) -> None:
        seq, text = await socket_db(_current_view)(self.game_id, self.player)
        if self.index is None:
            _keep_spectator_view(self.game_id, seq, text)
        await self._send_view(seq, text)

    async def _send_view(self, seq: int, text: str) -> None:
        """Send the view at ``seq`` unless a newer one was sent, then any pushes behind it."""
        if seq >= self.seq:
            self.seq, self.last_text = seq, text
            self.pending = {s: t for s, t in self.pending.items() if s > seq}
            await self.send(text_data=text)
        await self._flush()

    async def game_view(self, event: dict) -> None:
        """A change pushed by a publisher: forward it in order, once."""
        seq = event["seq"]
        if self.index is None:
            _keep_spectator_view(self.game_id, seq, event["text"])
        if seq <= self.seq:
            return  # the view sent on connect (or a resync) already covers it
        self.pending[seq] = event["text"]
        await self._flush()
        if self.seq >= seq and event.get("at"):  # sent (now, or it filled a gap)
            PUSH_SECONDS.observe(max(0.0, time.time() - event["at"]))
        if self.pending and self.gap_timer is None:
            self.gap_timer = asyncio.create_task(self._repair_gap())

    async def _flush(self) -> None:
        while self.seq + 1 in self.pending:
            self.seq += 1
            self.last_text = self.pending.pop(self.seq)
            await self.send(text_data=self.last_text)

    async def _repair_gap(self) -> None:
        """A push is missing: wait a moment for it (publishers race), then resync."""
        try:
            await asyncio.sleep(GAP_WAIT_SECONDS)
            if self.pending:
                stats["gaps_repaired"] += 1
                logger.info("game %s: a push was lost; resynchronising a socket", self.game_id)
                await self._send_current()
        finally:
            self.gap_timer = None

    async def on_sync(self, message: dict) -> None:
        try:
            await self._send_fresh()
        except OUTAGE_ERRORS:
            await self.send_error("service_unavailable", _("try again shortly"))

    async def _send_fresh(self) -> None:
        """Send the current view: when nothing changed since the one this socket last sent
        (one row read), that one again; a spectator's from the view this process keeps for
        the table's spectators; else a render."""
        seq = await socket_db(_seq_now)(self.game_id)
        if seq is not None and seq <= self.seq and self.last_text is not None:
            stats["syncs_unrendered"] += 1
            await self.send(text_data=self.last_text)
            return
        kept = _spectator_views.get(self.game_id) if self.index is None else None
        if seq is not None and kept is not None and kept[0] >= seq:
            stats["syncs_unrendered"] += 1
            self.seq = min(self.seq, kept[0])
            await self._send_view(*kept)
            return
        self.seq = -1  # send the view even if this socket had it
        await self._send_current()

    # --- moves ---------------------------------------------------------------------------

    async def on_move(self, message: dict) -> None:
        if not await self._is_player(message):
            return
        try:
            answer = await socket_db(_move)(
                self.game_id, self.player, message, self.lag_ms, self.scope
            )
        except OUTAGE_ERRORS:
            answer = _error(message.get("id"), "service_unavailable", _("try again shortly"))
        await self._answer(answer)

    async def on_continue(self, message: dict) -> None:
        if not await self._is_player(message):
            return
        try:
            answer = await socket_db(_continue)(self.game_id, self.player, self.scope, message)
        except OUTAGE_ERRORS:
            answer = _error(message.get("id"), "service_unavailable", _("try again shortly"))
        await self._answer(answer)

    async def _answer(self, answer: dict) -> None:
        await self.send(text_data=dumps(answer))
        if answer.get("code") == "not_authenticated":
            await self.close(code=CLOSE_UNAUTHENTICATED)

    async def _is_player(self, message: dict) -> bool:
        game = message.get("game")
        if game is not None and game != self.game_id:
            await self.send_error(
                "wrong_game",
                _("this socket is for game %(game)s") % {"game": self.game_id},
                id=message.get("id"),
            )
            return False
        if self.index is None:
            await self.send_error(
                "not_a_player", _("you are not a player of this game"), id=message.get("id")
            )
            return False
        return True

    # --- lag and presence ----------------------------------------------------------------

    @property
    def lag_ms(self) -> int:
        """One way of the median recent round trip, in ms (0 before any measurement)."""
        if not self.round_trips:
            return 0
        ordered = sorted(self.round_trips)
        return int(ordered[len(ordered) // 2] * 1000 / 2)

    async def _ping_loop(self) -> None:
        """Every PING_SECONDS: ping a player (lag, presence); every REJOIN_EVERY of those,
        every socket joins its group again (a channel layer's Redis that lost its data
        forgets the groups, and the next push then shows the gap and is repaired)."""
        number = ticks = 0
        while True:
            if self.index is not None:
                number += 1
                self.pings = {k: v for k, v in self.pings.items() if k > number - 3}
                self.pings[number] = time.monotonic()
                try:
                    await self.send_json({"type": "ping", "id": number})
                except Exception:  # the client went away; its disconnect ends this socket
                    logger.debug("a ping found the socket gone", exc_info=True)
                    return
            await asyncio.sleep(PING_SECONDS)
            ticks += 1
            try:
                if ticks % REJOIN_EVERY == 0:
                    for name in self.groups_joined:
                        await group_join(self.channel_layer, name, self.channel_name)
                if self.index is not None:
                    await self._announce_presence(only_if_changed=True)
            except Exception:
                logger.debug("refreshing the socket's group or presence failed", exc_info=True)

    async def on_pong(self, message: dict) -> None:
        sent = self.pings.pop(message.get("id"), None) if self.index is not None else None
        if sent is None:
            return
        self.round_trips = [*self.round_trips, time.monotonic() - sent][-LAG_SAMPLES:]
        await presence_join(self.game_id, self.index, self.channel_name)  # still here
        await self.send_json({"type": "lag", "lag_ms": self.lag_ms})

    async def _announce_presence(self, *, only_if_changed: bool = False) -> None:
        state = await presence_state(self.game_id)
        if only_if_changed:
            # Seen from this socket: tell this socket only (each player's socket looks).
            if state != self.presence:
                await self._send_presence(state)
            return
        text = dumps({"type": "presence", "players": state})
        for audience in (0, 1, live.SPECTATORS):
            await self.channel_layer.group_send(
                live.group(self.game_id, audience), {"type": "game.presence", "text": text}
            )

    async def _send_presence(self, state: list[dict]) -> None:
        self.presence = state
        await self.send_json({"type": "presence", "players": state})

    async def game_presence(self, event: dict) -> None:
        self.presence = json.loads(event["text"])["players"]
        await self.send(text_data=event["text"])


class LobbyConsumer(JsonSocket):
    """The lobby socket, ``ws://HOST/ws/lobby``: the open games (seeks), live.

    On connect and on ``{"type": "sync"}``: ``{"type": "seeks", "seeks": [...]}``, the list
    ``GET /api/seeks`` answers; the same message again after every change (posted, taken,
    cancelled, expired). A signed-in player's sockets also hear ``{"type": "seek_taken",
    "seek", "match", "game", "url", "opponent"}`` when someone joins their open game.

    Anyone may watch. When a signed-in player's lobby socket closes, their open games are
    cancelled: a game offered by someone who has left would start a match nobody plays.
    """

    metrics_name = "lobby"

    types = ("sync",)
    reads = ("sync",)

    async def connect(self):
        self.groups_joined: list[str] = []
        self.player = None
        if self.scope.get("auth_failed"):
            await self.refuse_connection(CLOSE_UNAUTHENTICATED)
            return
        if self.user.is_authenticated:
            try:
                self.player = await socket_db(player_for_user)(user=self.user)
            except OUTAGE_ERRORS:
                await self.refuse_connection(1013)  # try again later
                return
        # Join before reading the list: a change committed meanwhile arrives after it.
        self.groups_joined.append(seeks.LOBBY_GROUP)
        if self.player is not None:
            self.groups_joined.append(seeks.lobby_player_group(self.player.pk))
        for group in self.groups_joined:
            await group_join(self.channel_layer, group, self.channel_name)
        await self.accept()
        await self._send_seeks()

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await group_leave(self.channel_layer, group, self.channel_name)
        if getattr(self, "player", None) is not None:
            try:
                await socket_db(seeks.seeks_poster_left)(player_id=self.player.pk)
            except Exception:  # the database away: the seeks expire by themselves
                logger.warning("cancelling a departed poster's seeks failed", exc_info=True)

    async def _send_seeks(self) -> None:
        try:
            message = await socket_db(seeks.seeks_message)()
        except OUTAGE_ERRORS:
            await self.send_error("service_unavailable", _("try again shortly"))
            return
        await self.send_json(message)

    async def on_sync(self, message: dict) -> None:
        await self._send_seeks()
