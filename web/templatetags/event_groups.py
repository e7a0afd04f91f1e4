"""The group tables of a groups-then-playoffs event: ``{% event_groups event %}``."""

from django import template
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments import selectors

register = template.Library()

#: Headings of the group tables' columns (the event's tiebreaks among them).
LABELS = {
    "match_points": pgettext_lazy("standings column: match points", "Pts"),
    "played": pgettext_lazy("standings column: matches played", "P"),
    "wins": pgettext_lazy("standings column: wins", "W"),
    "losses": pgettext_lazy("standings column: losses", "L"),
    "byes": pgettext_lazy("standings column", "Byes"),
    "games_won": pgettext_lazy("standings column", "Games won"),
    "games_lost": pgettext_lazy("standings column", "Games lost"),
    "margin": pgettext_lazy("standings column", "Margin"),
    "buchholz": _("Buchholz"),
    "median_buchholz": _("Median Buchholz"),
    "sonneborn_berger": _("Sonneborn-Berger"),
    "direct_encounter": pgettext_lazy("standings column", "Direct encounter"),
}


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@register.inclusion_tag("web/event_groups.html")
def event_groups(event):
    """Each group ranked with the event's tiebreaks (nothing for another format)."""
    if not event.is_two_stage:
        return {"groups": []}
    columns = selectors.group_columns(event=event)
    tables = selectors.group_tables(event=event, with_ratings=False)
    for table in tables:
        for row in table["rows"]:
            row["cells"] = [_cell(row.get(c)) for c in columns]
    return {"groups": tables, "group_labels": [LABELS.get(c, c) for c in columns]}
