"""The Content-Security-Policy header: django-csp's, with this origin's sockets allowed.

``CONTENT_SECURITY_POLICY`` in the settings is the policy. Its ``connect-src 'self'`` covers
the API's fetches; browsers differ on whether ``'self'`` also covers WebSocket URLs
(``ws://``, ``wss://``), so each answer names the page's own host with both schemes as well.
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from django.core.exceptions import DisallowedHost


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware; ``connect-src`` also allows sockets to the page's own host."""

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
