"""The organiser API's routes, under ``/api/`` (``config/urls.py`` includes the package)."""

from __future__ import annotations

from django.urls import path

from tournaments.organiser_api.entrants import BotsAddView, GuestsAddView, PlayersAddView
from tournaments.organiser_api.entries import (
    EntryCheckInView,
    EntryDisqualifyView,
    EntryReinstateView,
    EntryWithdrawView,
)
from tournaments.organiser_api.events import (
    CancelView,
    CloseRegistrationView,
    EventLogView,
    OpenRegistrationView,
    SeedView,
    StartView,
)
from tournaments.organiser_api.files import ImportView, TrfView
from tournaments.organiser_api.pairings import OverrideView, RerunView, ToTableView
from tournaments.organiser_api.webhooks import DeliveriesView, ResendView, WebhooksView

urlpatterns = [
    path(
        "events/<int:pk>/open-registration",
        OpenRegistrationView.as_view(),
        name="event-open-registration",
    ),
    path(
        "events/<int:pk>/close-registration",
        CloseRegistrationView.as_view(),
        name="event-close-registration",
    ),
    path("events/<int:pk>/players", PlayersAddView.as_view(), name="event-players"),
    path("events/<int:pk>/guests", GuestsAddView.as_view(), name="event-guests"),
    path("events/<int:pk>/bots", BotsAddView.as_view(), name="event-bots"),
    path("events/<int:pk>/import", ImportView.as_view(), name="event-import"),
    path("events/<int:pk>/seed", SeedView.as_view(), name="event-seed"),
    path("events/<int:pk>/start", StartView.as_view(), name="event-start"),
    path("events/<int:pk>/cancel", CancelView.as_view(), name="event-cancel"),
    path("events/<int:pk>/log", EventLogView.as_view(), name="event-log"),
    path("events/<int:pk>/trf", TrfView.as_view(), name="event-trf"),
    path(
        "events/<int:pk>/entries/<int:entry_id>/withdraw",
        EntryWithdrawView.as_view(),
        name="event-entry-withdraw",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/disqualify",
        EntryDisqualifyView.as_view(),
        name="event-entry-disqualify",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/reinstate",
        EntryReinstateView.as_view(),
        name="event-entry-reinstate",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/check-in",
        EntryCheckInView.as_view(),
        name="event-entry-check-in",
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/override",
        OverrideView.as_view(),
        name="event-pairing-override",
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/rerun", RerunView.as_view(), name="event-pairing-rerun"
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/table",
        ToTableView.as_view(),
        name="event-pairing-table",
    ),
    path("events/<int:pk>/webhooks", WebhooksView.as_view(), name="event-webhooks"),
    path(
        "events/<int:pk>/webhooks/<int:webhook_id>/deliveries",
        DeliveriesView.as_view(),
        name="event-webhook-deliveries",
    ),
    path(
        "events/<int:pk>/webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/resend",
        ResendView.as_view(),
        name="event-webhook-resend",
    ),
]
