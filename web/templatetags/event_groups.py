"""The group tables of a groups-then-playoffs event: ``{% event_groups event %}``."""

from django import template

from tournaments import selectors

register = template.Library()

#: Headings of the group tables' columns (the event's tiebreaks among them).
LABELS = {
    "match_points": "Pts",
    "played": "P",
    "wins": "W",
    "losses": "L",
    "byes": "Byes",
    "games_won": "Games won",
    "games_lost": "Games lost",
    "margin": "Margin",
    "buchholz": "Buchholz",
    "median_buchholz": "Median Buchholz",
    "sonneborn_berger": "Sonneborn-Berger",
    "direct_encounter": "Direct encounter",
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
