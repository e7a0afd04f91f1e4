"""The organiser's pages (``/organise/...``): run an event from the site instead of the admin.

Every page answers to the rule of the organiser API: whoever that API lets do an action may do
it here, and nobody else (the permission classes of the API's views are asked, see
:func:`allowed`). Every action validates its input with the serializer of the API endpoint
that does the same thing and calls the same service, so a refusal here is the API's refusal,
in its words, shown next to the field it names; a refused action writes nothing.

Each page is one URL: ``GET`` shows it, ``POST`` does one of its actions (``action`` names
it) and, done, redirects back to the page with a note of what changed (so a reload repeats
nothing); refused, it shows the page again with the refusal and the API's status code.
Nothing here needs JavaScript; ``organise.js`` adds conveniences (the format's options only,
the organiser's own time zone, seeding by dragging, a check-in desk that does not reload).

One module a page (or a group of pages):

==============  ============================================================================
module          holds
==============  ============================================================================
``base``        who may do what, a refusal shown again, the event pages' tabs and counts
``events``      the list of events to organise, a new event, its settings, its overview
``entrants``    the entrants (found by name, guests, an imported list, bots) and check-in
``start``       seeding and the start
``rounds``      the round control page: tables, results, overrides, bot re-runs
``forms``       the event form (settings, schedule, repeat) and its checks
``urls``        the pages' URLs
==============  ============================================================================

The pages' URLs (``urls``) name the views re-exported here.
"""

from web.organise.base import may_organise
from web.organise.entrants import check_in, entrants
from web.organise.events import event_edit, event_new, event_overview, events
from web.organise.rounds import round_control
from web.organise.start import start

__all__ = [
    "check_in",
    "entrants",
    "event_edit",
    "event_new",
    "event_overview",
    "events",
    "may_organise",
    "round_control",
    "start",
]
