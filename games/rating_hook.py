"""Where a match meets its rating: games (and tournaments, above it) import no rating app.

:func:`match_rating` gives what rating a match plays for and, once it has been applied, what
it did to each player, from the source a rating app registers with
:func:`match_rating_source_set` when it starts (the ``ladders`` app does, in its ``ready``).
Without one every match is unrated. The match API and the table read it; games never writes a
rating (the ladders app rates a match by listening to ``games.signals.match_finished``).

The ratings in the pool of rated events come from one registered source too
(:func:`ratings_source_set`), read two ways: :func:`ratings_of` (the lobby's open games: the
initial rating for an unrated player) and :func:`ratings_for` (tournaments' seeding by rating
and standings: None for an unrated player). It lives here, below both tournaments and
ladders, so that neither imports the other; ladders applies the ratings of rated events by
listening to ``games.signals.rated_match_finished``, which tournaments sends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from ratings import INITIAL_RATING

logger = logging.getLogger(__name__)

#: Rating of a player the pool has not rated yet, for seeding only (the ladders' initial rating).
DEFAULT_RATING = round(INITIAL_RATING)

#: ``{"pool": {...}, "ratings": [...] | None}`` for a match a pool rates, else None (see
#: ``ladders.selectors.match_rating``).
MatchRatingSource = Callable[[int], dict[str, Any] | None]

_source: MatchRatingSource | None = None


def match_rating_source_set(source: MatchRatingSource | None) -> None:
    """Register where :func:`match_rating` reads (None: every match is unrated)."""
    global _source
    _source = source


def match_rating(match_id: int) -> dict[str, Any] | None:
    """The pool that rates the match and the rating changes it made (None: not rated)."""
    if _source is None:
        return None
    return _source(match_id)


#: ``{"rating", "provisional", "pool": {"id", "name"}}`` of a player as a match shows them, or
#: None (see ``ladders.selectors.player_rating_brief``): ``(player_id, match_id)``.
PlayerRatingSource = Callable[[int, int], dict[str, Any] | None]

_player_source: PlayerRatingSource | None = None


def player_rating_source_set(source: PlayerRatingSource | None) -> None:
    """Register where :func:`player_rating` reads (None: nobody shows a rating)."""
    global _player_source
    _player_source = source


def player_rating(player_id: int, match_id: int) -> dict[str, Any] | None:
    """The player's rating as ``match`` shows it: in the pool that rates it, else their main one.

    None without a rating app, or for a player with no rating anywhere.
    """
    if _player_source is None:
        return None
    return _player_source(player_id, match_id)


#: Ratings by player id in the pool of rated events, for a list of ids; unrated players left
#: out (see ``ladders.selectors.ratings_for_players``).
RatingsSource = Callable[[list[int]], dict[int, float]]

_ratings_source: RatingsSource | None = None


def ratings_source_set(source: RatingsSource | None) -> None:
    """Register where :func:`ratings_of` and :func:`ratings_for` read (None: nobody is rated)."""
    global _ratings_source
    _ratings_source = source


def ratings_of(player_ids: list[int]) -> dict[int, int]:
    """Each player's rating in the pool of rated events, rounded; the initial rating for a
    player it has not rated: what the lobby's open games show beside a name and check a
    rating range against."""
    ratings = dict.fromkeys(player_ids, round(INITIAL_RATING))
    if _ratings_source is None:
        return ratings
    for player_id, rating in _ratings_source(list(player_ids)).items():
        if player_id in ratings and rating is not None:
            ratings[player_id] = round(rating)
    return ratings


def ratings_for(player_ids: Iterable[int]) -> dict[int, int | None]:
    """Each player's current rating in the rated-events pool, rounded, or None when unknown:
    what seeding by rating and the standings of rated events read."""
    ids = list(player_ids)
    ratings: dict[int, int | None] = dict.fromkeys(ids)
    if _ratings_source is None:
        return ratings
    try:
        found = _ratings_source(ids)
    except Exception:  # a read for display must not break standings or seeding
        logger.exception("reading ratings for the rated events failed")
        return ratings
    for player_id, rating in dict(found).items():
        if player_id in ratings and rating is not None:
            ratings[player_id] = round(rating)
    return ratings
