"""Writes of ladders and rating pools, one module per purpose (as ``tournaments.services``).

===============  ==========================================================================
module           holds
===============  ==========================================================================
``base``         the errors (``LadderError``, ``Conflict``) every module raises
``memberships``  creating a ladder or pool, checking its rules, a player's rating row
``queue``        joining and leaving a ladder's queue
``matchmaking``  the matchmaker pass (pair, claim the entries, create the matches), starting
                 a ladder match, one ladder match between two given players
``seasons``      opening a season, the season a rating counts in, closing a season
``rating``       rating a finished match exactly once, what is recorded without counting,
                 a pool's finished match (rated, its bots back in the queue)
``sweeps``       the periodic sweep: due seasons, missed results, lost starts, every queue
``replay``       replaying a pool's rating history
===============  ==========================================================================

What the services and the selectors both read (the rated-events pool's slug, a ladder's
matchmaking window, a division's standing order) lives in :mod:`ladders.pools`; reads live in
:mod:`ladders.selectors`, which imports no service. The modules import each other one way
only: ``base`` first, then ``memberships`` and ``seasons``, then ``queue``, ``matchmaking``
and ``rating``, and ``sweeps`` and ``replay`` on those. A service hands work to a task by
its name (:mod:`common.enqueue`), never by importing ``ladders.tasks``, which imports the
services.

Everything other code imported from the single ``ladders.services`` module (and from
``ladders.seasons``) is re-exported here, so ``from ladders import services`` and
``services.queue_join(...)`` keep working; code inside the project may import the specific
module instead, and a test that replaces a name a service calls replaces it in that module.
"""

from ladders.services.base import Conflict, LadderError
from ladders.services.matchmaking import (
    PassResult,
    ladder_match_create,
    ladder_match_start,
    matchmaker_pass,
    queue_rows,
)
from ladders.services.memberships import ladder_create, ladder_rules_check, membership_ensure
from ladders.services.queue import last_opponent, queue_join, queue_leave
from ladders.services.rating import (
    Standing,
    farmed,
    ladder_match_finished,
    match_rate,
    pool_match_register,
    rated_events_pool,
    rating_apply,
    rating_exemption,
)
from ladders.services.replay import ReplayReport, ratings_replay
from ladders.services.seasons import (
    placement,
    season_close,
    season_entries_ensure,
    season_for_rating,
    season_open,
    seasons_sweep,
)
from ladders.services.sweeps import SweepResult, ladders_sweep

__all__ = [
    "Conflict",
    "LadderError",
    "PassResult",
    "ReplayReport",
    "Standing",
    "SweepResult",
    "farmed",
    "ladder_create",
    "ladder_match_create",
    "ladder_match_finished",
    "ladder_match_start",
    "ladder_rules_check",
    "ladders_sweep",
    "last_opponent",
    "match_rate",
    "matchmaker_pass",
    "membership_ensure",
    "placement",
    "pool_match_register",
    "queue_join",
    "queue_leave",
    "queue_rows",
    "rated_events_pool",
    "rating_apply",
    "rating_exemption",
    "ratings_replay",
    "season_close",
    "season_entries_ensure",
    "season_for_rating",
    "season_open",
    "seasons_sweep",
]
