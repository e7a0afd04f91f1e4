"""Writes of tournaments, one module per purpose (as zulip splits its actions).

======================  ===================================================================
module                  holds
======================  ===================================================================
``base``                the errors (``TournamentError``, ``Conflict``), the audit log, the
                        lock order every service follows
``events``              creating, editing and checking an event; its matches' rules, clock
``registration``        opening and closing registration; register, add players and bots,
                        check in, withdraw or disqualify, reinstate
``start``               seeding (rating, random with a recorded seed, manual) and the start
``advancing``           advancing a running event's bracket or rounds, and its finish
``results``             a finished match recorded on its pairing; overrides; bot re-runs
``showing_up``          players showing up, no-shows past the grace period, the sweep
``cancellation``        cancelling an event
``repeat``              recurring events: the repeat rule, its starts, its check
``schedule``            events on a clock: registration opens and the event starts by itself;
                        the occurrences of recurring events are created
``tables``              a mixed event's match moved to a numbered table
``payloads``            the JSON bodies of the webhooks
======================  ===================================================================

Reads (standings, the bracket as JSON, :func:`tournaments.selectors.bracket_of`) live in
:mod:`tournaments.selectors` (a module per purpose and format), which imports no service.
The modules import each other one way only: ``base`` and ``payloads`` first, then
``events``, ``advancing``, ``results``, and the services that build on them
(``registration``, ``start``, ``showing_up``, ``cancellation``), and ``schedule`` on those.

A service that hands work to a task (and ``tournaments.webhooks``, which the services call to
emit an event) names the task through ``common.enqueue`` instead of importing
``tournaments.tasks``, which imports the services: ``tournaments`` has no import circle, and
import-linter's contracts (``pyproject.toml``) fail on one, and on a selector importing a
service.

Everything other code imported from the single ``tournaments.services`` module is re-exported
here, so ``from tournaments import services`` and ``services.event_start(...)`` keep working;
code inside the project may import the specific module instead.
"""

from tournaments.selectors import bracket_of
from tournaments.services.base import Conflict, TournamentError
from tournaments.services.cancellation import event_cancel
from tournaments.services.events import (
    event_create,
    event_update,
    event_validate,
    match_rules,
    time_control,
)
from tournaments.services.registration import (
    bots_add,
    entry_add,
    entry_check_in,
    entry_check_in_undo,
    entry_register,
    entry_reinstate,
    entry_withdraw,
    event_close_registration,
    event_open_registration,
    registration_open,
)
from tournaments.services.repeat import next_occurrence
from tournaments.services.results import pairing_override, pairing_record, pairing_rerun
from tournaments.services.schedule import clock_due, clock_sweep
from tournaments.services.showing_up import events_reconcile, match_ready, no_shows_sweep, sweep
from tournaments.services.start import event_seed, event_start
from tournaments.services.tables import pairing_to_table

__all__ = [
    "Conflict",
    "TournamentError",
    "bots_add",
    "bracket_of",
    "clock_due",
    "clock_sweep",
    "entry_add",
    "entry_check_in",
    "entry_check_in_undo",
    "entry_register",
    "entry_reinstate",
    "entry_withdraw",
    "event_cancel",
    "event_close_registration",
    "event_create",
    "event_open_registration",
    "event_seed",
    "event_start",
    "event_update",
    "event_validate",
    "events_reconcile",
    "match_ready",
    "match_rules",
    "next_occurrence",
    "no_shows_sweep",
    "pairing_override",
    "pairing_record",
    "pairing_rerun",
    "pairing_to_table",
    "registration_open",
    "sweep",
    "time_control",
]
