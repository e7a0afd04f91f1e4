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
"""

from __future__ import annotations

import functools
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Case, Count, IntegerField, Q, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone

from accounts import services as accounts
from accounts.models import NAME_MAX_LENGTH, Player
from accounts.selectors import player_for_user
from config.api import StaffModelPermissions
from games import table_api, tables
from games.models import Match
from games.services import PlayError
from tournaments import api as event_api
from tournaments import interchange, organiser_api, services
from tournaments import selectors as event_selectors
from tournaments.models import Entry, Event, Pairing, Round, Seeding, Venue
from web.organise_forms import EventForm
from web.selectors import BOT_STRENGTHS

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


def _refused(request: HttpRequest, status: int = 403, message: str = "") -> HttpResponse:
    return render(
        request,
        "organise/refused.html",
        {"message": message or StaffModelPermissions.message, "not_yours": bool(message)},
        status=status,
    )


def _organiser_page(view):
    """A page for organisers: signed in (else the sign-in page), and allowed some action of
    the organiser API (else 403 with the API's words)."""

    @signin_required
    @functools.wraps(view)
    def page(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not may_organise(request.user):
            return _refused(request)
        with timezone.override(_zone(request)):
            return view(request, *args, **kwargs)

    return page


def _event_page(view):
    """A page of one event (``pk``) for its organisers: an organiser's page, and the event
    one the user may change (:func:`tournaments.selectors.may_manage`, the organiser API's
    rule), else 403 with the API's words naming its organisers."""

    @_organiser_page
    @functools.wraps(view)
    def page(request: HttpRequest, pk: int, *args, **kwargs) -> HttpResponse:
        event = _event(pk)
        if not event_selectors.may_manage(request.user, event):
            return _refused(request, message=event_api.not_your_event(event))
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


def _valid(serializer_class, data: dict, action: str, target: Any = "") -> dict:
    """The API serializer's validated data; a :class:`Refusal` (raised) with its errors."""
    body = serializer_class(data=data)
    if not body.is_valid():
        raise _Refuse(Refusal.invalid(action, body.errors, target))
    return body.validated_data


class _Refuse(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.action)
        self.refusal = refusal


def _posted_int(request: HttpRequest, name: str) -> int | str:
    """A number typed or chosen in a form, as the API's JSON would carry it (text that is no
    whole number is passed on as text, for the API's serializer to refuse in its words)."""
    raw = request.POST.get(name, "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else raw


def _done(request: HttpRequest, note: str, to: str) -> HttpResponse:
    messages.success(request, note)
    return redirect(to)


# --- shared bits of the event pages -----------------------------------------------------------


def _event(pk: int) -> Event:
    return get_object_or_404(event_selectors.event_list(), pk=pk)


def _before_start(event: Event) -> bool:
    return event.status in (Event.Status.DRAFT, Event.Status.REGISTRATION)


def _tabs(event: Event) -> list[tuple[str, str, str]]:
    """The event's organiser pages: (key, title, url), those that fit its state."""
    pk = event.pk
    tabs = [("overview", "Overview", reverse("web:organise:event", args=[pk]))]
    if not event.is_over:
        tabs.append(("edit", "Settings", reverse("web:organise:edit", args=[pk])))
        tabs.append(("entrants", "Entrants", reverse("web:organise:entrants", args=[pk])))
    if _before_start(event):
        tabs.append(("check_in", "Check-in", reverse("web:organise:check_in", args=[pk])))
        tabs.append(("start", "Seeding and start", reverse("web:organise:start", args=[pk])))
    else:
        tabs.append(("round", "Rounds", reverse("web:organise:round", args=[pk])))
    return tabs


def _page(
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
        "tabs": _tabs(event),
        "may": may(request.user),
        "refusal": refusal,
        "errors": refusal.errors if refusal else {},
        "posted": request.POST if refusal else {},
        **context,
    }
    return render(request, template, context, status=refusal.status if refusal else 200)


def _counts(event: Event) -> dict[str, int]:
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


# --- the events -------------------------------------------------------------------------------


@_organiser_page
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
        ("Drafts", list(listed.filter(status=Event.Status.DRAFT))),
        ("Open for registration", list(listed.filter(status=Event.Status.REGISTRATION))),
        ("Running", list(listed.filter(status=Event.Status.RUNNING))),
        ("Finished", list(over[:FINISHED_LIMIT])),
    ]
    context = {"groups": groups, "may": may(user), "everyone": everyone}
    return render(request, "organise/events.html", context)


@_organiser_page
def event_new(request: HttpRequest) -> HttpResponse:
    """A new event: the form, checked as ``POST /api/events`` checks it, then created."""
    if not allowed(request.user, CREATE):
        return _refused(request)
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
                return _done(
                    request,
                    f"{event.name} is created, as a draft: add its entrants.",
                    reverse("web:organise:entrants", args=[event.pk]),
                )
    context = {"form": form, "event": None, "zone": timezone.get_current_timezone_name()}
    return render(request, "organise/event_form.html", context, status=400 if form.errors else 200)


@_event_page
def event_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """An event's settings, changed as ``PATCH /api/events/{id}`` changes them (once it has
    started, only its name)."""
    event = _event(pk)
    if not allowed(request.user, EDIT):
        return _refused(request)
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
                return _done(request, "Saved.", reverse("web:organise:event", args=[pk]))
    context = {
        "event": event,
        "form": form,
        "tab": "edit",
        "tabs": _tabs(event),
        "started": not _before_start(event),
        "zone": timezone.get_current_timezone_name(),
    }
    return render(request, "organise/event_form.html", context, status=400 if form.errors else 200)


@_event_page
def event_overview(request: HttpRequest, pk: int) -> HttpResponse:
    """An event at a glance, its next step, and registration: open, close, cancel."""
    event = _event(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ("open_registration", "close_registration", "cancel"):
            raise Http404("No such action.")
        if not allowed(request.user, RUN):
            return _refused(request)
        try:
            if action == "cancel":
                reason = _valid(
                    organiser_api.ReasonSerializer,
                    {"reason": request.POST.get("reason", "")},
                    action,
                )["reason"]
                services.event_cancel(event=event, by=request.user, reason=reason)
                return _done(request, f"{event.name} is cancelled.", request.path)
            service = {
                "open_registration": services.event_open_registration,
                "close_registration": services.event_close_registration,
            }[action]
            service(event=event, by=request.user)
            opened = action == "open_registration"
            note = "Registration is open." if opened else "Registration is closed."
            return _done(request, note, request.path)
        except _Refuse as refused:
            refusal = refused.refusal
        except services.TournamentError as error:
            refusal = Refusal.of(action, error)
        event = _event(pk)
    context = {
        "counts": _counts(event),
        "registration_open": services.registration_open(event),
        "current_round": event.rounds.order_by("-number").first(),
    }
    return _page(request, "organise/overview.html", event, "overview", context, refusal)


# --- entrants ---------------------------------------------------------------------------------


def _entries(event: Event) -> list[Entry]:
    """Active entries (by seed, then as they came), then those withdrawn or disqualified."""
    order = Case(
        When(status__in=Entry.ACTIVE, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    return list(
        event.entries.select_related("player")
        .annotate(gone=order)
        .order_by("gone", "seed", "registered_at", "pk")
    )


def _found(event: Event, find: str) -> list[Player]:
    """Players whose name holds ``find`` and who are not entered yet (people with an account
    still open, guests, bots)."""
    if not find:
        return []
    entered = event.entries.filter(status__in=Entry.ACTIVE).values("player")
    return list(
        Player.objects.filter(name__icontains=find)
        .filter(~Q(kind=Player.Kind.HUMAN) | Q(user__is_active=True))
        .exclude(pk__in=entered)
        .order_by("name")[:FOUND_LIMIT]
    )


def _guests_offered() -> bool:
    return hasattr(organiser_api, "GuestsAddView")


@_event_page
def entrants(request: HttpRequest, pk: int) -> HttpResponse:
    """Who plays: find players by name and add them, add a walk-in by name, import a list,
    add named house bots by strength; withdraw, disqualify, reinstate."""
    event = _event(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        handler = ENTRANT_ACTIONS.get(action)
        if handler is None:
            raise Http404("No such action.")
        if not allowed(request.user, ENTRY_ACTION_KINDS.get(action, RUN)):
            return _refused(request)
        try:
            note = handler(request, event)
            return _done(request, note, request.get_full_path())
        except _Refuse as refused:
            refusal = refused.refusal
        event = _event(pk)
    find = request.GET.get("find", "").strip()[:NAME_MAX_LENGTH]
    context = {
        "entries": _entries(event),
        "counts": _counts(event),
        "find": find,
        "found": _found(event, find),
        "strengths": [(s, f"{label.split(':')[0]} ({s})") for s, label in BOT_STRENGTHS],
        "guests": _guests_offered(),
        "before_start": _before_start(event),
    }
    return _page(request, "organise/entrants.html", event, "entrants", context, refusal)


def _add_player(request: HttpRequest, event: Event) -> str:
    data = _valid(
        organiser_api.PlayerAddSerializer, {"player": _posted_int(request, "player")}, "add_player"
    )
    player = Player.objects.filter(pk=data["player"]).first()
    if player is None:
        raise _Refuse(Refusal("add_player", {"player": ["No player has this id."]}))
    try:
        services.entry_add(event=event, player=player, by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("add_player", error, player.pk)) from None
    return f"{player.name} is entered."


def _add_guest(request: HttpRequest, event: Event) -> str:
    """A walk-in by name: a guest player created and entered, or neither (as ``POST
    /api/events/{id}/guests``)."""
    if not _guests_offered():
        raise Http404("No such action.")
    data = _valid(organiser_api.GuestAddSerializer, {"name": request.POST.get("name", "")}, "guest")
    try:
        with transaction.atomic():  # a refused entry leaves no guest behind
            guest = accounts.guest_create(name=data["name"])
            services.entry_add(event=event, player=guest, by=request.user)
    except ValidationError as error:
        answer = organiser_api.guest_name_refusal(error)
        words = answer.data.get("errors", {}).get("name") or [answer.data["detail"]]
        raise _Refuse(Refusal("guest", {"name": words}, answer.status_code)) from None
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("guest", error, field="name")) from None
    return f"{guest.name} is entered, as a guest."


def _import(request: HttpRequest, event: Event) -> str:
    text = request.POST.get("csv", "")
    upload = request.FILES.get("file")
    if upload is not None:
        try:
            raw = upload.read(IMPORT_MAX_BYTES)
            # Past the limit the text is refused for its length: a character cut there is not
            # the file's fault.
            text = raw.decode("utf-8-sig", "strict" if len(raw) < IMPORT_MAX_BYTES else "ignore")
        except UnicodeDecodeError:
            raise _Refuse(
                Refusal("import", {"csv": ["The file is not text in UTF-8: save it as CSV UTF-8."]})
            ) from None
    text = with_header(text)
    data = _valid(organiser_api.ImportSerializer, {"csv": text}, "import")
    try:
        entries = interchange.entries_import(event=event, text=data["csv"], by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("import", error, field="csv")) from None
    return f"{len(entries)} entered from the list."


def with_header(text: str) -> str:
    """A plain list of names (one a line, no header) as the CSV the import reads; a CSV with
    its header as it is."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    columns = {c.strip().lower() for c in first.split(",")}
    if not text.strip() or columns & {"name", "player_id"}:
        return text
    return "name\n" + text


def _add_bots(request: HttpRequest, event: Event) -> str:
    data = _valid(
        organiser_api.BotsAddSerializer,
        {"count": _posted_int(request, "count"), "strategy": request.POST.get("strategy", "")},
        "bots",
    )
    try:
        with transaction.atomic():
            entries = services.bots_add(event=event, by=request.user, **data)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("bots", error)) from None
    names = ", ".join(e.player.name for e in entries)
    return f"Entered: {names}."


def _posted_entry(request: HttpRequest, event: Event) -> Entry:
    raw = _posted_int(request, "entry")
    if not isinstance(raw, int):
        raise Http404("No such entry.")
    return get_object_or_404(Entry.objects.select_related("player"), pk=raw, event=event)


def _withdraw(request: HttpRequest, event: Event, *, disqualify: bool = False) -> str:
    entry = _posted_entry(request, event)
    data = _valid(
        organiser_api.ReasonSerializer,
        {"reason": request.POST.get("reason", "")},
        "entry",
        entry.pk,
    )
    try:
        services.entry_withdraw(
            entry=entry, by=request.user, reason=data["reason"], disqualify=disqualify
        )
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("entry", error, entry.pk)) from None
    return f"{entry.player.name} is {'disqualified' if disqualify else 'withdrawn'}."


def _reinstate(request: HttpRequest, event: Event) -> str:
    entry = _posted_entry(request, event)
    try:
        services.entry_reinstate(entry=entry, by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("entry", error, entry.pk)) from None
    return f"{entry.player.name} is back in."


ENTRANT_ACTIONS = {
    "add_player": _add_player,
    "guest": _add_guest,
    "import": _import,
    "bots": _add_bots,
    "withdraw": _withdraw,
    "disqualify": lambda request, event: _withdraw(request, event, disqualify=True),
    "reinstate": _reinstate,
}
#: Actions on one entry need the API's entry permission; the others its event permission.
ENTRY_ACTION_KINDS = {"withdraw": ENTRIES, "disqualify": ENTRIES, "reinstate": ENTRIES}


# --- check-in ---------------------------------------------------------------------------------


@_event_page
def check_in(request: HttpRequest, pk: int) -> HttpResponse:
    """The check-in desk: a button per entrant (tap to check in, tap again to undo), how many
    are missing; and opening check-in now."""
    event = _event(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        handler = CHECK_IN_ACTIONS.get(action)
        if handler is None:
            raise Http404("No such action.")
        if not allowed(request.user, RUN if action == "open" else ENTRIES):
            return _refused(request)
        try:
            note, anchor = handler(request, event)
            return _done(request, note, request.path + anchor)
        except _Refuse as refused:
            refusal = refused.refusal
        event = _event(pk)
    entries = [e for e in _entries(event) if e.is_active]
    people = [e for e in entries if not e.player.is_bot]
    bots = [e for e in entries if e.player.is_bot]
    now = timezone.now()
    context = {
        "people": sorted(people, key=lambda e: e.player.name.casefold()),
        "bots": sorted(bots, key=lambda e: e.player.name.casefold()),
        "counts": _counts(event),
        "missing": sum(1 for e in entries if e.status == Entry.Status.REGISTERED),
        "missing_people": sum(1 for e in people if e.status == Entry.Status.REGISTERED),
        "missing_bots": sum(1 for e in bots if e.status == Entry.Status.REGISTERED),
        "desk_open": event.status == Event.Status.REGISTRATION
        and event.check_in_opens_at is not None
        and event.check_in_opens_at <= now,
        "before_start": _before_start(event),
    }
    return _page(request, "organise/check_in.html", event, "check_in", context, refusal)


def _desk_tap(request: HttpRequest, event: Event) -> tuple[str, str]:
    """Check an entrant in, or (``undo``) take their check-in back."""
    entry = _posted_entry(request, event)
    undo = request.POST.get("undo") == "1"
    try:
        if undo:
            services.entry_check_in_undo(entry=entry, by=request.user)
        else:
            services.entry_check_in(entry=entry, by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("desk", error, entry.pk)) from None
    note = f"{entry.player.name}: {'not checked in' if undo else 'checked in'}."
    return note, f"#entry-{entry.pk}"


def _desk_bots(request: HttpRequest, event: Event) -> tuple[str, str]:
    """Check in every house bot entered (a bot is there whenever it is asked to play)."""
    bots = event.entries.filter(status=Entry.Status.REGISTERED, player__kind=Player.Kind.BOT)
    try:
        with transaction.atomic():
            count = 0
            for entry in bots:
                services.entry_check_in(entry=entry, by=request.user)
                count += 1
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("desk", error)) from None
    return f"{count} bot{'s' if count != 1 else ''} checked in.", "#bots"


def _desk_open(request: HttpRequest, event: Event) -> tuple[str, str]:
    """Open check-in now: registration opens too if the event is a draft (check-in is
    during registration), and ``check_in_opens_at`` becomes now (as ``PATCH`` sets it). A
    window set in minutes before the start gives way: opening by hand is the organiser's
    later word."""
    try:
        with transaction.atomic():
            if event.status == Event.Status.DRAFT:
                event = services.event_open_registration(event=event, by=request.user)
            now = {"check_in_opens_at": timezone.now()}
            if event.check_in_minutes is not None:
                now["check_in_minutes"] = None
            services.event_update(event=event, by=request.user, **now)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("open", error)) from None
    return "Check-in is open: tap each player who is here.", ""


CHECK_IN_ACTIONS = {"tap": _desk_tap, "bots": _desk_bots, "open": _desk_open}


# --- seeding and the start --------------------------------------------------------------------


@_event_page
def start(request: HttpRequest, pk: int) -> HttpResponse:
    """Seeding (by rating, at random, or in an order given by dragging or by numbers) and the
    start, as ``POST /api/events/{id}/seed`` and ``/start``."""
    event = _event(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ("seed", "start"):
            raise Http404("No such action.")
        if not allowed(request.user, RUN):
            return _refused(request)
        try:
            if action == "seed":
                _seed(request, event)
                return _done(request, "Seeded.", request.path)
            try:
                event = services.event_start(event=event, by=request.user)
            except services.TournamentError as error:
                raise _Refuse(Refusal.of("start", error)) from None
            return _done(
                request,
                f"{event.name} has started: round 1 is paired.",
                reverse("web:organise:round", args=[pk]),
            )
        except _Refuse as refused:
            refusal = refused.refusal
        event = _event(pk)
    entries = [e for e in _entries(event) if e.is_active]
    counts = _counts(event)
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
    return _page(request, "organise/start.html", event, "start", context, refusal)


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
        data["seed"] = _posted_int(request, "seed")
    if method == Seeding.MANUAL:
        places = []
        for key, raw in request.POST.items():
            if key.startswith("place-") and key[6:].isdigit():
                number = raw.strip()
                if not (number.isdigit() and len(number) < 6):
                    raise _Refuse(
                        Refusal("seed", {f"place-{key[6:]}": ["A place is a whole number."]})
                    )
                places.append((int(number), len(places), int(key[6:])))
        data["order"] = [entry for _, _, entry in sorted(places)]
    body = _valid(organiser_api.SeedSerializer, data, "seed")
    try:
        services.event_seed(event=event, by=request.user, **body)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("seed", error)) from None


# --- the round --------------------------------------------------------------------------------


@dataclass
class Table:
    """One pairing of the round as the organiser follows it."""

    pairing: Pairing
    state: str
    label: str
    where: str
    players: list[Player]
    #: Games won so far in the pairing's order, from the match (a table match's hands).
    games: tuple[int, int] | None
    #: A table match its hands decided: who won by them (waiting for confirmation).
    decided_for: Player | None
    may_override: bool
    may_rerun: bool
    may_confirm: bool
    may_to_table: bool


def _state(pairing: Pairing) -> tuple[str, str]:
    """(key, words) of where a pairing stands: waiting to start, in play, waiting for
    confirmation, disputed, finished, no-show, ..."""
    if pairing.status == Pairing.Status.BYE:
        return "bye", "Bye"
    if pairing.status == Pairing.Status.SKIPPED:
        return "skipped", "Not needed"
    if pairing.status == Pairing.Status.WAITING:
        return "waiting", "Waiting for earlier results"
    if pairing.status == Pairing.Status.FINISHED:
        if pairing.result in (Pairing.Result.NO_SHOW, Pairing.Result.DOUBLE_NO_SHOW):
            return "no_show", "No-show"
        return "finished", "Finished"
    match = pairing.match
    if match is None:
        return "waiting", "Waiting to be played"
    confirmation = getattr(match, "confirmation", "")
    if confirmation == "disputed":
        return "disputed", "Disputed"
    if confirmation == "awaiting":
        return "confirming", "Waiting for confirmation"
    if match.status == Match.Status.SCHEDULED:
        return "starting", "Waiting to start"
    if match.status == Match.Status.ACTIVE:
        return "in_play", "In play"
    if match.status == Match.Status.CANCELLED:
        return "failed", "Cancelled"
    if match.end_reason == Match.EndReason.BOT_FAILURE:
        return "failed", "A bot failed"
    return "finished", "Finished"


def _where(pairing: Pairing) -> str:
    table = getattr(pairing.match, "table", None) if pairing.match else None
    return f"Table {table}" if table else ""


def _tables(event: Event, rounds: list[Round]) -> list[Table]:
    pairings = (
        Pairing.objects.filter(event=event, round__in=rounds)
        .select_related(
            "round",
            "match",
            "match__player_a",
            "match__player_b",
            "match__reported_by",
            "entry_a__player",
            "entry_b__player",
            "winner__player",
        )
        .order_by("round__number", "table")
    )
    running = event.status == Event.Status.RUNNING
    shown = []
    for pairing in pairings:
        state, label = _state(pairing)
        players = [e.player for e in (pairing.entry_a, pairing.entry_b) if e is not None]
        match = pairing.match
        games = decided_for = None
        if match is not None and len(players) == 2:
            flip = match.player_a_id != players[0].pk
            games = (match.games_won_b, match.games_won_a) if flip else match.games_won
            if state in ("confirming", "disputed") and games[0] != games[1]:
                decided_for = players[0] if games[0] > games[1] else players[1]
        bot_match = match is not None and match.is_bot_match
        shown.append(
            Table(
                pairing=pairing,
                state=state,
                label=label,
                where=_where(pairing),
                players=players,
                games=games,
                decided_for=decided_for,
                may_override=running
                and len(players) == 2
                and pairing.status not in (Pairing.Status.BYE, Pairing.Status.SKIPPED),
                may_rerun=running and bot_match and state == "failed",
                may_confirm=running and state in ("confirming", "disputed"),
                may_to_table=running
                and event.venue == Venue.MIXED
                and state == "starting"
                and not bot_match
                and not match.at_table,
            )
        )
    return shown


@_event_page
def round_control(request: HttpRequest, pk: int) -> HttpResponse:
    """The round in play: every match with its table or link and its state; overrides with
    a reason and re-runs of failed bot matches (``/pairings/{key}/override``, ``/rerun``)."""
    event = _event(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ROUND_ACTIONS:
            raise Http404("No such action.")
        may_act, handler = ROUND_ACTIONS[action]
        if not may_act(request.user):
            return _refused(request)
        pairing = get_object_or_404(
            Pairing.objects.select_related("match"),
            event=event,
            key=request.POST.get("pairing", ""),
        )
        try:
            note = handler(request, pairing)
            return _done(request, note, request.get_full_path() + f"#pairing-{pairing.key}")
        except _Refuse as refused:
            refusal = refused.refusal
        event = _event(pk)
    rounds = list(event.rounds.order_by("number"))
    chosen = request.GET.get("round", "")
    if chosen.isdigit():
        shown = [r for r in rounds if r.number == int(chosen)]
    else:
        shown = [r for r in rounds if r.status == Round.Status.RUNNING] or rounds[-1:]
    tables = _tables(event, shown)
    context = {
        "rounds": rounds,
        "shown": shown,
        "tables": tables,
        "live": sum(1 for t in tables if t.state in ("starting", "in_play", "confirming")),
        "attention": sum(1 for t in tables if t.state in ("disputed", "failed")),
    }
    return _page(request, "organise/round.html", event, "round", context, refusal)


def _to_table(request: HttpRequest, pairing: Pairing) -> str:
    try:
        pairing = services.pairing_to_table(pairing=pairing, by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("to_table", error, pairing.key)) from None
    pairing.match.refresh_from_db()
    return f"{pairing.key} is played at table {pairing.match.table}: its players enter the hands."


def _confirm(request: HttpRequest, pairing: Pairing) -> str:
    """Confirm the result a table match's hands decided (``POST /api/matches/{id}/confirm``,
    as an organiser: with a reason for the audit log)."""
    data = _valid(
        table_api.TableReasonSerializer,
        {"reason": request.POST.get("reason", "")},
        "confirm",
        pairing.key,
    )
    if pairing.match is None:
        raise Http404("No match to confirm.")
    try:
        match = tables.result_confirm(
            match_id=pairing.match_id,
            player=player_for_user(user=request.user),
            user=request.user,
            reason=data.get("reason", ""),
        )
    except PlayError as error:
        raise _Refuse(Refusal.of("confirm", error, pairing.key, field="reason")) from None
    return f"{pairing.key}: the result is confirmed, {match.winner.name} wins."


def _override(request: HttpRequest, pairing: Pairing) -> str:
    data = _valid(
        organiser_api.OverrideSerializer,
        {"winner": _posted_int(request, "winner"), "reason": request.POST.get("reason", "")},
        "override",
        pairing.key,
    )
    winner = Player.objects.filter(pk=data["winner"]).first()
    if winner is None:
        raise _Refuse(Refusal("override", {"winner": ["No player has this id."]}, 400, pairing.key))
    try:
        services.pairing_override(
            pairing=pairing, winner=winner, reason=data["reason"], by=request.user
        )
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("override", error, pairing.key)) from None
    return f"{pairing.key}: {winner.name} wins, decided by you."


def _rerun(request: HttpRequest, pairing: Pairing) -> str:
    try:
        services.pairing_rerun(pairing=pairing, by=request.user)
    except services.TournamentError as error:
        raise _Refuse(Refusal.of("rerun", error, pairing.key)) from None
    return f"{pairing.key}: the bot match is played again."


#: The round control's actions: who may (as the API endpoint doing it says) and the handler.
ROUND_ACTIONS = {
    "override": (lambda user: allowed(user, PAIRINGS), _override),
    "rerun": (lambda user: allowed(user, PAIRINGS), _rerun),
    "to_table": (lambda user: allowed(user, TO_TABLE), _to_table),
    "confirm": (tables.may_organise, _confirm),
}
