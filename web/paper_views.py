"""An event on paper and on a projector: its printed pages and its screen view.

``/events/{id}/print/pairings``, ``/print/sheets``, ``/print/standings`` and ``/print/bracket``
are pages made to be printed on A4 or US Letter (no navigation, a page break where a sheet
ends) and read on a screen with a Print button. ``/events/{id}/screen`` is a full-screen view
for a projector that cycles through the round's pairings by table, the standings and the
bracket, and follows the event's socket (``screen.js``). The pages show what the event page
shows anyone (:mod:`web.paper`): a draft is for staff only, as on the event page.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from tournaments.models import Event
from web import paper

#: The screen view's seconds per panel: the default and the range ``?every=`` may ask.
SCREEN_EVERY = 15
SCREEN_EVERY_RANGE = (5, 600)


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


def _screen_context(event: Event) -> dict:
    bracket = paper.event_bracket(event)
    return {
        "event": event,
        "rounds": paper.pairings_by_table(event=event, bracket=bracket),
        "standings": paper.standings_table(event=event),
        "parts": paper.bracket_parts(event=event, bracket=bracket),
    }


def screen(request: HttpRequest, pk: int) -> HttpResponse:
    """The projector's view: ``?every=S`` seconds per panel (5 to 600, 15 by default)."""
    event = _event(request, pk)
    raw = request.GET.get("every", "")
    every = SCREEN_EVERY
    if raw:
        low, high = SCREEN_EVERY_RANGE
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and low <= int(raw) <= high):
            return HttpResponseBadRequest(
                _("every: a number of seconds per panel from %(low)s to %(high)s")
                % {"low": low, "high": high},
                content_type="text/plain; charset=utf-8",
            )
        every = int(raw)
    context = _screen_context(event)
    return render(request, "web/screen.html", {**context, "every": every})


def screen_panels(request: HttpRequest, pk: int) -> HttpResponse:
    """The screen view's panels alone, read again by ``screen.js`` when the event changes."""
    event = _event(request, pk)
    return render(request, "web/screen_panels.html", _screen_context(event))
