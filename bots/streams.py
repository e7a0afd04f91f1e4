"""Bot API, the streams: NDJSON over a long-lived HTTP response, served by the ASGI app.

``GET /api/bot/stream/event`` and ``GET /api/bot/game/stream/{game}``, with an external
bot's token (``Authorization: Token …``). Each line is one JSON object; an empty line every
``BOT_STREAM_KEEPALIVE_SECONDS`` keeps the connection alive (and tells the client the
server is still there).

- The event stream: what is pending on connect, then the bot's news as it happens (see
  ``bots.events``). While it is open the bot is there: it shows up for its tournament
  matches at once (a bot not connected when its match starts is a no-show like a person).
- A game stream: ``game_full`` (the match: players, rules, time control; and the bot's own
  view, the same as ``GET /api/games/{id}`` answers it), then ``game_state`` with the bot's
  view after every change (``seq`` one more each time), until the game is over.

Both follow the live layer's groups: the event stream the bot's own group
(``accounts.live``), a game stream the bot's audience at the table (``games.live``, where
each change's views are rendered under the match lock by the REST API's selector, so no
line holds a card the bot may not see). A game stream that sees a gap in ``seq`` (a
message lost in the channel layer) sends the view as it is now. A client that reconnects
starts again from the current state; nothing it can act on is lost.

Refusals answer in the API's error shape before the stream starts: 401 without a valid
token, 403 ``not_a_bot`` for a person's token, 404 for a game the bot does not play, 429
``too_many_streams`` past ``BOT_STREAMS_MAX`` open streams. A second stream of the same
kind (the event stream, or the same game's) replaces the first, which ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext as _
from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from accounts.live import player_group
from accounts.models import BotStream, Player
from bots.events import active_games, event_lines, game_start_line, pending_lines, show_up
from common.api import OUTAGE_ERRORS, error_body, unavailable_response
from common.json_codec import dumps_bytes
from common.sockets import group_join, group_leave, socket_db
from games import delivery
from games import live as game_live
from games import selectors as game_selectors
from games import services as game_services
from games.api import MatchSerializer  # the API's own rendering of a match
from games.consumers import GAP_WAIT_SECONDS
from games.models import Game

logger = logging.getLogger(__name__)

NDJSON = "application/x-ndjson"
REPLACED = "bot.stream.replaced"
#: What :meth:`_Stream.messages` yields when the time its caller asked to wake at comes.
WAKE = {"type": "bot.stream.wake"}


def _refuse(status: int, detail: str, code: str) -> JsonResponse:
    body = error_body(detail, code)
    return JsonResponse(body, status=status, json_dumps_params={"separators": (",", ":")})


def _line(data: dict) -> bytes:
    return dumps_bytes(data) + b"\n"


# --- who is asking ----------------------------------------------------------------------------


def _bot_for_token(token: str) -> tuple[Player | None, str | None]:
    """The external bot and the token's key; (None, None) for a bad token, (None, key) for a
    token that is not a bot's."""
    try:
        user, instance = TokenAuthentication().authenticate_credentials(token.encode())
    except AuthenticationFailed:
        return None, None
    player = Player.objects.filter(user=user).first()
    if player is None or not player.is_external:
        return None, instance.token_key
    return player, instance.token_key


async def _caller(request: HttpRequest) -> tuple[Player, str] | HttpResponse:
    """The bot and its token's key, or the refusal to answer with."""
    scheme, _space, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "token" or not token.strip():
        return _refuse(
            401, _("Send an external bot's token: Authorization: Token …"), "not_authenticated"
        )
    if request.method != "GET":
        return _refuse(
            405,
            _('Method "%(method)s" not allowed.') % {"method": request.method},
            "method_not_allowed",
        )
    bot, key = await socket_db(_bot_for_token)(token.strip())
    if bot is None and key is None:
        return _refuse(401, _("Invalid token."), "authentication_failed")
    if bot is None:
        return _refuse(403, _("The Bot API takes an external bot's token."), "not_a_bot")
    return bot, key


# --- the open streams of a bot ----------------------------------------------------------------


