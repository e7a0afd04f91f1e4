"""Who waits for what: the play an app declares, and the two lanes it runs in.

Work a person waits for never queues behind work nobody waits for. Each app declares once,
from its ``AppConfig.ready()``, which of its tasks and which of its URLs are *play*:

- :func:`play_tasks`: task names (or ``fnmatch`` patterns) that run on the ``interactive``
  lane: the Celery queue of that name (``config.celery.route_task``), the in-process worker's
  interactive threads embedded (``common.embedded``). Every other task is ``batch``.
- :func:`play_paths`: URL path patterns that admission lets in first
  (``common.admission``): a game's view, a move, a Continue.

The platform declares its own: health pings (``health.*``), and pushes to sockets
(``*.push*``, ``live.*``), whichever app sends them. ``settings.INTERACTIVE_TASKS``, when set
(the environment variable), replaces the declared tasks as a whole.
"""

from __future__ import annotations

import fnmatch
import re

from django.conf import settings

#: The two queues (and the embedded worker's two lanes): work a person waits for, and the rest.
INTERACTIVE, BATCH = "interactive", "batch"

#: The platform's own play: its health ping, and every push to a socket.
_tasks: list[str] = ["health.*", "*.push*", "live.*"]
_paths: list[re.Pattern[str]] = []


def play_tasks(*patterns: str) -> None:
    """Declare task names (or ``fnmatch`` patterns) a person waits for: the interactive lane."""
    _tasks.extend(pattern for pattern in patterns if pattern not in _tasks)


def play_paths(*patterns: str) -> None:
    """Declare URL path patterns (regular expressions, matched from the start) of play."""
    known = {path.pattern for path in _paths}
    _paths.extend(re.compile(pattern) for pattern in patterns if pattern not in known)


def interactive_tasks() -> list[str]:
    """The patterns of interactive tasks: ``INTERACTIVE_TASKS`` when set, else the declared."""
    return list(settings.INTERACTIVE_TASKS or _tasks)


def queue_of(task_name: str) -> str:
    """The queue (and the embedded lane) of a task: interactive if a play pattern names it."""
    if any(fnmatch.fnmatchcase(task_name, pattern) for pattern in interactive_tasks()):
        return INTERACTIVE
    return BATCH


def is_play_path(path: str) -> bool:
    """Whether a request path is play (a declared path pattern matches it)."""
    return any(pattern.match(path) for pattern in _paths)
