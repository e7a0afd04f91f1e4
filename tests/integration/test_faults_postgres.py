"""PostgreSQL goes away and comes back: a web process's connection pool serves again at once.

A TCP proxy of the test's own stands between a process configured as a web process is (its
pool of ``DB_POOL_MAX_SIZE`` connections, config/settings.py) and the machine's PostgreSQL:
"down" cuts every connection through it and refuses new ones, as a crashed server does,
without touching the shared server. The process makes a query every 0.1 s, as requests do.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time

from django.conf import settings

from tests.integration.conftest import ROOT, subprocess_env, worker_database_url

#: As a request would: take a connection (from the pool), one query, give it back.
CLIENT = """
import json, sys, time
import django
django.setup()
from django.db import connection
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    began = time.time()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        ok = True
    except Exception:
        ok = False
    finally:
        connection.close()
    print(json.dumps([began, time.time(), ok]), flush=True)
    time.sleep(0.1)
"""


class Proxy:
    """Forwards 127.0.0.1:<port> to PostgreSQL; ``down()`` cuts and refuses, ``up()`` serves."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.listener: socket.socket | None = None
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        if self.listener is not None:
            with contextlib.suppress(OSError):  # wakes the accepting thread (close does not)
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            self.listener = None
        with self.lock:
            for sock in self.open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by down()
            server = socket.create_connection(self.upstream)
            with self.lock:
                self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def test_a_web_processs_pool_serves_again_within_seconds_of_postgresqls_return(django_db_setup):
    db = settings.DATABASES["default"]
    proxy = Proxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    proxy.up()
    url = worker_database_url().replace(f":{db['PORT'] or 5432}/", f":{proxy.port}/")
    env = subprocess_env(DATABASE_URL=url, DB_POOL_MAX_SIZE="16")  # as deploy/gunicorn.conf.py
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, "26"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    first_served = threading.Event()

    def read() -> None:
        assert client.stdout is not None
        for line in client.stdout:
            lines.append(line)
            if json.loads(line)[2]:
                first_served.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        # The pool serves before the outage: wait for its first answer (starting Django takes
        # seconds on a busy machine), not for a fixed time.
        assert first_served.wait(60), "the client never reached PostgreSQL through the proxy"
        time.sleep(1)
        down_at = time.time()
        proxy.down()
        # psycopg's own pauses between attempts double (1, 2, 4, 8 s): its attempt after
        # the return would come about 7 s after it.
        time.sleep(8)
        proxy.up()
        up_at = time.time()
        client.wait(timeout=60)
        reader.join(10)
    finally:
        client.kill()
        proxy.down()
    answers = [json.loads(line) for line in lines]

    assert any(ok for _, ended, ok in answers if ended < down_at)
    assert not any(ok for began, ended, ok in answers if down_at + 0.5 < began < ended < up_at)
    first_served = min(ended for _, ended, ok in answers if ok and ended > up_at) - up_at
    last_refused = max((ended for _, ended, ok in answers if not ok), default=up_at) - up_at
    print(f"served again {first_served:.2f} s after the return; last refusal {last_refused:.2f} s")
    assert first_served < 5, (first_served, answers)
    assert last_refused < 5, (last_refused, answers)
