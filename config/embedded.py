"""The embedded default's stand-in for Celery beat: a clock sweep in a background thread.

With no broker there is no beat, yet a human whose clock runs out must still lose on time
even if nobody reads the game. The WSGI entry point starts this thread once per process
when the service runs embedded; the sweep is the same service call beat makes, and it
skips matches locked by a move in progress, so one thread per process is harmless.
"""

import logging
import threading
import time

from django.db import close_old_connections

logger = logging.getLogger(__name__)

_started = threading.Event()


def _loop(interval: float) -> None:
    from games.services import clocks_sweep
    from ladders.services import ladders_sweep
    from tournaments.services import sweep as tournaments_sweep

    while True:
        time.sleep(interval)
        try:
            close_old_connections()
            clocks_sweep()
        except Exception:  # keep sweeping: one failed pass must not stop the clocks
            logger.exception("embedded clock sweep failed")
        try:
            ladders_sweep()  # beat's "sweep-ladders": pair the queues, catch up on results
        except Exception:
            logger.exception("embedded ladder sweep failed")
        try:
            tournaments_sweep()  # beat's "sweep-tournaments": no-shows, missed results
        except Exception:
            logger.exception("embedded tournament sweep failed")


def start_clock_sweeper(interval: float = 1.0) -> bool:
    """Start the sweep thread unless it runs already; True if this call started it."""
    if _started.is_set():
        return False
    _started.set()
    threading.Thread(target=_loop, args=(interval,), name="clock-sweeper", daemon=True).start()
    return True
