"""What every socket of the service shares: who is connecting, and the message protocol.

Authentication: a page's socket carries the session cookie (Channels' auth middleware); a
program sends ``Authorization: Token <token>`` on the handshake, the same sign-in token the
REST API takes (checked by the class the setting ``SOCKET_AUTHENTICATION`` names: the REST
API's). A bad token closes the socket with 4401. A socket without either is anonymous and may
only watch what an anonymous client may read. A signed-in socket ends with its sign-in:
signing out everywhere closes the user's sockets at once (:func:`sockets_sign_out`), signing
one token or session out closes the sockets opened with it (:func:`sockets_credential_end`),
and a socket checks its token or session again before a message once
``SOCKET_SIGNIN_RECHECK_SECONDS`` have passed since the last check, or its token's expiry
has (:func:`still_signed_in`): a revocation whose push was lost is noticed that late.

A browser always sends ``Origin`` on a WebSocket handshake, and the session cookie rides on
it, so a handshake from a page of another origin than the site's own (scheme, host and
port) is refused (cross-site socket hijacking, :func:`origin_allowed`); programs send no
``Origin`` and authenticate with a token.

:class:`JsonSocket` is the base of the consumers: JSON text messages of at most
``SOCKET_MAX_MESSAGE_BYTES``, at most ``SOCKET_RATE_PER_SECOND`` a second (a burst of twice
that), ``ping``/``pong``, and refusals as ``{"type": "error", "code", "detail"}`` messages
that leave the socket open. Reads (opening a socket, ``sync``) draw on the REST API's read
throttles (:func:`read_throttle_wait`), and a process holds at most
``SOCKET_MAX_PER_ADDRESS`` sockets per client address and ``SOCKET_MAX_PER_USER`` per user.

A socket speaks one language, chosen as it connects (:func:`socket_language`): its account's
choice, else its handshake's ``Accept-Language``, else the site's default. Every message's
handling runs with that language active (``translation.override`` in
:meth:`JsonSocket.dispatch`), so the ``detail`` of its errors, including the refusals the
services raise, is written in it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

from channels.auth import AuthMiddlewareStack
from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync, database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.middleware import BaseMiddleware
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.utils import timezone, translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from common import parsers
from common.api import OUTAGE_ERRORS
from common.live import dumps, publish_on_commit
from common.metrics import SOCKETS_OPEN

logger = logging.getLogger(__name__)

_db_threads: ThreadPoolExecutor | None = None

#: Channel-layer calls (group joins and leaves) a process's event loop makes at once. The
#: Redis layer's connection pool (redis-py: 100 a pool) refuses a call over its size at once,
#: so a thousand sockets closing together (a web process restarting, a benchmark ending)
#: would each fail to leave their groups; past this bound they wait their turn instead.
LAYER_CALLS_AT_ONCE = 48
_layer_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _layer_gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _layer_gates.get(loop)
    if gate is None:
        gate = _layer_gates[loop] = asyncio.Semaphore(LAYER_CALLS_AT_ONCE)
    return gate


async def group_join(layer, group: str, channel: str) -> None:
    """Add ``channel`` to ``group`` on ``layer``, at most :data:`LAYER_CALLS_AT_ONCE` at once."""
    async with _layer_gate():
        await layer.group_add(group, channel)


async def group_leave(layer, group: str, channel: str) -> None:
    """Take ``channel`` out of ``group``; never fails (a layer that is down lets its groups
    expire on their own)."""
    try:
        async with _layer_gate():
            await layer.group_discard(group, channel)
    except Exception:
        logger.warning("leaving the group %s failed", group, exc_info=True)


def socket_db(function):
    """``function`` (sync, using the ORM) as a coroutine run on the sockets' thread pool.

    Channels' default runs all the sockets' database work of a process on one thread, one
    call at a time, so every socket's moves queued behind each other. ``SOCKET_DB_THREADS``
    threads let them run side by side (the match row lock still orders one table's moves)
    and bound the database connections the sockets hold. 0 keeps Channels' one thread (the
    unit tests: their in-memory SQLite database cannot be written from several threads).
    """

    async def call(*args, **kwargs):
        global _db_threads
        threads = settings.SOCKET_DB_THREADS
        if not threads:
            return await database_sync_to_async(function)(*args, **kwargs)
        if _db_threads is None:
            _db_threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="socket-db")
        runner = DatabaseSyncToAsync(function, thread_sensitive=False, executor=_db_threads)
        return await runner(*args, **kwargs)

    return call


#: Close codes: 4401 a bad token, 4403 not yours to see, 4404 no such thing, 4429 too many
#: sockets from one address or of one user, or reads over the REST API's allowance.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429


class _ThrottledRead:
    """What the REST API's throttles read of a request, for a socket: its user and its
    client address (the peer, or ``X-Forwarded-For`` as ``NUM_PROXIES`` says), so a socket
    read and a REST read of one client are counted under the same cache keys."""

    #: A REST read of a game or an event names no throttle scope (``ScopedRateThrottle``).
    throttle_scope = None

    def __init__(self, scope) -> None:
        self.user = scope.get("user") or AnonymousUser()
        client = scope.get("client") or ("", 0)
        self.META = {"REMOTE_ADDR": client[0] or ""}
        self.headers: dict[str, str] = {}
        forwarded = dict(scope.get("headers", [])).get(b"x-forwarded-for")
        if forwarded is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded.decode("latin1")
            self.headers["x-forwarded-for"] = self.META["HTTP_X_FORWARDED_FOR"]


def read_throttle_wait(scope) -> float | None:
    """Seconds to wait before this socket may read again (None: it may now), drawing one
    read on the REST API's throttles (``DEFAULT_THROTTLE_CLASSES``: ``anon``, ``user``), as a
    ``GET`` of the same client does. Sync: the counts are in the cache; a cache that is down
    counts nothing and refuses nothing."""
    request = _ThrottledRead(scope)
    waits = []
    # One socket's check at a time in a process: a throttle reads its history, then writes
    # it back, and checks side by side would each count from the same history.
    with _throttle_lock:
        for throttle in (cls() for cls in api_settings.DEFAULT_THROTTLE_CLASSES):
            try:
                if not throttle.allow_request(request, request):
                    waits.append(throttle.wait() or 1.0)
            except Exception:  # the cache (Redis) is down: the read goes on uncounted
                logger.warning("socket read throttle unavailable", exc_info=True)
    return max(waits) if waits else None


_throttle_lock = threading.Lock()


#: Sockets this process holds open, by client address and by user (see JsonSocket).
_open_sockets: dict[str, int] = {}


def _cap_keys(scope) -> list[tuple[str, int]]:
    """The (key, cap) pairs a socket counts against: its address, its user."""
    keys = []
    if scope.get("client") and settings.SOCKET_MAX_PER_ADDRESS:
        ident = BaseThrottle().get_ident(_ThrottledRead(scope))
        keys.append((f"address:{ident}", settings.SOCKET_MAX_PER_ADDRESS))
    user = scope.get("user")
    if user is not None and user.is_authenticated and settings.SOCKET_MAX_PER_USER:
        keys.append((f"user:{user.pk}", settings.SOCKET_MAX_PER_USER))
    return keys


def open_socket_counts() -> dict[str, int]:
    """Sockets this process holds by ``address:<ident>`` and ``user:<id>`` (for tests)."""
    return dict(_open_sockets)


@cache
def _token_authentication():
    """The class that checks a token (``settings.SOCKET_AUTHENTICATION``), loaded once: the
    REST API's, named by a setting so that the platform imports no app."""
    return import_string(settings.SOCKET_AUTHENTICATION)


