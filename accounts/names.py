"""Display names that cannot pass for someone else's: one spelling per look.

Every name is normalised (Unicode NFKC, so full-width letters are plain ones), and refused when

- it mixes scripts (Latin with Cyrillic, as "alice" with a Cyrillic "a" would; the combinations
  that Unicode TR39 calls *highly restrictive*, such as Latin, Han and Kana, are allowed);
- its *skeleton* equals an existing player's: each character replaced by the prototype it
  can be mistaken for (Unicode TR39, section 4, with the ``confusables.txt`` data that the
  ``confusable-homoglyphs`` package ships), so "B0b", "Ian" and "rnike" collide with "Bob",
  "lan" and "mike". Case is ignored on top of TR39, as names are unique regardless of case:
  "AIice" (a capital I) looks like "Alice" and "ALlCE" (a small L) like "ALICE", so both
  collide with "alice" (see :func:`looks`);
- a person chooses the bot suffix form, "Name (strategy)" (how house bots are named, e.g.
  "Ada (expert)"), which only bots may wear.

Each refusal has a ``code`` (:data:`MIXED_SCRIPT`, :data:`CONFUSABLE`, :data:`RESERVED`) that
the API answers with.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache

from confusable_homoglyphs import categories, confusables
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy, gettext_noop

from games.engine.bots import BOTS  # the engine's registry of strategies: a pure library

MIXED_SCRIPT = "name_mixed_script"
CONFUSABLE = "name_confusable"
RESERVED = "name_reserved"

#: The refusals' words, translated when shown (lazy: made at import, read per request).
MIXED_SCRIPT_MESSAGE = gettext_lazy(
    "Use letters of one script only (for example Latin, or Cyrillic)."
)
CONFUSABLE_MESSAGE = gettext_lazy("This name looks too much like the name of another player.")
RESERVED_MESSAGE = gettext_lazy(
    "Names that end in a bot strategy in brackets, like “Ada (expert)”, are for bots."
)


class _LazyTemplate(type(CONFUSABLE_MESSAGE)):  # type: ignore[misc]  # gettext_lazy's proxy
    """A lazy translated message whose ``.format(...)`` stays lazy too: a form field's
    error messages are formatted once, at import, and must still be read in the language of
    each request (a plain lazy string would be translated, once, by ``.format``)."""

    def format(self, *args: object, **kwargs: object):
        return lazy(lambda: str(self).format(*args, **kwargs), str)()


#: A rename to nothing, and one too long: the API's and the account page's words (format
#: the second with ``max_length``; its ``.format`` is lazy, translated when shown).
BLANK_MESSAGE = gettext_lazy("Choose a display name.")
TOO_LONG_MESSAGE = _LazyTemplate(
    (gettext_noop("A display name has at most {max_length} characters."),), {}
)

#: Scripts that may appear together in one name (TR39's highly restrictive profile).
_SCRIPT_SETS = [
    {"LATIN", "HAN", "HIRAGANA", "KATAKANA"},
    {"LATIN", "HAN", "BOPOMOFO"},
    {"LATIN", "HAN", "HANGUL"},
]
#: Characters of no script of their own: digits, spaces, punctuation, combining marks.
_NEUTRAL = {"COMMON", "INHERITED"}
#: The package marks right-to-left characters with this left-to-right mark; it is not data.
_LRM = "\u200e"
#: A trailing part in brackets: "Ada (expert)" -> "expert".
_SUFFIX = re.compile(r"\(([^()]*)\)\s*\Z")


def normalize(name: str) -> str:
    """The name as stored: NFKC, with blanks at either end removed."""
    return unicodedata.normalize("NFKC", name or "").strip()


def is_mixed_script(name: str) -> bool:
    """Whether the name mixes scripts beyond what TR39's highly restrictive profile allows."""
    scripts = categories.unique_aliases(name) - _NEUTRAL
    return len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_SETS)


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character mapped to its prototype (a character or a short string).

    The package lists, for every character on a line of ``confusables.txt``, the characters on
    the other side: a source lists its one prototype, a prototype lists all its sources (the
    data forms stars, as TR39's mapping is idempotent). Where a prototype has a single source,
    the two list only each other; either may then stand for both, and the lower code point
    does, which keeps equal skeletons equal.
    """
    data = {key.replace(_LRM, ""): value for key, value in confusables.confusables_data.items()}
    mapping: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a prototype (of several sources, or a string such as "rn")
        target = glyphs[0]["c"].replace(_LRM, "")
        partners = data.get(target, [])
        if len(target) > 1 or len(partners) > 1 or ord(target) < ord(char):
            mapping[char] = target
    return mapping


def skeleton(name: str) -> str:
    """The name's skeleton as Unicode TR39 defines it: NFD, each character's prototype, NFD."""
    prototypes = _prototypes()
    text = unicodedata.normalize("NFD", name)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))


def _folded(text: str) -> str:
    """The skeleton with its case folded, then the skeleton of that, folded again.

    Folding after the prototypes catches a look-alike in mixed case ("AIice" has the skeleton
    "Alice"); the second round settles the prototypes that are capitals ("0" looks like "O").
    """
    return skeleton(skeleton(text).casefold()).casefold()


@lru_cache(maxsize=65_536)  # every check compares with every player's name: keep theirs
def looks(name: str) -> frozenset[str]:
    """How a name looks, whichever way it is written in capitals and small letters.

    Names here are unique regardless of case, so a look-alike of any spelling of a name is a
    look-alike of the name; TR39's skeleton alone is case-sensitive. A name looks like
    :func:`_folded` of itself as written, in small letters and in capitals: "AIice" (a capital
    I) folds to "alice" as written, and "alice" in capitals, "ALICE", has the skeleton
    "ALlCE", so "ALlCE" (a small L) collides too. Two names look alike when the sets share a
    member.
    """
    return frozenset(_folded(spelling) for spelling in (name, name.casefold(), name.upper()))


def bot_names() -> set[str]:
    """What a bot's bracketed suffix may say: each strategy, and "bot", as skeletons."""
    return set().union(*(looks(word) for word in [*BOTS, "bot"]))


def wears_bot_suffix(name: str) -> bool:
    """Whether the name ends in a bot's suffix, "(expert)", however it is spelt."""
    match = _SUFFIX.search(name)
    return match is not None and not looks(match.group(1).strip()).isdisjoint(bot_names())


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that looks like ``name`` (see :func:`looks`), or None."""
    seen = looks(name)
    for other in others:
        if not seen.isdisjoint(looks(other)):
            return other
    return None
