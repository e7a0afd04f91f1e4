"""deploy/cluster.py: gunicorn, two workers and beat start healthy and stop by pid; its
supervisor starts again a process that died, and leaves a held one stopped."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from celery import Celery
from django.conf import settings

from tests.integration.conftest import ROOT, subprocess_env, wait_for


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
        assert set(pids) == {"web", "worker1", "worker2", "beat", "supervisor"}
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


def test_the_supervisor_starts_a_killed_process_again_and_leaves_a_held_one_stopped(
    django_db_setup, tmp_path, monkeypatch
):
    port = free_port()
    broker = other_redis_db(other_redis_db(settings.CELERY_BROKER_URL))
    directory = tmp_path / "cluster"
    env = subprocess_env(
        CLUSTER_DIR=str(directory),
        CLUSTER_PORT=str(port),
        CLUSTER_WORKERS="1",
        CELERY_BROKER_URL=broker,
        REDIS_URL=other_redis_db(broker),
        VAR_DIR=str(tmp_path / "var"),
        WEB_CONCURRENCY="1",
        DEBUG="",
        SECRET_KEY="",
    )
    monkeypatch.setenv("CELERY_BROKER_URL", broker)  # as above: the probe's broker
    client = Celery("cluster-test", broker=broker, backend=broker)

    def pid(name: str) -> int:
        return int((directory / f"{name}.pid").read_text())

    def worker_answers() -> bool:
        try:
            return bool(client.control.ping(timeout=0.5))
        except Exception:  # a connection of this client's being re-established
            return False

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    started = cluster("start", env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        # A worker killed outright (its pool processes are left behind) is started again.
        worker = pid("worker1")
        os.kill(worker, signal.SIGKILL)
        wait_for(lambda: pid("worker1") != worker and worker_answers(), timeout=60)
        assert client.send_task("health.ping", queue="interactive").get(timeout=20) == "pong"
        assert gone(worker)
        # So is the web server's master (its workers hold the port until they are killed).
        web = pid("web")
        os.kill(web, signal.SIGKILL)
        wait_for(lambda: pid("web") != web and healthy(), timeout=60)
        restarted = [json.loads(line) for line in (directory / "restarts.log").open()]
        assert [(r["name"], r["reason"], r["old_pid"]) for r in restarted] == [
            ("worker1", "exited", worker),
            ("web", "exited", web),
        ]
        assert "supervisor" in cluster("status", env).stdout

        # Held: stopped, and left stopped; released: running again.
        held = subprocess.run(
            [sys.executable, "deploy/cluster.py", "hold", "beat"], cwd=ROOT, env=env, timeout=60
        )
        assert held.returncode == 0
        beat = pid("beat")
        time.sleep(3)  # six looks of the supervisor
        assert gone(beat) and pid("beat") == beat
        subprocess.run(
            [sys.executable, "deploy/cluster.py", "release", "beat"], cwd=ROOT, env=env, timeout=60
        )
        wait_for(lambda: pid("beat") != beat and not gone(pid("beat")), timeout=20)
    finally:
        client.close()
        stopped = cluster("stop", env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert not list(directory.glob("*.pid"))


def _pgrp(stat: Path) -> int | None:
    try:
        return int(stat.read_text().rsplit(")", 1)[1].split()[2])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
