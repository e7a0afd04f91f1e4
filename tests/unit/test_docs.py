"""The README stays short, the documents' links lead somewhere, every setting is documented.

The README is the page a newcomer reads in five minutes: at most 12,000 bytes, the rest in
``docs/``. Every relative link of the README, of ``docs/`` and of ``bench/README.md`` must
name a file of the repository, and a ``#fragment`` a heading of the page it points at
(GitHub's anchors). Every variable ``config/settings.py`` reads from the environment is in
``docs/configuration.md``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_BYTES = 12_000
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench/README.md"]

#: ``[text](target)`` or ``[text](target "title")``; images (``![alt](src)``) too.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SETTING = re.compile(r"\benv_(?:str|bool|int|choice|list)\(\s*\"([A-Z][A-Z0-9_]*)\"")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(CODE_SPAN.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())  # a link's text
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a Markdown file's headings, repeated ones numbered as GitHub does."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path) -> list[str]:
    """The relative links of a document that lead nowhere, each with why."""
    problems = []
    for line in prose_lines(document.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # http:, https:, mailto: ...
            path_part, _, fragment = target.partition("#")
            where = (document.parent / unquote(path_part)).resolve() if path_part else document
            name = f"{document.relative_to(ROOT)}: ({target})"
            if not where.exists():
                problems.append(f"{name}: no file {where.relative_to(ROOT)}")
            elif fragment and where.suffix == ".md" and fragment not in anchors(where):
                problems.append(f"{name}: no heading with the anchor #{fragment}")
    return problems


def test_the_readme_is_at_most_12000_bytes():
    size = len((ROOT / "README.md").read_bytes())

    assert size <= README_MAX_BYTES, (
        f"README.md is {size} bytes, over {README_MAX_BYTES}: move the detail to docs/ and link it"
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(document):
    assert broken_links(document) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/api.md").write_text("# The API\n\n## Errors\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/api.md#errors) [gone](docs/gone.md) [no heading](docs/api.md#play)\n"
        "`[in code](docs/gone.md)` [web](https://example.org/x)\n"
        "```\n[fenced](docs/gone.md)\n```\n"
    )

    assert broken_links(page) == [
        "README.md: (docs/gone.md): no file docs/gone.md",
        "README.md: (docs/api.md#play): no heading with the anchor #play",
    ]


def test_anchors_follow_github():
    assert slug("Tasks: Celery and the embedded worker") == "tasks-celery-and-the-embedded-worker"
    assert slug("Channel layers: lists and pub/sub (2026-12-01)") == (
        "channel-layers-lists-and-pubsub-2026-12-01"
    )
    assert slug("`ws://HOST/ws/me`: the player's news") == "wshostwsme-the-players-news"


def test_every_setting_read_from_the_environment_is_in_the_configuration_doc():
    settings = (ROOT / "config/settings.py").read_text(encoding="utf-8")
    documented = (ROOT / "docs/configuration.md").read_text(encoding="utf-8")

    read = set(SETTING.findall(settings))
    missing = sorted(name for name in read if f"`{name}`" not in documented)

    assert len(read) > 50  # the pattern still finds the settings
    assert missing == [], f"add these settings to the tables of docs/configuration.md: {missing}"
