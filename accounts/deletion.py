"""A person deletes their account: their data goes, their player stays, anonymised.

What goes: the user row (username, e-mail, password hash, last sign-in) with the admin's log
of it; every web session and API token of the user; the API tokens of the external bots they
own (the bots stay, with their matches and ratings, but cannot play until nobody can); their
failed sign-in records (django-axes keeps a username and an address); their place in a ladder
queue; their open challenges (withdrawn, or declined); the e-mails about their events (each
greets them by name).

What stays: the player row, renamed ``deleted-<id>`` (no one may register that name) with
no description and no user, marked ``deleted_at``; their matches, games, deals, event
entries, pairings, ratings and rating changes point at the player, not at the person, so
finished matches, brackets, standings and leaderboards stay whole.

Refused (409 ``account_busy``, naming it) while the person has a match scheduled or in play
(resign it first) or an entry in an event that has not ended (withdraw first): a running
bracket would otherwise wait on a player nobody can sign in as.

Matches, events and queues belong to the apps above accounts: each tells accounts what
keeps a person busy and what their deletion ends through the hooks of ``accounts.hooks``.
"""

from __future__ import annotations

import secrets

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from accounts import hooks
from accounts.models import Mail, Player
from accounts.services import sign_out_everywhere
from common.errors import ServiceError
from common.sockets import sockets_sign_out


class AccountBusy(ServiceError):
    """The account cannot go yet: its person is playing, or entered in an event."""

    status = 409
    code = "account_busy"


def deleted_name(player: Player) -> str:
    """``deleted-<id>``: neutral, unique (ids are), and reserved for deleted accounts."""
    name = f"deleted-{player.pk}"
    if Player.objects.filter(name__iexact=name).exclude(pk=player.pk).exists():
        name = f"deleted-{player.pk}{secrets.randbelow(10**6):06d}"  # taken before reserving
    return name


def account_delete(*, user: AbstractBaseUser) -> Player | None:
    """Delete the user's account (see the module); returns their player, anonymised.

    Raises :class:`AccountBusy` (nothing changed) while they play or are entered in an
    event that has not ended. A user without a player (staff made by ``createsuperuser``)
    is deleted outright.
    """
    with transaction.atomic():
        player = Player.objects.select_for_update().filter(user=user).first()
        if player is not None:
            reason = hooks.busy(player)
            if reason is not None:
                raise AccountBusy(reason.reason, **reason.details)
            hooks.deletion_hooks_run(player)
            Mail.objects.filter(player=player).delete()
            AuthToken.objects.filter(user__player__owner=player).delete()
            for bot_user in Player.objects.filter(owner=player).values_list("user_id", flat=True):
                if bot_user is not None:  # their tokens are gone: so are their sockets
                    sockets_sign_out(bot_user)
            player.name = deleted_name(player)
            player.description = ""
            player.user = None
            player.deleted_at = timezone.now()
            player.save(update_fields=["name", "description", "user", "deleted_at"])
        sign_out_everywhere(user=user)
        username = user.get_username()
        AccessAttempt.objects.filter(username=username).delete()
        AccessFailureLog.objects.filter(username=username).delete()
        AccessLog.objects.filter(username=username).delete()
        user.delete()
    return player
