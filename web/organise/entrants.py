"""The entrants page (players found by name, guests, an imported list, house bots; withdraw,
disqualify, reinstate) and the check-in desk."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import services as accounts
from accounts.models import NAME_MAX_LENGTH, Player
from tournaments import interchange, organiser_api, services
from tournaments.models import Entry, Event
from web.organise.base import (
    ENTRIES,
    FOUND_LIMIT,
    IMPORT_MAX_BYTES,
    RUN,
    Refusal,
    Refuse,
    allowed,
    done_redirect,
    entry_counts,
    event_entries,
    event_or_404,
    event_page,
    is_before_start,
    posted_int,
    refusal_page,
    render_event_page,
    valid_data,
)
from web.selectors import BOT_GROUPS, BOT_STRENGTHS

# --- entrants ---------------------------------------------------------------------------------


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


@event_page
def entrants(request: HttpRequest, pk: int) -> HttpResponse:
    """Who plays: find players by name and add them, add a walk-in by name, import a list,
    add named house bots by strength; withdraw, disqualify, reinstate."""
    event = event_or_404(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        handler = ENTRANT_ACTIONS.get(action)
        if handler is None:
            raise Http404("No such action.")
        if not allowed(request.user, ENTRY_ACTION_KINDS.get(action, RUN)):
            return refusal_page(request)
        try:
            note = handler(request, event)
            return done_redirect(request, note, request.get_full_path())
        except Refuse as refused:
            refusal = refused.refusal
        event = event_or_404(pk)
    find = request.GET.get("find", "").strip()[:NAME_MAX_LENGTH]
    context = {
        "entries": event_entries(event),
        "counts": entry_counts(event),
        "find": find,
        "found": _found(event, find),
        "strengths": [(s, BOT_GROUPS[s]) for s, _label in BOT_STRENGTHS],
        "guests": _guests_offered(),
        "before_start": is_before_start(event),
    }
    return render_event_page(request, "organise/entrants.html", event, "entrants", context, refusal)


def _add_player(request: HttpRequest, event: Event) -> str:
    data = valid_data(
        organiser_api.PlayerAddSerializer, {"player": posted_int(request, "player")}, "add_player"
    )
    player = Player.objects.filter(pk=data["player"]).first()
    if player is None:
        raise Refuse(Refusal("add_player", {"player": [_("No player has this id.")]}))
    try:
        services.entry_add(event=event, player=player, by=request.user)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("add_player", error, player.pk)) from None
    return _("%(name)s is entered.") % {"name": player.name}


def _add_guest(request: HttpRequest, event: Event) -> str:
    """A walk-in by name: a guest player created and entered, or neither (as ``POST
    /api/events/{id}/guests``)."""
    if not _guests_offered():
        raise Http404("No such action.")
    data = valid_data(
        organiser_api.GuestAddSerializer, {"name": request.POST.get("name", "")}, "guest"
    )
    try:
        with transaction.atomic():  # a refused entry leaves no guest behind
            guest = accounts.guest_create(name=data["name"])
            services.entry_add(event=event, player=guest, by=request.user)
    except ValidationError as error:
        answer = organiser_api.guest_name_refusal(error)
        words = answer.data.get("errors", {}).get("name") or [answer.data["detail"]]
        raise Refuse(Refusal("guest", {"name": words}, answer.status_code)) from None
    except services.TournamentError as error:
        raise Refuse(Refusal.of("guest", error, field="name")) from None
    return _("%(name)s is entered, as a guest.") % {"name": guest.name}


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
            raise Refuse(
                Refusal(
                    "import", {"csv": [_("The file is not text in UTF-8: save it as CSV UTF-8.")]}
                )
            ) from None
    text = with_header(text)
    data = valid_data(organiser_api.ImportSerializer, {"csv": text}, "import")
    try:
        entries = interchange.entries_import(event=event, text=data["csv"], by=request.user)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("import", error, field="csv")) from None
    return ngettext(
        "%(count)s entered from the list.", "%(count)s entered from the list.", len(entries)
    ) % {"count": len(entries)}


def with_header(text: str) -> str:
    """A plain list of names (one a line, no header) as the CSV the import reads; a CSV with
    its header as it is."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    columns = {c.strip().lower() for c in first.split(",")}
    if not text.strip() or columns & {"name", "player_id"}:
        return text
    return "name\n" + text