def stream_open(*, bot: Player, key: str, channel: str) -> tuple[int | None, list[str]]:
    """Register a stream: its row id and the channels of the streams it replaces, or
    ``(None, [])`` when the bot already has ``BOT_STREAMS_MAX`` other streams open.

    The bot's row is locked, so two streams opening at once are counted one after the
    other; rows not touched for ``BOT_STREAM_STALE_SECONDS`` (their process died) go.
    """
    now = timezone.now()
    with transaction.atomic():
        # FOR NO KEY UPDATE: it must not wait for (or hold up) moves, whose rows name the bot.
        Player.objects.select_for_update(no_key=True).filter(pk=bot.pk).first()
        streams = BotStream.objects.filter(bot=bot)
        stale = now - timedelta(seconds=settings.BOT_STREAM_STALE_SECONDS)
        streams.filter(seen_at__lt=stale).delete()
        replaced = list(streams.filter(key=key).values_list("channel", flat=True))
        if streams.exclude(key=key).count() + 1 > settings.BOT_STREAMS_MAX:
            return None, []
        streams.filter(key=key).delete()
        row = BotStream.objects.create(
            bot=bot, key=key, channel=channel, opened_at=now, seen_at=now
        )
    return row.pk, replaced


def stream_touch(*, stream_id: int, bot: Player, token_key: str) -> bool:
    """Mark the stream seen; False when it should end (replaced, or its token revoked)."""
    touched = BotStream.objects.filter(pk=stream_id).update(seen_at=timezone.now())
    token = AuthToken.objects.filter(user_id=bot.user_id, token_key=token_key)
    return bool(touched) and token.exists()


def stream_close(*, stream_id: int) -> None:
    BotStream.objects.filter(pk=stream_id).delete()


class _Stream:
    """One open stream: its channel, its groups, its keep-alive clock and its registry row."""

    def __init__(self, bot: Player, token_key: str, key: str) -> None:
        self.bot, self.token_key, self.key = bot, token_key, key
        self.layer = get_channel_layer()
        self.groups: list[str] = []
        self.stream_id: int | None = None
        self.channel = ""
        self.receiving: asyncio.Future | None = None  # the receive under way

    async def open(self, *groups: str) -> HttpResponse | None:
        """Join the groups and register; a refusal response when over the cap."""
        self.channel = await self.layer.new_channel()
        self.stream_id, replaced = await socket_db(stream_open)(
            bot=self.bot, key=self.key, channel=self.channel
        )
        if self.stream_id is None:
            return _refuse(
                429,
                _("A bot may have %(count)s streams open at once.")
                % {"count": settings.BOT_STREAMS_MAX},
                "too_many_streams",
            )
        for channel in replaced:
            await self.layer.send(channel, {"type": REPLACED})
        # Join before the first lines are read: a change committed meanwhile arrives after.
        for group in groups:
            await group_join(self.layer, group, self.channel)
            self.groups.append(group)
        return None

    async def messages(
        self, wake_at: Callable[[], float | None] = lambda: None
    ) -> AsyncIterator[dict | None]:
        """The channel's messages; None at each keep-alive, :data:`WAKE` when the loop time
        ``wake_at()`` names comes first. Ends when replaced or revoked.

        One receive waits at a time and a keep-alive never cancels it: a cancelled receive
        makes the pub/sub layer drop the channel (and what was queued on it), so a message
        arriving then would be lost and the next group join refused.
        """
        loop = asyncio.get_running_loop()
        period = settings.BOT_STREAM_KEEPALIVE_SECONDS
        due = loop.time() + period
        beats = 0
        while True:
            if self.receiving is None:
                self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
            wake = wake_at()
            until = due if wake is None else min(due, wake)
            done, _waiting = await asyncio.wait(
                {self.receiving}, timeout=max(0.0, until - loop.time())
            )
            if done:
                received, self.receiving = self.receiving, None
                message = received.result()
            elif loop.time() < due:
                yield WAKE
                continue
            else:
                due = loop.time() + period
                beats += 1
                # The keep-alive first: a busy database must not hold it back (a client
                # reconnects after a silence), then the registry row and the token.
                yield None
                if not await socket_db(stream_touch)(
                    stream_id=self.stream_id, bot=self.bot, token_key=self.token_key
                ):
                    return
                if beats % 6 == 0:  # a channel layer's Redis that lost its data forgot us
                    for group in self.groups:
                        await group_join(self.layer, group, self.channel)
                continue
            if message.get("type") == REPLACED:
                return
            yield message

    async def close(self) -> None:
        if self.receiving is not None:
            # Not awaited: the receive cleans up as it ends, and a close that is itself
            # being cancelled (the client went away) must not wait on it.
            self.receiving.cancel()
            self.receiving = None
        for group in self.groups:
            await group_leave(self.layer, group, self.channel)
        if self.stream_id is not None:
            # Down: the row goes stale and stops counting.
            with contextlib.suppress(*OUTAGE_ERRORS):
                await socket_db(stream_close)(stream_id=self.stream_id)


