"""When each HTTP request reached the ASGI server, kept in its scope.

A request can wait in a web process before its view runs (for a thread, for the middleware
before it); a move's charge credits that wait back to the mover's clock
(:func:`games.services.action_submit`). Served over WSGI (the test client) nothing is
stamped and nothing is credited.
"""

from __future__ import annotations

import time

#: The scope's key for the arrival time (epoch seconds).
ARRIVED = "ginrummy.arrived_at"


def stamped(app):
    """``app`` (an ASGI application) with each HTTP request's arrival time in its scope."""

    async def application(scope, receive, send):
        if scope["type"] == "http":
            scope = {**scope, ARRIVED: time.time()}
        return await app(scope, receive, send)

    return application
