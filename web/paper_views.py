"""An event on paper: its printed pages.

``/events/{id}/print/pairings``, ``/print/sheets``, ``/print/standings`` and ``/print/bracket``
are pages made to be printed on A4 or US Letter (no navigation, a page break where a sheet
ends) and read on a screen with a Print button. The pages show what the event page shows
anyone (:mod:`web.paper`): a draft is for staff only, as on the event page.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from tournaments.models import Event
from web import paper


def _event(request: HttpRequest, pk: int) -> Event:
    event = get_object_or_404(Event, pk=pk)
    if event.status == Event.Status.DRAFT and not request.user.is_staff:
        raise Http404("No such event.")
    return event


def _round_number(request: HttpRequest) -> int | None:
    """``?round=N``: a round's number (a 404 for anything that cannot be one)."""
    raw = request.GET.get("round", "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 4:
        raise Http404("No such round.")
    return int(raw)


def _page(request: HttpRequest, event: Event, template: str, page: str, **context) -> HttpResponse:
    return render(request, template, {"event": event, "page": page, **context})


def print_pairings(request: HttpRequest, pk: int) -> HttpResponse:
    """The current round's pairings by table (``?round=N``: that round's)."""
    event = _event(request, pk)
    try:
        rounds = paper.pairings_by_table(event=event, number=_round_number(request))
    except paper.NoSuchRound:
        raise Http404("No such round.") from None
    return _page(request, event, "web/print_pairings.html", "pairings", rounds=rounds)


def print_sheets(request: HttpRequest, pk: int) -> HttpResponse:
    """One score sheet per table of the current round (``?round=N``: that round's)."""
    event = _event(request, pk)
    try:
        sheets = paper.score_sheets(event=event, number=_round_number(request))
    except paper.NoSuchRound:
        raise Http404("No such round.") from None
    return _page(request, event, "web/print_sheets.html", "sheets", sheets=sheets)


def print_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings with the columns that fit the event's format."""
    event = _event(request, pk)
    standings = paper.standings_table(event=event)
    return _page(request, event, "web/print_standings.html", "standings", standings=standings)


def print_bracket(request: HttpRequest, pk: int) -> HttpResponse:
    """The bracket of an elimination event (or a playoff); a message for other formats."""
    event = _event(request, pk)
    parts = paper.bracket_parts(event=event)
    return _page(
        request,
        event,
        "web/print_bracket.html",
        "bracket",
        parts=parts,
        has_bracket=paper.has_bracket(event),
    )
