"""The entry admin: withdraw or disqualify (with a reason), reinstate, check in; entries are
added on their event."""

from __future__ import annotations

from django.contrib import admin

from tournaments import services
from tournaments.admin.base import action_with_reason, report
from tournaments.models import Entry


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["player", "event", "seed", "status", "late", "rating", "final_rank"]
    list_filter = ["status", "event__status", "event"]
    search_fields = ["player__name", "event__name"]
    actions = ["withdraw_entries", "disqualify_entries", "reinstate_entries", "check_in_entries"]
    readonly_fields = [f.name for f in Entry._meta.fields]

    def has_add_permission(self, request):
        return False  # entries are added on their event (the inline) or by registering

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(
        description="Withdraw (forfeits the unfinished match; asks for a reason)",
        permissions=["change"],
    )
    def withdraw_entries(self, request, queryset):
        return action_with_reason(
            self,
            request,
            queryset,
            action="withdraw_entries",
            title="Withdrawn",
            submit="Withdraw",
            act=lambda e, reason: services.entry_withdraw(entry=e, by=request.user, reason=reason),
        )

    @admin.action(
        description="Disqualify (forfeits the unfinished match; asks for a reason)",
        permissions=["change"],
    )
    def disqualify_entries(self, request, queryset):
        return action_with_reason(
            self,
            request,
            queryset,
            action="disqualify_entries",
            title="Disqualified",
            submit="Disqualify",
            act=lambda e, reason: services.entry_withdraw(
                entry=e, by=request.user, reason=reason, disqualify=True
            ),
        )

    @admin.action(
        description="Reinstate (before the start, or into later Swiss rounds)",
        permissions=["change"],
    )
    def reinstate_entries(self, request, queryset):
        report(
            self,
            request,
            "Reinstated",
            queryset,
            lambda e: services.entry_reinstate(entry=e, by=request.user),
        )

    @admin.action(description="Check in", permissions=["change"])
    def check_in_entries(self, request, queryset):
        report(
            self,
            request,
            "Checked in",
            queryset,
            lambda e: services.entry_check_in(entry=e, by=request.user),
        )
