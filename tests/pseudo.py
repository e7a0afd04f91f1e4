"""A pseudo-language for finding text that does not come through the translation catalogues.

:func:`pseudo_catalogues` builds, from the committed French catalogues, a language ``xx`` whose
every translation is its English text between ``⟦`` and ``⟧`` (GNU gettext's ``msgfilter`` and
``msgen``, compiled by ``msgfmt``). :func:`pseudo_language` serves the site in it. A page shown
in ``xx`` then has its every marked string between the brackets: :func:`unmarked` is what is
left of a page's text once the bracketed parts, the data (names) and what is not words
(numbers, card faces, punctuation) are taken away, i.e. the strings nobody marked, or marked
but missing from the catalogues.

The PO reader here (:func:`read_catalogue`) serves the tests that compare a page's text with
the catalogues and check them (placeholders kept, nothing left untranslated).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.test import override_settings
from django.utils import dates

LOCALE = Path(settings.BASE_DIR) / "locale"
DOMAINS = ("django", "djangojs")
PSEUDO = "xx"
OPEN, CLOSE = "⟦", "⟧"

#: Words that are the same in every language the site speaks and need no catalogue: the
#: game's and the rating systems' names, each language's name for itself (the language menu
#: lists them so), and the prefix of the seed's published commitment.
SAME_IN_EVERY_LANGUAGE = ("Gin Rummy", "Glicko-2", "Elo", "English", "Français", "Español")
SAME_IN_EVERY_LANGUAGE += ("ginrummy:",)
#: What is not a word: a card's face (rank and suit) or a suit, a side or an outcome's letter
#: on a score sheet (A, B; K, BG), a table's or a pairing's label (S1.2), a hash.
NOT_WORDS = re.compile(
    r"^(?:(?:10|[2-9AKQJT])?[♠♥♦♣]?|[A-Z]{1,2}|[A-Z]{1,2}\d+(?:\.\d+)*|[0-9a-f]{16,})$"
)
#: Month and day names as Django's date formats write them: they come through Django's own
#: catalogues (the French page reads "déc."), so the pseudo-language shows them in English.
DJANGOS_DATE_WORDS = sorted(
    {
        str(word)
        for names in (dates.MONTHS, dates.MONTHS_3, dates.MONTHS_AP, dates.WEEKDAYS)
        for word in names.values()
    }
    | {str(word) for word in dates.WEEKDAYS_ABBR.values()}
    | {str(word).title() for word in dates.MONTHS_3.values()},
    key=len,
    reverse=True,
)


def pseudo_catalogues(root: Path) -> Path:
    """Compile the pseudo-language's catalogues under ``root`` (a ``LOCALE_PATHS`` entry)."""
    target = root / PSEUDO / "LC_MESSAGES"
    target.mkdir(parents=True, exist_ok=True)
    for domain in DOMAINS:
        source = LOCALE / "fr" / "LC_MESSAGES" / f"{domain}.po"
        if not source.exists():
            continue
        emptied = _run(["msgfilter", "--keep-header", "-i", str(source), "sed", "-e", "d"])
        english = _run(["msgen", "-"], emptied)
        marked = _run(
            ["msgfilter", "--keep-header", "sed", "-e", f"s/^/{OPEN}/", "-e", f"s/$/{CLOSE}/"],
            english,
        )
        _run(["msgfmt", "-o", str(target / f"{domain}.mo"), "-"], marked)
    return root


def _run(command: list[str], stdin: bytes | None = None) -> bytes:
    return subprocess.run(command, input=stdin, capture_output=True, check=True).stdout


@contextmanager
def pseudo_language(root: Path) -> Iterator[str]:
    """The site speaks the pseudo-language too (ask for it with ``Accept-Language: xx``)."""
    pseudo_catalogues(root)
    with override_settings(
        LOCALE_PATHS=[root, *settings.LOCALE_PATHS],
        LANGUAGES=[*settings.LANGUAGES, (PSEUDO, "Pseudo")],
    ):
        yield PSEUDO


