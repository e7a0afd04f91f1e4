"""The Python client's runner joins a ladder's queue without holding its event stream back:
the POST runs on a thread of its own, and one that times out is tried again."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from ginrummy_bot.bot import Bot
from ginrummy_bot.runner import Runner


class SlowQueueClient:
    """Stands in for the service: an event stream of given lines, and a queue whose first
    POST hangs until released and then times out, as a slow server's would."""

    def __init__(self, lines: list[dict | None]) -> None:
        self.lines = lines
        self.release = threading.Event()
        self.joins = 0
        self.read: list[float] = []

    def events(self):
        for line in self.lines:
            self.read.append(time.monotonic())
            yield line

    def queue(self, ladder_id: int) -> dict:
        self.joins += 1
        if self.joins == 1:
            self.release.wait(5)
            raise requests.ReadTimeout("read timed out")
        return {"status": "waiting"}


def finish(match: int) -> dict:
    return {"type": "game_finish", "match": match, "winner": None, "end_reason": "points"}


def follow(runner: Runner) -> None:
    with contextlib.suppress(requests.ConnectionError):
        runner._follow_events()  # to the stream's end (the runner would reconnect then)


def wait_until(predicate, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_slow_queue_post_holds_no_line_back_and_a_timed_out_one_is_tried_again():
    client = SlowQueueClient([None, None, None, None])
    runner = Runner(client, Bot(), ladder=7, backoff=(0.05, 0.05))

    started = time.monotonic()
    follow(runner)
    # Every line was read while the join made on connecting still hung on the server.
    assert client.joins == 1 and not client.release.is_set()
    assert client.read[-1] - started < 1.0
    client.release.set()  # the hung POST times out now: the join is tried again
    wait_until(lambda: client.joins >= 2)
    runner.stop()
    assert client.joins == 2


def test_the_queue_is_joined_again_after_each_match():
    client = SlowQueueClient([None, finish(1), None, finish(2)])
    client.joins = 1  # no POST hangs here
    runner = Runner(client, Bot(), ladder=7, backoff=(0.05, 0.05))

    follow(runner)
    wait_until(lambda: client.joins >= 4)
    runner.stop()
    assert client.joins == 4  # on connecting, then after each of the two matches
    assert [line["match"] for line in runner.finished] == [1, 2]
