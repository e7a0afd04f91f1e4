"""A web process runs at most WEB_VIEW_CONCURRENCY requests in its views at once."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.http import HttpResponse
from django.test import RequestFactory

from common.admission import (
    OTHER,
    PLAY,
    AdmittedASGIHandler,
    Slots,
    get_admitted_asgi_application,
    lane_of,
)
from common.metrics import ADMISSION_WAIT_SECONDS
from tests.live import http_scope


def _count(histogram) -> float:
    return sum(s.value for s in histogram.collect()[0].samples if s.name.endswith("_count"))


@pytest.fixture
def busy(monkeypatch):
    """The response path (middleware and view) replaced by one that counts how many run at
    once."""
    state = {"now": 0, "most": 0}

    async def in_thread(self, request):
        state["now"] += 1
        state["most"] = max(state["most"], state["now"])
        await asyncio.sleep(0.02)
        state["now"] -= 1
        return HttpResponse(request.path)

    monkeypatch.setattr(AdmittedASGIHandler, "_in_thread", in_thread)
    return state


def _answer_all(handler, count: int, path: str = "/r/{}") -> list[str]:
    requests = [RequestFactory().get(path.format(n)) for n in range(count)]

    async def run():
        return await asyncio.gather(*(handler.get_response_async(r) for r in requests))

    return [answer.content.decode() for answer in async_to_sync(run)()]


@pytest.mark.parametrize("limit", [1, 3])
def test_requests_past_the_limit_wait_their_turn_and_all_are_answered(settings, busy, limit):
    settings.WEB_VIEW_CONCURRENCY = limit
    before = _count(ADMISSION_WAIT_SECONDS)
    moves = _answer_all(AdmittedASGIHandler(), 10, "/api/games/{}/actions")
    assert moves == [f"/api/games/{n}/actions" for n in range(10)]
    assert busy["most"] == limit
    assert _count(ADMISSION_WAIT_SECONDS) == before + 10


@pytest.mark.parametrize(("limit", "most"), [(1, 1), (2, 1), (3, 2)])
def test_other_requests_leave_a_slot_for_play(settings, busy, limit, most):
    settings.WEB_VIEW_CONCURRENCY = limit
    assert _answer_all(AdmittedASGIHandler(), 10) == [f"/r/{n}" for n in range(10)]
    assert busy["most"] == most


def test_waiting_moves_and_views_go_before_the_other_requests(settings, monkeypatch):
    settings.WEB_VIEW_CONCURRENCY = 1
    order: list[str] = []
    gate = None

    async def in_thread(self, request):
        order.append(request.path)
        if request.path == "/first":
            await gate.wait()  # holds the one slot while the others queue
        return HttpResponse()

    monkeypatch.setattr(AdmittedASGIHandler, "_in_thread", in_thread)
    handler = AdmittedASGIHandler()
    paths = [
        "/api/matches",
        "/api/games/7/actions",
        "/api/events/3/bracket",
        "/api/games/7",
        "/api/games/8/continue",
        "/",
    ]

    async def run():
        nonlocal gate
        gate = asyncio.Event()
        first = asyncio.create_task(handler.get_response_async(RequestFactory().get("/first")))
        await asyncio.sleep(0)
        queued = []
        for path in paths:  # they arrive in this order while the slot is held
            queued.append(
                asyncio.create_task(handler.get_response_async(RequestFactory().get(path)))
            )
            await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(first, *queued)

    async_to_sync(run)()
    assert order == [
        "/first",
        "/api/games/7/actions",
        "/api/games/7",
        "/api/games/8/continue",
        "/api/matches",
        "/api/events/3/bracket",
        "/",
    ]


def test_the_other_lane_never_takes_the_last_slot():
    async def run():
        slots = Slots(2)
        await slots.acquire(OTHER)  # a slow page holds one slot
        blocked = asyncio.create_task(slots.acquire(OTHER))
        await asyncio.sleep(0)
        assert not blocked.done()  # a second one waits: the last slot is kept for play
        await asyncio.wait_for(slots.acquire(PLAY), 1)  # a move goes in at once
        slots.release()  # the move is answered: the other lane still may not take it
        await asyncio.sleep(0)
        assert not blocked.done()
        slots.release()  # the page is answered
        await asyncio.wait_for(blocked, 1)
        assert slots.free == 1

    async_to_sync(run)()


def test_a_waiter_given_up_leaves_no_slot_taken():
    async def run():
        slots = Slots(1)
        await slots.acquire(PLAY)
        waiter = asyncio.create_task(slots.acquire(OTHER))
        await asyncio.sleep(0)
        waiter.cancel()  # the client went away while it waited
        with pytest.raises(asyncio.CancelledError):
            await waiter
        slots.release()
        assert slots.free == 1 and not any(slots.waiting.values())
        # Handed the slot in the same turn it was given up: the slot is passed on.
        await slots.acquire(PLAY)
        late = asyncio.create_task(slots.acquire(OTHER))
        await asyncio.sleep(0)
        slots.release()
        late.cancel()
        with pytest.raises(asyncio.CancelledError):
            await late
        assert slots.free == 1

    async_to_sync(run)()


def test_the_lanes_by_path():
    assert [lane_of(p) for p in ("/api/games/12", "/api/games/12/actions")] == [PLAY, PLAY]
    assert lane_of("/api/games/12/continue") == PLAY
    table = ["/api/matches/12/hands", "/api/matches/12/hands/last", "/api/matches/12/hands/3"]
    table += ["/api/matches/12/sheet", "/api/matches/12/confirm", "/api/matches/12/dispute"]
    assert {lane_of(p) for p in table} == {PLAY}  # a hand entered at a real table
    others = ("/api/games", "/api/matches/12", "/api/games/12/log", "/games/12", "/metrics")
    others += ("/api/matches/12/replay", "/api/matches/12/resign", "/api/matches/12/hands/x")
    assert {lane_of(p) for p in others} == {OTHER}


def test_no_limit_when_the_setting_is_zero(settings, busy):
    settings.WEB_VIEW_CONCURRENCY = 0
    _answer_all(AdmittedASGIHandler(), 6)
    assert busy["most"] == 6


@pytest.mark.django_db(transaction=True)
def _asgi_get(path: str) -> dict:
    async def get():
        communicator = ApplicationCommunicator(get_admitted_asgi_application(), http_scope(path))
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(10)
        await communicator.wait(10)
        return start

    return async_to_sync(get)()


def test_an_asgi_request_is_answered_through_the_admission(settings):
    settings.WEB_VIEW_CONCURRENCY = 1
    before = _count(ADMISSION_WAIT_SECONDS)

    assert _asgi_get("/api/no-such-route")["status"] == 404  # the API's own JSON 404
    assert _count(ADMISSION_WAIT_SECONDS) == before + 1


@pytest.mark.django_db
def test_the_health_check_takes_no_slot(settings):
    settings.WEB_VIEW_CONCURRENCY = 1
    before = _count(ADMISSION_WAIT_SECONDS)

    assert _asgi_get("/api/health")["status"] == 200
    assert _count(ADMISSION_WAIT_SECONDS) == before


def test_the_health_check_is_answered_while_every_slot_is_held(settings, monkeypatch):
    settings.WEB_VIEW_CONCURRENCY = 2
    order: list[str] = []
    gate = None

    async def in_thread(self, request):
        order.append(request.path)
        if request.path.startswith("/api/games/"):
            await gate.wait()  # a move waiting for a database that does not answer
        return HttpResponse()

    monkeypatch.setattr(AdmittedASGIHandler, "_in_thread", in_thread)
    handler = AdmittedASGIHandler()

    async def run():
        nonlocal gate
        gate = asyncio.Event()
        held = [
            asyncio.create_task(handler.get_response_async(RequestFactory().get(path)))
            for path in ("/api/games/1/actions", "/api/games/2/actions", "/api/games/3")
        ]
        await asyncio.sleep(0)
        health = await asyncio.wait_for(
            handler.get_response_async(RequestFactory().get("/api/health")), timeout=5
        )
        gate.set()
        await asyncio.gather(*held)
        return health

    assert async_to_sync(run)().status_code == 200
    # The two slots were held and a third move waited, while health went in at once.
    assert order[:3] == ["/api/games/1/actions", "/api/games/2/actions", "/api/health"]


def test_the_middleware_runs_in_its_synchronous_mode_with_the_view():
    """One hop from the event loop to the request's thread, none between middlewares."""
    from asgiref.sync import iscoroutinefunction

    handler = AdmittedASGIHandler()
    assert not iscoroutinefunction(handler._middleware_chain)
    assert handler._view_middleware and not any(
        iscoroutinefunction(m) for m in handler._view_middleware
    )
