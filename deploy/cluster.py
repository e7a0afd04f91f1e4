#!/usr/bin/env python3
"""Local multi-process launcher: gunicorn, two Celery workers and beat on loopback.

gunicorn runs uvicorn workers on the ASGI app (deploy/gunicorn.conf.py): pages, the API and
the live sockets. Every process shares REDIS_URL's channel layer, so a push published by a
worker or by either web process reaches a socket held by any of them.

    python deploy/cluster.py start|stop|status      (or: make cluster / make cluster-stop)

Runs against the local PostgreSQL and Redis, production-like (DEBUG off, static files
collected, persistent connections). ``start`` creates the database if it is missing, migrates,
collects static files, starts every process in its own session, waits until ``/api/health``
answers 200, a socket handshake is served (``ws/games/0`` closes with 4404: no such game) and
every worker answers a ping, and prints where everything is. ``stop`` ends the
processes by the pids in their pidfiles. Integration tests and benchmarks use it.

Environment (each with its default):

    CLUSTER_DIR        var/cluster       pidfiles, logs, the generated SECRET_KEY, beat schedule,
                                         metrics/ (every process's Prometheus samples)
    CLUSTER_HOST       127.0.0.1
    CLUSTER_PORT       8100
    CLUSTER_WORKERS    2                 Celery worker processes (worker1, worker2, ...)
    CLUSTER_BATCH_WORKERS 1 (0 with one worker)  how many of them (the last) take the batch
                                         queue alone, niced; the others take the interactive
                                         queue alone (with one worker: both, interactive first)
    CLUSTER_WORKER_CONCURRENCY 1         pool processes per batch worker (prefork)
    CLUSTER_INTERACTIVE_CONCURRENCY 3    pool processes per interactive worker (prefork): its
                                         tasks mostly wait on PostgreSQL and Redis, so one
                                         process would queue people's bot replies and clocks
    CLUSTER_BATCH_NICE 10                the batch workers' nice value, set on their process
                                         and on their session's scheduler autogroup
    CLUSTER_START_TIMEOUT 60             seconds to wait for health and pings
    DATABASE_URL       postgres://postgres@127.0.0.1:5432/ginrummy
    CELERY_BROKER_URL  redis://127.0.0.1:6379/0
    REDIS_URL          redis://127.0.0.1:6379/1   (cache and channel layer, shared by all)
    WEB_CONCURRENCY    2                 gunicorn workers

Any other setting (SECRET_KEY, CELERY_VISIBILITY_TIMEOUT, ...) passes through to the processes.
"""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def _env(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


CLUSTER_DIR = Path(_env("CLUSTER_DIR", str(ROOT / "var" / "cluster")))
HOST = _env("CLUSTER_HOST", "127.0.0.1")
PORT = int(_env("CLUSTER_PORT", "8100"))
WORKERS = int(_env("CLUSTER_WORKERS", "2"))
CONCURRENCY = int(_env("CLUSTER_WORKER_CONCURRENCY", "1"))
INTERACTIVE_CONCURRENCY = int(_env("CLUSTER_INTERACTIVE_CONCURRENCY", "3"))
BATCH_WORKERS = int(_env("CLUSTER_BATCH_WORKERS", "1" if WORKERS > 1 else "0"))
BATCH_NICE = int(_env("CLUSTER_BATCH_NICE", "10"))
if not 0 <= BATCH_WORKERS < WORKERS and not (WORKERS == 1 and BATCH_WORKERS == 0):
    sys.exit(
        f"CLUSTER_BATCH_WORKERS={BATCH_WORKERS} must leave at least one of the "
        f"CLUSTER_WORKERS={WORKERS} for the interactive queue"
    )
START_TIMEOUT = float(_env("CLUSTER_START_TIMEOUT", "60"))
DATABASE_URL = _env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ginrummy")
BROKER_URL = _env("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
REDIS_URL = _env("REDIS_URL", "redis://127.0.0.1:6379/1")
NODE = socket.gethostname()


def worker_names() -> list[str]:
    return [f"worker{n}" for n in range(1, WORKERS + 1)]


def worker_queues(name: str) -> str:
    """The queues a worker takes (``--queues``): interactive work never waits behind batch.

    A person waits for the interactive queue (a bot's reply, a clock, matchmaking, pushes);
    nobody waits for the batch queue (bot-vs-bot matches, event advancement, webhooks,
    ratings). Each has workers of its own, so a long batch task never holds a reply up; a
    lone worker takes both, interactive first (the broker's ``queue_order_strategy``).
    """
    if BATCH_WORKERS == 0:
        return "interactive,batch"
    batch = worker_names()[WORKERS - BATCH_WORKERS :]
    return "batch" if name in batch else "interactive"


def process_names() -> list[str]:
    """Every process the cluster runs, in start order; each has NAME.pid and NAME.log."""
    return ["web", *worker_names(), "beat"]


def secret_key() -> str:
    """SECRET_KEY from the environment, or one generated once and kept in CLUSTER_DIR."""
    if key := os.environ.get("SECRET_KEY"):
        return key
    path = CLUSTER_DIR / "secret_key"
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


def child_env() -> dict[str, str]:
    """The processes' environment: production-like settings, loopback HTTP."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=DATABASE_URL,
        CELERY_BROKER_URL=BROKER_URL,
        REDIS_URL=REDIS_URL,
        SECRET_KEY=secret_key(),
        PYTHONUNBUFFERED="1",
        # Every process writes its metrics here; the web server empties it when it starts,
        # and any web process answers /metrics for all of them (config/metrics.py).
        PROMETHEUS_MULTIPROC_DIR=str(CLUSTER_DIR / "metrics"),
    )
    # Plain HTTP on loopback: no HTTPS redirect, no HSTS (a browser would pin it for localhost),
    # cookies over HTTP so the admin works. The caller's environment wins.
    for name, value in {
        "DEBUG": "0",
        "ALLOWED_HOSTS": f"{HOST},localhost,127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "SECURE_COOKIES": "0",
    }.items():
        if not os.environ.get(name, "").strip():
            env[name] = value
    return env


# --- Processes ------------------------------------------------------------------------------


def commands() -> dict[str, list[str]]:
    celery = [PYTHON, "-m", "celery", "-A", "config"]
    result = {
        "web": [
            PYTHON,
            "-m",
            "gunicorn",
            "-c",
            str(ROOT / "deploy" / "gunicorn.conf.py"),
            "--bind",
            f"{HOST}:{PORT}",
        ]
    }
    for name in worker_names():
        queues = worker_queues(name)
        # Batch workers yield the CPU to the web processes and the interactive workers.
        nice = ["nice", "-n", str(BATCH_NICE)] if queues == "batch" and BATCH_NICE else []
        result[name] = [
            *nice,
            *celery,
            "worker",
            "--hostname",
            f"{name}@{NODE}",
            "--queues",
            queues,
            "--pool",
            "prefork",
            "--concurrency",
            str(CONCURRENCY if queues == "batch" else INTERACTIVE_CONCURRENCY),
            "--loglevel",
            "INFO",
        ]
    result["beat"] = [
        *celery,
        "beat",
        "--loglevel",
        "INFO",
        "--schedule",
        str(CLUSTER_DIR / "celerybeat-schedule"),
    ]
    return result


# What each process's command line contains: a pid reused by another program is left alone.
MARKERS = {"web": "gunicorn", "beat": "celery"}


def pidfile(name: str) -> Path:
    return CLUSTER_DIR / f"{name}.pid"


def read_pid(name: str) -> int | None:
    try:
        return int(pidfile(name).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True  # no /proc: trust kill(0)
    return state != "Z"


def ours(name: str, pid: int) -> bool:
    """Whether ``pid`` still runs the program we started under ``name``."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return alive(pid)
    return MARKERS.get(name, "celery") in cmdline


def running() -> dict[str, int]:
    """Name -> pid of every cluster process that is alive."""
    found = {}
    for name in process_names():
        pid = read_pid(name)
        if pid and alive(pid) and ours(name, pid):
            found[name] = pid
    return found


def manage(*args: str) -> None:
    """Run a management command; stop the launcher if it fails."""
    result = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=child_env(), capture_output=True, text=True
    )
    if result.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


def ensure_database() -> None:
    """Create the PostgreSQL database named in DATABASE_URL if it does not exist."""
    url = urlsplit(DATABASE_URL)
    if not url.scheme.startswith("postgres"):
        return
    import psycopg
    from psycopg import sql

    name = url.path.lstrip("/")
    params = {
        "host": url.hostname or "127.0.0.1",
        "port": url.port or 5432,
        "user": url.username or "postgres",
        "password": url.password,
        "dbname": "postgres",
        "connect_timeout": 5,
        "autocommit": True,
    }
    with psycopg.connect(**params) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")


def health() -> tuple[int, dict]:
    """Status code and body of /api/health (0 and the error when it does not answer)."""
    request = urllib.request.Request(f"http://{HOST}:{PORT}/api/health")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except (OSError, ValueError) as exc:
        return 0, {"error": str(exc)}


def socket_served() -> bool:
    """Whether the web process serves the table socket (a missing game closes with 4404)."""
    from websockets.exceptions import ConnectionClosed, WebSocketException
    from websockets.sync.client import connect

    try:
        with connect(f"ws://{HOST}:{PORT}/ws/games/0", open_timeout=5, close_timeout=2) as ws:
            ws.recv(timeout=5)
    except ConnectionClosed as closed:
        return closed.rcvd is not None and closed.rcvd.code == 4404
    except (OSError, TimeoutError, WebSocketException):
        return False
    return False


def ping_workers(names: list[str], timeout: float = 1.0) -> set[str]:
    """The workers among ``names`` that answer a broadcast ping."""
    from celery import Celery

    probe = Celery("cluster-probe", broker=BROKER_URL)
    try:
        replies = probe.control.ping(destination=[f"{n}@{NODE}" for n in names], timeout=timeout)
    except Exception:  # the broker restarted under the probe: nobody answered this time
        return set()
    finally:
        probe.close()
    return {host.split("@")[0] for reply in replies for host in reply}


def log_tail(name: str, lines: int = 30) -> str:
    path = CLUSTER_DIR / f"{name}.log"
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


# --- Commands -------------------------------------------------------------------------------


def autogroup_nice(pid: int, nice: int) -> bool:
    """Nice the whole session of ``pid`` (its scheduler autogroup); False where there is none.

    Linux (``kernel.sched_autogroup_enabled``, on by default) puts each session's processes in
    a group of their own and shares the CPU between the groups equally, whatever the nice of
    the processes in them: a process niced in a session of its own, as every process here
    is, would get as much CPU as all the web processes together. The group's own nice
    (``/proc/PID/autogroup``) is what weighs it against the others.
    """
    try:
        Path(f"/proc/{pid}/autogroup").write_text(f"{nice}\n")
    except OSError:
        return False
    return True


def start() -> int:
    CLUSTER_DIR.mkdir(parents=True, exist_ok=True)
    if already := running():
        print(f"cluster already running: {already}; `deploy/cluster.py stop` first")
        return 1
    # The processes' metrics start afresh: no samples of processes of an earlier run.
    metrics = CLUSTER_DIR / "metrics"
    metrics.mkdir(exist_ok=True)
    for stale in metrics.glob("*.db"):
        stale.unlink()
    started = time.monotonic()
    ensure_database()
    manage("migrate", "--no-input")
    manage("collectstatic", "--no-input")
    env = child_env()
    processes: dict[str, subprocess.Popen] = {}
    for name, command in commands().items():
        with (CLUSTER_DIR / f"{name}.log").open("ab") as log:
            # A session of its own: the processes outlive this launcher and a Ctrl-C in its
            # terminal; `stop` ends them by pid.
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        pidfile(name).write_text(f"{process.pid}\n")
        processes[name] = process
        if name in worker_names() and worker_queues(name) == "batch" and BATCH_NICE:
            autogroup_nice(process.pid, BATCH_NICE)

    deadline = time.monotonic() + START_TIMEOUT
    status, sockets, answered = 0, False, set()
    while time.monotonic() < deadline:
        # Our own children: poll() says whether each exited. (Reading /proc/PID/cmdline, as
        # running() does for a later `status` or `stop`, can catch a process while it retitles
        # itself, and then call it someone else's.)
        dead = [
            f"{name} (exit code {p.returncode})"
            for name, p in processes.items()
            if p.poll() is not None
        ]
        if dead:
            return _failed(f"{', '.join(dead)} exited during start-up")
        if status != 200:
            status, _ = health()
        if status == 200 and not sockets:
            sockets = socket_served()
        if answered != set(worker_names()):
            answered = ping_workers(worker_names(), timeout=0.5)
        if status == 200 and sockets and answered == set(worker_names()):
            print(
                f"cluster up in {time.monotonic() - started:.1f} s: http://{HOST}:{PORT}/ "
                f"(pids {running()}; logs in {CLUSTER_DIR}; queues "
                + ", ".join(f"{name} {worker_queues(name)}" for name in worker_names())
                + ")"
            )
            return 0
        time.sleep(0.2)
    return _failed(
        f"not healthy after {START_TIMEOUT:.0f} s "
        f"(health {status}, sockets {'ok' if sockets else 'not served'}, pings {answered})"
    )


def _failed(reason: str) -> int:
    print(f"cluster failed to start: {reason}", file=sys.stderr)
    for name in process_names():
        if tail := log_tail(name):
            print(f"--- {name}.log ---\n{tail}", file=sys.stderr)
    stop()
    return 1


def group_members(pgid: int) -> list[int]:
    """Live processes in the process group ``pgid`` (a cluster process and its children)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, IndexError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def stop(timeout: float = 30.0) -> int:
    """SIGTERM every process by pid (warm shutdown), SIGKILL what is left after ``timeout``.

    Each process leads its own process group (see ``start``), so children left behind by a
    parent that had to be killed (gunicorn workers, Celery pool processes) are found by group.
    """
    targets = running()
    for pid in targets.values():
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(group_members(pid) for pid in targets.values()):
        time.sleep(0.1)
    for name, pid in targets.items():
        if leftovers := group_members(pid):
            print(f"{name} (pid {pid}) still running after {timeout:.0f} s: SIGKILL {leftovers}")
            for member in leftovers:
                os.kill(member, signal.SIGKILL)
    for name in process_names():
        pidfile(name).unlink(missing_ok=True)
    print(f"cluster stopped ({', '.join(f'{n} {p}' for n, p in targets.items()) or 'nothing ran'})")
    return 0


def status() -> int:
    procs = running()
    for name in process_names():
        state = f"running, pid {procs[name]}" if name in procs else "stopped"
        if name in worker_names():
            state += f" (queues {worker_queues(name)})"
        print(f"{name:8} {state}")
    code, body = health()
    print(f"health   {code} {body}")
    sockets = code == 200 and socket_served()
    print(f"sockets  {'served' if sockets else 'not served'}")
    return 0 if len(procs) == len(process_names()) and code == 200 and sockets else 1


def main(argv: list[str]) -> int:
    commands_ = {"start": start, "stop": stop, "status": status}
    if len(argv) != 2 or argv[1] not in commands_:
        print(__doc__)
        return 2
    return commands_[argv[1]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
