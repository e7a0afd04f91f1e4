"""What games says about a player whose account is deleted (hooks of ``accounts.hooks``).

A person playing a match (scheduled or in play) is busy: they resign or finish it first. Their
open challenges end with the account: those they sent are withdrawn, those sent to them
declined. ``GamesConfig.ready()`` registers both with accounts.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.hooks import Busy
from accounts.models import Player
from games import services
from games.models import IN_PROGRESS, Match


def player_busy(player: Player) -> Busy | None:
    """The player's first match scheduled or in play, as the reason their account stays."""
    match = (
        Match.objects.filter(status__in=IN_PROGRESS)
        .filter(Q(player_a=player) | Q(player_b=player))
        .order_by("id")
        .first()
    )
    if match is None:
        return None
    return Busy(
        _("you are playing match %(match)s: resign it (or finish it) first") % {"match": match.pk},
        {"match": match.pk},
    )


def player_challenges_drop(player: Player) -> None:
    """Withdraw the challenges the player sent and decline those sent to them."""
    for match in Match.objects.filter(status=Match.Status.CHALLENGED, player_a=player):
        services.match_cancel(match=match, player=player, reason="account deleted")
    for match in Match.objects.filter(status=Match.Status.CHALLENGED, player_b=player):
        services.challenge_answer(match=match, player=player, accept=False)