def is_waiting_for_bot(line: dict) -> bool:
    """A ``match_ready`` line of a tournament match that waits for this (connected) bot."""
    return (
        line.get("type") == "match_ready"
        and line.get("status") == "scheduled"
        and not line.get("you_ready")
    )


def _streaming(body: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type=NDJSON)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must not hold lines back
    return response


# --- the event stream -------------------------------------------------------------------------


async def event_stream(request: HttpRequest) -> HttpResponse:
    """``GET /api/bot/stream/event``: the bot's challenges and games, as they happen."""
    caller = await _caller(request)
    if isinstance(caller, HttpResponse):
        return caller
    bot, token_key = caller
    stream = _Stream(bot, token_key, "event")
    try:
        if refused := await stream.open(player_group(bot.pk)):
            return refused
        # Connected: the bot is here for its tournament matches waiting to start (their news
        # comes on the group it joined, so after the lines below).
        await socket_db(show_up)(bot=bot)
        lines = await socket_db(pending_lines)(bot=bot)
    except OUTAGE_ERRORS as error:
        await stream.close()
        return unavailable_response(error)

    async def body() -> AsyncIterator[bytes]:
        announced: set[int] = set()

        def fresh(line: dict) -> bool:
            if line["type"] != "game_start":
                return True
            if line["game"] in announced:
                return False
            announced.add(line["game"])
            return True

        try:
            for line in lines:
                if fresh(line):
                    yield _line(line)
            async for message in stream.messages():
                if message is None:
                    yield b"\n"  # the keep-alive before the database's answer below
                    # Matches started without news on this group (one the bot accepted or
                    # began against a house bot, the next game of a match) surface here.
                    for match, game_id in await socket_db(active_games)(bot=bot):
                        line = game_start_line(bot_id=bot.pk, match=match, game_id=game_id)
                        if fresh(line):
                            yield _line(line)
                    continue
                if message.get("type") != "send.text":
                    continue
                for line in event_lines(bot_id=bot.pk, text=message["text"]):
                    if fresh(line):
                        yield _line(line)
                    if is_waiting_for_bot(line):
                        await socket_db(show_up)(bot=bot, match_id=line["match"])
        except OUTAGE_ERRORS:
            logger.warning("event stream of bot %s ended by an outage", bot.pk, exc_info=True)
        finally:
            await stream.close()

    return _streaming(body())


# --- a game stream ----------------------------------------------------------------------------


def _bot_game(*, game_id: int, bot: Player) -> Game | None:
    game = (
        Game.objects.select_related("match", "match__player_a", "match__player_b")
        .filter(pk=game_id)
        .first()
    )
    if game is None or game.match.index_of(bot.pk) is None:
        return None
    return game


def game_full_line(*, game_id: int, bot: Player) -> dict:
    """``game_full``: the match (players, rules, time control) and the bot's view now."""
    game = _bot_game(game_id=game_id, bot=bot)
    if game_services.clock_settle_if_due(game=game):
        game = _bot_game(game_id=game_id, bot=bot)
    match = (
        type(game.match)
        .objects.select_related("player_a", "player_b", "winner")
        .prefetch_related("games")
        .get(pk=game.match_id)
    )
    return {
        "type": "game_full",
        "game": game.pk,
        "match": MatchSerializer(match).data,
        "view": game_selectors.game_view(game=game, viewer=bot),
    }


