"""Fair play for staff: the accounts flagged for review in rating pools, with their evidence,
and a flag closed after review (``ladders.services.fairplay``; docs/fair-play.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from games.models import Match
from ladders.models import FairPlayFlag, FairPlayRefund
from ladders.services import assisted, fairplay

#: The permission a staff member needs to see the flags and close them.
PERMISSION = "ladders.change_fairplayflag"
#: The permission to mark an account as assisted (its rated results taken back), besides.
PERMISSION_MARK = "ladders.add_fairplayrefund"
#: How many closed flags the page lists under the open ones.
REVIEWED_LIMIT = 20


def may_review(user) -> bool:
    """Staff holding the permission to change fair-play flags."""
    return bool(user.is_authenticated and user.is_staff and user.has_perm(PERMISSION))


def may_mark(user) -> bool:
    """Reviewers who may also mark an account as assisted."""
    return may_review(user) and user.has_perm(PERMISSION_MARK)


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
    refunds = FairPlayRefund.objects.select_related("player", "ladder", "marked_by")[
        :REVIEWED_LIMIT
    ]
    return render(
        request,
        "web/fair_play.html",
        {
            "rows": rows,
            "reviewed": reviewed,
            "refunds": refunds,
            "may_mark": may_mark(request.user),
        },
    )


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


@require_POST
@login_required(login_url="web:login")
def fair_play_assisted(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark a flagged account as assisted after review: off the leaderboards, paired with bots
    only, its rated results taken back in every pool (``ladders.services.assisted``)."""
    _staff(request)
    if not may_mark(request.user):
        raise PermissionDenied(_("Only staff who may take rated results back may do this."))
    flag = get_object_or_404(FairPlayFlag.objects.select_related("player"), pk=pk)
    if flag.status != FairPlayFlag.Status.OPEN:
        messages.error(request, _("This flag was already reviewed."))
        return redirect("web:fair_play")
    note = request.POST.get("note", "").strip()[:2000]
    refunds = assisted.account_mark_assisted(player=flag.player, by=request.user, note=note)
    opponents = sum(r.opponents for r in refunds)
    messages.success(
        request,
        ngettext(
            "%(name)s is marked as assisted. Rated matches taken back: %(matches)s; "
            "%(opponents)s opponent given back %(points)s rating points.",
            "%(name)s is marked as assisted. Rated matches taken back: %(matches)s; "
            "%(opponents)s opponents given back %(points)s rating points.",
            opponents,
        )
        % {
            "name": flag.player.name,
            "matches": sum(r.matches for r in refunds),
            "opponents": opponents,
            "points": f"{sum(r.points for r in refunds):.0f}",
        },
    )
    return redirect("web:fair_play")
