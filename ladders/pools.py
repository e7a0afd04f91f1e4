"""What the services and the selectors of ladders both read, below them both.

The rated-events pool's slug, a ladder's matchmaking window as the pure matcher takes it, and
the order of a division's final standings: the writes (a matchmaker pass, a season's close)
and the reads (the queue's status, a season's live standings) must agree on each, and a
selector imports no service.
"""

from __future__ import annotations

from games.matchmaking import WindowPolicy
from ladders.models import Ladder

#: Slug of the pool that rates every rated event (created on first use).
RATED_EVENTS_POOL = "rated-events"


def window_policy(ladder: Ladder) -> WindowPolicy:
    """The ladder's matchmaking window: how far apart two ratings may be, and how it widens."""
    return WindowPolicy(
        initial=ladder.window_initial,
        step=ladder.window_step,
        step_seconds=ladder.window_step_seconds,
        maximum=ladder.window_max,
        bot_pairs=ladder.bot_pairs,
    )


def standing_key(rating: float, wins: int, player_id: int) -> tuple[float, int, int]:
    """Final order in a division: rating, then the season's wins, then the earlier member."""
    return (-rating, -wins, player_id)
