"""``{% preferences user as prefs %}``: the person's theme, sounds and "confirm before
discarding" for the page (the site header renders the theme, so a page never flashes in the
wrong colours; the table's script reads the rest from ``<body data-…>``). Anyone without a
player (visitors, staff made with ``createsuperuser``) gets the defaults: colours as the
device is set, sounds on, no confirmation."""

from django import template

register = template.Library()

DEFAULTS = {"theme": "system", "sounds": True, "confirm_discard": False}


@register.simple_tag
def preferences(user) -> dict:
    """The preferences of ``user``'s player, or :data:`DEFAULTS`."""
    player = getattr(user, "player", None) if user.is_authenticated else None
    if player is None:
        return DEFAULTS
    return {name: getattr(player, name) for name in DEFAULTS}
