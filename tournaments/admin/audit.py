"""The audit log of the events, read-only."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import EventLog


@admin.register(EventLog)
class EventLogAdmin(admin.ModelAdmin):
    list_display = ["at", "event", "action", "actor", "reason", "pairing", "entry"]
    list_filter = ["action", "event"]
    search_fields = ["reason", "event__name"]
    readonly_fields = [f.name for f in EventLog._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