def _add_bots(request: HttpRequest, event: Event) -> str:
    data = valid_data(
        organiser_api.BotsAddSerializer,
        {"count": posted_int(request, "count"), "strategy": request.POST.get("strategy", "")},
        "bots",
    )
    try:
        with transaction.atomic():
            entries = services.bots_add(event=event, by=request.user, **data)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("bots", error)) from None
    names = ", ".join(e.player.name for e in entries)
    return _("Entered: %(names)s.") % {"names": names}


def _posted_entry(request: HttpRequest, event: Event) -> Entry:
    raw = posted_int(request, "entry")
    if not isinstance(raw, int):
        raise Http404("No such entry.")
    return get_object_or_404(Entry.objects.select_related("player"), pk=raw, event=event)


def _withdraw(request: HttpRequest, event: Event, *, disqualify: bool = False) -> str:
    entry = _posted_entry(request, event)
    data = valid_data(
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
        raise Refuse(Refusal.of("entry", error, entry.pk)) from None
    if disqualify:
        return _("%(name)s is disqualified.") % {"name": entry.player.name}
    return _("%(name)s is withdrawn.") % {"name": entry.player.name}


def _reinstate(request: HttpRequest, event: Event) -> str:
    entry = _posted_entry(request, event)
    try:
        services.entry_reinstate(entry=entry, by=request.user)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("entry", error, entry.pk)) from None
    return _("%(name)s is back in.") % {"name": entry.player.name}


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


@event_page
def check_in(request: HttpRequest, pk: int) -> HttpResponse:
    """The check-in desk: a button per entrant (tap to check in, tap again to undo), how many
    are missing; and opening check-in now."""
    event = event_or_404(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        handler = CHECK_IN_ACTIONS.get(action)
        if handler is None:
            raise Http404("No such action.")
        if not allowed(request.user, RUN if action == "open" else ENTRIES):
            return refusal_page(request)
        try:
            note, anchor = handler(request, event)
            return done_redirect(request, note, request.path + anchor)
        except Refuse as refused:
            refusal = refused.refusal
        event = event_or_404(pk)
    entries = [e for e in event_entries(event) if e.is_active]
    people = [e for e in entries if not e.player.is_bot]
    bots = [e for e in entries if e.player.is_bot]
    now = timezone.now()
    context = {
        "people": sorted(people, key=lambda e: e.player.name.casefold()),
        "bots": sorted(bots, key=lambda e: e.player.name.casefold()),
        "counts": entry_counts(event),
        "missing": sum(1 for e in entries if e.status == Entry.Status.REGISTERED),
        "missing_people": sum(1 for e in people if e.status == Entry.Status.REGISTERED),
        "missing_bots": sum(1 for e in bots if e.status == Entry.Status.REGISTERED),
        "desk_open": event.status == Event.Status.REGISTRATION
        and event.check_in_opens_at is not None
        and event.check_in_opens_at <= now,
        "before_start": is_before_start(event),
    }
    return render_event_page(request, "organise/check_in.html", event, "check_in", context, refusal)


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
        raise Refuse(Refusal.of("desk", error, entry.pk)) from None
    if undo:
        note = _("%(name)s: not checked in.") % {"name": entry.player.name}
    else:
        note = _("%(name)s: checked in.") % {"name": entry.player.name}
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
        raise Refuse(Refusal.of("desk", error)) from None
    note = ngettext("%(count)s bot checked in.", "%(count)s bots checked in.", count) % {
        "count": count
    }
    return note, "#bots"


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
        raise Refuse(Refusal.of("open", error)) from None
    return _("Check-in is open: tap each player who is here."), ""


CHECK_IN_ACTIONS = {"tap": _desk_tap, "bots": _desk_bots, "open": _desk_open}
