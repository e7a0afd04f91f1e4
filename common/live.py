"""Pushes to sockets: the channel layer as seen from synchronous services, tasks and threads.

Services change state in a transaction and, on commit, *publish* a message to a group
(``game.12.0``: player A's sockets at table 12; ``event.3``; ``player.7``). Consumers
(``games.consumers``, ``tournaments.consumers``, ``accounts.consumers``) hold the sockets and
forward what their group receives.

:func:`publish` never blocks its caller and never fails it: the change has committed, and a
socket that misses a push sees a gap in its sequence number and resynchronises (or the page
falls back to polling). Messages go through one long-lived event loop per process (a
daemon thread), in the order they were published, so every publisher in a process
(a request thread, a Celery task, the embedded worker's threads) reuses one set of Redis
connections instead of opening an event loop and a connection per message.

The embedded default has no Redis: :class:`InMemoryChannelLayer` is Channels' in-memory
layer made safe to call from any thread (its queues belong to the server's event loop).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as _ChannelsInMemoryLayer
from channels.layers import get_channel_layer
from django.db import transaction

from common import json_codec

logger = logging.getLogger(__name__)

#: What was published, failed to publish, or dropped in this process (tests, benchmarks).
stats: Counter[str] = Counter()


def dumps(data: Any) -> str:
    """JSON as the REST API renders it (datetimes in ISO 8601, compact)."""
    return json_codec.dumps(data)


#: How often a push handed to the sockets' event loop checks that the loop still runs.
HOME_CHECK_SECONDS = 0.25


class InMemoryChannelLayer(_ChannelsInMemoryLayer):
    """Channels' in-memory layer, callable from any thread and counting what it drops.

    Its asyncio queues may only be used from the loop the consumers wait on (the ASGI
    server's). A send from another thread's loop (the publisher thread, a test) is handed
    to that loop. A full channel (a socket that stopped reading) drops the message, as the
    Redis layer does, but the drop is counted.
    """

    _home: asyncio.AbstractEventLoop | None = None

    async def receive(self, channel):
        self._home = asyncio.get_running_loop()
        return await super().receive(channel)

    async def _at_home(self, coroutine):
        home = self._home
        here = asyncio.get_running_loop()
        if home is None or home is here or home.is_closed() or not home.is_running():
            return await coroutine
        handed = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, home))
        # A loop that stops before it runs what it was handed never answers: its sockets are
        # gone with it, and the publisher must not wait for it (every later push would).
        while True:
            done, _pending = await asyncio.wait({handed}, timeout=HOME_CHECK_SECONDS)
            if done:
                if handed.cancelled():
                    # The loop cancelled it as it shut down (its tasks are cancelled then):
                    # its sockets are going, and the cancellation is not the publisher's.
                    stats["dropped"] += 1
                    logger.warning("the sockets' event loop shut down: a push was dropped")
                    return None
                return handed.result()
            if home.is_closed() or not home.is_running():
                handed.cancel()
                coroutine.close()  # never started: the cancelled hand-over will not start it
                stats["dropped"] += 1
                logger.warning("the sockets' event loop stopped: a push was dropped")
                return None

    async def send(self, channel, message):
        return await self._at_home(super().send(channel, message))

    async def group_send(self, group, message):
        return await self._at_home(self._group_send(group, message))

    async def _group_send(self, group, message):
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, {})):
            try:
                await _ChannelsInMemoryLayer.send(self, channel, message)
            except ChannelFull:
                stats["dropped"] += 1
                logger.warning("channel %s is full: a push to %s was dropped", channel, group)


class _Publisher:
    """A daemon thread running an event loop that sends published messages in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue | None = None
        self._pending = 0
        self._idle = threading.Condition(self._lock)

    def _start(self) -> asyncio.AbstractEventLoop:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._queue = asyncio.Queue()
            self._loop = loop
            ready.set()
            try:
                loop.run_until_complete(self._drain())
            finally:
                loop.close()  # a publisher that ended is started again by the next put

        threading.Thread(target=run, name="live-publisher", daemon=True).start()
        ready.wait()
        assert self._loop is not None
        return self._loop

    async def _drain(self) -> None:
        assert self._queue is not None
        while True:
            group, message = await self._queue.get()
            try:
                layer = get_channel_layer()
                if layer is not None:
                    await layer.group_send(group, message)
                    stats["published"] += 1
            except (Exception, asyncio.CancelledError):
                # Redis down, or a send cancelled where it was handed: the sockets resync;
                # never stop the publisher (no push of this process would go out again).
                stats["publish_failed"] += 1
                logger.warning("push to %s failed", group, exc_info=True)
            finally:
                with self._lock:
                    self._pending -= 1
                    if not self._pending:
                        self._idle.notify_all()

    def put(self, group: str, message: dict) -> None:
        with self._lock:
            loop = self._loop
            self._pending += 1
        if loop is None or loop.is_closed():
            with self._lock:
                loop = self._loop if self._loop and not self._loop.is_closed() else None
                if loop is None:
                    loop = self._start()
        assert self._queue is not None
        loop.call_soon_threadsafe(self._queue.put_nowait, (group, message))

    def wait_idle(self, timeout: float) -> bool:
        """Block until every published message has been handed to the layer."""
        with self._lock:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)


_publisher = _Publisher()


def publish(group: str, message: dict) -> None:
    """Send ``message`` to every socket in ``group``, now, without waiting for it.

    Call it after the change has committed (see :func:`publish_on_commit`). Messages from
    one process arrive in the order they were published. Each carries ``at``, the time it
    was published (seconds since the epoch), for the push latency the sockets report.
    """
    _publisher.put(group, {**message, "at": time.time()})


def publish_on_commit(group: str, message: dict) -> None:
    """:func:`publish` once the surrounding transaction commits (nothing if it rolls back)."""
    transaction.on_commit(lambda: publish(group, message))


def wait_published(timeout: float = 5.0) -> bool:
    """Wait until this process has handed every published message to the channel layer."""
    return _publisher.wait_idle(timeout)
