"""The Redis broker transport the workers use: kombu's, surviving a broker restart.

When a worker loses Redis, its consumer collects the broken connection (which releases the
transport) and then closes it. Closing the consumer's channel puts the worker's unacknowledged
messages back in their queue, which needs a Redis client; with the transport already released
kombu's Redis channel fails to build one with ``AttributeError`` ("'NoneType' object has no
attribute 'hostname'") instead of a connection error. Celery treats every error but a
connection error as unrecoverable, so the worker exited instead of reconnecting.

Here a channel whose transport is gone answers with a connection error, which the close
ignores like any other while the broker is down, and the consumer reconnects. The messages
stay in Redis's unacknowledged set, where the visibility timeout puts them back in their
queue; a Redis that restarted empty has lost them anyway, and the sweeps redo that work.

``CELERY_BROKER_TRANSPORT`` names this transport for ``redis://`` and ``rediss://`` brokers
(config/settings.py).

Also here: :func:`broker_redis`, a plain Redis client on the broker's database, for what reads
or counts there besides Celery (the queues' lengths, the redelivery counts).
"""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings
from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


@cache
def broker_redis() -> redis.Redis | None:
    """A Redis client on the broker's database, or None for another broker (or none)."""
    url = settings.CELERY_BROKER_URL or ""
    if not url.startswith(("redis://", "rediss://")):
        return None
    return redis.Redis.from_url(url)


class Channel(kombu_redis.Channel):
    """kombu's Redis channel; a connection error, not a crash, once its transport is gone."""

    def _connparams(self, asynchronous: bool = False) -> dict:
        if self.connection.client is None:
            raise RedisConnectionError("the broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
