"""How the apps hand a mail about an event to a player (:mod:`accounts.mail`): queued now
and sent by a task after the commit, never in the caller's transaction, and never failing
the caller."""

from __future__ import annotations

from datetime import datetime

from accounts import mail, tasks
from accounts.models import Player


def mail_queue(
    *,
    player: Player,
    kind: str,
    about: int,
    subject: str,
    body: str,
    expires_at: datetime | None = None,
) -> bool:
    """Queue the player's mail about ``kind`` ``about`` (once per player and thing) and send
    it on commit; False if they get no mail or it was queued already."""
    queued = mail.mail_create(
        player=player, kind=kind, about=about, subject=subject, body=body, expires_at=expires_at
    )
    if queued is None:
        return False
    tasks.mail_send.delay_on_commit(queued.pk)
    return True


def mail_unless_on_site(
    *,
    player: Player,
    kind: str,
    about: int,
    subject: str,
    body: str,
    expires_at: datetime | None = None,
) -> None:
    """On commit, mail the player about ``kind`` ``about`` if they are not on the site then
    (once per player and thing). Costs the caller's transaction nothing but a callback."""
    if not mail.address_of(player):
        return
    tasks.mail_if_away.delay_on_commit(
        player.pk, kind, about, subject, body, expires_at.isoformat() if expires_at else None
    )


def mails_retry(*, now: datetime | None = None) -> int:
    """Queue again every mail whose send is overdue (see :func:`accounts.mail.mails_retry`)."""
    due = mail.mails_retry(now=now)
    for mail_id in due:
        tasks.mail_send.delay_on_commit(mail_id)
    return len(due)
