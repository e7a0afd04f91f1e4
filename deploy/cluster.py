#!/usr/bin/env python3
"""Local multi-process launcher: gunicorn, two Celery workers and beat on loopback.

One file on purpose, though long: the launcher is run as a script (and imported by the
benchmarks and drills), and its processes, their supervisor and its commands read together.

gunicorn runs uvicorn workers on the ASGI app (deploy/gunicorn.conf.py): pages, the API and
the live sockets. Every process shares REDIS_URL's channel layer, so a push published by a
worker or by either web process reaches a socket held by any of them.

    python deploy/cluster.py start|stop|status      (or: make cluster / make cluster-stop)
    python deploy/cluster.py hold NAME | release NAME

Runs against the local PostgreSQL and Redis, production-like (DEBUG off, static files
collected, persistent connections). ``start`` creates the database if it is missing, migrates,
collects static files, starts every process in its own session, waits until ``/api/health``
answers 200, a socket handshake is served (``ws/games/0`` closes with 4404: no such game) and
every worker answers a ping, and prints where everything is. A supervisor process then
watches them: one that exits for any reason is started again at once (after a crash loop,
with a growing pause of up to 30 s), each restart a line in ``restarts.log``. ``hold NAME``
stops one process and keeps it stopped, ``release NAME`` lets the supervisor start it again.
``stop`` ends the supervisor, then the processes by the pids in their pidfiles. Integration
tests and benchmarks use it.

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
    CLUSTER_SUPERVISE  1                 0: no supervisor, nothing is restarted
    DATABASE_URL       postgres://postgres@127.0.0.1:5432/ginrummy
    CELERY_BROKER_URL  redis://127.0.0.1:6379/0
    REDIS_URL          redis://127.0.0.1:6379/1   (cache and channel layer, shared by all)
    WEB_CONCURRENCY    2                 gunicorn workers

Any other setting (SECRET_KEY, CELERY_VISIBILITY_TIMEOUT, ...) passes through to the processes.
"""

import contextlib
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
SUPERVISE = _env("CLUSTER_SUPERVISE", "1") not in ("0", "false", "no")
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
        # and any web process answers /metrics for all of them (common/metrics.py).
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