def game_state_now(*, game_id: int, bot: Player) -> dict:
    """``game_state`` with the bot's view as it is now (after a gap in ``seq``)."""
    game = _bot_game(game_id=game_id, bot=bot)
    view = game_selectors.game_view(game=game, viewer=bot)
    return {"type": "game_state", "seq": view["seq"], "view": view}


async def game_stream(request: HttpRequest, game_id: int) -> HttpResponse:
    """``GET /api/bot/game/stream/{game}``: ``game_full``, then ``game_state`` per change."""
    caller = await _caller(request)
    if isinstance(caller, HttpResponse):
        return caller
    bot, token_key = caller
    try:
        game = await socket_db(_bot_game)(game_id=game_id, bot=bot)
    except OUTAGE_ERRORS as error:
        return unavailable_response(error)
    if game is None:  # no such game, or not the bot's: the same answer
        return _refuse(404, _("Not found."), "not_found")
    audience = game.match.index_of(bot.pk)
    stream = _Stream(bot, token_key, f"game.{game_id}")
    try:
        if refused := await stream.open(game_live.group(game_id, audience)):
            return refused
        full = await socket_db(game_full_line)(game_id=game_id, bot=bot)
    except OUTAGE_ERRORS as error:
        await stream.close()
        return unavailable_response(error)

    async def handed(view: dict) -> None:
        """Note the hand-over of a view that puts the bot on move (credited to its clock)."""
        if delivery.is_on_move(view):
            await delivery.delivered(game_id, bot.pk, view["ply"])

    async def body() -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        seq = full["view"]["seq"]
        # Pushes that came ahead of a missing one, by seq: publishers race, so the missing
        # one is waited for a moment (GAP_WAIT_SECONDS) before the view now replaces it.
        pending: dict[int, str] = {}
        gap_since: float | None = None

        def wake_at() -> float | None:
            return None if gap_since is None else gap_since + GAP_WAIT_SECONDS

        try:
            await handed(full["view"])
            yield _line(full)
            if full["view"]["status"] != Game.Status.ACTIVE:
                return
            async for message in stream.messages(wake_at):
                if message is None:
                    yield b"\n"
                    continue
                lines = []
                if message is WAKE:
                    if pending and gap_since is not None and loop.time() >= wake_at():
                        # Lost in the channel layer: the view as it is now covers it.
                        logger.info("game %s: a push was lost; resending the view", game_id)
                        lines.append(await socket_db(game_state_now)(game_id=game_id, bot=bot))
                        pending = {s: t for s, t in pending.items() if s > lines[0]["seq"]}
                        gap_since = None  # a gap still left counts from now
                elif message.get("type") == "game.view" and message["seq"] > seq:
                    pending[message["seq"]] = message["text"]
                # else: not a view, or older than what the bot has (committed before game_full)
                next_seq = lines[0]["seq"] if lines else seq
                while next_seq + 1 in pending:
                    next_seq += 1
                    lines.append({**json.loads(pending.pop(next_seq)), "type": "game_state"})
                gap_since = None if not pending else (gap_since or loop.time())
                for line in lines:
                    if line["seq"] <= seq:
                        continue
                    seq = line["seq"]
                    await handed(line["view"])
                    yield _line(line)
                    if line["view"]["status"] != Game.Status.ACTIVE:
                        return  # over: ``next_game`` names the match's next game, if any
        except OUTAGE_ERRORS:
            logger.warning("game stream %s of bot %s ended by an outage", game_id, bot.pk)
        finally:
            await stream.close()

    return _streaming(body())


urlpatterns = [
    path("bot/stream/event", event_stream, name="bot-stream-event"),
    path("bot/game/stream/<int:game_id>", game_stream, name="bot-stream-game"),
]
