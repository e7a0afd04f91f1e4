"""API tokens: knox's, with an external bot's token kept to what a bot may do.

A bot token may call the Bot API (``/api/bot/...``), play (moves, Continue), answer and make
challenges, queue on a ladder, enter an event itself (register, check in, withdraw, show up
for its match), sign its own token out, and read what anyone may read. Any other request
made with it is a 403 ``bot_token_forbidden``: a leaked bot token cannot create bots, change
an account or enter events in the owner's name.

The list is by route name, so it is one place to read and to change.
"""

from __future__ import annotations

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework import exceptions, permissions

from accounts.models import Player

#: Routes (``name=`` in the URL confs) a bot token may use with any method.
BOT_ROUTES = frozenset(
    {
        "bot-account",
        "game-actions",
        "game-continue",
        "match-list",
        "match-accept",
        "match-decline",
        "match-cancel",
        "match-resign",
        "ladder-queue",
        "event-register",
        "event-withdraw",
        "event-check-in",
        "event-match-ready",
        "logout",
    }
)

#: Routes a bot token may not use even to read: the owner's own business.
HUMAN_ONLY_ROUTES = frozenset({"bot-list", "bot-detail", "bot-tokens", "bot-token-detail"})


class BotTokenForbidden(exceptions.PermissionDenied):
    default_detail = "A bot's token may only use the Bot API, play, and read public data."
    default_code = "bot_token_forbidden"


def bot_token_allowed(*, route: str | None, method: str) -> bool:
    """Whether a request to ``route`` with ``method`` may be made with a bot's token."""
    if route in HUMAN_ONLY_ROUTES:
        return False
    return route in BOT_ROUTES or method in permissions.SAFE_METHODS


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's ``Authorization: Token …``; a bot's token only where :data:`BOT_ROUTES` say."""

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is None:
            return None
        user, token = result
        # A bot's user is named "~bot-..." (accounts.services), which no sign-up can take: only
        # such users are looked up, so a person's request costs no query here.
        maybe_bot = user.get_username().startswith("~")
        if maybe_bot and Player.objects.filter(user=user, kind=Player.Kind.EXTERNAL).exists():
            match = getattr(request._request, "resolver_match", None)
            route = match.url_name if match is not None else None
            if not bot_token_allowed(route=route, method=request.method):
                raise BotTokenForbidden()
        return user, token


class TokenScheme(KnoxTokenScheme):
    """The schema names this class's tokens as it names knox's (``knoxApiToken``)."""

    target_class = "accounts.auth.TokenAuthentication"
