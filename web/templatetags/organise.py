"""``{% may_organise user as organiser %}``: whether the organiser pages are for this user
(the site header links them only then); ``{% may_organise user event as organiser %}``: and
whether this event is one they may change (its page links its organiser pages only then)."""

from django import template

from tournaments.selectors import may_manage
from web.organise import may_organise as _may_organise

register = template.Library()


@register.simple_tag
def may_organise(user, event=None) -> bool:
    """True for staff whom the organiser API lets do something (see ``web.organise``), and
    who may change ``event`` when one is given."""
    return _may_organise(user) and (event is None or may_manage(user, event))
