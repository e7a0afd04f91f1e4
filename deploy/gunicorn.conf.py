"""gunicorn settings for the web process (`gunicorn -c deploy/gunicorn.conf.py config.wsgi`).

Environment: GUNICORN_BIND (default 0.0.0.0:8000), WEB_CONCURRENCY (worker processes,
default 2), GUNICORN_TIMEOUT (seconds, default 30), FORWARDED_ALLOW_IPS (proxies whose
X-Forwarded-* headers are trusted, default 127.0.0.1).
"""

import os

wsgi_app = "config.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Sync workers: the API is short requests against PostgreSQL. RELIABILITY.md measured 514-686
# token-authenticated reads/s with two of them on two cores.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# Recycle workers now and then, so a slow leak cannot grow without bound.
max_requests = 2000
max_requests_jitter = 200
# No preload: each worker opens its own database connections after the fork.
preload_app = False
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
