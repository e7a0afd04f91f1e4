"""Who is at the table: each player's open sockets, with a time to live.

A player's socket joins when it opens, refreshes its entry with every ping round trip and
leaves when it closes; an entry not refreshed for :data:`TTL` seconds (its web process
died) counts no more. A player is connected while any entry of theirs is alive; when the
last one goes, the time is kept, so the opponent sees for how long they have been away.

Distributed (``CHANNEL_REDIS_URL`` set) the entries live in Redis, shared by every web
process: a sorted set per (game, player) of socket names scored by their expiry. Embedded,
one process holds every socket, and the same structure lives in its memory.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from functools import cache

import redis.asyncio
from django.conf import settings

#: Seconds an entry lives without a refresh (the table socket pings every PING_SECONDS).
TTL = 30
_PREFIX = "ginrummy:presence"


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


class _Memory:
    def __init__(self) -> None:
        self.entries: dict[str, dict[str, float]] = {}
        self.left: dict[str, float] = {}

    async def join(self, key: str, name: str, now: float) -> None:
        self.entries.setdefault(key, {})[name] = now + TTL

    async def leave(self, key: str, name: str, now: float) -> None:
        entries = self.entries.get(key, {})
        entries.pop(name, None)
        if not await self.alive(key, now):
            self.left[key] = now
            self.entries.pop(key, None)

    async def alive(self, key: str, now: float) -> int:
        return sum(1 for expiry in self.entries.get(key, {}).values() if expiry > now)

    async def left_at(self, key: str) -> float | None:
        return self.left.get(key)


#: Redis connections a process's presence calls use at once, and how long one waits for a
#: free connection before it fails.
POOL_CONNECTIONS, POOL_WAIT_SECONDS = 32, 10


_clients: dict[tuple[str, int], object] = {}


def async_redis(url: str):
    """The process's ``redis.asyncio`` client for ``url`` on the running event loop (a
    client belongs to one loop), over a pool of :data:`POOL_CONNECTIONS` that makes a
    caller wait for a free connection: redis-py's default pool refuses a call past its size
    at once, and a hundred spectators connecting together would each fail to open their
    socket."""
    key = (url, id(asyncio.get_running_loop()))
    client = _clients.get(key)
    if client is None:
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url, max_connections=POOL_CONNECTIONS, timeout=POOL_WAIT_SECONDS
        )
        client = _clients[key] = redis.asyncio.Redis(connection_pool=pool)
    return client


class _Redis:
    def __init__(self, url: str) -> None:
        self.url = url

    def _client(self):
        return async_redis(self.url)

    async def join(self, key: str, name: str, now: float) -> None:
        client = self._client()
        async with client.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {name: now + TTL})
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.expire(key, 3600)
            await pipe.execute()

    async def leave(self, key: str, name: str, now: float) -> None:
        client = self._client()
        await client.zrem(key, name)
        if not await self.alive(key, now):
            await client.set(f"{key}:left", repr(now), ex=24 * 3600)

    async def alive(self, key: str, now: float) -> int:
        return await self._client().zcount(key, f"({now}", "+inf")

    async def left_at(self, key: str) -> float | None:
        raw = await self._client().get(f"{key}:left")
        return None if raw is None else float(raw)


@cache
def _store():
    url = settings.CHANNEL_REDIS_URL
    return _Redis(url) if url else _Memory()


def _key(game_id: int, index: int) -> str:
    return f"{_PREFIX}:{game_id}:{index}"


async def presence_join(game_id: int, index: int, socket: str) -> None:
    """A socket of player ``index`` opened (or proved alive again: a refresh)."""
    await _store().join(_key(game_id, index), socket, time.time())


async def presence_leave(game_id: int, index: int, socket: str) -> None:
    """A socket of player ``index`` closed."""
    await _store().leave(_key(game_id, index), socket, time.time())


async def presence_state(game_id: int) -> list[dict]:
    """For each player: ``{"connected": bool, "away_since": ISO time or None}``.

    ``away_since`` is when their last socket closed (None if connected, or never seen).
    """
    store, now = _store(), time.time()
    state = []
    for index in (0, 1):
        key = _key(game_id, index)
        connected = await store.alive(key, now) > 0
        state.append(
            {
                "connected": connected,
                "away_since": None if connected else _iso(await store.left_at(key)),
            }
        )
    return state
