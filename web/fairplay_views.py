"""Fair play for staff: the accounts flagged for review in rating pools, with their evidence,
and a flag closed after review (``ladders.services.fairplay``; docs/fair-play.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.models import Match
from ladders.models import FairPlayFlag
from ladders.services import fairplay

#: The permission a staff member needs to see the flags and close them.
PERMISSION = "ladders.change_fairplayflag"
#: How many closed flags the page lists under the open ones.
REVIEWED_LIMIT = 20


def may_review(user) -> bool:
    """Staff holding the permission to change fair-play flags."""
    return bool(user.is_authenticated and user.is_staff and user.has_perm(PERMISSION))


def _staff(request: HttpRequest) -> None:
    if not may_review(request.user):
        raise PermissionDenied(_("Only staff who review fair play may see this page."))


@login_required(login_url="web:login")
def fair_play(request: HttpRequest) -> HttpResponse:
    """The open flags, newest first, each with its figures and matches; the last reviewed."""
    _staff(request)
    flags = FairPlayFlag.objects.select_related("player", "ladder", "reviewed_by")
    open_flags = list(flags.filter(status=FairPlayFlag.Status.OPEN))
    match_ids = {m for f in open_flags for m in f.evidence.get("matches", [])}
    matches = Match.objects.in_bulk(match_ids)
    rows = [
        {
            "flag": flag,
            "phases": [
                (_("Draws"), flag.evidence["phases"]["draws"]),
                (_("Discards"), flag.evidence["phases"]["discards"]),
            ],
            "matches": [matches[m] for m in flag.evidence.get("matches", []) if m in matches],
        }
        for flag in open_flags
    ]
    reviewed = flags.exclude(status=FairPlayFlag.Status.OPEN)[:REVIEWED_LIMIT]
    return render(request, "web/fair_play.html", {"rows": rows, "reviewed": reviewed})


@require_POST
@login_required(login_url="web:login")
def fair_play_dismiss(request: HttpRequest, pk: int) -> HttpResponse:
    """Close an open flag after review, with the reviewer's note."""
    _staff(request)
    flag = get_object_or_404(FairPlayFlag, pk=pk)
    if flag.status != FairPlayFlag.Status.OPEN:
        messages.error(request, _("This flag was already reviewed."))
    else:
        note = request.POST.get("note", "").strip()[:2000]
        fairplay.flag_dismiss(flag=flag, by=request.user, note=note)
        messages.success(request, _("The flag of %(name)s is closed.") % {"name": flag.player.name})
    return redirect("web:fair_play")
