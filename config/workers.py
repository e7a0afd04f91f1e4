"""The web processes' gunicorn worker: uvicorn's, declining WebSocket compression.

Browsers offer permessage-deflate on every handshake. Accepted, each socket keeps its own
compression contexts (about 45 KiB of memory a socket) and every push is compressed once for
every socket it goes to; a table's view is a few kilobytes of JSON. Declined, ``make
bench-live`` measured 20 KiB a socket instead of 64, and a 2,000-socket push p95 of 135 and
245 ms in two runs (172-262 ms in four runs with it). ``WS_PER_MESSAGE_DEFLATE=1`` accepts
it again (for clients on slow links that would rather trade CPU for bytes).
"""

from __future__ import annotations

import os

from uvicorn_worker import UvicornWorker as _UvicornWorker


def deflate_sockets() -> bool:
    """Whether the web processes accept permessage-deflate (``WS_PER_MESSAGE_DEFLATE``)."""
    return os.environ.get("WS_PER_MESSAGE_DEFLATE", "0").strip().lower() in {"1", "true", "yes"}


class UvicornWorker(_UvicornWorker):
    """``uvicorn_worker.UvicornWorker`` with permessage-deflate as :func:`deflate_sockets`."""

    CONFIG_KWARGS = {**_UvicornWorker.CONFIG_KWARGS, "ws_per_message_deflate": deflate_sockets()}
