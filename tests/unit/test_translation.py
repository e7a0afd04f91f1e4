"""The site's languages: which one a request gets (the account's, else the browser's, else
English), and the catalogues: current with the code (no marked string missing), complete (every
entry translated, none fuzzy) and faithful (every placeholder kept)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import PlayerFactory
from tests.pseudo import DOMAINS, LOCALE, english_with_translation, read_catalogue

LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
CATALOGUES = [(language, domain) for language in LANGUAGES for domain in DOMAINS]
PLACEHOLDER = re.compile(r"%\(\w+\)[sdif]|%[sdif]")


def lang_of(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode())[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "accept, expected",
    [("fr-FR,fr;q=0.9,en;q=0.5", "fr"), ("es-MX", "es"), ("de-DE,de", "en"), ("", "en")],
)
def test_a_page_speaks_the_browsers_language_when_the_site_does(client, accept, expected):
    response = client.get("/how-to-play", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 200
    assert response["Content-Language"] == expected
    assert lang_of(response) == expected


@pytest.mark.django_db
def test_the_accounts_language_wins_over_the_browsers(client):
    player = PlayerFactory(language="es")
    client.force_login(player.user)
    response = client.get("/lobby", HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "es"
    assert lang_of(response) == "es"
    assert english_with_translation("es")["Lobby"] in response.content.decode()


@pytest.mark.django_db
def test_a_french_page_reads_french(client):
    response = client.get("/how-to-play", HTTP_ACCEPT_LANGUAGE="fr")
    french = english_with_translation("fr")
    page = response.content.decode()
    assert french["How to play"] in page
    assert ">How to play<" not in page


@pytest.mark.django_db
def test_the_language_is_a_preference_of_the_account(client):
    player = PlayerFactory()
    client.force_login(player.user)
    refused = client.patch("/api/me", {"language": "de"}, content_type="application/json")
    assert refused.status_code == 400
    assert "language" in refused.json()["errors"]
    player.refresh_from_db()
    assert player.language == ""
    answered = client.patch("/api/me", {"language": "fr"}, content_type="application/json")
    assert answered.status_code == 200 and answered.json()["language"] == "fr"
    player.refresh_from_db()
    assert player.language == "fr"
    assert client.get("/account")["Content-Language"] == "fr"


@pytest.mark.django_db
def test_an_api_refusal_speaks_the_callers_language(client):
    response = client.get("/api/matches/999999", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code in (401, 403, 404)
    assert response["Content-Language"] == "fr"
    english = client.get("/api/matches/999999", HTTP_ACCEPT_LANGUAGE="en").json()["detail"]
    assert response.json()["detail"] != english


def test_the_javascript_catalogue_is_served_in_the_pages_language(client):
    response = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    french = english_with_translation("fr")
    script = response.content.decode()
    # The table's own words are in the scripts' catalogue (as JSON writes them).
    for english in ("Your turn", "Draw from the stock", "Pass"):
        assert json.dumps(french[english]) in script


@pytest.mark.parametrize("language, domain", CATALOGUES)
def test_every_entry_is_translated_and_none_is_fuzzy(language, domain):
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    entries = read_catalogue(path)
    assert len(entries) > 100, f"{path} is nearly empty"
    untranslated = [e["msgid"] for e in entries if not all(e.get("msgstr") or [""])]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e.get("flags", ())]
    assert not untranslated, f"untranslated in {path}: {untranslated[:20]}"
    assert not fuzzy, f"fuzzy in {path}: {fuzzy[:20]}"
    statistics = subprocess.run(
        ["msgfmt", "--check-format", "--statistics", "-o", "/dev/null", str(path)],
        capture_output=True,
        text=True,
    )
    assert statistics.returncode == 0, statistics.stderr
    assert "untranslated" not in statistics.stderr and "fuzzy" not in statistics.stderr


@pytest.mark.parametrize("language, domain", CATALOGUES)
def test_every_translation_keeps_its_placeholders(language, domain):
    wrong = []
    for entry in read_catalogue(LOCALE / language / "LC_MESSAGES" / f"{domain}.po"):
        english = set(PLACEHOLDER.findall(entry["msgid"] + entry.get("msgid_plural", "")))
        for form, text in enumerate(entry.get("msgstr", [])):
            named = set(PLACEHOLDER.findall(text))
            # A singular form may leave out the count ("une donne" for 1).
            kept = named <= english if "msgid_plural" in entry and form == 0 else named == english
            if not kept:
                wrong.append((entry["msgid"], text))
    assert not wrong, f"placeholders changed in {language}/{domain}: {wrong[:10]}"


def makemessages_ignored() -> list[str]:
    """The directories ``make messages`` leaves out (read from the Makefile)."""
    makefile = (Path(settings.BASE_DIR) / "Makefile").read_text()
    return re.search(r"^MESSAGES_IGNORE := \$\(addprefix --ignore=,(.*)\)$", makefile, re.M)[
        1
    ].split()


def test_the_catalogues_hold_every_marked_string_and_no_other(tmp_path):
    """Extract the strings again, as ``make messages`` does, into a copy of the sources: the
    same entries as the committed catalogues (a string marked but not extracted would be shown
    in English; an entry nobody marks any more is dead weight)."""
    root = Path(settings.BASE_DIR)
    ignored = makemessages_ignored()
    copy = tmp_path / "src"
    shutil.copytree(
        root,
        copy,
        ignore=shutil.ignore_patterns(*ignored, ".git", "__pycache__", "*.mo", "*.sqlite3"),
        symlinks=True,
    )
    for domain in DOMAINS:
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "makemessages",
                "--domain",
                domain,
                *[f"--locale={language}" for language in LANGUAGES],
                "--add-location=file",
                "--no-obsolete",
                *[f"--ignore={name}" for name in ignored],
            ],
            cwd=copy,
            check=True,
            capture_output=True,
            env={"PATH": "/usr/bin:/bin", "DEBUG": "1", "DATABASE_URL": "", "REDIS_URL": ""},
        )
    for language in LANGUAGES:
        for domain in DOMAINS:
            committed = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
            extracted = copy / "locale" / language / "LC_MESSAGES" / f"{domain}.po"

            def keys(path: Path) -> set[tuple]:
                return {(e.get("msgctxt"), e["msgid"]) for e in read_catalogue(path)}

            missing = keys(extracted) - keys(committed)
            stale = keys(committed) - keys(extracted)
            assert not missing, f"marked but not in {committed}: {sorted(missing)[:20]}"
            assert not stale, f"in {committed} but marked nowhere: {sorted(stale)[:20]}"
