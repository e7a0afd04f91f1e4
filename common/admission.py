"""How a web process runs its HTTP requests: at most so many at once, play first, each in one go.

Under ASGI Django runs each request's synchronous part (the middleware and the view: the
whole API) on a thread of its own. Those threads share one interpreter lock, and each of a
request's round trips to PostgreSQL or Redis gives the lock up and must win it back: with
dozens of requests in flight every one of them waits for all the others at each round trip,
and a 20 ms request takes seconds (the threads also hold their pool connections all that
time). So a process runs at most ``WEB_VIEW_CONCURRENCY`` requests at once and the rest wait
their turn on the event loop, which costs them nothing but the wait.

**Play first.** Waiting requests are let in by lane, then in arrival order: play (the paths
the apps declare, ``common.lanes.play_paths``: a move, a Continue and a game's view, what a
player at a table waits for, people and bots alike; at a real table a hand entered, taken back
or corrected, the score sheet, a result confirmed or disputed) before everything else (the
lobby, lists, brackets, leaderboards, pages), and the other lane never takes a process's last
free slot (with two or more). A burst of sign-ins, challenges or spectators' reads, or a slow
page, then delays other such requests, not the moves of the games in play. Under a load of
moves alone the other lane waits until the moves leave slots free.

**Health first.** ``/api/health`` takes no slot: load balancers act on its answer, which must
come within a second even while every slot is held by requests waiting for a database that is
down; its checks are bounded on their own (common/health.py).

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
from collections import deque

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from common.lanes import is_play_path
from common.metrics import ADMISSION_WAIT_SECONDS

PLAY, OTHER = "play", "other"
#: Answered at once, without a slot (their work is bounded in time of its own).
UNADMITTED_PATHS = frozenset({"/api/health"})


def lane_of(path: str) -> str:
    """The admission lane of a request path: ``play`` or ``other``."""
    return PLAY if is_play_path(path) else OTHER


class Slots:
    """``limit`` slots; waiters are let in by lane (play first), then first come first served.

    With more than one slot, one is kept for play: the other lane never takes the last free
    slot, so two slow lobby requests cannot hold a move up.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.free = limit
        self.reserve = {PLAY: 0, OTHER: 1 if limit > 1 else 0}
        self.waiting: dict[str, deque[asyncio.Future]] = {PLAY: deque(), OTHER: deque()}

    async def acquire(self, lane: str) -> None:
        if self.free > self.reserve[lane]:  # nobody of this lane waits then
            self.free -= 1
            return
        future = asyncio.get_running_loop().create_future()
        queue = self.waiting[lane]
        queue.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # handed a slot as the request was given up: pass it on
            else:
                queue.remove(future)
            raise

    def release(self) -> None:
        self.free += 1
        for lane in (PLAY, OTHER):
            queue = self.waiting[lane]
            while queue and self.free > self.reserve[lane]:
                future = queue.popleft()
                if not future.done():
                    self.free -= 1
                    future.set_result(None)  # the slot goes straight to this waiter


class AdmittedASGIHandler(ASGIHandler):
    """Django's ASGI handler, with at most ``settings.WEB_VIEW_CONCURRENCY`` requests (0: no
    limit) in its middleware and views at once; the others wait, play first.

    The middleware runs in its synchronous mode, with the view, in one go on the request's
    thread. Django's ASGI handler would run each middleware in the mode it prefers and hop
    between the event loop and the thread wherever two neighbours differ (and to reach its
    asynchronous core, then the view): each hop waits for the loop, which is busy with the
    process's sockets. An ``async def`` view (the Bot API's streams) is still awaited on the
    event loop, as under WSGI.
    """

    def __init__(self):
        # ASGIHandler's own __init__ loads the middleware in its asynchronous mode.
        super(ASGIHandler, self).__init__()
        self.load_middleware(is_async=False)
        # Slots per event loop: a web process has one loop; tests start several.
        self._slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    async def get_response_async(self, request):
        limit = settings.WEB_VIEW_CONCURRENCY
        if not limit or request.path_info in UNADMITTED_PATHS:
            return await self._in_thread(request)
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None or slots.limit != limit:
            slots = self._slots[loop] = Slots(limit)
        lane = lane_of(request.path_info)
        started = time.perf_counter()
        await slots.acquire(lane)
        try:
            ADMISSION_WAIT_SECONDS.labels(lane).observe(time.perf_counter() - started)
            return await self._in_thread(request)
        finally:
            slots.release()

    async def _in_thread(self, request):
        """The whole synchronous response path, middleware and view, on the request's thread."""
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def get_admitted_asgi_application() -> AdmittedASGIHandler:
    """As :func:`django.core.asgi.get_asgi_application`, with the admission limit."""
    django.setup(set_prefix=False)
    return AdmittedASGIHandler()