def _token_user(token: bytes) -> tuple[Any, Any]:
    """The user a token signs in and the stored token, as the REST API's token
    authentication says (sync; AuthenticationFailed if it signs nobody in)."""
    return _token_authentication()().authenticate_credentials(token)


def credential_id(secret: str) -> str:
    """A short name for one sign-in credential, which the socket opened with it and whatever
    ends it both compute: for a token its stored digest, for a session its key. A revocation
    names the sockets it closes by this, so no secret travels on the channel layer."""
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def _trust(scope, expiry) -> None:
    """Note on the socket's scope that its sign-in was checked now: it holds until
    ``SOCKET_SIGNIN_RECHECK_SECONDS`` pass or ``expiry`` (the token's, or None) does."""
    scope["signin_trusted_until"] = time.monotonic() + settings.SOCKET_SIGNIN_RECHECK_SECONDS
    scope["signin_expiry"] = expiry


def signin_trusted(scope) -> bool:
    """Whether the socket's last check of its sign-in still stands (no database work)."""
    if scope.get("signin_trusted_until", 0.0) <= time.monotonic():
        return False
    expiry = scope.get("signin_expiry")
    return expiry is None or expiry > timezone.now()


@database_sync_to_async
def _user_for_token(token: bytes) -> tuple[Any, Any] | None:
    try:
        return _token_user(token)
    except AuthenticationFailed:
        return None


