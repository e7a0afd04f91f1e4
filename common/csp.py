"""The Content-Security-Policy header: django-csp's, with this origin's sockets allowed.

``CONTENT_SECURITY_POLICY`` in the settings is the policy. Its ``connect-src 'self'`` covers
the API's fetches; browsers differ on whether ``'self'`` also covers WebSocket URLs
(``ws://``, ``wss://``), so each answer names the page's own host with both schemes as well.

The header depends on nothing else for an answer without a policy of its own (django-csp's
decorators) and without a nonce: it is built once per host and scheme, not on every answer.
"""

from __future__ import annotations

import http.client
from dataclasses import asdict

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.exceptions import DisallowedHost

#: What a view may set on its answer to change its policy (django-csp's decorators).
_PER_ANSWER = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
#: Headers kept, by host, scheme and the policies' settings (at most this many).
_KEPT = 64


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware; ``connect-src`` also allows sockets to the page's own host."""

    def __init__(self, get_response) -> None:
        super().__init__(get_response)
        self._built: dict[tuple, tuple[str, str]] = {}

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:  # answered with a 400 anyway; nothing to allow
            return parts
        schemes = ["wss"] if request.is_secure() else ["ws", "wss"]
        update = dict(parts.update or {})
        sockets = [f"{scheme}://{host}" for scheme in schemes]
        update["connect-src"] = [*update.get("connect-src", []), *sockets]
        parts.update = update
        return parts

    def process_response(self, request, response):
        """django-csp's answer, with the header built once for answers that share it."""
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in _PER_ANSWER
        ):
            return super().process_response(request, response)
        if settings.DEBUG and response.status_code in (
            http.client.INTERNAL_SERVER_ERROR,
            http.client.NOT_FOUND,
        ):
            return response
        try:
            host = request.get_host()
        except DisallowedHost:
            return super().process_response(request, response)
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", None)
        report_only = getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
        key = (host, request.is_secure(), id(policy), id(report_only))
        policy, report_only = policy or {}, report_only or {}
        built = self._built.get(key)
        if built is None:
            parts = self.get_policy_parts(request, response)
            parts_ro = self.get_policy_parts(request, response, report_only=True)
            built = (
                build_policy(**asdict(parts)),
                build_policy(**asdict(parts_ro), report_only=True),
            )
            if len(self._built) < _KEPT:
                self._built[key] = built
        for header, value, exempt, settings_of in (
            (HEADER, built[0], "_csp_exempt", policy),
            (HEADER_REPORT_ONLY, built[1], "_csp_exempt_ro", report_only),
        ):
            excluded = tuple(settings_of.get("EXCLUDE_URL_PREFIXES", None) or ())
            if (
                value
                and header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(excluded)
            ):
                response[header] = value
        # As django-csp: a nonce asked for once the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
