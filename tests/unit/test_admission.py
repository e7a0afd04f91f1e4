"""A web process runs at most WEB_VIEW_CONCURRENCY requests in its views at once."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpResponse
from django.test import RequestFactory

from config.admission import AdmittedASGIHandler, get_admitted_asgi_application
from config.metrics import ADMISSION_WAIT_SECONDS


def _count(histogram) -> float:
    return next(s.value for s in histogram.collect()[0].samples if s.name.endswith("_count"))


@pytest.fixture
def busy(monkeypatch):
    """Django's own response path replaced by one that counts how many run at once."""
    state = {"now": 0, "most": 0}

    async def get_response_async(self, request):
        state["now"] += 1
        state["most"] = max(state["most"], state["now"])
        await asyncio.sleep(0.02)
        state["now"] -= 1
        return HttpResponse(request.path)

    monkeypatch.setattr(ASGIHandler, "get_response_async", get_response_async)
    return state


def _answer_all(handler, count: int) -> list[str]:
    requests = [RequestFactory().get(f"/r/{n}") for n in range(count)]

    async def run():
        return await asyncio.gather(*(handler.get_response_async(r) for r in requests))

    return [answer.content.decode() for answer in async_to_sync(run)()]


@pytest.mark.parametrize("limit", [1, 3])
def test_requests_past_the_limit_wait_their_turn_and_all_are_answered(settings, busy, limit):
    settings.WEB_VIEW_CONCURRENCY = limit
    before = _count(ADMISSION_WAIT_SECONDS)
    assert _answer_all(AdmittedASGIHandler(), 10) == [f"/r/{n}" for n in range(10)]
    assert busy["most"] == limit
    assert _count(ADMISSION_WAIT_SECONDS) == before + 10


def test_no_limit_when_the_setting_is_zero(settings, busy):
    settings.WEB_VIEW_CONCURRENCY = 0
    _answer_all(AdmittedASGIHandler(), 6)
    assert busy["most"] == 6


@pytest.mark.django_db(transaction=True)
def test_an_asgi_request_is_answered_through_the_admission(settings):
    settings.WEB_VIEW_CONCURRENCY = 1
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/api/health",
        "raw_path": b"/api/health",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    before = _count(ADMISSION_WAIT_SECONDS)

    async def get():
        communicator = ApplicationCommunicator(get_admitted_asgi_application(), scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(10)
        await communicator.wait(10)
        return start

    assert async_to_sync(get)()["status"] == 200
    assert _count(ADMISSION_WAIT_SECONDS) == before + 1
