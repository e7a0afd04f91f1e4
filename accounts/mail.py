"""E-mail to players about their events, and the link that turns it off.

Who gets one: a person with an account (not a guest, a bot or a deleted account) who gave
an address and did not turn off "e-mail me about my events" (``Player.email_events``). The
apps decide what to say and when (``tournaments.services.reminders``); this module sends it,
once.

*Once.* A mail is a :class:`~accounts.models.Mail` row, unique per player and thing it is
about: :func:`mail_create` writes it or finds it written by another sweeper or task, and only
a row still ``queued`` is sent, under its row lock (:func:`mail_deliver`), so a task run twice
sends it once. A send that fails (the mail server down) leaves the row queued: the clock's
sweep queues it again (:func:`mails_retry`) until it is sent or its moment has passed.

*Too late is never.* A mail has an ``expires_at`` (the event's start, the match's deadline):
after it the row is dropped, not sent.

*Turning it off.* Every mail ends with a link to :func:`unsubscribe_url`: a token signed with
the site's secret (Django's ``signing``) naming the player, good for
:data:`UNSUBSCRIBE_MAX_AGE`, that needs no sign-in. Its page asks first (a GET changes
nothing: mail scanners follow links); a POST turns the mail off. The same URL is the mail's
``List-Unsubscribe`` header, with ``List-Unsubscribe-Post`` (RFC 8058), so a mail client's
own "unsubscribe" button posts to it in one click.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from urllib.parse import urljoin

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.language import mail_language
from accounts.models import Mail, Player

logger = logging.getLogger(__name__)

#: How long the link in a mail works.
UNSUBSCRIBE_MAX_AGE = timedelta(days=90)
#: Keeps these signatures apart from every other signed value of the site.
SALT = "accounts.unsubscribe"
#: A mail queued this long ago and not sent (its task lost, its send failed) is queued again.
RETRY_AFTER = timedelta(minutes=2)


class UnsubscribeInvalid(Exception):
    """The link cannot be used; ``reason`` says why: ``forged`` or ``expired``."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def site_url(path: str) -> str:
    """The absolute URL of ``path`` on the site (``SITE_URL``), for links in e-mails."""
    return urljoin(settings.SITE_URL.rstrip("/") + "/", path.lstrip("/"))


def when_utc(moment: datetime) -> str:
    """A moment as mails show it: ``2026-12-04 15:00 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def unsubscribe_token(*, player: Player) -> str:
    """A signed token that turns off ``player``'s e-mail about events."""
    return signing.dumps(player.pk, salt=SALT, compress=False)


def unsubscribe_url(*, player: Player) -> str:
    """The absolute URL of the one-click unsubscribe link of ``player``."""
    return site_url(reverse("web:unsubscribe", args=[unsubscribe_token(player=player)]))


def unsubscribe_player(*, token: str) -> Player:
    """The player a token names; :class:`UnsubscribeInvalid` for a token that is forged or
    altered, older than :data:`UNSUBSCRIBE_MAX_AGE`, or whose player is gone."""
    try:
        pk = signing.loads(token, salt=SALT, max_age=UNSUBSCRIBE_MAX_AGE)
    except signing.SignatureExpired:
        raise UnsubscribeInvalid(
            _("This link has expired: turn the e-mails off on your account page instead."),
            reason="expired",
        ) from None
    except signing.BadSignature:
        raise UnsubscribeInvalid(
            _("This is not a valid unsubscribe link."), reason="forged"
        ) from None
    player = Player.objects.filter(pk=pk).first() if isinstance(pk, int) else None
    if player is None:
        raise UnsubscribeInvalid(_("This is not a valid unsubscribe link."), reason="forged")
    return player


def email_events_set(*, player: Player, on: bool) -> Player:
    """Turn the player's e-mail about their events on or off."""
    Player.objects.filter(pk=player.pk).update(email_events=on)
    player.email_events = on
    return player


def address_of(player: Player) -> str:
    """Where the player's mail about events goes: their address, or "" for nobody (a guest,
    a bot, a deleted account, no address given, or the mail turned off)."""
    if player.kind != Player.Kind.HUMAN or player.is_deleted or not player.email_events:
        return ""
    user = player.user
    return (user.email or "") if user is not None and user.is_active else ""


