"""The Redis cache backend: Django's, with one redis-py client per connection pool.

Django's ``RedisCache`` builds a new ``redis.Redis`` for every cache call, and redis-py's
constructor fills a table of about 150 reply callbacks each time: some 60 µs of CPU, more
than the CPU of the round trip it serves. Every request that passes DRF's throttles makes
several calls (a read and a write per throttle), so the sign-in, the move and the view each
paid for clients they threw away.

A ``redis.Redis`` holds no connection of its own: each command takes one from the pool and
gives it back. One client per pool is therefore as safe as a new one per call, and Django
already keeps one cache object per thread.
"""

from __future__ import annotations

import threading

from django.core.cache.backends.redis import RedisCache as _DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as _DjangoRedisCacheClient


class RedisCacheClient(_DjangoRedisCacheClient):
    """Django's client of the Redis servers, keeping the ``redis.Redis`` of each pool."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}
        self._lock = threading.Lock()

    def get_client(self, key=None, *, write=False):
        """The client of the server Django picks for this call (the write server, or a read
        replica), made with its pool on first use and kept.

        Made under a lock: Django makes a server's pool on first use without one, so threads
        starting together could each make a pool (and a client) of the same server."""
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            with self._lock:
                client = self._clients.get(index)
                if client is None:
                    pool = self._get_connection_pool(write)
                    client = self._clients[index] = self._client(connection_pool=pool)
        return client


class RedisCache(_DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with :class:`RedisCacheClient`."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
