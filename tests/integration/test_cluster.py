"""deploy/cluster.py: gunicorn, two workers and beat start healthy and stop by pid."""

import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from celery import Celery
from django.conf import settings

from tests.integration.conftest import ROOT, subprocess_env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def other_redis_db(url: str) -> str:
    """The next Redis database number: the session's worker must not take these tasks."""
    base, _, db = url.rpartition("/")
    return f"{base}/{int(db or 0) + 1}"


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"  # exited, waiting to be reaped by whoever inherited it


def cluster(command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "deploy/cluster.py", command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_cluster_starts_healthy_runs_a_task_and_stops(django_db_setup, tmp_path, monkeypatch):
    port = free_port()
    broker = other_redis_db(settings.CELERY_BROKER_URL)
    env = subprocess_env(
        CLUSTER_DIR=str(tmp_path / "cluster"),
        CLUSTER_PORT=str(port),
        CELERY_BROKER_URL=broker,
        REDIS_URL=other_redis_db(broker),
        VAR_DIR=str(tmp_path / "var"),  # collectstatic writes here, not into the work tree
        WEB_CONCURRENCY="1",
        DEBUG="",
        SECRET_KEY="",
    )
    started = cluster("start", env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        pids = {path.stem: int(path.read_text()) for path in (tmp_path / "cluster").glob("*.pid")}
        assert set(pids) == {"web", "worker1", "worker2", "beat"}
        # The batch worker's session is niced as a whole (its scheduler autogroup, where
        # Linux has them): it yields the CPU to the web processes' and the interactive ones.
        autogroup = Path(f"/proc/{pids['worker2']}/autogroup")
        if autogroup.exists():
            assert autogroup.read_text().split()[-1] == "10", autogroup.read_text()
            assert Path(f"/proc/{pids['web']}/autogroup").read_text().split()[-1] == "0"

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5) as reply:
            assert reply.status == 200
            assert json.loads(reply.read()) == {"status": "ok", "database": "ok", "broker": "ok"}

        # Celery reads CELERY_BROKER_URL from the environment before its broker argument: this
        # process's is the session worker's database, which would answer the ping instead.
        monkeypatch.setenv("CELERY_BROKER_URL", broker)
        client = Celery("cluster-test", broker=broker, backend=broker)
        try:
            # Each queue has its worker: worker1 the interactive queue, worker2 the batch one.
            for queue in ("interactive", "batch"):
                assert client.send_task("health.ping", queue=queue).get(timeout=20) == "pong"
            active = client.control.inspect(timeout=5).active_queues() or {}
            taken = {host.split("@")[0]: [q["name"] for q in qs] for host, qs in active.items()}
            assert taken == {"worker1": ["interactive"], "worker2": ["batch"]}
        finally:
            client.close()

        # /metrics answers for every process of the cluster: the pings the workers ran (by
        # queue) and the health checks the web processes served.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
        for queue in ("interactive", "batch"):
            series = "ginrummy_celery_task_duration_seconds_count"
            ran = f'{series}{{queue="{queue}",task="health.ping"}}'
            assert any(line.startswith(ran) for line in text.splitlines()), (queue, text)
        assert 'route="api/health"' in text

        status = cluster("status", env)
        assert status.returncode == 0, status.stdout
    finally:
        stopped = cluster("stop", env)

    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert all(gone(pid) for pid in pids.values()), stopped.stdout
    assert not list((tmp_path / "cluster").glob("*.pid"))
    assert cluster("status", env).returncode == 1
    # Nothing is left in the process groups either (gunicorn workers, pool children).
    leftovers = [
        p.parent.name
        for p in Path("/proc").glob("[0-9]*/stat")
        if os.path.exists(p) and _pgrp(p) in pids.values() and not gone(int(p.parent.name))
    ]
    assert leftovers == []


def _pgrp(stat: Path) -> int | None:
    try:
        return int(stat.read_text().rsplit(")", 1)[1].split()[2])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
