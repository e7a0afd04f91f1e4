"""What the cluster benchmarks and drills share: the cluster, Django, free Redis databases.

Imported by bench/play.py, load.py, live.py, tables.py, schedule.py, bots.py,
fairplay_service.py, tournaments.py, drills.py, fuzz.py and profile_move.py (each runs with
bench/ on its path). Nothing here imports a third-party
package at module level: the benches' client processes import it before any set-up.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
#: Redis databases a bench may take, in order (0-1: development; 9-11: integration tests).
REDIS_DBS = [12, 13, 14, 8, 7, 6, 5, 4, 3, 2]


def a_move(view: dict, rng: random.Random | None = None) -> dict:
    """A plain player: go out when allowed, draw from the stock, throw a deadwood card.

    Among the deadwood cards ``rng`` picks one; without it, the first.
    """
    legal = view["legal_actions"]
    for kind in ("big_gin", "gin", "knock", "pass", "draw_stock"):
        for action in legal:
            if action["type"] == kind:
                return {"ply": view["ply"], **action}
    deadwood = set(view.get("deadwood") or [])
    discards = [a for a in legal if a["type"] == "discard" and a.get("card") in deadwood]
    choices = discards or legal
    return {"ply": view["ply"], **(rng.choice(choices) if rng else choices[0])}


def clients_of(url: str) -> bool:
    """Whether another client is connected to that Redis database (a worker would take the
    bench's tasks)."""
    import redis

    db = int(urlsplit(url).path.lstrip("/") or 0)
    client = redis.Redis.from_url(url)
    try:
        listed = client.client_list()
    finally:
        client.close()
    return sum(int(c.get("db", -1)) == db for c in listed) > 1  # more than this one


def free_redis_urls(count: int = 2) -> list[str]:
    """``count`` databases of the local Redis that no other client uses; exits if there are not."""
    free = [f"redis://127.0.0.1:6379/{db}" for db in REDIS_DBS]
    free = [url for url in free if not clients_of(url)]
    if len(free) < count:
        sys.exit(f"no {count} free Redis databases: set BENCH_BROKER_URL and BENCH_REDIS_URL")
    return free[:count]


def cluster_environment(database: str, run_dir: Path, port: int, **settings: str) -> None:
    """Point the local launcher (deploy/cluster.py) at a bench's own database and two free Redis
    databases (``BENCH_DATABASE_URL``, ``BENCH_BROKER_URL`` and ``BENCH_REDIS_URL`` override
    them), on ``port``, with two workers and quiet logs; ``settings`` are set besides (and win).
    Call it before :func:`load_cluster`: the launcher reads the environment on import."""
    broker, cache = os.environ.get("BENCH_BROKER_URL"), os.environ.get("BENCH_REDIS_URL")
    if not (broker and cache):
        free = free_redis_urls()
        broker, cache = broker or free[0], cache or free[1]
    environment = {
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", database),
        "CELERY_BROKER_URL": broker,
        "REDIS_URL": cache,
        "CLUSTER_DIR": str(run_dir / "cluster"),
        "CLUSTER_PORT": str(port),
        "CLUSTER_WORKERS": "2",
        "GUNICORN_LOG_LEVEL": "warning",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update({**environment, **settings})


def load_cluster():
    """deploy/cluster.py as a module (it reads the environment when imported)."""
    spec = importlib.util.spec_from_file_location("cluster", ROOT / "deploy" / "cluster.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def setup_django(cluster) -> None:
    """Django in this process on the cluster's database and broker, production-like."""
    for name, value in cluster.child_env().items():
        os.environ.setdefault(name, value)
    os.environ["SECRET_KEY"] = cluster.secret_key()
    os.environ["DEBUG"] = "0"  # DEBUG would keep every query in memory
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def drop_database(url: str) -> None:
    """Drop a bench's PostgreSQL database; refuses one whose name does not say bench."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if "bench" not in name:
        sys.exit(f"refusing to drop database {name!r}: its name does not say bench")
    with psycopg.connect(
        host=parts.hostname,
        port=parts.port or 5432,
        user=parts.username,
        password=parts.password,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
