"""A flood of ``sync`` on anonymous event sockets against a player's move acks.

Runs the integration test ``tests/integration/test_socket_flood.py`` (a real uvicorn server,
the Redis channel layer, PostgreSQL: two people moving on their table sockets, quiet and then
while four anonymous sockets ask a 128-entrant Swiss for itself as fast as answered) and
prints its figures: the players' ``ack`` p50 and p95, quiet and flooded, and what the flood
was answered. ``--rev REV`` measures the code of another revision (a git worktree of it,
with this test), e.g. the one before a change, to compare::

    python bench/socket_flood.py               # this tree
    python bench/socket_flood.py --rev HEAD~3  # another revision

The database and the broker are the integration suite's (``BENCH_DATABASE_URL``,
``BENCH_BROKER_URL``; by default PostgreSQL's ``test`` and Redis database 9 on localhost).
``FLOOD_MOVES`` and ``FLOOD_ENTRANTS`` size it (30 moves a phase, 128 entrants).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = Path("tests/integration/test_socket_flood.py")


def run(tree: Path) -> str:
    env = dict(
        os.environ,
        DEBUG="1",
        DATABASE_URL=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test"
        ),
        CELERY_BROKER_URL=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/9"),
        REDIS_URL="",
    )
    command = [sys.executable, "-m", "pytest", "-m", "integration", str(TEST)]
    command += ["-p", "no:cacheprovider", "-s", "-q", "--tb=no"]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    found = re.search(r"^socket flood .*$", done.stdout, re.MULTILINE)
    if not found:
        sys.exit(f"no figures (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr}")
    verdict = "passed" if done.returncode == 0 else "failed"
    return f"{found.group(0)}\n  the test {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", help="measure this revision's code (a temporary worktree)")
    args = parser.parse_args()
    if not args.rev:
        print(run(ROOT))
        return
    tree = Path(tempfile.mkdtemp(prefix="socket-flood-")) / "tree"
    subprocess.run(
        ["git", "worktree", "add", "-q", "--detach", str(tree), args.rev], cwd=ROOT, check=True
    )
    try:
        shutil.copy(ROOT / TEST, tree / TEST)
        print(f"revision {args.rev}:")
        print(run(tree))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
