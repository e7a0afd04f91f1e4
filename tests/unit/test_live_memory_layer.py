"""The embedded channel layer hands a push to the event loop its sockets wait on; a loop that
stops before running it must not hold the publisher (every later push would wait behind)."""

import asyncio
import threading
import time

from common import live
from common.live import InMemoryChannelLayer, stats


def test_a_push_handed_to_a_loop_that_stops_is_dropped_not_waited_for():
    layer = InMemoryChannelLayer()
    home = asyncio.new_event_loop()
    running = threading.Event()

    def serve() -> None:
        home.call_soon(running.set)
        home.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    running.wait(5)
    layer._home = home
    # The loop is busy, then stops before it runs the push handed to it.
    home.call_soon_threadsafe(lambda: (time.sleep(0.3), home.stop()))
    dropped = stats["dropped"]
    started = time.monotonic()
    asyncio.run(asyncio.wait_for(layer.group_send("watchers", {"type": "x"}), timeout=5))
    assert time.monotonic() - started < 2
    assert stats["dropped"] == dropped + 1
    thread.join(5)
    home.close()


def test_a_push_to_a_running_loop_reaches_its_sockets():
    layer = InMemoryChannelLayer()
    home = asyncio.new_event_loop()
    thread = threading.Thread(target=home.run_forever, daemon=True)
    thread.start()
    channel = asyncio.run_coroutine_threadsafe(layer.new_channel(), home).result(5)
    asyncio.run_coroutine_threadsafe(layer.group_add("watchers", channel), home).result(5)
    layer._home = home
    asyncio.run(layer.group_send("watchers", {"type": "x"}))
    got = asyncio.run_coroutine_threadsafe(layer.receive(channel), home).result(5)
    assert got["type"] == "x"
    home.call_soon_threadsafe(home.stop)
    thread.join(5)
    home.close()


def test_a_push_its_loop_cancels_as_it_shuts_down_is_dropped_not_raised(monkeypatch):
    layer = InMemoryChannelLayer()
    home = asyncio.new_event_loop()
    thread = threading.Thread(target=home.run_forever, daemon=True)
    thread.start()
    started = threading.Event()

    async def stuck(group, message):  # a send the loop has not finished when it shuts down
        started.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(layer, "_group_send", stuck)
    layer._home = home
    dropped = stats["dropped"]

    def shut_down() -> None:  # as asgiref's async_to_sync does: every pending task cancelled
        started.wait(5)
        home.call_soon_threadsafe(lambda: [t.cancel() for t in asyncio.all_tasks(home)])

    threading.Thread(target=shut_down, daemon=True).start()
    result = asyncio.run(asyncio.wait_for(layer.group_send("watchers", {"type": "x"}), 5))
    assert result is None
    assert stats["dropped"] == dropped + 1
    home.call_soon_threadsafe(home.stop)
    thread.join(5)
    home.close()


def test_the_publisher_outlives_a_cancelled_send(monkeypatch):
    """A send cancelled where it was handed (a closing event loop) must not end the publisher
    thread: every later push of the process would be lost with it."""

    class Layer:
        def __init__(self) -> None:
            self.sent: list[int] = []

        async def group_send(self, group, message):
            if message["n"] == 0:
                raise asyncio.CancelledError
            self.sent.append(message["n"])

    layer = Layer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    publisher = live._Publisher()
    failed = stats["publish_failed"]
    for n in range(3):
        publisher.put("watchers", {"n": n})
    assert publisher.wait_idle(5)
    assert layer.sent == [1, 2]
    assert stats["publish_failed"] == failed + 1
