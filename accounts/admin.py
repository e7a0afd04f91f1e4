from django.contrib import admin

from accounts.models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Staff see and edit players here; bots are created here or by `manage.py demo`."""

    list_display = ["name", "kind", "bot_strategy", "user", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "user__username"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at"]
