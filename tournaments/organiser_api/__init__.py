"""The organiser API: every action of the event admin, for staff, by the same services.

Each view checks the model permission its action needs (:class:`StaffMay`: the one Django's
admin asks for the same action, e.g. ``tournaments.change_event`` to start an event,
``tournaments.change_pairing`` to override a result), calls the service the admin calls, and
answers what changed. Every write on an event is for its organisers (its creator and the
co-organisers they named) or those who may manage every event (:class:`EventOrganiser`).
Every change is written to the event's audit log, which ``GET /api/events/{id}/log`` reads. A
refused request changes nothing: 400 naming what is wrong, 409 for a state that does not allow
it (``event_started``, ``event_full``, ...), 403 ``permission_denied`` for anyone without the
permission (players included), 403 ``not_your_event`` for staff who do not organise it.

A module per resource:

==============  ===========================================================================
module          holds
==============  ===========================================================================
``base``        the staff permission (``StaffMay``), the view of one event
                (``OrganiserView``), the answers' bodies, the reason an action asks for
``events``      registration opened and closed, seeding, the start, the cancellation, the
                audit log
``entrants``    a player or bot entered by id, a walk-in guest by name, house bots; the
                refusals entering shares with the import
``files``       the entrants imported from a CSV, the TRF-16 report
``entries``     withdraw, disqualify, reinstate, check in (and its undo) one entry
``pairings``    a result overridden, a failed bot match re-run, a match moved to a table
``webhooks``    an event's webhooks, their deliveries, a delivery sent again
``urls``        the routes (``config/urls.py`` includes this package for them)
==============  ===========================================================================

The modules import each other one way only: ``base`` first, the resources on it (``files``
also on ``entrants``, whose refusals its import shares), ``urls`` on them all. A view's class
name and docstring name its operation in the API's schema, and its ``@error_codes`` stay on
it, whichever module holds it.

What other code imported from the single ``tournaments.organiser_api`` module is re-exported
here, so ``from tournaments import organiser_api`` and ``organiser_api.StartView`` keep working.
"""

from tournaments.organiser_api.base import (
    OrganiserView,
    ReasonSerializer,
    StaffMay,
    entries_body,
    event_body,
)
from tournaments.organiser_api.entrants import (
    ENTER_CODES,
    ENTER_CONFLICTS,
    BotsAddSerializer,
    BotsAddView,
    GuestAddSerializer,
    GuestsAddView,
    PlayerAddSerializer,
    PlayersAddView,
    guest_name_refusal,
)
from tournaments.organiser_api.entries import (
    EntryActionView,
    EntryCheckInView,
    EntryDisqualifyView,
    EntryReinstateView,
    EntryWithdrawView,
)
from tournaments.organiser_api.events import (
    CancelView,
    CloseRegistrationView,
    EventLogSerializer,
    EventLogView,
    OpenRegistrationView,
    SeedSerializer,
    SeedView,
    StartView,
)
from tournaments.organiser_api.files import ImportSerializer, ImportView, TrfView
from tournaments.organiser_api.pairings import (
    OverrideSerializer,
    OverrideView,
    PairingActionView,
    RerunView,
    ToTableView,
)
from tournaments.organiser_api.urls import urlpatterns
from tournaments.organiser_api.webhooks import (
    DeliveriesView,
    DeliverySerializer,
    ResendView,
    WebhookCreateSerializer,
    WebhookSerializer,
    WebhooksView,
)

__all__ = [
    "ENTER_CODES",
    "ENTER_CONFLICTS",
    "BotsAddSerializer",
    "BotsAddView",
    "CancelView",
    "CloseRegistrationView",
    "DeliveriesView",
    "DeliverySerializer",
    "EntryActionView",
    "EntryCheckInView",
    "EntryDisqualifyView",
    "EntryReinstateView",
    "EntryWithdrawView",
    "EventLogSerializer",
    "EventLogView",
    "GuestAddSerializer",
    "GuestsAddView",
    "ImportSerializer",
    "ImportView",
    "OpenRegistrationView",
    "OrganiserView",
    "OverrideSerializer",
    "OverrideView",
    "PairingActionView",
    "PlayerAddSerializer",
    "PlayersAddView",
    "ReasonSerializer",
    "RerunView",
    "ResendView",
    "SeedSerializer",
    "SeedView",
    "StaffMay",
    "StartView",
    "ToTableView",
    "TrfView",
    "WebhookCreateSerializer",
    "WebhookSerializer",
    "WebhooksView",
    "entries_body",
    "event_body",
    "guest_name_refusal",
    "urlpatterns",
]
