"""The repository and the production settings: no secret committed, the deploy checklist clean.

The scan reads every file git tracks (so a new file is scanned the day it is added) for the
shapes of real credentials: private keys, cloud and chat tokens, URLs with a password in them,
and long random strings assigned to a secret-sounding name. Known test values are listed by
file and value; anything else fails.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PATTERNS = {
    "private key": re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP )?PRIVATE KEY-----"),
    "AWS access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "Slack token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "Stripe key": re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}"),
    "Google API key": re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    "JSON web token": re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+"),
}
#: user:password@ in a URL, unless the password is a placeholder or an environment variable.
URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^:/@\s]+:([^@/\s]+)@")
PLACEHOLDER_PASSWORDS = {"pass", "password", "PASSWORD", "secret"}
#: A long literal assigned to a name that sounds secret.
ASSIGNED = re.compile(
    r"(?i)(secret|password|passwd|token|api_?key|private_?key)[\w\"']*\s*[:=]\s*[\"']([^\"'\s]{24,})[\"']"
)
#: Test-only values, by file: they guard nothing.
ALLOWED = {
    ("config/settings.py", "django-insecure-development-only-key-never-use-in-production"),
    ("tests/unit/test_settings.py", "x7Jq2pVd9LmR4tWz8YcN3bKf6HsG1aEo5UiTyXrQvBnMlPkZjDw0"),
}
FORBIDDEN_FILES = re.compile(r"(^|/)(\.env(\..*)?|id_[rd]sa|.*\.pem|.*\.key|secret_key|.*\.p12)$")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def findings(path: str, text: str) -> list[str]:
    found = []
    for name, pattern in PATTERNS.items():
        found += [f"{path}: {name}" for _ in pattern.finditer(text)]
    for match in URL_PASSWORD.finditer(text):
        password = match.group(1)
        if password not in PLACEHOLDER_PASSWORDS and not password.startswith(("$", "<", "{")):
            found.append(f"{path}: a URL with a password ({match.group(0)[:40]}...)")
    for match in ASSIGNED.finditer(text):
        value = match.group(2)
        if (path, value) in ALLOWED or entropy(value) < 3.5:
            continue  # allowed test value, or words rather than randomness
        found.append(f"{path}: {match.group(1)} = {value[:6]}... (random-looking)")
    return found


def tracked_files() -> list[str]:
    result = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [p for p in result.stdout.split("\0") if p]


def test_no_secret_in_any_tracked_file():
    files = tracked_files()
    assert len(files) > 100
    problems = []
    for path in files:
        if FORBIDDEN_FILES.search(path):
            problems.append(f"{path}: a file that holds secrets must not be tracked")
            continue
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary (screenshots) or deleted in the work tree
        problems += findings(path, text)
    assert not problems, "\n".join(problems)


#: Planted secrets, cut in two so that this file itself does not hold one for the scan.
PLANTED = [
    "-----BEGIN RSA PRIVATE " + "KEY-----",
    'AWS_KEY = "AKIA' + 'IOSFODNN7EXAMPLE"',
    "DATABASE_URL=postgres://rummy:S3cr3t-" + "Pa55@db:5432/rummy",
    'SECRET_KEY = "k3J9s8dF7g6H5j4K3l2Z' + '1x0C9v8B7n6M5q4W"',
    "token: ghp_abcdefghijklmnopqrstuv" + "wxyz0123456789AB",
]


@pytest.mark.parametrize("planted", PLANTED)
def test_the_scan_finds_planted_secrets(planted):
    assert findings("somewhere.py", planted)


def test_placeholders_and_words_are_not_secrets():
    text = (
        "postgres://user:pass@host:5432/name postgres://rummy:${POSTGRES_PASSWORD:-rummy}@x/y "
        'password = "a-long-test-passphrase"'
    )
    assert findings("README.md", text) == []


def test_the_work_tree_ignores_where_secrets_live():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert {".env", "var/"} <= set(ignored)


def test_production_settings_pass_check_deploy_at_warning_level(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "CELERY", "REDIS_URL", "SECURE_", "DEBUG"))
    }
    env.update(
        DEBUG="0",
        SECRET_KEY="deploy-check-" + "q8Zr2Lm5Nx7Vb1Kc4Jh9Gf3Ds6Ap0Wt" * 2,
        ALLOWED_HOSTS="rummy.example.org",
        VAR_DIR=str(tmp_path),
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
