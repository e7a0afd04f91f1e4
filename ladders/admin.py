"""Staff manage ladders and pools here, put bots in a queue, and read ratings and history."""

from django.contrib import admin, messages

from accounts.models import Player
from ladders import services
from ladders.models import (
    Ladder,
    LadderMatch,
    QueueEntry,
    Rating,
    RatingChange,
    Season,
    SeasonEntry,
)


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "is_open", "best_of", "target", "base_seconds", "scoring"]
    list_filter = ["kind", "is_open"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created_at"]
    actions = ["queue_bots"]

    @admin.action(
        description="Put every bot member of the ladder in its queue",
        permissions=["change"],
    )
    def queue_bots(self, request, queryset):
        queued = 0
        for ladder in queryset:
            bots = Player.objects.filter(ratings__ladder=ladder, kind=Player.Kind.BOT)
            for bot in bots:
                try:
                    services.queue_join(ladder=ladder, player=bot)
                    queued += 1
                except services.LadderError as error:
                    self.message_user(request, f"{bot}: {error}", messages.WARNING)
        self.message_user(request, f"{queued} bot(s) queued.")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    """Ratings change only through rated matches: read-only here (history must replay)."""

    list_display = ["player", "ladder", "rating", "matches_played", "provisional", "last_active"]
    list_filter = ["ladder", "provisional", "is_bot"]
    search_fields = ["player__name"]
    raw_id_fields = ["player", "last_opponent"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["match", "ladder", "player", "opponent", "won", "delta", "created_at"]
    list_filter = ["ladder"]
    search_fields = ["player__name", "opponent__name"]
    raw_id_fields = ["match", "player", "opponent"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(QueueEntry)
class QueueEntryAdmin(admin.ModelAdmin):
    """Staff add a player (typically a bot) to a queue here: the same checks as a join."""

    list_display = ["player", "ladder", "joined_at", "available_at"]
    list_filter = ["ladder"]
    raw_id_fields = ["player"]
    fields = ["ladder", "player"]

    def has_change_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            entry = services.queue_join(ladder=obj.ladder, player=obj.player)
        except services.LadderError as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        obj.pk = entry.pk


@admin.register(LadderMatch)
class LadderMatchAdmin(admin.ModelAdmin):
    list_display = ["match", "ladder", "created_at", "processed_at"]
    list_filter = ["ladder"]
    raw_id_fields = ["match"]
    readonly_fields = ["match", "ladder", "created_at", "processed_at"]

    def has_add_permission(self, request):
        return False


class SeasonEntryInline(admin.TabularInline):
    model = SeasonEntry
    extra = 0
    raw_id_fields = ["player"]
    fields = [
        "player",
        "division",
        "rank",
        "rating",
        "matches_played",
        "wins",
        "losses",
        "movement",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons are opened through the API (their players placed) and closed by the sweep;
    a closed season's standings never change, so here they are read-only."""

    list_display = ["ladder", "number", "starts_at", "ends_at", "closed_at"]
    list_filter = ["ladder"]
    readonly_fields = ["ladder", "number", "starts_at", "ends_at", "closed_at"]
    inlines = [SeasonEntryInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
