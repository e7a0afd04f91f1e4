"""The embedded channel layer hands a push to the event loop its sockets wait on; a loop that
stops before running it must not hold the publisher (every later push would wait behind)."""

import asyncio
import threading
import time

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