def spawn(name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start one cluster process in a session of its own, appending to NAME.log; its pidfile.

    A session of its own: the processes outlive the launcher and a Ctrl-C in its terminal;
    ``stop`` ends them by pid, and by process group what they leave behind.
    """
    with (CLUSTER_DIR / f"{name}.log").open("ab") as log:
        process = subprocess.Popen(
            commands()[name],
            cwd=ROOT,
            env=env or child_env(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pidfile(name).write_text(f"{process.pid}\n")
    if name in worker_names() and worker_queues(name) == "batch" and BATCH_NICE:
        autogroup_nice(process.pid, BATCH_NICE)
    return process


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
    _stop_supervisor()  # one left behind with nothing to watch would start a second cluster
    for name in process_names():
        hold_file(name).unlink(missing_ok=True)
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
    processes = {name: spawn(name, env) for name in process_names()}

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
            if SUPERVISE:
                _start_supervisor(env)
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


def _kill(pid: int, signum: int) -> None:
    """Signal ``pid``; one that has gone meanwhile is no error."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def terminate(targets: dict[str, int], timeout: float = 30.0) -> None:
    """SIGTERM each process by pid (warm shutdown), SIGKILL what is left after ``timeout``.

    Each process leads its own process group (see ``spawn``), so children left behind by a
    parent that had to be killed (gunicorn workers, Celery pool processes) are found by group.
    """
    for pid in targets.values():
        _kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(group_members(pid) for pid in targets.values()):
        time.sleep(0.1)
    for name, pid in targets.items():
        if leftovers := group_members(pid):
            print(f"{name} (pid {pid}) still running after {timeout:.0f} s: SIGKILL {leftovers}")
            for member in leftovers:
                _kill(member, signal.SIGKILL)


def stop(timeout: float = 30.0) -> int:
    """Stop the supervisor, then every process (see ``terminate``); remove the pidfiles."""
    _stop_supervisor()
    targets = running()
    terminate(targets, timeout)
    for name in process_names():
        pidfile(name).unlink(missing_ok=True)
        hold_file(name).unlink(missing_ok=True)
    print(f"cluster stopped ({', '.join(f'{n} {p}' for n, p in targets.items()) or 'nothing ran'})")
    return 0


def status() -> int:
    procs = running()
    for name in process_names():
        state = f"running, pid {procs[name]}" if name in procs else "stopped"
        if name in worker_names():
            state += f" (queues {worker_queues(name)})"
        print(f"{name:8} {state}")
    supervisor = supervisor_pid()
    print(f"{SUPERVISOR:8} {f'running, pid {supervisor}' if supervisor else 'stopped'}")
    code, body = health()
    print(f"health   {code} {body}")
    sockets = code == 200 and socket_served()
    print(f"sockets  {'served' if sockets else 'not served'}")
    return 0 if len(procs) == len(process_names()) and code == 200 and sockets else 1


# --- Supervision ------------------------------------------------------------------------------

SUPERVISOR = "supervisor"
#: Seconds between two looks at the processes.
SUPERVISE_INTERVAL = 0.5
#: A process that ran less than this long before exiting is crash-looping: its next start
#: waits, twice as long each time (from 1 s up to MAX_RESTART_PAUSE).
STABLE_AFTER = 10.0
MAX_RESTART_PAUSE = 30.0


def hold_file(name: str) -> Path:
    """While this file exists the supervisor leaves ``name`` stopped (``hold``)."""
    return CLUSTER_DIR / f"{name}.hold"


def supervisor_pid() -> int | None:
    """The supervisor's pid while it runs."""
    pid = read_pid(SUPERVISOR)
    if pid and alive(pid) and "supervise" in _cmdline(pid):
        return pid
    return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def _start_supervisor(env: dict[str, str]) -> None:
    with (CLUSTER_DIR / f"{SUPERVISOR}.log").open("ab") as log:
        process = subprocess.Popen(
            [PYTHON, str(Path(__file__).resolve()), "supervise"],
            cwd=ROOT,
            env={**env, "CLUSTER_DIR": str(CLUSTER_DIR)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pidfile(SUPERVISOR).write_text(f"{process.pid}\n")


def _stop_supervisor(timeout: float = 10.0) -> None:
    """End the supervisor first, so that it does not start again what is being stopped."""
    if pid := supervisor_pid():
        _kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive(pid):
            _kill(pid, signal.SIGKILL)
    pidfile(SUPERVISOR).unlink(missing_ok=True)


def restarts() -> list[dict]:
    """Every start the supervisor made (``restarts.log``): name, reason (``exited``: the
    process had died; ``released``: after ``hold`` and ``release``), old and new pid, when."""
    path = CLUSTER_DIR / "restarts.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Supervisor:
    """What ``supervise`` keeps between its looks at the processes."""

    def __init__(self) -> None:
        self.env = child_env()
        self.children: dict[str, subprocess.Popen] = {}  # the processes it started itself
        self.started_at = {name: time.monotonic() for name in process_names()}
        self.pause = dict.fromkeys(process_names(), 0.0)
        self.due: dict[str, float] = {}  # exited: when to start it again
        self.held: set[str] = set()  # down on purpose (``hold``): started once released

    def up(self, name: str, pid: int | None) -> bool:
        child = self.children.get(name)
        if child is not None and child.pid == pid:
            return child.poll() is None  # its own child: exact, and reaped
        self.children.pop(name, None)
        return bool(pid and alive(pid) and ours(name, pid))

    def look(self, name: str) -> None:
        """Start ``name`` again if it is down and not held (after its pause, if it crash-loops)."""
        pid = read_pid(name)
        if self.up(name, pid):
            self.due.pop(name, None)
        elif hold_file(name).exists():
            self.held.add(name)
            self.due.pop(name, None)
        elif name in self.held:
            self.held.discard(name)
            self.start(name, pid, "released")
        else:
            now = time.monotonic()
            if name not in self.due:
                self.exited(name, pid, now)
            if now >= self.due[name]:
                del self.due[name]
                self.start(name, pid, "exited")

    def exited(self, name: str, pid: int | None, now: float) -> None:
        ran = now - self.started_at[name]
        crash_loop = ran < STABLE_AFTER
        pause = min(MAX_RESTART_PAUSE, self.pause[name] * 2 or 1.0) if crash_loop else 0.0
        self.pause[name] = pause
        self.due[name] = now + pause
        child = self.children.get(name)
        code = child.returncode if child is not None else None
        print(
            f"{name} (pid {pid}) exited (code {code}) after {ran:.1f} s; "
            f"starting it again in {pause:.0f} s",
            flush=True,
        )
        if pid:
            for member in group_members(pid):  # what it left behind
                _kill(member, signal.SIGKILL)

    def start(self, name: str, old_pid: int | None, reason: str) -> None:
        self.children[name] = process = spawn(name, self.env)
        self.started_at[name] = time.monotonic()
        record = {"name": name, "reason": reason, "old_pid": old_pid, "new_pid": process.pid}
        with (CLUSTER_DIR / "restarts.log").open("a") as log:
            log.write(json.dumps({**record, "at": time.time()}) + "\n")
        print(f"{name} started ({reason}): pid {process.pid}", flush=True)


def supervise() -> int:
    """Watch the cluster's processes; start again, at once, any that exits (``start`` runs it).

    What a process left behind in its process group (Celery pool processes, gunicorn workers
    of a master that was killed) is killed before the new one starts. A held process
    (``hold``) stays stopped. Runs until SIGTERM (``stop``).
    """
    stopping = False

    def on_term(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    supervisor = Supervisor()
    print(f"supervisor {os.getpid()} watching {', '.join(process_names())}", flush=True)
    while not stopping:
        for name in process_names():
            if not stopping:
                supervisor.look(name)
        time.sleep(SUPERVISE_INTERVAL)
    print("supervisor stopping", flush=True)
    return 0


def hold(name: str, timeout: float = 30.0) -> int:
    """Stop ``name`` and keep it stopped (the supervisor leaves it alone) until ``release``."""
    hold_file(name).touch()
    if pid := running().get(name):
        terminate({name: pid}, timeout)
    return 0


def release(name: str) -> int:
    """Let ``name`` run again: the supervisor starts it; without one, it is started here."""
    hold_file(name).unlink(missing_ok=True)
    if supervisor_pid() is None and name not in running():
        spawn(name)
    return 0


def main(argv: list[str]) -> int:
    commands_ = {"start": start, "stop": stop, "status": status, "supervise": supervise}
    if len(argv) == 3 and argv[1] in ("hold", "release") and argv[2] in process_names():
        return {"hold": hold, "release": release}[argv[1]](argv[2])
    if len(argv) != 2 or argv[1] not in commands_:
        print(__doc__)
        return 2
    return commands_[argv[1]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
