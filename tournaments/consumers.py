"""The event socket, ``ws://HOST/ws/events/<event id>``.

On connect, and after every change of the event, the server sends
``{"type": "event", "seq": N, "event": {...}}``: ``event`` is what ``GET /api/events/{id}``
answers this viewer (``your_entry`` included), with ``bracket`` and ``standings`` as
``GET /api/events/{id}/bracket`` and ``/standings`` answer. ``seq`` is the event's change
number; every message is the whole event, so a client keeps the newest and a reconnect
resynchronises at once. ``{"type": "sync"}`` asks for it again; ``ping`` is answered
``pong``. A draft (staff only) closes the socket of anyone else with 4403, a missing event
with 4404, a bad token with 4401.

Rendering: services publish a small notice per committed change (``tournaments.live``).
This process renders the event once per notice burst, at most once every
:data:`RENDER_INTERVAL` seconds, and sends that render to all its sockets of the event,
each with its viewer's entry (one query for all of them). Events hold no hidden
information, so one render serves every viewer; a bracket advancing 128 times in a second
costs a few renders, not 128 per socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from accounts.selectors import player_for_user
from common.api import OUTAGE_ERRORS
from common.live import dumps, stats
from common.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    group_join,
    group_leave,
    socket_db,
)
from tournaments import live, selectors
from tournaments.models import Entry, Event
from tournaments.serializers import EntrySerializer, EventSerializer

logger = logging.getLogger(__name__)

#: At most one render of an event per this many seconds in one process.
RENDER_INTERVAL = 0.5


def event_render(event_id: int, player_ids: Iterable[int] = ()) -> tuple[int, dict, dict] | None:
    """(seq, the event as its page needs it, {player id: their entry}) or None if gone.

    ``your_entry`` is left None: it is each viewer's own (see the entries).
    """
    event = selectors.event_list().filter(pk=event_id).first()
    if event is None:
        return None
    stats["event_renders"] += 1
    data: dict[str, Any] = dict(EventSerializer(event).data)
    data["bracket"] = selectors.bracket_for_event(event=event)
    data["standings"] = selectors.standings_view(event=event)
    ids = [pk for pk in player_ids if pk is not None]
    entries = {}
    if ids:
        for entry in Entry.objects.filter(event=event, player_id__in=ids).select_related("player"):
            entries[entry.player_id] = EntrySerializer(entry).data
    return event.seq, data, entries


def _access(event_id: int, user) -> tuple[int | None, int | None, int]:
    """(close code or None, the viewer's player id, the event's seq now)."""
    event = Event.objects.filter(pk=event_id).values("status", "seq").first()
    if event is None:
        return CLOSE_NOT_FOUND, None, 0
    staff = bool(user and user.is_authenticated and user.is_staff)
    if event["status"] == Event.Status.DRAFT and not staff:
        return CLOSE_FORBIDDEN, None, 0
    player = player_for_user(user=user)
    return None, None if player is None else player.pk, event["seq"]


def _event_seq(event_id: int) -> int | None:
    """The event's ``seq`` now (one row, no render), or None if it is gone."""
    return Event.objects.filter(pk=event_id).values_list("seq", flat=True).first()


def _entry_of(event_id: int, player_id: int) -> dict | None:
    entry = Entry.objects.filter(event_id=event_id, player_id=player_id).select_related("player")
    entry = entry.first()
    return None if entry is None else EntrySerializer(entry).data


class _Feed:
    """This process's sockets of one event and its last render (one render serves them all)."""

    def __init__(self, event_id: int, loop: asyncio.AbstractEventLoop) -> None:
        self.event_id = event_id
        self.loop = loop
        self.sockets: set[EventConsumer] = set()
        self.wanted = -1  # the highest seq announced
        self.rendered = -1  # the seq the last render covers
        self.last_at = -RENDER_INTERVAL
        self.cache: tuple[int, dict] | None = None
        self.task: asyncio.Task | None = None
        #: Held by a socket rendering the event for itself: the others then find its render.
        self.rendering = asyncio.Lock()

    def changed(self, seq: int) -> None:
        """A notice: render soon (every socket of the event forwards the same notice here)."""
        if seq <= max(self.wanted, self.rendered):
            return
        self.wanted = seq
        if self.task is None:
            self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            while self.wanted > self.rendered and self.sockets:
                wait = self.last_at + RENDER_INTERVAL - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)  # notices arriving meanwhile join this render
                target = self.wanted
                self.last_at = time.monotonic()
                viewers = {s.player_id for s in self.sockets if s.player_id is not None}
                try:
                    rendered = await socket_db(event_render)(self.event_id, viewers)
                except OUTAGE_ERRORS:
                    logger.warning("event %s: render failed", self.event_id, exc_info=True)
                    return  # the next notice (or the client's poll) tries again
                if rendered is None:
                    return
                seq, data, entries = rendered
                self.rendered = max(seq, target)
                self.cache = (seq, data)
                for socket in list(self.sockets):
                    entry = entries.get(socket.player_id)
                    if socket.player_id is not None and socket.player_id not in viewers:
                        # It opened while this render was made, after its viewers were
                        # read: its entry was not, and None would read "not entered".
                        entry = await socket_db(_entry_of)(self.event_id, socket.player_id)
                    try:
                        await socket.send_event(seq, data, entry)
                    except Exception:  # a socket closing now: the others still get it
                        logger.debug("event %s: a send failed", self.event_id, exc_info=True)
        finally:
            self.task = None

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


