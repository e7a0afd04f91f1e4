"""gunicorn settings for the web process (`gunicorn -c deploy/gunicorn.conf.py`).

gunicorn manages uvicorn workers (``config.workers.UvicornWorker``) serving the ASGI app,
``config.asgi:application``: pages and the API over HTTP, the live sockets over WebSocket.

Environment: GUNICORN_BIND (default 0.0.0.0:8000), WEB_CONCURRENCY (worker processes,
default 2), GUNICORN_TIMEOUT (seconds, default 30), FORWARDED_ALLOW_IPS (proxies whose
X-Forwarded-* headers are trusted, default 127.0.0.1), GUNICORN_LOG_LEVEL (default info),
DB_POOL_MAX_SIZE (database connections per worker process, default 16 here),
WS_PER_MESSAGE_DEFLATE (1: accept WebSocket compression; default off).
"""

import os

# uvicorn serves WebSockets only when the `websockets` package (or wsproto) imports; without
# it every handshake is refused. Fail at start-up instead of serving pages without sockets.
import websockets  # noqa: F401

# A connection pool per web process (config/settings.py, DB_POOL_MAX_SIZE): under ASGI each
# request runs on a thread of its own, and persistent connections (one per thread, kept a
# minute) ran PostgreSQL out of connections under load. Workers and beat keep theirs.
os.environ.setdefault("DB_POOL_MAX_SIZE", "16")

wsgi_app = "config.asgi:application"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# One event loop per worker process holds every socket it serves. Each request's middleware
# and sync view (the whole API) run on a thread of their own, at most WEB_VIEW_CONCURRENCY
# at once, a game's view and moves first (common/admission.py), and the sockets' database
# work runs on SOCKET_DB_THREADS threads; the GIL still lets one of them run Python at a
# time, so throughput comes from processes, about two per core.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# uvicorn's worker, declining WebSocket compression unless WS_PER_MESSAGE_DEFLATE=1, and
# refusing a socket frame or message above SOCKET_MAX_MESSAGE_BYTES + 4 KiB as soon as its
# length is read (close code 1009), before it is buffered (config/workers.py says why).
worker_class = "config.workers.UvicornWorker"
# The worker's event loop reports to the arbiter every timeout/2 s; a worker silent for
# `timeout` s (a loop blocked by something synchronous) is killed and replaced. A slow view
# runs on its thread and does not block the loop, so this no longer bounds a request.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# On a restart or a recycle the worker stops taking connections, lets requests finish for
# this long, then closes the remaining sockets (code 1012: clients reconnect elsewhere).
graceful_timeout = 20
# Idle HTTP keep-alive (uvicorn's timeout_keep_alive); sockets are kept alive by their
# pings instead (uvicorn's every 20 s, the table socket's own every 5 s).
keepalive = 5
# Recycle workers now and then, so a slow leak cannot grow without bound. uvicorn counts
# HTTP requests and socket handshakes alike; the jitter keeps the workers from recycling
# (and dropping their sockets) at the same moment.
max_requests = 2000
max_requests_jitter = 200
# No preload: each worker opens its own database connections after the fork.
preload_app = False
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")


# Metrics (common/metrics.py): with PROMETHEUS_MULTIPROC_DIR every process of the host writes
# its samples there (whoever starts the host's processes empties it first: deploy/cluster.py,
# the compose file's migrate step). A web worker that exits no longer counts in the live
# gauges (sockets open).
def child_exit(server, worker):
    from common.metrics import mark_process_dead

    mark_process_dead(worker.pid)
