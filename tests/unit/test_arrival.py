"""Each HTTP request's arrival time is stamped in its ASGI scope, where a move reads it."""

from __future__ import annotations

import time

from asgiref.sync import async_to_sync

from common.arrival import ARRIVED, stamped


def test_an_http_request_is_stamped_with_its_arrival_and_a_socket_is_not():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope)

    before = time.time()
    for kind in ("http", "websocket"):
        original = {"type": kind, "path": "/"}
        async_to_sync(stamped(app))(original, None, None)
        assert ARRIVED not in original  # the server's own scope is left as it was
    http, socket = seen
    assert before <= http[ARRIVED] <= time.time()
    assert ARRIVED not in socket


def test_a_move_reads_the_arrival_from_the_asgi_request_and_nothing_over_wsgi():
    from django.test import RequestFactory
    from rest_framework.request import Request

    from games.api import arrived_at

    wsgi = Request(RequestFactory().post("/api/games/1/actions"))
    assert arrived_at(wsgi) is None
    wsgi._request.scope = {"type": "http", ARRIVED: 123.5}  # what ASGIRequest carries
    assert arrived_at(wsgi) == 123.5
