"""The engines of matches in play, kept in memory for the views that follow a change.

A view of a game needs the match's engine; decoding it from the match row's snapshot means
replaying the deal in play, the largest part of rendering a view. After each committed change
the writer's engine is kept here (:func:`keep`), with the snapshot it gives at that moment;
a view whose match row holds that same snapshot renders from it (:func:`for_reading`) instead
of decoding its own.

A kept engine is only ever read: nothing changes it once it is kept (a writer decodes its own
engine from the row it locked, as before, and keeps it after its commit), so any number of
threads may render from it at once. The row is the truth: an engine is used only when its
snapshot equals the row's, so a change committed by another process (whose engine is not
here) is never hidden. At most :data:`SIZE` matches are kept per process, the least recently
changed dropped first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.db import transaction

from games.engine.match import Match as EngineMatch

#: Matches whose engines a process keeps.
SIZE = 1000

_kept: OrderedDict[int, tuple[Any, EngineMatch]] = OrderedDict()
_lock = threading.Lock()


def keep(match_id: int, engine: EngineMatch, snapshot: dict | None = None) -> None:
    """Keep ``engine`` as match ``match_id``'s, with the snapshot it gives now (``snapshot``
    if the caller has it already). The caller hands both over: nothing may change them
    afterwards."""
    entry = (engine.snapshot() if snapshot is None else snapshot, engine)
    with _lock:
        _kept[match_id] = entry
        _kept.move_to_end(match_id)
        while len(_kept) > SIZE:
            _kept.popitem(last=False)


def keep_on_commit(match_id: int, engine: EngineMatch, snapshot: dict | None = None) -> None:
    """:func:`keep` once the surrounding transaction commits (nothing if it rolls back)."""
    transaction.on_commit(lambda: keep(match_id, engine, snapshot))


def for_reading(match_id: int, state: dict) -> EngineMatch:
    """The engine of a match whose row holds ``state``, to read only: the one kept for it if
    its snapshot is that state, else decoded from ``state``."""
    with _lock:
        entry = _kept.get(match_id)
    if entry is not None and entry[0] == state:
        return entry[1]
    return EngineMatch.from_snapshot(state)
