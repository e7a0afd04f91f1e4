"""A thousand sockets of one process joining and leaving their groups at the same moment, and
reading the table's presence as they open.

That happens when a web process restarts or a crowd leaves a finished final: every socket's
``disconnect`` leaves its groups at once. redis-py's pool (100 connections a pool, refusing
the 101st at once) is what the Redis channel layer takes its connections from, so unbounded,
most of those calls fail with "Too many connections" and leave their channels behind in the
groups. Through ``common.sockets.group_join``/``group_leave`` they queue instead, on the real
layer and the shared Redis, and every one of them is done. The presence store takes its
connections from a pool that makes a call wait for a free one, for the same reason.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from redis.exceptions import MaxConnectionsError

from common.sockets import LAYER_CALLS_AT_ONCE, group_join, group_leave

pytestmark = pytest.mark.integration

SOCKETS = 1000


def a_layer() -> RedisChannelLayer:
    return RedisChannelLayer(
        hosts=[{"address": settings.CELERY_BROKER_URL}],
        prefix=f"ginrummy:test-bursts:{uuid.uuid4().hex[:8]}",
    )


def test_a_thousand_joins_and_leaves_at_once_all_succeed_through_the_gate():
    assert LAYER_CALLS_AT_ONCE < 100  # below the pool's size
    layer = a_layer()
    group = "game.1.watch"
    channels = [f"specific.test!{i}" for i in range(SOCKETS)]

    async def burst(call) -> list:
        return await asyncio.gather(
            *(call(layer, group, channel) for channel in channels), return_exceptions=True
        )

    async def scenario():
        joined = await burst(group_join)
        members = await layer.connection(0).zcard(layer._group_key(group))
        left = await burst(group_leave)
        remaining = await layer.connection(0).zcard(layer._group_key(group))
        await layer.flush()
        return joined, members, left, remaining

    joined, members, left, remaining = asyncio.run(scenario())
    assert [r for r in joined if r is not None] == []
    assert members == SOCKETS
    assert [r for r in left if r is not None] == []
    assert remaining == 0, "every socket left its group"


def test_the_same_burst_ungated_is_refused_by_the_pool():
    """What the gate is for: the layer's own calls, all at once, run out of connections."""
    layer = a_layer()
    group = "game.1.watch"

    async def scenario():
        results = await asyncio.gather(
            *(layer.group_add(group, f"specific.test!{i}") for i in range(SOCKETS)),
            return_exceptions=True,
        )
        await layer.flush()
        return results

    refused = [r for r in asyncio.run(scenario()) if isinstance(r, MaxConnectionsError)]
    assert refused, "the pool took a thousand calls at once: the gate is not needed"


def test_a_thousand_presence_reads_at_once_all_succeed():
    from games.presence import _Redis

    store = _Redis(settings.CELERY_BROKER_URL)
    key = f"ginrummy:test-bursts:presence:{uuid.uuid4().hex[:8]}"

    async def scenario():
        await store.join(key, "specific.test!0", 1.0)
        answers = await asyncio.gather(
            *(store.alive(key, 0.0) for _ in range(SOCKETS)), return_exceptions=True
        )
        await store._client().delete(key)
        return answers

    answers = asyncio.run(scenario())
    assert [a for a in answers if a != 1] == []
