"""The language a signed-in person chose on their account beats the browser's.

``LocaleMiddleware`` has already activated the browser's language (``Accept-Language``, or the
language cookie); :class:`AccountLanguageMiddleware` runs after ``AuthenticationMiddleware`` and
activates the account's :attr:`~accounts.models.Player.language` instead when one is set.
``LocaleMiddleware`` then names the language in the answer's ``Content-Language``.

:func:`language_for` says the same for a socket's connection, where there is no request to read
the browser's language from; :func:`mail_language` the language of an e-mail (the recipient's
choice, else English).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def chosen_language(user: object) -> str:
    """The language ``user``'s player chose on their account, or ``""``."""
    if not getattr(user, "is_authenticated", False):
        return ""
    try:
        player = user.player  # type: ignore[attr-defined]
    except AttributeError:
        return ""  # a staff account without a player (the related object does not exist)
    return getattr(player, "language", "") or ""


def language_for(*, user: object = None, accept_language: str = "") -> str:
    """The language to speak to ``user``: their account's choice, else the best of an
    ``Accept-Language`` header's that the site speaks, else the site's default."""
    if chosen := chosen_language(user):
        return chosen
    for code, _quality in parse_accept_lang_header(accept_language or ""):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def mail_language(player: object) -> str:
    """The language of an e-mail to ``player``: their account's choice, else the site's
    default (English). Render its subject and body inside ``translation.override`` of it."""
    return (getattr(player, "language", "") or "") or settings.LANGUAGE_CODE


def header_value(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str:
    """The value of header ``name`` among an ASGI scope's ``headers``, or ``""``."""
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


class AccountLanguageMiddleware:
    """Activate the signed-in person's chosen language for the rest of the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if chosen := chosen_language(request.user):
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen  # type: ignore[attr-defined]
        return self.get_response(request)
