"""The API's OpenAPI schema is the stored copy, byte for byte.

``docs/openapi.yaml`` is the schema bot authors and client generators read. Moving code
around must not change it: any difference fails here, with the first lines that differ. A
change meant to alter the API refreshes the copy deliberately with ``make schema`` and shows
the difference in its commit.

The schema is generated as ``make schema`` does, in a process of its own: this test process
has imported every test module, and some register house bots of their own (their names
would join the enum of strategies).
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORED = ROOT / "docs" / "openapi.yaml"


def schema_now() -> str:
    """The schema as ``manage.py spectacular`` writes it today."""
    run = subprocess.run(
        [sys.executable, "manage.py", "spectacular"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_api_schema_is_the_stored_copy_byte_for_byte():
    now, stored = schema_now(), STORED.read_text()
    if now != stored:
        diff = difflib.unified_diff(
            stored.splitlines(), now.splitlines(), "docs/openapi.yaml", "schema now", lineterm=""
        )
        shown = "\n".join(list(diff)[:60])
        raise AssertionError(
            "The API schema differs from docs/openapi.yaml (run `make schema` if the change "
            f"is meant):\n{shown}"
        )
