"""A round's name as a person reads it, in their language.

An event's rounds are named when they are made ("Round 3", "Semifinals", "Losers round 2"), in
English, and kept so: the name is the event's data, the same in the API's answers, exports and
webhooks whatever the caller's language. :func:`round_label` gives the name in the active
language for a page; an unknown name (none is made today) is shown as it is. The pages'
scripts do the same with ``roundLabel`` (web/static/web/js/api.js), for the same names.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy, pgettext_lazy

#: The names made whole by the formats (tournaments/formats) and the bracket's placings.
_FIXED = {
    "Final": pgettext_lazy("a round", "Final"),
    "Semifinals": pgettext_lazy("a round", "Semifinals"),
    "Quarterfinals": pgettext_lazy("a round", "Quarterfinals"),
    "Third place": pgettext_lazy("a round", "Third place"),
    "Grand final": pgettext_lazy("a round", "Grand final"),
    "Grand final reset": pgettext_lazy("a round", "Grand final reset"),
    "Arena": pgettext_lazy("a round", "Arena"),
    "Champion": pgettext_lazy("how far a player came", "Champion"),
}
#: The numbered names, with the number kept.
_NUMBERED = [
    (re.compile(r"^Round of (\d+)$"), pgettext_lazy("a round", "Round of %(number)s")),
    (re.compile(r"^Round (\d+)$"), pgettext_lazy("a round", "Round %(number)s")),
    (re.compile(r"^Winners round (\d+)$"), gettext_lazy("Winners round %(number)s")),
    (re.compile(r"^Losers round (\d+)$"), gettext_lazy("Losers round %(number)s")),
    (re.compile(r"^Groups, round (\d+)$"), gettext_lazy("Groups, round %(number)s")),
    (re.compile(r"^Group ([A-Z]+)$"), gettext_lazy("Group %(group)s")),
]


def round_label(name: str) -> str:
    """``name`` (a round's stored name, or a placing such as "Champion") in the active
    language; a name it does not know, as it is."""
    if name in _FIXED:
        return str(_FIXED[name])
    for pattern, label in _NUMBERED:
        if match := pattern.match(name):
            return str(label) % {"number": match[1], "group": match[1]}
    return name
