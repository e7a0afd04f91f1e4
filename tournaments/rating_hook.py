"""Where tournaments meet Elo ratings (the ``ladders`` app), from the tournaments side.

Reads: :func:`ratings_for` asks the ladders app, if it is installed, for the players' current
ratings in the pool of rated events (seeding by rating, standings). Until it exists every
player is unrated (``None``) and seeding by rating falls back to registration order.

Writes: the ladders app applies ratings by connecting a receiver to
:data:`tournaments.signals.rated_match_finished` (see there); nothing here needs to change.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

logger = logging.getLogger(__name__)

#: Rating of a player the pool has not rated yet, for seeding only (the ladders' initial rating).
DEFAULT_RATING = 1500


def ratings_for(player_ids: Iterable[int]) -> dict[int, int | None]:
    """Each player's current rating in the rated-events pool, or None when unknown."""
    ids = list(player_ids)
    ratings: dict[int, int | None] = dict.fromkeys(ids)
    try:
        from ladders import selectors as ladder_selectors  # the ladders app; may not be installed
    except ImportError:
        return ratings
    lookup = getattr(ladder_selectors, "ratings_for_players", None)
    if lookup is None:
        return ratings
    try:
        found = lookup(player_ids=ids)
    except Exception:  # a read for display must not break standings or seeding
        logger.exception("reading ratings from the ladders app failed")
        return ratings
    for player_id, rating in dict(found).items():
        if player_id in ratings and rating is not None:
            ratings[player_id] = round(getattr(rating, "rating", rating))
    return ratings
