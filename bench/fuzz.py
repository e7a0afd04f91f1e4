#!/usr/bin/env python3
"""API fuzzing, the long form: schemathesis against the cluster's /api/schema/ over HTTP.

    make bench-fuzz          (or: .venv/bin/python bench/fuzz.py [--seconds N])

The bounded form runs in `make test` (tests/unit/test_fuzz_api.py, in-process, derandomized).
This one starts the cluster of deploy/cluster.py (gunicorn, two workers, beat) on a database
of its own (``ginrummy_bench_fuzz``, dropped first) and two free Redis databases, builds the
same world (players, a game in play, challenges, a ladder, events; throttling lifted), and
runs ``st run`` with every check but positive_data_acceptance (see the test's docstring),
every phase (examples, coverage, fuzzing, stateful with the links schemathesis infers) and
fresh random seeds, for the given time. The sign-outs, which revoke the token they are sent
with, get a run of their own with a token each. Prints schemathesis' summary; the exit code
is schemathesis' (0: no failure). Reports land in var/bench-fuzz/.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from harness import drop_database, free_redis_urls, load_cluster, setup_django

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / "var" / "bench-fuzz"
DATABASE = "postgres://postgres@127.0.0.1:5432/ginrummy_bench_fuzz"
CHECKS = ["--checks", "all", "--exclude-checks", "positive_data_acceptance"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=300, help="time budget of the main run")
    parser.add_argument("--port", type=int, default=8140)
    args = parser.parse_args(argv)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    free = free_redis_urls()
    os.environ.update(
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", DATABASE),
        CELERY_BROKER_URL=free[0],
        REDIS_URL=free[1],
        CLUSTER_DIR=str(RUN_DIR / "cluster"),
        CLUSTER_PORT=str(args.port),
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
        THROTTLE_USER_RATE="1000000/min",
        THROTTLE_PLAY_RATE="1000000/min",
        THROTTLE_ANON_RATE="1000000/min",
        THROTTLE_SIGN_IN_RATE="1000000/min",
        THROTTLE_REGISTER_RATE="1000000/min",
        SIGN_IN_FAILURE_LIMIT="1000000",  # random passwords must not lock the fuzzer out
        SIGN_IN_ADDRESS_FAILURE_LIMIT="1000000",
        API_DOCS_PUBLIC="1",  # the cluster runs without DEBUG; the fuzzer reads the schema
    )
    if "bench" not in urlsplit(os.environ["DATABASE_URL"]).path:
        sys.exit("refusing a database whose name does not say bench")
    import redis

    for url in free[:2]:
        redis.Redis.from_url(url).flushdb()
    drop_database(os.environ["DATABASE_URL"])
    cluster = load_cluster()
    if cluster.running():
        cluster.stop()
    if cluster.start() != 0:
        return 1
    started = time.monotonic()
    try:
        setup_django(cluster)
        from accounts import services as accounts
        from accounts.models import Player
        from tests.unit.test_fuzz_api import build_world

        world = build_world()
        base = f"http://{cluster.HOST}:{cluster.PORT}"
        st = str(Path(sys.executable).parent / "st")
        config = ["--config-file", str(ROOT / "schemathesis.toml")]  # its exceptions, explained
        common = [st, *config, "run", f"{base}/api/schema/", *CHECKS, "--output-truncate", "false"]
        main_run = subprocess.run(
            [
                *common,
                "-H",
                f"Authorization: Token {world['token']}",
                "--exclude-path-regex",
                "logout",
                "--max-time",
                str(args.seconds),
                "--workers",
                "2",
                "--report",
                "junit,json",
                "--report-dir",
                str(RUN_DIR),
            ],
            cwd=RUN_DIR,
        )
        alice = Player.objects.get(pk=world["alice"])
        # Each sign-out revokes its token: a fresh one for every run of these two.
        exits = [main_run.returncode]
        for path in ("/api/auth/logout", "/api/auth/logoutall"):
            token = accounts.token_issue(user=alice.user)[1]
            done = subprocess.run(
                [*common, "-H", f"Authorization: Token {token}", "--include-path", path,
                 "--max-examples", "20", "--phases", "examples,coverage,fuzzing"],
                cwd=RUN_DIR,
            )  # fmt: skip
            exits.append(done.returncode)
    finally:
        cluster.stop()
    errors = [
        line
        for log in (RUN_DIR / "cluster").glob("*.log")
        for line in log.read_text(errors="replace").splitlines()
        if "Internal Server Error" in line or "Traceback" in line
    ]
    print(
        f"\nfuzz: {time.monotonic() - started:.0f} s; schemathesis exit codes {exits}; "
        f"server errors in the cluster's logs: {len(errors)}"
    )
    for line in errors[:10]:
        print("  " + line)
    return 0 if not any(exits) and not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
