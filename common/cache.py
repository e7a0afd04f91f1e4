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

from django.core.cache.backends.redis import RedisCache as _DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as _DjangoRedisCacheClient


class RedisCacheClient(_DjangoRedisCacheClient):
    """Django's client of the Redis servers, keeping the ``redis.Redis`` of each pool."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        """The client of the pool Django picks for this call (the write server, or a read
        replica), made on first use and kept."""
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))  # the pool is kept in self._pools: ids stay
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(_DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with :class:`RedisCacheClient`."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
