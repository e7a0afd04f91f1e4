"""The web processes' gunicorn worker: uvicorn's, declining WebSocket compression and reading
no socket frame far above the service's message cap.

Browsers offer permessage-deflate on every handshake. Accepted, each socket keeps its own
compression contexts (about 45 KiB of memory a socket) and every push is compressed once for
every socket it goes to; a table's view is a few kilobytes of JSON. Declined, ``make
bench-live`` measured 20 KiB a socket instead of 64, and a 2,000-socket push p95 of 135 and
245 ms in two runs (172-262 ms in four runs with it). ``WS_PER_MESSAGE_DEFLATE=1`` accepts
it again (for clients on slow links that would rather trade CPU for bytes).

A socket message above ``SOCKET_MAX_MESSAGE_BYTES`` is refused by the service (error
``too_large``), but only once the server has read it whole: uvicorn's own limit is 16 MiB a
message. The server here is told :func:`socket_frame_limit` instead, so a frame or message far
above the cap is refused by the transport as soon as its length is read (close code 1009,
"message too big"), before its bytes are buffered; one a little above the cap still reaches
the service and is answered ``too_large`` on a socket that stays open. Every uvicorn the
project starts is given the same limit (``make run``, the tests' servers).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from uvicorn_worker import UvicornWorker as _UvicornWorker

#: ``SOCKET_MAX_MESSAGE_BYTES`` when unset (config/settings.py has the same default).
DEFAULT_SOCKET_MAX_MESSAGE_BYTES = 16_384
#: Bytes above the service's cap that the transport still reads, so a slightly-too-big
#: message gets the service's ``too_large`` answer rather than a closed socket.
FRAME_ALLOWANCE_BYTES = 4_096


def deflate_sockets() -> bool:
    """Whether the web processes accept permessage-deflate (``WS_PER_MESSAGE_DEFLATE``)."""
    return os.environ.get("WS_PER_MESSAGE_DEFLATE", "0").strip().lower() in {"1", "true", "yes"}


def socket_frame_limit(environ: Mapping[str, str] | None = None) -> int:
    """The largest socket message (or frame) the server reads, in bytes: uvicorn's
    ``ws_max_size``, ``SOCKET_MAX_MESSAGE_BYTES`` plus :data:`FRAME_ALLOWANCE_BYTES`.

    Read from ``environ`` (the process's environment by default) as the settings read it:
    the server starts before Django's settings are loaded. A value that is not a whole
    number stops the server at start-up.
    """
    raw = (os.environ if environ is None else environ).get("SOCKET_MAX_MESSAGE_BYTES", "")
    raw = raw.strip()
    try:
        cap = int(raw) if raw else DEFAULT_SOCKET_MAX_MESSAGE_BYTES
    except ValueError:
        raise SystemExit(f"SOCKET_MAX_MESSAGE_BYTES={raw!r} is not an integer") from None
    return cap + FRAME_ALLOWANCE_BYTES


class UvicornWorker(_UvicornWorker):
    """``uvicorn_worker.UvicornWorker`` with permessage-deflate as :func:`deflate_sockets`
    and socket messages up to :func:`socket_frame_limit` bytes."""

    CONFIG_KWARGS = {
        **_UvicornWorker.CONFIG_KWARGS,
        "ws_per_message_deflate": deflate_sockets(),
        "ws_max_size": socket_frame_limit(),
    }


if __name__ == "__main__":  # `python -m config.workers`: the limit, for uvicorn's command line
    print(socket_frame_limit())
