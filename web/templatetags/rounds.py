"""``{{ rnd.name|round_label }}``: a round's stored name in the page's language
(tournaments.round_names)."""

from django import template

from tournaments.round_names import round_label as _round_label

register = template.Library()


@register.filter
def round_label(name: str) -> str:
    """A round's name (or a placing such as "Champion") as the reader reads it."""
    return _round_label(name or "")