class TokenAuthMiddleware(BaseMiddleware):
    """``Authorization: Token <token>`` on the handshake signs the socket in (knox tokens)."""

    async def __call__(self, scope, receive, send):
        header = dict(scope.get("headers", [])).get(b"authorization")
        if header is not None:
            scheme, _space, token = header.partition(b" ")
            signed_in = None
            if scheme.lower() == b"token" and token.strip():
                signed_in = await _user_for_token(token.strip())
            user, stored = signed_in or (None, None)
            scope = dict(
                scope, user=user or AnonymousUser(), auth_failed=user is None, token=token.strip()
            )
            if stored is not None:
                scope["credential"] = credential_id(stored.digest)
                _trust(scope, stored.expiry)
        return await super().__call__(scope, receive, send)


#: How a socket's language is chosen, ``(user=..., accept_language=...) -> language code``:
#: registered by an app that knows the accounts (:func:`socket_language_register`), so that
#: the platform imports no app. None: the site's default language.
_language_of: Callable[..., str] | None = None


def socket_language_register(function: Callable[..., str]) -> None:
    """Say how a socket's language is chosen: ``function(user=..., accept_language=...)``
    returns the language to speak to the signed-in ``user`` (their account's choice) or,
    failing that, the best of the handshake's ``Accept-Language`` the site speaks."""
    global _language_of
    _language_of = function


def socket_language(scope, *, with_account: bool = True) -> str:
    """The language to speak on a socket (sync: the account's choice is read from the
    database); ``with_account=False`` reads only the handshake's ``Accept-Language``."""
    if _language_of is None:
        return settings.LANGUAGE_CODE
    accept = b", ".join(
        value for name, value in scope.get("headers", []) if name.lower() == b"accept-language"
    ).decode("latin-1")
    user = scope.get("user") if with_account else None
    return _language_of(user=user, accept_language=accept)


def signin_group(user_id: int) -> str:
    """The channel-layer group of every socket one user has open, whatever it watches."""
    return f"signin.{user_id}"


def sockets_sign_out(user_id: int) -> None:
    """Close every socket of the user (4401) once the surrounding transaction commits: their
    sign-ins have ended (signed out everywhere, a new password, the account deleted).

    Every one: a web session kept signed in after a password change has a new key, so a
    socket opened with its old one is signed out too (the page opens a new one).
    """
    publish_on_commit(signin_group(user_id), {"type": "sockets.signed_out"})


def sockets_credential_end(user_id: int, credential: str) -> None:
    """Close the user's sockets opened with one credential (4401), once the surrounding
    transaction commits: a token signed out or deleted, a session signed out.
    ``credential`` is :func:`credential_id` of the token's digest or the session's key."""
    publish_on_commit(
        signin_group(user_id), {"type": "sockets.credential_ended", "credential": credential}
    )


