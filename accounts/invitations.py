"""Invitation links: how the person behind a guest takes it over with an account.

An organiser asks for a guest's link (``POST /api/players/{id}/invitation``) and sends or
prints it; its page lets the person sign up, and the guest's row becomes their player
(:func:`accounts.services.guest_claim`), results and ratings included.

The token in the link is the guest's id signed with the site's secret and the time it was
made (Django's ``signing``): nothing is stored, a forged or altered token fails its
signature, and a token older than :data:`INVITATION_MAX_AGE` is refused. A claimed guest is
a human, so every token of it is used up at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core import signing
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from accounts.services import NotAGuest

#: How long an invitation link works.
INVITATION_MAX_AGE = timedelta(days=30)
#: Keeps these signatures apart from every other signed value of the site.
SALT = "accounts.guest-invitation"


class InvitationInvalid(Exception):
    """The link cannot be used; ``reason`` says why: ``forged``, ``expired`` or ``used``."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def invitation_issue(*, guest: Player) -> tuple[str, datetime]:
    """A signed token inviting the person behind ``guest``, and when it stops working.

    Raises :class:`accounts.services.NotAGuest` (409 ``not_a_guest``) for a player who is not
    a guest: a person with an account, a bot, or a guest claimed already.
    """
    if not guest.is_guest:
        message = _("%(name)s is not a guest: only a guest is invited to an account")
        raise NotAGuest(message % {"name": guest.name})
    token = signing.dumps(guest.pk, salt=SALT, compress=False)
    return token, timezone.now() + INVITATION_MAX_AGE


def invitation_guest(*, token: str) -> Player:
    """The guest a token invites; :class:`InvitationInvalid` for a token that is forged or
    altered, older than :data:`INVITATION_MAX_AGE`, or whose guest was claimed (or removed)."""
    try:
        pk = signing.loads(token, salt=SALT, max_age=INVITATION_MAX_AGE)
    except signing.SignatureExpired:
        raise InvitationInvalid(_("This invitation has expired."), reason="expired") from None
    except signing.BadSignature:
        raise InvitationInvalid(
            _("This is not a valid invitation link."), reason="forged"
        ) from None
    guest = Player.objects.filter(pk=pk).first() if isinstance(pk, int) else None
    if guest is None or not guest.is_guest:
        raise InvitationInvalid(_("This invitation has been used already."), reason="used")
    return guest
