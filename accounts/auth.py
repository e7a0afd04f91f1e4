"""API tokens: knox's, with an external bot's token kept to what a bot may do.

A bot token may call the Bot API (``/api/bot/...``), play (moves, Continue), answer and make
challenges, queue on a ladder, enter an event itself (register, check in, withdraw, show up
for its match), sign its own token out, and read what anyone may read. Any other request
made with it is a 403 ``bot_token_forbidden``: a leaked bot token cannot create bots, change
an account or enter events in the owner's name.

The list is by route name, so it is one place to read and to change.
"""

from __future__ import annotations

import binascii
from hmac import compare_digest

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS as knox_constants
from knox.signals import token_expired
from rest_framework import exceptions, permissions

from accounts.models import Player
from common.compiled import CompiledQuery

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
    default_detail = gettext_lazy(
        "A bot's token may only use the Bot API, play, and read public data."
    )
    default_code = "bot_token_forbidden"


def bot_token_allowed(*, route: str | None, method: str) -> bool:
    """Whether a request to ``route`` with ``method`` may be made with a bot's token."""
    if route in HUMAN_ONLY_ROUTES:
        return False
    return route in BOT_ROUTES or method in permissions.SAFE_METHODS


#: The tokens of a key with their user and the user's player: one query every request makes,
#: compiled once (common.compiled).
_TOKENS = CompiledQuery(
    lambda key: AuthToken.objects.filter(token_key=key).select_related("user", "user__player"),
    "\x00token-key",
)


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's ``Authorization: Token …``; a bot's token only where :data:`BOT_ROUTES` say.

    A request costs one query to sign in: the token with its user and the user's player
    (which :func:`accounts.selectors.player_for_user` then finds on the user). knox would
    also read every other token of the user, on every request, to delete the expired ones;
    here only the token presented is checked (an expired one is deleted and refused), and a
    user's other expired tokens are deleted when they sign in again
    (:func:`accounts.services.token_issue`).
    """

    def authenticate_credentials(self, token: bytes):
        refused = exceptions.AuthenticationFailed(_("Invalid token."))
        text = token.decode("utf-8", errors="replace")
        try:
            digest = hash_token(text)
        except (TypeError, binascii.Error):
            raise refused from None
        candidates = _TOKENS.all(text[: knox_constants.TOKEN_KEY_LENGTH])
        for auth_token in candidates:
            if not compare_digest(digest, auth_token.digest):
                continue
            if auth_token.expiry is not None and auth_token.expiry < timezone.now():
                username = auth_token.user.get_username()
                auth_token.delete()
                token_expired.send(sender=type(self), username=username, source="auth_token")
                raise refused
            return self.validate_user(auth_token)
        raise refused

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
