"""Seeding (by rating, at random, by hand) and the start of an event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments import organiser_api, services
from tournaments.models import Entry, Event, Seeding
from web.organise.base import (
    RUN,
    Refusal,
    Refuse,
    allowed,
    done_redirect,
    entry_counts,
    event_entries,
    event_or_404,
    event_page,
    posted_int,
    refusal_page,
    render_event_page,
    valid_data,
)

# --- seeding and the start --------------------------------------------------------------------


@event_page
def start(request: HttpRequest, pk: int) -> HttpResponse:
    """Seeding (by rating, at random, or in an order given by dragging or by numbers) and the
    start, as ``POST /api/events/{id}/seed`` and ``/start``."""
    event = event_or_404(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ("seed", "start"):
            raise Http404("No such action.")
        if not allowed(request.user, RUN):
            return refusal_page(request)
        try:
            if action == "seed":
                _seed(request, event)
                return done_redirect(request, _("Seeded."), request.path)
            try:
                event = services.event_start(event=event, by=request.user)
            except services.TournamentError as error:
                raise Refuse(Refusal.of("start", error)) from None
            return done_redirect(
                request,
                _("%(name)s has started: round 1 is paired.") % {"name": event.name},
                reverse("web:organise:round", args=[pk]),
            )
        except Refuse as refused:
            refusal = refused.refusal
        event = event_or_404(pk)
    entries = [e for e in event_entries(event) if e.is_active]
    counts = entry_counts(event)
    rows = []
    for number, entry in enumerate(entries, start=1):
        name = f"place-{entry.pk}"
        place = request.POST.get(name, "") if refusal else str(number)
        rows.append(SeedRow(entry=entry, field=name, place=place))
    context = {
        "rows": rows,
        "counts": counts,
        "seedings": Seeding.choices,
        "check_in": event.check_in_opens_at is not None,
        "will_play": counts["checked_in"] if event.check_in_opens_at else counts["active"],
    }
    return render_event_page(request, "organise/start.html", event, "start", context, refusal)


@dataclass(frozen=True)
class SeedRow:
    """An entrant in the seeding list: its place's input (``place-<entry id>``) and value."""

    entry: Entry
    field: str
    place: str


def _seed(request: HttpRequest, event: Event) -> None:
    """The API's seeding: the method, a random seed to record, or the manual order (the
    dragged list's numbers: ``place-<entry id>``, lowest first, ties as listed)."""
    method = request.POST.get("seeding", "")
    data: dict[str, Any] = {"seeding": method}
    if method == Seeding.RANDOM and request.POST.get("seed", "").strip():
        data["seed"] = posted_int(request, "seed")
    if method == Seeding.MANUAL:
        places = []
        for key, raw in request.POST.items():
            if key.startswith("place-") and key[6:].isdigit():
                number = raw.strip()
                if not (number.isdigit() and len(number) < 6):
                    raise Refuse(
                        Refusal("seed", {f"place-{key[6:]}": [_("A place is a whole number.")]})
                    )
                places.append((int(number), len(places), int(key[6:])))
        data["order"] = [entry for _place, _order, entry in sorted(places)]
    body = valid_data(organiser_api.SeedSerializer, data, "seed")
    try:
        services.event_seed(event=event, by=request.user, **body)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("seed", error)) from None
