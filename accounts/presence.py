"""Who is on the site: a signed-in player's own sockets (``ws/me``), with a time to live.

Every page opens the player's own socket (``web.consumers.MeConsumer``): it joins when it
opens, refreshes its entry every :data:`REFRESH_SECONDS` and leaves when it closes; an entry
not refreshed for :data:`TTL` seconds (its web process died) counts no more. A player is on
the site while any entry of theirs is alive: the banner tells them their news, so an e-mail
about the same news is not needed (:mod:`accounts.mail`).

Distributed (``CHANNEL_REDIS_URL`` set) the entries live in Redis, shared by every web
process and read by the workers: a sorted set per player of socket names scored by their
expiry. Embedded, one process holds every socket and runs every task, and the same structure
lives in its memory. The calls are synchronous (the workers ask); the socket calls them off
its event loop.
"""

from __future__ import annotations

import threading
import time
from functools import cache

import redis
from django.conf import settings

#: Seconds an entry lives without a refresh.
TTL = 90
#: How often an open socket refreshes its entry.
REFRESH_SECONDS = 30
_PREFIX = "ginrummy:site"


class _Memory:
    def __init__(self) -> None:
        self.entries: dict[str, dict[str, float]] = {}
        self.lock = threading.Lock()

    def join(self, key: str, name: str, now: float) -> None:
        with self.lock:
            self.entries.setdefault(key, {})[name] = now + TTL

    def leave(self, key: str, name: str, now: float) -> None:
        with self.lock:
            entries = self.entries.get(key, {})
            entries.pop(name, None)
            if not entries:
                self.entries.pop(key, None)

    def alive(self, key: str, now: float) -> int:
        with self.lock:
            return sum(1 for expiry in self.entries.get(key, {}).values() if expiry > now)


class _Redis:
    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    def join(self, key: str, name: str, now: float) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {name: now + TTL})
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.expire(key, 2 * TTL)
            pipe.execute()

    def leave(self, key: str, name: str, now: float) -> None:
        self.client.zrem(key, name)

    def alive(self, key: str, now: float) -> int:
        return self.client.zcount(key, f"({now}", "+inf")


@cache
def _store() -> _Memory | _Redis:
    url = settings.CHANNEL_REDIS_URL
    return _Redis(url) if url else _Memory()


def _key(player_id: int) -> str:
    return f"{_PREFIX}:{player_id}"


def site_join(player_id: int, socket: str) -> None:
    """A socket of the player opened (or proved alive again: a refresh)."""
    _store().join(_key(player_id), socket, time.time())


def site_leave(player_id: int, socket: str) -> None:
    """A socket of the player closed."""
    _store().leave(_key(player_id), socket, time.time())


def on_site(player_id: int) -> bool:
    """Whether the player has the site open now (any page, any device). When the store
    cannot be reached, False: better an e-mail too many than a match missed."""
    try:
        return _store().alive(_key(player_id), time.time()) > 0
    except Exception:
        return False
