"""The list of events to organise, a new event, its settings and its overview."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from tournaments import api as event_api
from tournaments import organiser_api, services
from tournaments import selectors as event_selectors
from tournaments.models import Event
from web.organise.base import (
    CREATE,
    EDIT,
    FINISHED_LIMIT,
    RUN,
    Refusal,
    Refuse,
    allowed,
    done_redirect,
    entry_counts,
    event_or_404,
    event_page,
    event_tabs,
    is_before_start,
    may,
    organiser_page,
    refusal_page,
    render_event_page,
    valid_data,
)
from web.organise.forms import EventForm

# --- the events -------------------------------------------------------------------------------


@organiser_page
def events(request: HttpRequest) -> HttpResponse:
    """The events to organise, by state (drafts, open, running, finished): those the user
    organises (created or co-organised); for someone who may manage every event, all of
    them, theirs first."""
    user = request.user
    yours = event_selectors.organised_by(user)
    listed = event_selectors.event_list()
    everyone = user.has_perm(event_selectors.MANAGE_ALL_EVENTS)
    if everyone:
        listed = listed.annotate(
            yours=Case(When(yours, then=Value(1)), default=Value(0), output_field=IntegerField())
        ).order_by("-yours", "-id")
    else:
        listed = listed.filter(yours).order_by("-id")
    over = listed.filter(status__in=[Event.Status.FINISHED, Event.Status.CANCELLED])
    groups = [
        (pgettext("events", "Drafts"), list(listed.filter(status=Event.Status.DRAFT))),
        (
            pgettext("events", "Open for registration"),
            list(listed.filter(status=Event.Status.REGISTRATION)),
        ),
        (pgettext("events", "Running"), list(listed.filter(status=Event.Status.RUNNING))),
        (pgettext("events", "Finished"), list(over[:FINISHED_LIMIT])),
    ]
    context = {"groups": groups, "may": may(user), "everyone": everyone}
    return render(request, "organise/events.html", context)


@organiser_page
def event_new(request: HttpRequest) -> HttpResponse:
    """A new event: the form, checked as ``POST /api/events`` checks it, then created."""
    if not allowed(request.user, CREATE):
        return refusal_page(request)
    form = EventForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        body = event_api.EventCreateSerializer(data=form.payload())
        if not body.is_valid():
            form.add_api_errors(body.errors)
        else:
            data = dict(body.validated_data)
            try:
                event = services.event_create(
                    name=data.pop("name"),
                    format=data.pop("format"),
                    created_by=request.user,
                    **data,
                )
            except services.TournamentError as error:
                form.add_refusal(error)
            else:
                return done_redirect(
                    request,
                    _("%(name)s is created, as a draft: add its entrants.") % {"name": event.name},
                    reverse("web:organise:entrants", args=[event.pk]),
                )
    context = {"form": form, "event": None, "zone": timezone.get_current_timezone_name()}
    return render(request, "organise/event_form.html", context, status=400 if form.errors else 200)


@event_page
def event_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """An event's settings, changed as ``PATCH /api/events/{id}`` changes them (once it has
    started, only its name)."""
    event = event_or_404(pk)
    if not allowed(request.user, EDIT):
        return refusal_page(request)
    form = EventForm(request.POST or None, event=event)
    if request.method == "POST" and form.is_valid():
        body = event_api.EventCreateSerializer(data=form.payload(), partial=True)
        if not body.is_valid():
            form.add_api_errors(body.errors)
        else:
            try:
                services.event_update(event=event, by=request.user, **body.validated_data)
            except services.TournamentError as error:
                form.add_refusal(error)
            else:
                return done_redirect(request, _("Saved."), reverse("web:organise:event", args=[pk]))
    context = {
        "event": event,
        "form": form,
        "tab": "edit",
        "tabs": event_tabs(event),
        "started": not is_before_start(event),
        "zone": timezone.get_current_timezone_name(),
    }
    return render(request, "organise/event_form.html", context, status=400 if form.errors else 200)


@event_page
def event_overview(request: HttpRequest, pk: int) -> HttpResponse:
    """An event at a glance, its next step, and registration: open, close, cancel."""
    event = event_or_404(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ("open_registration", "close_registration", "cancel"):
            raise Http404("No such action.")
        if not allowed(request.user, RUN):
            return refusal_page(request)
        try:
            if action == "cancel":
                reason = valid_data(
                    organiser_api.ReasonSerializer,
                    {"reason": request.POST.get("reason", "")},
                    action,
                )["reason"]
                services.event_cancel(event=event, by=request.user, reason=reason)
                return done_redirect(
                    request, _("%(name)s is cancelled.") % {"name": event.name}, request.path
                )
            service = {
                "open_registration": services.event_open_registration,
                "close_registration": services.event_close_registration,
            }[action]
            service(event=event, by=request.user)
            opened = action == "open_registration"
            note = _("Registration is open.") if opened else _("Registration is closed.")
            return done_redirect(request, note, request.path)
        except Refuse as refused:
            refusal = refused.refusal
        except services.TournamentError as error:
            refusal = Refusal.of(action, error)
        event = event_or_404(pk)
    context = {
        "counts": entry_counts(event),
        "registration_open": services.registration_open(event),
        "current_round": event.rounds.order_by("-number").first(),
    }
    return render_event_page(request, "organise/overview.html", event, "overview", context, refusal)
