"""Admin for play: matches (start a bot match, play it now), games, deals and their logs.

A live match keeps its secrets here too: the seeds of the match, its games and deals (each
deals every card) and the engine's state (both hands, the stock) are never shown, searched,
filtered or sorted on; a seed is shown once its match is finished, the commitment always.
"""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import services
from games.engine.rules import RuleSet
from games.models import Action, Deal, Game, Match

#: The fields that would give a live deal away.
SECRET_FIELDS = frozenset({"seed", "state"})


class KeepsDealsSecret:
    """Refuses changelist lookups on the secret fields: Django's admin takes any lookup on a
    model's own fields from the query string, and ``?seed__lt=`` answered a binary search."""

    def lookup_allowed(self, lookup, value, request=None):
        if lookup.split("__", 1)[0] in SECRET_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)


def _seed_once_finished(match: Match, seed: int) -> int | str:
    return seed if match.status == Match.Status.FINISHED else _("hidden until the match ends")


def _shown_fields(model) -> list[str]:
    """Every field of ``model`` for a read-only page, the seed as :func:`_seed_once_finished`."""
    names = [f.name for f in model._meta.fields if f.name not in SECRET_FIELDS]
    return [*names, "seed_once_finished"]


class GameInline(admin.TabularInline):
    model = Game
    extra = 0
    can_delete = False
    fields = ["number", "status", "ply", "score_a", "score_b", "winner_index", "forfeit_reason"]
    readonly_fields = fields
    show_change_link = True


@admin.register(Match)
class MatchAdmin(KeepsDealsSecret, admin.ModelAdmin):
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
        "seed_once_finished",
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

    @admin.display(description=gettext_lazy("Seed"))
    def seed_once_finished(self, match):
        return "-" if match.pk is None else _seed_once_finished(match, match.seed)

    def get_changeform_initial_data(self, request):
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
            messages.error(request, _("Match not created: %(error)s") % {"error": error})
            return
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.action(
        description=gettext_lazy("Play the selected bot matches now"), permissions=["change"]
    )
    def play_bot_matches_now(self, request, queryset):
        played = 0
        for match in queryset:
            if match.is_bot_match and match.status != Match.Status.FINISHED:
                played += services.match_play_bots(match_id=match.pk)
        self.message_user(
            request,
            ngettext("Played %(count)s bot match(es).", "Played %(count)s bot match(es).", played)
            % {"count": played},
        )

    @admin.action(description=gettext_lazy("Cancel the selected matches"), permissions=["change"])
    def cancel_matches(self, request, queryset):
        done = 0
        for match in queryset:
            try:
                with transaction.atomic():
                    services.match_cancel(match=match, reason=f"cancelled by {request.user}")
                done += 1
            except services.PlayError as error:
                self.message_user(
                    request,
                    _("Match %(match)s: %(error)s") % {"match": match.pk, "error": error},
                    messages.WARNING,
                )
        self.message_user(
            request,
            ngettext("Cancelled %(count)s match(es).", "Cancelled %(count)s match(es).", done)
            % {"count": done},
        )


class ActionInline(admin.TabularInline):
    model = Action
    extra = 0
    can_delete = False
    fields = ["ply", "seat", "player", "kind", "card", "melds", "auto", "created_at"]
    readonly_fields = fields


@admin.register(Deal)
class DealAdmin(KeepsDealsSecret, admin.ModelAdmin):
    list_display = ["id", "game", "number", "status", "termination", "winner_index", "points"]
    list_filter = ["status", "termination"]
    readonly_fields = _shown_fields(Deal)
    fields = readonly_fields  # nothing editable: the seed is no form field either
    inlines = [ActionInline]

    @admin.display(description=gettext_lazy("Seed"))
    def seed_once_finished(self, deal):
        return _seed_once_finished(deal.game.match, deal.seed)

    def has_add_permission(self, request):
        return False


@admin.register(Game)
class GameAdmin(KeepsDealsSecret, admin.ModelAdmin):
    list_display = ["id", "match", "number", "status", "ply", "score_a", "score_b"]
    list_filter = ["status"]
    readonly_fields = _shown_fields(Game)
    fields = readonly_fields  # nothing editable: the seed is no form field either

    @admin.display(description=gettext_lazy("Seed"))
    def seed_once_finished(self, game):
        return _seed_once_finished(game.match, game.seed)

    def has_add_permission(self, request):
        return False
