"""Admin for organisers (staff): run events from registration to the champion.

Every action goes through a service, so the admin refuses what the API refuses and says why
in a message. Events: create and edit, open and close registration, add players (the entries
inline) and bots (a form), seed, start, cancel (with a reason). Entries: withdraw or disqualify
(with a reason), reinstate, check in. Pairings: override a result (a form: winner and reason,
audited), re-run a failed bot match. The audit log and webhook deliveries are read-only.

A module per model admin:

=================  ========================================================================
module             holds
=================  ========================================================================
``base``           the intermediate form page, an action run on each object with a message
                   per refusal (and with a reason asked first), a webhook's secret for those
                   who may change it
``event_forms``    an event's settings in fields (rules, tiebreaks, each format's options),
                   a started event's form, the bots to add
``events``         the event admin: its inlines (entries, webhooks), add bots, its actions
``entries``        the entry admin: withdraw, disqualify, reinstate, check in
``pairings``       the pairing admin: a result overridden, failed bot matches re-run
``audit``          the events' audit log, read-only
``webhooks``       the webhooks and their deliveries (read-only but for "Deliver again")
=================  ========================================================================

The modules import each other one way only: ``base`` and ``event_forms`` first, the admins
on them, ``events`` on ``event_forms``. Importing the package (Django's admin autodiscovery
does) registers every model admin; what other code imported from the single
``tournaments.admin`` module is re-exported here.
"""

from tournaments.admin.audit import EventLogAdmin
from tournaments.admin.base import (
    FORM_TEMPLATE,
    URL_FIELDS,
    ReasonForm,
    SecretForThoseWhoMayChange,
    action_with_reason,
    report,
)
from tournaments.admin.entries import EntryAdmin
from tournaments.admin.event_forms import AddBotsForm, EventForm, StartedEventForm
from tournaments.admin.events import EntryInline, EntryInlineForm, EventAdmin, WebhookInline
from tournaments.admin.pairings import OverrideForm, PairingAdmin
from tournaments.admin.webhooks import DeliveryInline, WebhookAdmin, WebhookDeliveryAdmin

# The settings' field lists the event form is built from, as the single module offered them.
from tournaments.settings_fields import FORMAT_FIELDS, TIEBREAK_FIELDS

__all__ = [
    "FORMAT_FIELDS",
    "FORM_TEMPLATE",
    "TIEBREAK_FIELDS",
    "URL_FIELDS",
    "AddBotsForm",
    "DeliveryInline",
    "EntryAdmin",
    "EntryInline",
    "EntryInlineForm",
    "EventAdmin",
    "EventForm",
    "EventLogAdmin",
    "OverrideForm",
    "PairingAdmin",
    "ReasonForm",
    "SecretForThoseWhoMayChange",
    "StartedEventForm",
    "WebhookAdmin",
    "WebhookDeliveryAdmin",
    "WebhookInline",
    "action_with_reason",
    "report",
]
