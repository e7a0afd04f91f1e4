"""How many requests a web process works on at once.

Under ASGI Django runs each request's synchronous part (the middleware and the view: the
whole API) on a thread of its own. Those threads share one interpreter lock, and each of a
request's round trips to PostgreSQL or Redis gives the lock up and must win it back: with
dozens of requests in flight every one of them waits for all the others at each round trip,
and a 20 ms request takes seconds (the threads also hold their pool connections all that
time). So a process runs at most ``WEB_VIEW_CONCURRENCY`` requests at once and the rest wait
their turn on the event loop, which costs them nothing but the wait, first come first served.

The slot is taken after the request's body has been read (a slow upload holds none) and
given back when the middleware and the view have answered: a streaming answer (the Bot
API's NDJSON streams) holds none while it streams. The sockets' database work has threads
of its own (``SOCKET_DB_THREADS``). Served over WSGI (the test client, ``manage.py
runserver``) nothing is limited.
"""

from __future__ import annotations

import asyncio
import time
import weakref

import django
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler


class AdmittedASGIHandler(ASGIHandler):
    """Django's ASGI handler, with at most ``settings.WEB_VIEW_CONCURRENCY`` requests (0: no
    limit) in its middleware and views at once; the others wait in arrival order."""

    def __init__(self):
        super().__init__()
        # (limit, semaphore) per event loop: a web process has one loop; tests start several.
        self._slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    async def get_response_async(self, request):
        limit = settings.WEB_VIEW_CONCURRENCY
        if not limit:
            return await super().get_response_async(request)
        from config.metrics import ADMISSION_WAIT_SECONDS

        loop = asyncio.get_running_loop()
        held = self._slots.get(loop)
        if held is None or held[0] != limit:
            held = self._slots[loop] = (limit, asyncio.Semaphore(limit))
        slots = held[1]
        started = time.perf_counter()
        async with slots:
            ADMISSION_WAIT_SECONDS.observe(time.perf_counter() - started)
            return await super().get_response_async(request)


def get_admitted_asgi_application() -> AdmittedASGIHandler:
    """As :func:`django.core.asgi.get_asgi_application`, with the admission limit."""
    django.setup(set_prefix=False)
    return AdmittedASGIHandler()
