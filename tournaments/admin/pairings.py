"""The pairing admin: read-only, with a result overridden (a form: winner and reason,
audited) and failed bot matches re-run."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from accounts.models import Player
from tournaments import services
from tournaments.admin.base import FORM_TEMPLATE, report
from tournaments.models import Pairing


class OverrideForm(forms.Form):
    winner = forms.ModelChoiceField(queryset=Player.objects.all())
    reason = forms.CharField(
        max_length=1000, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), required=True
    )

    def __init__(self, *args, pairing: Pairing, **kwargs):
        super().__init__(*args, **kwargs)
        players = [e.player for e in (pairing.entry_a, pairing.entry_b) if e is not None]
        # Offer the two players; the service still refuses anyone else by name.
        self.fields["winner"].widget.choices = [("", "---------")] + [
            (p.pk, p.name) for p in players
        ]


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = [
        "key",
        "event",
        "round",
        "entry_a",
        "entry_b",
        "status",
        "result",
        "winner",
        "match",
    ]
    list_filter = ["status", "result", "event"]
    search_fields = ["event__name", "entry_a__player__name", "entry_b__player__name"]
    list_select_related = ["event", "round", "entry_a__player", "entry_b__player", "winner__player"]
    actions = ["rerun_bot_matches"]
    readonly_fields = [
        "event",
        "round",
        "key",
        "table",
        "entry_a",
        "entry_b",
        "status",
        "match",
        "result",
        "winner",
        "games_a",
        "games_b",
        "margin_a",
        "ready_a_at",
        "ready_b_at",
        "winner_to",
        "loser_to",
        "history",
        "decided_at",
        "organiser",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Organiser")
    def organiser(self, pairing):
        if pairing.pk is None:
            return "-"
        return format_html(
            '<a href="{}">override the result</a>',
            reverse("admin:tournaments_pairing_override", args=[pairing.pk]),
        )

    def get_urls(self):
        return [
            path(
                "<path:object_id>/override/",
                self.admin_site.admin_view(self.override_view),
                name="tournaments_pairing_override",
            ),
            *super().get_urls(),
        ]

    def override_view(self, request, object_id):
        """Decide a pairing: the winner (one of its two players) and a reason, audited."""
        pairing = get_object_or_404(
            Pairing.objects.select_related("entry_a__player", "entry_b__player", "event"),
            pk=object_id,
        )
        if not self.has_change_permission(request, pairing):
            raise PermissionDenied
        form = OverrideForm(request.POST or None, pairing=pairing)
        if request.method == "POST" and form.is_valid():
            try:
                services.pairing_override(
                    pairing=pairing,
                    winner=form.cleaned_data["winner"],
                    reason=form.cleaned_data["reason"],
                    by=request.user,
                )
            except services.TournamentError as error:
                form.add_error("winner" if error.code == "not_in_match" else None, str(error))
                self.message_user(request, f"Not overridden: {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"{pairing.key}: {form.cleaned_data['winner']} wins (overridden).",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:tournaments_pairing_change", args=[pairing.pk])
                )
        return TemplateResponse(
            request,
            FORM_TEMPLATE,
            {
                **self.admin_site.each_context(request),
                "opts": Pairing._meta,
                "title": f"Override the result of {pairing.event} {pairing.key}",
                "intro": f"{pairing.entry_a} v {pairing.entry_b} (now: {pairing.result or '-'})",
                "form": form,
                "submit": "Override",
            },
        )

    @admin.action(description="Re-run the failed bot matches", permissions=["change"])
    def rerun_bot_matches(self, request, queryset):
        report(
            self,
            request,
            "Re-run",
            queryset,
            lambda p: services.pairing_rerun(pairing=p, by=request.user),
        )
