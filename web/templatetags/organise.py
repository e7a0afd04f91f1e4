"""``{% may_organise user as organiser %}``: whether the organiser pages are for this user
(the site header and the event page link them only then)."""

from django import template

from web.organise import may_organise as _may_organise

register = template.Library()


@register.simple_tag
def may_organise(user) -> bool:
    """True for staff whom the organiser API lets do something (see ``web.organise``)."""
    return _may_organise(user)
