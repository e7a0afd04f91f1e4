"""Thin tasks: load by id, return early when the work is done, call the mail module.

Each may run more than once: a mail's row is the claim (:mod:`accounts.mail`), so it is sent
once however often its task runs.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from accounts import mail, presence
from accounts.models import Player


@shared_task(name="accounts.mail_send")
def mail_send(mail_id: int) -> bool:
    """Send one queued mail (queued on commit of its row, or again by the clock's sweep)."""
    return mail.mail_deliver(mail_id=mail_id)


@shared_task(name="accounts.mail_if_away")
def mail_if_away(
    player_id: int, kind: str, about: int, subject: str, body: str, expires_at: str | None
) -> bool:
    """Mail the player about ``kind`` ``about`` unless they are on the site now (the banner
    tells them) or were mailed about it already; True if it was sent now."""
    if presence.on_site(player_id):
        return False
    player = Player.objects.select_related("user").filter(pk=player_id).first()
    if player is None:
        return False
    queued = mail.mail_create(
        player=player,
        kind=kind,
        about=about,
        subject=subject,
        body=body,
        expires_at=datetime.fromisoformat(expires_at) if expires_at else None,
    )
    return queued is not None and mail.mail_deliver(mail_id=queued.pk)
