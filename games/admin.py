"""Admin for play: matches (start a bot match, play it now), games, deals and their logs."""

from django.contrib import admin, messages
from django.db import transaction

from games import services
from games.models import Action, Deal, Game, Match


class GameInline(admin.TabularInline):
    model = Game
    extra = 0
    can_delete = False
    fields = ["number", "status", "ply", "score_a", "score_b", "winner_index", "forfeit_reason"]
    readonly_fields = fields
    show_change_link = True


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "player_a",
        "player_b",
        "status",
        "source",
        "games_won_a",
        "games_won_b",
        "winner",
        "end_reason",
        "created_at",
    ]
    list_filter = ["status", "source", "end_reason"]
    search_fields = ["player_a__name", "player_b__name"]
    raw_id_fields = ["player_a", "player_b", "created_by", "winner"]
    inlines = [GameInline]
    actions = ["play_bot_matches_now", "cancel_matches"]
    readonly_fields = [
        "seed",
        "seed_commitment",
        "status",
        "games_won_a",
        "games_won_b",
        "margin_a",
        "winner",
        "end_reason",
        "end_detail",
        "ply",
        "started_at",
        "finished_at",
    ]
    fields = [
        "player_a",
        "player_b",
        "source",
        "rules",
        "best_of",
        "target",
        "base_seconds",
        "increment_seconds",
        "turn_limit_seconds",
        "timeout_policy",
        *readonly_fields,
    ]

    def get_changeform_initial_data(self, request):
        from games.engine.rules import RuleSet

        return {"rules": RuleSet().to_dict(), "source": Match.Source.ADMIN}

    def save_model(self, request, obj, form, change):
        """A new match from the admin goes through the service (seed, commitment, start)."""
        if change:
            super().save_model(request, obj, form, change)
            return
        time_control = None
        if obj.base_seconds:
            time_control = services.TimeControl(
                obj.base_seconds, obj.increment_seconds, obj.turn_limit_seconds, obj.timeout_policy
            )
        try:
            created = services.match_create(
                player_a=obj.player_a,
                player_b=obj.player_b,
                rules=obj.rules,
                best_of=obj.best_of,
                target=obj.target,
                time_control=time_control,
                source=Match.Source.ADMIN,
            )
        except services.PlayError as error:
            messages.error(request, f"Match not created: {error}")
            return
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.action(description="Play the selected bot matches now")
    def play_bot_matches_now(self, request, queryset):
        played = 0
        for match in queryset:
            if match.is_bot_match and match.status != Match.Status.FINISHED:
                played += services.match_play_bots(match_id=match.pk)
        self.message_user(request, f"Played {played} bot match(es).")

    @admin.action(description="Cancel the selected matches")
    def cancel_matches(self, request, queryset):
        done = 0
        for match in queryset:
            try:
                with transaction.atomic():
                    services.match_cancel(match=match, reason=f"cancelled by {request.user}")
                done += 1
            except services.PlayError as error:
                self.message_user(request, f"Match {match.pk}: {error}", messages.WARNING)
        self.message_user(request, f"Cancelled {done} match(es).")


class ActionInline(admin.TabularInline):
    model = Action
    extra = 0
    can_delete = False
    fields = ["ply", "seat", "player", "kind", "card", "melds", "auto", "created_at"]
    readonly_fields = fields


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "number", "status", "termination", "winner_index", "points"]
    list_filter = ["status", "termination"]
    readonly_fields = [f.name for f in Deal._meta.fields]
    inlines = [ActionInline]

    def has_add_permission(self, request):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "match", "number", "status", "ply", "score_a", "score_b"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in Game._meta.fields]

    def has_add_permission(self, request):
        return False
