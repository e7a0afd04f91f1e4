"""The Redis cache backend (``common.cache``) on the real Redis: Django's behaviour, with the
redis-py client of each connection pool kept instead of made again for every call."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis
from django.conf import settings
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from common.cache import RedisCache


def cache_on_redis(prefix: str) -> RedisCache:
    """A cache on the test Redis (the broker's database), keys under ``prefix``."""
    return RedisCache(settings.CELERY_BROKER_URL, {"KEY_PREFIX": prefix})


@pytest.fixture
def prefix():
    """A key prefix of this test's own; its keys are deleted after (never the database)."""
    name = f"cache-test-{uuid.uuid4().hex}"
    yield name
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    keys = list(client.scan_iter(f"{name}:*"))
    if keys:
        client.delete(*keys)


def test_a_cache_keeps_one_client_and_answers_as_djangos(prefix):
    ours, djangos = (
        cache_on_redis(prefix),
        DjangoRedisCache(settings.CELERY_BROKER_URL, {"KEY_PREFIX": prefix}),
    )
    client = ours._cache.get_client(write=True)
    ours.set("count", 1, timeout=60)
    ours.set("thing", {"a": [1, 2]}, timeout=60)
    assert ours.incr("count", 4) == 5
    assert ours.add("count", 0) is False
    assert ours.get_many(["count", "thing", "missing"]) == {"count": 5, "thing": {"a": [1, 2]}}
    # The same rows as Django's own backend writes and reads (throttles of a web process
    # running the old backend and one running this share their counters).
    assert djangos.get("count") == 5 and djangos.get("thing") == {"a": [1, 2]}
    djangos.set("theirs", "x", timeout=60)
    assert ours.get("theirs") == "x"
    assert ours.delete("thing") is True and ours.get("thing") is None
    # Every call went through the one client, on the pool Django made.
    assert ours._cache.get_client(write=True) is client
    assert ours._cache.get_client(write=False) is client  # one server: reads go to it too
    assert client.connection_pool is ours._cache._pools[0]


def test_threads_sharing_the_client_each_get_their_own_answers(prefix, monkeypatch):
    cache = cache_on_redis(prefix)
    failures: list[str] = []
    # Making a pool takes a while: threads starting together all ask for the first one.
    make_pool = cache._cache._pool_class.from_url

    def slow_pool(*args, **kwargs):
        time.sleep(0.05)
        return make_pool(*args, **kwargs)

    monkeypatch.setattr(cache._cache._pool_class, "from_url", slow_pool)

    clients: set[int] = set()

    def work(n: int) -> None:
        clients.add(id(cache._cache.get_client(write=True)))
        for i in range(200):
            key = f"k{n}-{i}"
            cache.set(key, (n, i), timeout=60)
            if cache.get(key) != (n, i):
                failures.append(key)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    # One pool and one client for the one server, however many threads asked at once.
    assert len(clients) == 1
    assert cache._cache.get_client(write=True).connection_pool is cache._cache._pools[0]
