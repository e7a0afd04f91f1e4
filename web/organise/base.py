"""What every organiser page shares: who may do what (the organiser API's permissions
asked), a refused action shown again with its reason, and the event pages' tabs and counts."""

from __future__ import annotations

import functools
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Case, Count, IntegerField, Value, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from common.api import StaffModelPermissions
from games import tables
from tournaments import api as event_api
from tournaments import organiser_api
from tournaments import selectors as event_selectors
from tournaments.models import Entry, Event

#: Sign-in first; back to the page after (``?next=``).
signin_required = login_required(login_url="web:login")

#: How many players a name search lists.
FOUND_LIMIT = 20
#: How many finished events the list shows.
FINISHED_LIMIT = 50
#: The most of an uploaded list read: past the API's limit on the text, which refuses it.
IMPORT_MAX_BYTES = 4 * organiser_api.ImportSerializer().fields["csv"].max_length + 1
#: The cookie ``organise.js`` keeps the organiser's time zone in (an IANA name).
TZ_COOKIE = "tz"


# --- who may ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Asking:
    """A request as the API's permission classes read it: who asks, with which method."""

    user: Any
    method: str


#: Each kind of action, as the API endpoint that does it (the view and its method).
CREATE = (event_api.EventListView, "POST")
EDIT = (event_api.EventDetailView, "PATCH")
RUN = (organiser_api.StartView, "POST")  # registration, entrants, seeding, start, cancel
ENTRIES = (organiser_api.EntryWithdrawView, "POST")  # withdraw, disqualify, reinstate, check in
PAIRINGS = (organiser_api.OverrideView, "POST")  # overrides, re-runs
TO_TABLE = (organiser_api.ToTableView, "POST")  # a mixed event's match moved to a table


def allowed(user, action: tuple[type, str]) -> bool:
    """Whether the organiser API lets ``user`` do ``action``: its view's permission classes,
    asked as they ask a request to that endpoint."""
    view_class, method = action
    asking = _Asking(user=user, method=method)
    view = view_class()
    view.request = asking
    view.kwargs = {}
    return all(p.has_permission(asking, view) for p in view.get_permissions())


def may(user) -> dict[str, bool]:
    """What ``user`` may do, by kind of action (for pages that show only what one may do);
    ``tables``: confirm the results of table matches (as ``POST /api/matches/{id}/confirm``
    lets an organiser)."""
    kinds = {
        "create": CREATE,
        "edit": EDIT,
        "run": RUN,
        "entries": ENTRIES,
        "pairings": PAIRINGS,
        "to_table": TO_TABLE,
    }
    return {
        **{name: allowed(user, action) for name, action in kinds.items()},
        "tables": tables.may_organise(user),
    }


def may_organise(user) -> bool:
    """Whether the organiser pages are for ``user`` (the site header links them)."""
    return bool(user and user.is_authenticated and user.is_staff) and any(may(user).values())


def refusal_page(request: HttpRequest, status: int = 403, message: str = "") -> HttpResponse:
    return render(
        request,
        "organise/refused.html",
        {"message": message or StaffModelPermissions.message, "not_yours": bool(message)},
        status=status,
    )


