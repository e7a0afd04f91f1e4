"""Reads of tournaments, one module per purpose and format; none imports a service.

===============  ==========================================================================
module           holds
===============  ==========================================================================
``events``       the list of events, who may change one (``may_manage``, its organisers),
                 a player's entry, whether a player's entry keeps their account
``base``         a player and an entry as JSON, a settled pairing as the standings count it
``arena``        an arena's table of entrants (score, streak, who is free) and standings
``brackets``     an elimination bracket (or a two-stage playoff) by the rules it started
                 with, resolved from the results, and as the bracket's JSON shows it
``two_stage``    a two-stage event's group tables and its ranking across both stages
``standings``    the standings of every format, the columns to show, the API's view; the
                 results export
===============  ==========================================================================

The modules import each other one way only: ``events`` and ``base`` first, then ``arena``,
``brackets`` (an arena's bracket shows its latest matches), ``two_stage`` (its playoff is a
bracket), and ``standings``, which reads every format. Everything other code imported from the
single ``tournaments.selectors`` module is re-exported here, so ``from tournaments import
selectors`` and ``selectors.standings_for_event(...)`` keep working.
"""

from tournaments.selectors.arena import ARENA_COLUMNS, ARENA_RECENT, ArenaLine, arena_table
from tournaments.selectors.base import UNPLAYED_RESULTS
from tournaments.selectors.brackets import (
    _bracket_states,  # the tests compare a bracket's states with the standings
    bracket_for_event,
    bracket_of,
)
from tournaments.selectors.events import (
    MANAGE_ALL_EVENTS,
    entry_of,
    event_list,
    may_manage,
    organised_by,
    organisers_of,
    player_busy,
)
from tournaments.selectors.standings import (
    RESULT_COLUMNS,
    STANDINGS_COLUMNS,
    SWISS_COLUMNS,
    results_rows,
    standings_columns,
    standings_for_event,
    standings_view,
)
from tournaments.selectors.two_stage import (
    GROUP_COLUMNS,
    TWO_STAGE_COLUMNS,
    group_columns,
    group_tables,
)

__all__ = [
    "ARENA_COLUMNS",
    "ARENA_RECENT",
    "GROUP_COLUMNS",
    "MANAGE_ALL_EVENTS",
    "RESULT_COLUMNS",
    "STANDINGS_COLUMNS",
    "SWISS_COLUMNS",
    "TWO_STAGE_COLUMNS",
    "UNPLAYED_RESULTS",
    "ArenaLine",
    "_bracket_states",
    "arena_table",
    "bracket_for_event",
    "bracket_of",
    "entry_of",
    "event_list",
    "group_columns",
    "group_tables",
    "may_manage",
    "organised_by",
    "organisers_of",
    "player_busy",
    "results_rows",
    "standings_columns",
    "standings_for_event",
    "standings_view",
]