_feeds: dict[int, _Feed] = {}


def _feed(event_id: int) -> _Feed:
    loop = asyncio.get_running_loop()
    feed = _feeds.get(event_id)
    if feed is None or feed.loop is not loop:
        feed = _feeds[event_id] = _Feed(event_id, loop)
    return feed


class EventConsumer(JsonSocket):
    """One socket watching one event."""

    metrics_name = "event"

    types = ("sync",)
    reads = ("sync",)

    async def connect(self):
        self.event_id = int(self.scope["url_route"]["kwargs"]["event_id"])
        self.seq = -1
        self.last_text: str | None = None  # the event at self.seq, as sent
        self.player_id: int | None = None
        self.joined = False
        if self.scope.get("auth_failed"):
            await self.refuse_connection(CLOSE_UNAUTHENTICATED)
            return
        try:
            code, self.player_id, seq = await socket_db(_access)(self.event_id, self.user)
        except OUTAGE_ERRORS:
            await self.refuse_connection(1013)  # try again later
            return
        if code is not None:
            await self.refuse_connection(code)
            return
        # Join before rendering: a change committed meanwhile is rendered after it.
        await group_join(self.channel_layer, live.group(self.event_id), self.channel_name)
        self.joined = True
        feed = _feed(self.event_id)
        feed.sockets.add(self)
        await self.accept()
        await self._send_latest(seq)

    async def disconnect(self, code):
        if not self.joined:
            return
        await group_leave(self.channel_layer, live.group(self.event_id), self.channel_name)
        feed = _feeds.get(self.event_id)
        if feed is not None:
            feed.sockets.discard(self)
            if not feed.sockets:
                feed.close()
                del _feeds[self.event_id]

    async def _send_latest(self, seq: int) -> None:
        """Send the event at ``seq`` or later: this process's render if it is that new, else
        a render of its own. One socket of an event renders at a time; the others waiting
        meanwhile then find its render."""
        feed = _feeds.get(self.event_id)
        async with feed.rendering if feed is not None else contextlib.nullcontext():
            if feed is not None and feed.cache is not None and feed.cache[0] >= seq:
                entry = None
                if self.player_id is not None:
                    entry = await socket_db(_entry_of)(self.event_id, self.player_id)
                await self.send_event(feed.cache[0], feed.cache[1], entry)
                return
            await self._send_current()

    async def _send_current(self) -> None:
        rendered = await socket_db(event_render)(
            self.event_id, [self.player_id] if self.player_id else []
        )
        if rendered is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        seq, data, entries = rendered
        feed = _feeds.get(self.event_id)
        if feed is not None and (feed.cache is None or feed.cache[0] < seq):
            feed.cache = (seq, data)
        await self.send_event(seq, data, entries.get(self.player_id))

    async def send_event(self, seq: int, data: dict, entry: dict | None) -> None:
        """Send the event at ``seq`` with this viewer's entry, unless it sent a newer one."""
        if seq <= self.seq:
            return
        self.seq = seq
        self.last_text = dumps(
            {"type": "event", "seq": seq, "event": {**data, "your_entry": entry}}
        )
        await self.send(text_data=self.last_text)

    async def event_changed(self, message: dict) -> None:
        """The notice of a committed change (``tournaments.live``): the feed renders."""
        _feed(self.event_id).changed(message["seq"])

    async def on_sync(self, message: dict) -> None:
        """Send the event now. Nothing changed since this socket's last (one row read):
        that one again. This process's render is current: it, with the viewer's entry.
        Else this process's feed renders it (at most once per :data:`RENDER_INTERVAL`
        however many sockets ask) and sends it to every socket of the event behind it."""
        try:
            seq = await socket_db(_event_seq)(self.event_id)
            if seq is None:
                await self.close(code=CLOSE_NOT_FOUND)
                return
            if seq <= self.seq and self.last_text is not None:
                stats["syncs_unrendered"] += 1
                await self.send(text_data=self.last_text)
                return
            feed = _feeds.get(self.event_id)
            stale = feed is None or feed.cache is None or feed.cache[0] < seq
            if stale and feed is not None and self in feed.sockets:
                feed.changed(seq)
                if feed.task is not None:  # rendering: this socket gets it with the others
                    return
            self.seq = -1  # send it even if this socket had it
            await self._send_latest(seq)
        except OUTAGE_ERRORS:
            await self.send_error("service_unavailable", _("try again shortly"))
