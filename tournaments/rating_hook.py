"""Where tournaments meet ratings, from the tournaments side: tournaments imports no rating app.

Reads: :func:`ratings_for` gives the players' current ratings in the pool of rated events
(seeding by rating, standings), from the source a rating app registers with
:func:`rating_source_set` when it starts (the ``ladders`` app does, in its ``ready``). Without
one every player is unrated (``None``) and seeding by rating falls back to registration order.

Writes: the ladders app applies ratings by connecting a receiver to
:data:`tournaments.signals.rated_match_finished` (see there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping

from ratings import INITIAL_RATING

logger = logging.getLogger(__name__)

#: Rating of a player the pool has not rated yet, for seeding only (the ladders' initial rating).
DEFAULT_RATING = round(INITIAL_RATING)

#: Ratings by player id for a list of player ids; unrated players left out.
RatingSource = Callable[[list[int]], Mapping[int, float]]

_source: RatingSource | None = None


def rating_source_set(source: RatingSource | None) -> None:
    """Register where :func:`ratings_for` reads ratings (None: every player is unrated)."""
    global _source
    _source = source


def ratings_for(player_ids: Iterable[int]) -> dict[int, int | None]:
    """Each player's current rating in the rated-events pool, or None when unknown."""
    ids = list(player_ids)
    ratings: dict[int, int | None] = dict.fromkeys(ids)
    if _source is None:
        return ratings
    try:
        found = _source(ids)
    except Exception:  # a read for display must not break standings or seeding
        logger.exception("reading ratings for the rated events failed")
        return ratings
    for player_id, rating in dict(found).items():
        if player_id in ratings and rating is not None:
            ratings[player_id] = round(rating)
    return ratings