def mail_create(
    *,
    player: Player,
    kind: str,
    about: int,
    subject: str,
    body: str,
    expires_at: datetime | None = None,
) -> Mail | None:
    """The player's mail about ``kind`` ``about``, queued; None if they get no mail (see
    :func:`address_of`) or it was queued already (by this or another sweeper or task).

    Runs in a savepoint of the caller's transaction: a racing writer's row makes this one's
    insert fail (on PostgreSQL it waits for that transaction and fails once it commits) and
    nothing else of the caller's work is undone.
    """
    if not address_of(player):
        return None
    try:
        with transaction.atomic():
            return Mail.objects.create(
                player=player,
                kind=kind,
                about=about,
                subject=subject[:200],
                body=body,
                expires_at=expires_at,
            )
    except IntegrityError:
        return None


def _footer(player: Player, unsubscribe: str) -> str:
    """The mail's last lines, in the player's language (see :func:`mail_language`)."""
    with translation.override(mail_language(player)):
        return (
            "\n\n-- \n"
            + _(
                "You get this e-mail because %(name)s entered this event and asked to be told "
                "about their events."
            )
            % {"name": player.name}
            + "\n"
            + _("Turn these e-mails off (one click, no sign-in): %(url)s") % {"url": unsubscribe}
            + "\n"
            + _("Or on your account page: %(url)s") % {"url": site_url(reverse("web:account"))}
            + "\n"
        )


def _drop(mail: Mail, reason: str) -> bool:
    mail.status, mail.reason = Mail.Status.DROPPED, reason
    mail.save(update_fields=["status", "reason"])
    return False


def mail_deliver(*, mail_id: int, now: datetime | None = None) -> bool:
    """Send one queued mail, once; True if it was sent now.

    The row is locked while the mail goes out, so a second task waits, then finds it sent. A
    mail whose moment passed, or whose player gets no mail any more, is dropped. A send that
    fails leaves it queued (logged, never raised: nothing waits on a mail) for the sweep to
    queue again.
    """
    now = now or timezone.now()
    with transaction.atomic():
        mail = (
            Mail.objects.select_for_update(of=("self",))  # the mail's row, not its player's
            .select_related("player__user")
            .filter(pk=mail_id, status=Mail.Status.QUEUED)
            .first()
        )
        if mail is None:
            return False  # sent, dropped, or gone
        if mail.expires_at is not None and mail.expires_at <= now:
            return _drop(mail, "expired")
        address = address_of(mail.player)
        if not address:
            return _drop(mail, "no_address_or_turned_off")
        unsubscribe = unsubscribe_url(player=mail.player)
        message = EmailMessage(
            subject=mail.subject,
            body=mail.body + _footer(mail.player, unsubscribe),
            to=[address],
            headers={
                "List-Unsubscribe": f"<{unsubscribe}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                "Auto-Submitted": "auto-generated",
            },
        )
        try:
            message.send()
        except Exception:
            logger.warning("mail %s to player %s not sent", mail.pk, mail.player_id, exc_info=True)
            mail.tried_at = now
            mail.save(update_fields=["tried_at"])
            return False
        mail.status, mail.sent_at = Mail.Status.SENT, now
        mail.save(update_fields=["status", "sent_at"])
        return True


def mails_retry(*, now: datetime | None = None, limit: int = 100) -> list[int]:
    """The ids of queued mails whose send is overdue (its task lost, or its send failed
    :data:`RETRY_AFTER` ago) and still worth sending, marked as tried now so that the next
    pass leaves them to the task queued for them meanwhile."""
    now = now or timezone.now()
    since = now - RETRY_AFTER
    due = list(
        Mail.objects.filter(status=Mail.Status.QUEUED)
        .filter(Q(tried_at__lte=since) | Q(tried_at__isnull=True, created_at__lte=since))
        .exclude(expires_at__lte=now)
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    Mail.objects.filter(pk__in=due).update(tried_at=now)
    return due
