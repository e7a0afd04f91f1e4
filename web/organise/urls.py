"""The organiser's pages, under ``/organise/`` (see :mod:`web.organise`)."""

from django.urls import path

from web import organise

app_name = "organise"

urlpatterns = [
    path("", organise.events, name="events"),
    path("new", organise.event_new, name="new"),
    path("<int:pk>", organise.event_overview, name="event"),
    path("<int:pk>/edit", organise.event_edit, name="edit"),
    path("<int:pk>/entrants", organise.entrants, name="entrants"),
    path("<int:pk>/check-in", organise.check_in, name="check_in"),
    path("<int:pk>/start", organise.start, name="start"),
    path("<int:pk>/round", organise.round_control, name="round"),
]