def still_signed_in(scope) -> bool:
    """Whether the credential the socket opened with still holds (call from sync code).

    A socket outlives the sign-in it was opened with. Its revocations are pushed to it
    (:func:`sockets_sign_out`, :func:`sockets_credential_end`); besides, once
    ``SOCKET_SIGNIN_RECHECK_SECONDS`` have passed since the last check, or the token's
    expiry has, the token (revoked? expired?) or the session (signed out? expired?) is
    checked again here, so a revocation whose push was lost stops the socket too.
    """
    user = scope.get("user")
    if user is None or not user.is_authenticated:
        return False
    if signin_trusted(scope):
        return True
    token = scope.get("token")
    if token is not None:
        try:
            again, stored = _token_user(token)
        except AuthenticationFailed:
            return False
        if again.pk != user.pk:
            return False
        scope["credential"] = credential_id(stored.digest)
        _trust(scope, stored.expiry)
        return True
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    if not key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    if store.get(SESSION_KEY) != str(user.pk):
        return False
    scope["credential"] = credential_id(key)
    _trust(scope, None)
    return True


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_parts(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an ``Origin`` value, or None if it names no web origin."""
    try:
        parsed = urlsplit(origin.strip())
        port = parsed.port
    except ValueError:
        return None
    scheme = parsed.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parsed.hostname or parsed.path not in ("", "/"):
        return None
    if parsed.username is not None or parsed.query or parsed.fragment:
        return None
    return scheme, parsed.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _trusted(parts: tuple[str, str, int], pattern: str) -> bool:
    """Whether an origin matches a ``CSRF_TRUSTED_ORIGINS`` entry (``https://*.example.org``
    matches the subdomains of example.org, as Django's CSRF check reads it)."""
    wildcard = "://*." in pattern
    want = _origin_parts(pattern.replace("://*.", "://", 1) if wildcard else pattern)
    if want is None or want[0] != parts[0] or want[2] != parts[2]:
        return False
    return parts[1].endswith("." + want[1]) if wildcard else parts[1] == want[1]


def own_origin(scope) -> tuple[str, str, int] | None:
    """(scheme, host, port) of the site as the handshake reached it, or None when its
    ``Host`` is not one of ``ALLOWED_HOSTS``.

    As Django reads a request's: the scheme is https when the socket came over TLS
    (``wss``, or a proxy's ``X-Forwarded-Proto: https`` under ``TRUST_X_FORWARDED_PROTO``),
    the host and port are the ``Host`` header's (``X-Forwarded-Host`` under
    ``USE_X_FORWARDED_HOST``).
    """
    headers = dict(scope.get("headers", []))
    secure = scope.get("scheme") in ("wss", "https")
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header and not secure:
        name = proxy_header[0].removeprefix("HTTP_").lower().replace("_", "-").encode()
        value = headers.get(name, b"").decode("latin1").split(",")[0].strip()
        secure = value == proxy_header[1]
    host = headers.get(b"host", b"")
    if settings.USE_X_FORWARDED_HOST and b"x-forwarded-host" in headers:
        host = headers[b"x-forwarded-host"].split(b",")[-1].strip()
    host = host.decode("latin1").lower()
    domain, _port = split_domain_port(host)
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]  # as Django allows under DEBUG
    if not domain or not validate_host(domain, allowed):
        return None
    return _origin_parts(f"{'https' if secure else 'http'}://{host}")


def origin_allowed(scope) -> bool:
    """Whether a socket handshake may go on, judged by its ``Origin`` header.

    A browser sends ``Origin`` on every WebSocket handshake, with the cookies of this site
    whatever page opened it: only a page of this very site (the same scheme, host and port
    as the handshake reached) or of one of ``CSRF_TRUSTED_ORIGINS`` may open one, under
    ``DEBUG`` too. ``Origin: null`` (a sandboxed frame, a file) is refused. A handshake
    without ``Origin`` is a program's (a bot, a test client), which signs in with a token
    and cannot carry a browser's cookies: it goes on.
    """
    values = [value for name, value in scope.get("headers", []) if name == b"origin"]
    if not values:
        return True
    if len(values) > 1:
        return False
    parts = _origin_parts(values[0].decode("latin1"))
    if parts is None:
        return False
    if parts == own_origin(scope):
        return True
    return any(_trusted(parts, pattern) for pattern in settings.CSRF_TRUSTED_ORIGINS)


class SameSiteOrigin:
    """Refuse (HTTP 403) a socket handshake from a page of another origin: see
    :func:`origin_allowed`."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        logger.info("socket handshake refused: origin not of this site")
        return await WebsocketDenier()(scope, receive, send)


def socket_stack(inner):
    """The middleware around every socket route: origin check, session, then token."""
    return SameSiteOrigin(AuthMiddlewareStack(TokenAuthMiddleware(inner)))


class JsonSocket(AsyncWebsocketConsumer):
    """JSON messages with a size cap, a rate limit, ping/pong and error replies.

    Subclasses implement ``on_<type>`` coroutines taking the message; anything else is an
    ``unknown_type`` error. ``send_text`` forwards text prepared elsewhere (pushes).
    """

    #: The message types a subclass answers, besides ping and pong.
    types: tuple[str, ...] = ()
    #: The ``socket`` label of this kind of socket in ``ginrummy_sockets_open``.
    metrics_name = "socket"
    #: The message types whose handlers check the sign-in themselves, in the same database
    #: call as their work; before any other (but ping and pong) the base class checks it.
    checks_own_sign_in: tuple[str, ...] = ()
    #: The message types that read (render what the REST API would answer): each draws on
    #: the REST API's read throttles, as opening the socket does.
    reads: tuple[str, ...] = ()

    async def dispatch(self, message):
        """Run the handler of ``message``, without Channels' per-message connection check.

        Channels closes the process's stale database connections before every message a
        consumer handles, on the one thread the process runs Django's synchronous views on:
        every push, ping and move of every socket then waits behind whatever request that
        thread is serving. These consumers never use the database on the event loop: their
        database work runs through :func:`socket_db`, which closes stale connections on its
        own threads, before and after each call.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if message["type"] == "websocket.connect":
            self.language = await self._connection_language()
        # The socket's language, for whatever the handler writes (its errors, the services'
        # refusals: the context is copied to the threads of socket_db).
        with translation.override(getattr(self, "language", None)):
            await handler(message)

    async def _connection_language(self) -> str:
        """:func:`socket_language` of this socket; its handshake's alone if the database
        does not answer (the account's choice is a row to read)."""
        if not getattr(self.scope.get("user"), "is_authenticated", False):
            return socket_language(self.scope, with_account=False)
        try:
            return await socket_db(socket_language)(self.scope)
        except OUTAGE_ERRORS:
            return socket_language(self.scope, with_account=False)

    async def websocket_connect(self, message):
        if self.user.is_authenticated and "credential" not in self.scope:
            key = getattr(self.scope.get("session"), "session_key", None)
            if key:  # signed in by its session just now (Channels' auth middleware)
                self.scope["credential"] = credential_id(key)
                _trust(self.scope, None)
        self._allowance = float(2 * settings.SOCKET_RATE_PER_SECOND)
        self._allowance_at = time.monotonic()
        self._cap_keys = []
        if not self.scope.get("auth_failed"):
            keys = _cap_keys(self.scope)
            full = [key for key, cap in keys if _open_sockets.get(key, 0) >= cap]
            if full:
                cap = {"count": dict(keys)[full[0]]}
                if full[0].startswith("address:"):
                    detail = _("too many sockets open from this address: at most %(count)s") % cap
                else:
                    detail = _("too many sockets open from this user: at most %(count)s") % cap
                await self._refuse_too_many("too_many_sockets", detail)
                return
            self._cap_keys = [key for key, _cap in keys]
            for key in self._cap_keys:
                _open_sockets[key] = _open_sockets.get(key, 0) + 1
            if wait := await self._read_throttle_wait():
                await self._refuse_too_many(
                    "throttled",
                    _("too many reads: the REST API's allowance for this client is spent"),
                    retry_after_ms=int(wait * 1000) + 1,
                )
                return
        await super().websocket_connect(message)

    async def _refuse_too_many(self, code: str, detail: str, **extra: Any) -> None:
        self._refusing = self._refused_early = True
        await self.accept()
        await self.send_error(code, detail, **extra)
        await self.close(code=CLOSE_TOO_MANY)

    async def _read_throttle_wait(self) -> float | None:
        """:func:`read_throttle_wait` off the event loop (the cache may be Redis)."""
        return await asyncio.to_thread(read_throttle_wait, self.scope)

    @property
    def user(self):
        return self.scope.get("user") or AnonymousUser()

    async def accept(self, subprotocol=None, headers=None):
        await super().accept(subprotocol, headers)
        if not getattr(self, "_counted_open", False):
            self._counted_open = True
            SOCKETS_OPEN.labels(self.metrics_name).inc()
        if self.user.is_authenticated and not getattr(self, "_refusing", False):
            # Signing out everywhere closes this socket at once (sockets_sign_out).
            try:
                await group_join(self.channel_layer, signin_group(self.user.pk), self.channel_name)
                self._signin_joined = True
            except Exception:  # the layer is down: each message still checks the sign-in
                logger.warning("joining the sign-in group failed", exc_info=True)

    async def websocket_disconnect(self, message):
        self._closing = True
        for key in getattr(self, "_cap_keys", ()):
            left = _open_sockets.get(key, 0) - 1
            if left > 0:
                _open_sockets[key] = left
            else:
                _open_sockets.pop(key, None)
        self._cap_keys = []
        if getattr(self, "_refused_early", False):  # connect() never ran: nothing to undo
            if getattr(self, "_counted_open", False):
                self._counted_open = False
                SOCKETS_OPEN.labels(self.metrics_name).dec()
            raise StopConsumer()
        if getattr(self, "_counted_open", False):
            self._counted_open = False
            SOCKETS_OPEN.labels(self.metrics_name).dec()
        if getattr(self, "_signin_joined", False):
            self._signin_joined = False
            await group_leave(self.channel_layer, signin_group(self.user.pk), self.channel_name)
        await super().websocket_disconnect(message)

    async def sockets_signed_out(self, event: dict) -> None:
        """The user's sign-ins have ended (:func:`sockets_sign_out`): close with 4401."""
        self.scope["signin_trusted_until"] = 0.0  # nothing more is taken on its word
        await self.send_error("not_authenticated", _("your sign-in has ended: sign in again"))
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def sockets_credential_ended(self, event: dict) -> None:
        """One credential of the user has ended (:func:`sockets_credential_end`): close with
        4401 if this socket was opened with it."""
        if event.get("credential") == self.scope.get("credential"):
            await self.sockets_signed_out(event)

    async def _still_signed_in(self) -> bool:
        """Whether a signed-in socket's credential still holds (an anonymous one has none to
        lose); if not, say so and close with 4401."""
        if not self.user.is_authenticated or signin_trusted(self.scope):
            return True
        try:
            valid = await socket_db(still_signed_in)(self.scope)
        except OUTAGE_ERRORS:
            await self.send_error("service_unavailable", _("try again shortly"))
            return False
        if not valid:
            await self.send_error("not_authenticated", _("your sign-in has ended: sign in again"))
            await self.close(code=CLOSE_UNAUTHENTICATED)
        return valid

    async def close(self, code=None, reason=None):
        """Close from the server end, once; nothing is sent on this socket after it."""
        if getattr(self, "_closing", False):
            return
        self._closing = True
        await super().close(code, reason)

    async def send(self, text_data=None, bytes_data=None, close=False):
        # A push, a ping or an answer that comes due while the socket closes is dropped:
        # the ASGI server refuses any message after the close.
        if getattr(self, "_closing", False):
            return
        await super().send(text_data, bytes_data, close)

    async def refuse_connection(self, code: int) -> None:
        """Accept only to close with ``code`` (a refused handshake cannot carry a code)."""
        self._refusing = True
        await self.accept()
        await self.close(code=code)

    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send(text_data=dumps(data))

    async def send_error(self, code: str, detail: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "detail": detail, **extra})

    def _throttled(self) -> float | None:
        """Seconds to wait if this message is over the rate, else None (token bucket)."""
        rate = settings.SOCKET_RATE_PER_SECOND
        now = time.monotonic()
        self._allowance = min(2.0 * rate, self._allowance + (now - self._allowance_at) * rate)
        self._allowance_at = now
        if self._allowance < 1:
            return (1 - self._allowance) / rate
        self._allowance -= 1
        return None

    async def receive(self, text_data=None, bytes_data=None):
        if getattr(self, "_closing", False):
            return  # closed from this end: what the client sent meanwhile is not acted on
        size = len(text_data.encode()) if text_data is not None else len(bytes_data or b"")
        wait = self._throttled()
        if wait is not None:
            await self.send_error(
                "throttled",
                _("too many messages: at most %(rate)s a second")
                % {"rate": settings.SOCKET_RATE_PER_SECOND},
                retry_after_ms=int(wait * 1000) + 1,
            )
            return
        if size > settings.SOCKET_MAX_MESSAGE_BYTES:
            await self.send_error(
                "too_large",
                _("a message may be at most %(size)s bytes")
                % {"size": settings.SOCKET_MAX_MESSAGE_BYTES},
            )
            return
        if text_data is None:
            await self.send_error("malformed", _("send JSON text messages, not binary ones"))
            return
        try:
            message = parsers.loads(text_data)  # the API's limits: nesting, NaN, surrogates
        except ValueError as exc:
            await self.send_error(
                "malformed", _("the message is not acceptable JSON: %(error)s") % {"error": exc}
            )
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.send_error("malformed", _('a message is a JSON object with a "type"'))
            return
        kind = message["type"]
        if kind == "ping":
            await self.send_json({"type": "pong", "t": message.get("t")})
            return
        if kind == "pong":
            await self.on_pong(message)
            return
        if kind not in self.types:
            known = ", ".join(("ping", *self.types))
            await self.send_error(
                "unknown_type", _("unknown message type; known: %(types)s") % {"types": known}
            )
            return
        if kind in self.reads and (wait := await self._read_throttle_wait()):
            await self.send_error(
                "throttled",
                _("too many reads: the REST API's allowance for this client is spent"),
                retry_after_ms=int(wait * 1000) + 1,
            )
            return
        if kind not in self.checks_own_sign_in and not await self._still_signed_in():
            return
        await getattr(self, f"on_{kind}")(message)

    async def on_pong(self, message: dict) -> None:
        """The answer to a ping this server sent (see the table socket's lag estimate)."""

    async def send_text(self, event: dict) -> None:
        """A push prepared as text by its publisher (``{"type": "send.text", "text"}``)."""
        await self.send(text_data=event["text"])
