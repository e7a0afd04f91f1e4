#!/usr/bin/env python3
"""Seconds from a fresh clone's `make run` to the first 200 from /api/health.

    python3 bench/first_run.py [REPO] [CLONE_DIR]

Clones REPO (default: this repository) into CLONE_DIR (default: a new temporary directory),
runs `make run` there, polls http://127.0.0.1:8000/api/health, prints the seconds, and stops
the server it started (by process group). Port 8000 must be free.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HEALTH = "http://127.0.0.1:8000/api/health"


def main() -> int:
    repo = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parent.parent)
    clone = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp()) / "fresh"
    subprocess.run(["git", "clone", "--quiet", repo, str(clone)], check=True)
    log = (clone.parent / "make-run.log").open("wb")
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    server = subprocess.Popen(
        ["make", "run"],
        cwd=clone,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    try:
        while server.poll() is None and time.monotonic() - started < 900:
            try:
                with urllib.request.urlopen(HEALTH, timeout=2) as response:
                    if response.status == 200:
                        seconds = time.monotonic() - started
                        print(f"first 200 from /api/health after {seconds:.1f} s ({clone})")
                        return 0
            except OSError:
                time.sleep(0.2)
        print(f"no 200 from /api/health; see {log.name}", file=sys.stderr)
        return 1
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


if __name__ == "__main__":
    sys.exit(main())