def unmarked(texts: Iterable[str], data: Iterable[str] = ()) -> list[str]:
    """The words of ``texts`` that did not come through a catalogue (see the module), each
    with a little of the text around it."""
    data = sorted({d for d in data if d}, key=len, reverse=True)
    left = []
    for text in texts:
        rest = text
        while True:  # innermost first: a translated text may hold another
            stripped = re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", " ", rest)
            if stripped == rest:
                break
            rest = stripped
        for value in [*data, *SAME_IN_EVERY_LANGUAGE, *DJANGOS_DATE_WORDS]:
            rest = rest.replace(value, " ")
        for word in rest.split():
            if re.search(r"[^\W\d_]", word) and not NOT_WORDS.match(word.strip(".,:;()·")):
                at = rest.index(word)
                left.append(f"{word!r} in …{rest[max(0, at - 40) : at + 40].strip()}…")
    return left


def read_catalogue(path: Path) -> list[dict]:
    """The entries of a PO file: ``msgid``, ``msgid_plural``, ``msgstr`` (a list, one per
    plural form), ``msgctxt`` and ``flags``; the header entry left out."""
    entries: list[dict] = []
    entry: dict = {}
    key = None

    def close() -> None:
        if entry.get("msgid"):
            entries.append(dict(entry))
        entry.clear()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#,"):
            if "msgstr" in entry:
                close()
            entry["flags"] = {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+"(.*)"$', line)
        if match:
            name, text = match.groups()
            if name in ("msgctxt", "msgid") and "msgstr" in entry:
                close()
            if name.startswith("msgstr"):
                entry.setdefault("msgstr", [])
                entry["msgstr"].append(_unquote(text))
                key = ("msgstr", len(entry["msgstr"]) - 1)
            else:
                entry[name] = _unquote(text)
                key = name
            continue
        if line.startswith('"') and key is not None:
            if isinstance(key, tuple):
                entry["msgstr"][key[1]] += _unquote(line[1:-1])
            else:
                entry[key] += _unquote(line[1:-1])
    close()
    return entries


def _unquote(text: str) -> str:
    return re.sub(r'\\(["\\nt])', lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), text)


def english_with_translation(language: str) -> dict[str, str]:
    """Every English text of the catalogues that ``language`` translates differently, with
    its translation (the singular forms); an English text that is also one of the language's
    translations ("gin" is French too) is left out: seen on a page, it proves nothing."""
    found = {}
    translations = set()
    for domain in DOMAINS:
        path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
        if not path.exists():
            continue
        for entry in read_catalogue(path):
            translations.update(entry.get("msgstr", []))
            if entry.get("msgstr") and entry["msgstr"][0] and entry["msgstr"][0] != entry["msgid"]:
                found[entry["msgid"]] = entry["msgstr"][0]
    return {english: text for english, text in found.items() if english not in translations}


#: Every text node of the page and every element's whole text, each trimmed (scripts and
#: styles aside), with the attributes people read: what a page in French is compared with the
#: catalogue's English.
PAGE_PIECES = """() => {
  const pieces = new Set([document.title]);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement && node.parentElement.closest("script, style, template, noscript")) {
      continue;
    }
    if (node.textContent.trim()) pieces.add(node.textContent.trim());
  }
  for (const element of document.body.querySelectorAll("*")) {
    if (element.closest("script, style, template, noscript")) continue;
    const text = element.textContent.replace(/\\s+/g, " ").trim();
    if (text) pieces.add(text);
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = element.getAttribute(name);
      if (value && value.trim()) pieces.add(value.trim());
    }
  }
  return [...pieces];
}"""


#: The page's text (scripts and styles aside; a translated sentence may hold links and other
#: elements, so the text is read whole), the words of its attributes that people read (or
#: hear) and the title: shown or not yet shown, a text of the page is read one day.
PAGE_TEXTS = """() => {
  const texts = [document.title];
  const body = document.body.cloneNode(true);
  for (const skipped of body.querySelectorAll("script, style, template, noscript")) {
    skipped.remove();
  }
  for (const element of body.querySelectorAll("*")) element.append(" ");
  texts.push(body.textContent);
  for (const element of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = element.getAttribute(name);
      if (value && value.trim()) texts.push(value.trim());
    }
  }
  for (const button of document.querySelectorAll("input[type=submit], input[type=button]")) {
    if (button.value.trim()) texts.push(button.value.trim());
  }
  return texts;
}"""