def organiser_page(view):
    """A page for organisers: signed in (else the sign-in page), and allowed some action of
    the organiser API (else 403 with the API's words)."""

    @signin_required
    @functools.wraps(view)
    def page(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not may_organise(request.user):
            return refusal_page(request)
        with timezone.override(_zone(request)):
            return view(request, *args, **kwargs)

    return page


def event_page(view):
    """A page of one event (``pk``) for its organisers: an organiser's page, and the event
    one the user may change (:func:`tournaments.selectors.may_manage`, the organiser API's
    rule), else 403 with the API's words naming its organisers."""

    @organiser_page
    @functools.wraps(view)
    def page(request: HttpRequest, pk: int, *args, **kwargs) -> HttpResponse:
        event = event_or_404(pk)
        if not event_selectors.may_manage(request.user, event):
            return refusal_page(request, message=event_api.not_your_event(event))
        return view(request, pk, *args, **kwargs)

    return page


def _zone(request: HttpRequest) -> zoneinfo.ZoneInfo | None:
    """The organiser's time zone (``organise.js`` keeps it in a cookie), else the site's."""
    name = request.COOKIES.get(TZ_COOKIE, "")
    if not name or len(name) > 64:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


# --- what a page shows after a refusal --------------------------------------------------------


@dataclass
class Refusal:
    """A refused action: which one (and on which entry or pairing), its messages by field
    (``detail`` for the action as a whole) and the status the API answers with."""

    action: str
    errors: dict[str, list[str]] = field(default_factory=dict)
    status: int = 400
    target: str = ""

    @classmethod
    def invalid(cls, action: str, errors: dict, target: Any = "") -> Refusal:
        """The serializer's errors (400)."""
        flat = {name: [str(m) for m in _messages(found)] for name, found in errors.items()}
        return cls(action, flat, 400, str(target))

    @classmethod
    def of(cls, action: str, error: Exception, target: Any = "", field: str = "detail") -> Refusal:
        """A service's refusal, with the status the API answers it with."""
        return cls(action, {field: [str(error)]}, getattr(error, "status", 400), str(target))


def _messages(found) -> list:
    if isinstance(found, dict):
        return [m for inner in found.values() for m in _messages(inner)]
    if isinstance(found, list | tuple):
        return [m for inner in found for m in _messages(inner)]
    return [found]


def valid_data(serializer_class, data: dict, action: str, target: Any = "") -> dict:
    """The API serializer's validated data; a :class:`Refusal` (raised) with its errors."""
    body = serializer_class(data=data)
    if not body.is_valid():
        raise Refuse(Refusal.invalid(action, body.errors, target))
    return body.validated_data


class Refuse(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.action)
        self.refusal = refusal


def posted_int(request: HttpRequest, name: str) -> int | str:
    """A number typed or chosen in a form, as the API's JSON would carry it (text that is no
    whole number is passed on as text, for the API's serializer to refuse in its words)."""
    raw = request.POST.get(name, "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else raw


def done_redirect(request: HttpRequest, note: str, to: str) -> HttpResponse:
    messages.success(request, note)
    return redirect(to)


# --- shared bits of the event pages -----------------------------------------------------------


def event_or_404(pk: int) -> Event:
    return get_object_or_404(event_selectors.event_list(), pk=pk)


def is_before_start(event: Event) -> bool:
    return event.status in (Event.Status.DRAFT, Event.Status.REGISTRATION)


def event_tabs(event: Event) -> list[tuple[str, str, str]]:
    """The event's organiser pages: (key, title, url), those that fit its state."""
    pk = event.pk
    tabs = [("overview", _("Overview"), reverse("web:organise:event", args=[pk]))]
    if not event.is_over:
        tabs.append(("edit", _("Settings"), reverse("web:organise:edit", args=[pk])))
        tabs.append(("entrants", _("Entrants"), reverse("web:organise:entrants", args=[pk])))
    if is_before_start(event):
        tabs.append(("check_in", _("Check-in"), reverse("web:organise:check_in", args=[pk])))
        tabs.append(("start", _("Seeding and start"), reverse("web:organise:start", args=[pk])))
    else:
        tabs.append(("round", _("Rounds"), reverse("web:organise:round", args=[pk])))
    return tabs


def render_event_page(
    request: HttpRequest,
    template: str,
    event: Event,
    tab: str,
    context: dict[str, Any],
    refusal: Refusal | None = None,
) -> HttpResponse:
    context = {
        "event": event,
        "tab": tab,
        "tabs": event_tabs(event),
        "may": may(request.user),
        "refusal": refusal,
        "errors": refusal.errors if refusal else {},
        "posted": request.POST if refusal else {},
        **context,
    }
    return render(request, template, context, status=refusal.status if refusal else 200)


def entry_counts(event: Event) -> dict[str, int]:
    by_status = dict(
        event.entries.values("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    registered = by_status.get(Entry.Status.REGISTERED, 0)
    checked_in = by_status.get(Entry.Status.CHECKED_IN, 0)
    return {
        "active": registered + checked_in,
        "registered": registered,
        "checked_in": checked_in,
        "withdrawn": by_status.get(Entry.Status.WITHDRAWN, 0),
        "disqualified": by_status.get(Entry.Status.DISQUALIFIED, 0),
    }


def event_entries(event: Event) -> list[Entry]:
    """Active entries (by seed, then as they came), then those withdrawn or disqualified."""
    order = Case(
        When(status__in=Entry.ACTIVE, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    return list(
        event.entries.select_related("player")
        .annotate(gone=order)
        .order_by("gone", "seed", "registered_at", "pk")
    )
