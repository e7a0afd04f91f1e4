"""The webhooks (their secret only for those who may change them) and their deliveries, read
only but for "Deliver again"."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from tournaments import webhooks
from tournaments.admin.base import URL_FIELDS, SecretForThoseWhoMayChange
from tournaments.models import Webhook, WebhookDelivery


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    extra = 0
    can_delete = False
    fields = ["event_type", "status", "attempts", "response_status", "error", "created_at"]
    readonly_fields = fields
    show_change_link = True
    ordering = ["-id"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Webhook)
class WebhookAdmin(SecretForThoseWhoMayChange, admin.ModelAdmin):
    formfield_overrides = URL_FIELDS
    list_display = ["url", "event", "active", "created_at"]
    list_filter = ["active"]
    readonly_fields = ["secret", "created_at"]
    raw_id_fields = ["event"]
    inlines = [DeliveryInline]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "event_type",
        "webhook",
        "status",
        "attempts",
        "response_status",
        "error",
    ]
    list_filter = ["status", "event_type"]
    # The receiver's answer only as a short excerpt, escaped (it is whatever they sent).
    exclude = ["response_body"]
    readonly_fields = [
        "response_excerpt" if f.name == "response_body" else f.name
        for f in WebhookDelivery._meta.fields
    ]
    actions = ["deliver_again"]

    def has_add_permission(self, request):
        return False

    @admin.display(description="response (excerpt)")
    def response_excerpt(self, delivery):
        return webhooks.excerpt(delivery.response_body.encode())

    @admin.action(description="Deliver again", permissions=["change"])
    def deliver_again(self, request, queryset):
        with transaction.atomic():
            for delivery in queryset:
                webhooks.redeliver(delivery)
        self.message_user(request, f"Queued {queryset.count()} delivery(ies) again.")
