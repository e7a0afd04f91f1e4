"""When the server handed a mover the view they answer: the server's own delay on a move.

Between one move and the next, a bot that plays over HTTP spends time it cannot help: the
move before is committed and pushed, its game stream writes the line that puts it on move,
and its own move's request waits in the server before it is applied. That time is the
server's, not the bot's. A game stream (and a move's answer) notes here when it handed the
mover a view with them to act, by game, player and ply; the move that answers it is
charged from then (see :func:`games.services.action_submit`), within the lag bank every
player's network lag is credited from, so a client gains nothing it could claim falsely.

Only the first hand-over of a ply counts (a stream that reconnects sends it again later).
Distributed, the notes live in Redis (a stream and the move can be served by different web
processes), for :data:`TTL` seconds; embedded, in the one process's memory.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import cache

import redis
from django.conf import settings

from games.presence import async_redis

logger = logging.getLogger(__name__)

#: Seconds a note is kept: a move answers its view well within this, or loses on time.
TTL = 600
_PREFIX = "ginrummy:delivered"


def _key(game_id: int, player_id: int, ply: int) -> str:
    return f"{_PREFIX}:{game_id}:{player_id}:{ply}"


class _Memory:
    def __init__(self) -> None:
        self.notes: dict[str, float] = {}
        self.lock = threading.Lock()

    def add(self, key: str, at: float) -> None:
        with self.lock:
            if len(self.notes) > 10_000:  # old games' notes: keep the memory bounded
                horizon = time.time() - TTL
                self.notes = {k: v for k, v in self.notes.items() if v > horizon}
            self.notes.setdefault(key, at)

    async def aadd(self, key: str, at: float) -> None:
        self.add(key, at)

    def get(self, key: str) -> float | None:
        return self.notes.get(key)


class _Redis:
    def __init__(self, url: str) -> None:
        self.url = url
        self.sync = redis.Redis.from_url(url)

    # Redis down: no note (that move is charged in full), never a refused move or stream.

    def add(self, key: str, at: float) -> None:
        try:
            self.sync.set(key, repr(at), nx=True, ex=TTL)
        except redis_errors() as error:
            logger.warning("delivery note not written: %s", error)

    async def aadd(self, key: str, at: float) -> None:
        try:
            await async_redis(self.url).set(key, repr(at), nx=True, ex=TTL)
        except redis_errors() as error:
            logger.warning("delivery note not written: %s", error)

    def get(self, key: str) -> float | None:
        try:
            raw = self.sync.get(key)
        except redis_errors() as error:
            logger.warning("delivery note unreadable: %s", error)
            return None
        return None if raw is None else float(raw)


def redis_errors() -> tuple[type[Exception], ...]:
    return (redis.RedisError, OSError)


@cache
def _store():
    url = settings.CHANNEL_REDIS_URL
    return _Redis(url) if url else _Memory()


def is_on_move(view: dict) -> bool:
    """The view puts its viewer on move (their turn, with something to play)."""
    return bool(view.get("your_turn") and view.get("legal_actions"))


async def delivered(game_id: int, player_id: int, ply: int, at: float | None = None) -> None:
    """A stream is handing ``player`` their view of ``game`` at ``ply``, with them to act."""
    await _store().aadd(_key(game_id, player_id, ply), time.time() if at is None else at)


def delivered_sync(game_id: int, player_id: int, ply: int, at: float | None = None) -> None:
    """:func:`delivered`, from synchronous code (a move's answer)."""
    _store().add(_key(game_id, player_id, ply), time.time() if at is None else at)


def delivered_at(game_id: int, player_id: int, ply: int) -> float | None:
    """When ``player`` was first handed their view of ``game`` at ``ply`` (epoch seconds)."""
    return _store().get(_key(game_id, player_id, ply))
