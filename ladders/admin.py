"""Staff manage ladders and pools here, put bots in a queue, and read ratings and history."""

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import Player
from common.errors import ServiceError
from games.forms import RULE_FIELD_NAMES, RulesFields, ShowsFieldsSelect
from ladders import services
from ladders.models import (
    FairPlayRefund,
    Ladder,
    LadderMatch,
    QueueEntry,
    Rating,
    RatingChange,
    Season,
    SeasonEntry,
)

#: Each rating system's own settings: the form shows them only while that system is chosen.
SYSTEM_FIELDS: dict[str, tuple[str, ...]] = {
    Ladder.System.ELO: (
        "k_provisional",
        "provisional_matches",
        "k_established",
        "k_top",
        "top_threshold",
    ),
    Ladder.System.GLICKO2: (
        "glicko_deviation",
        "glicko_volatility",
        "glicko_tau",
        "glicko_period_days",
        "provisional_deviation",
        "window_deviation_factor",
    ),
}
MATCH_FIELDS = [
    "rules_preset",
    "best_of",
    "target",
    "base_seconds",
    "increment_seconds",
    "turn_limit_seconds",
    "timeout_policy",
]
RATING_FIELDS = [
    "rating_system",
    "initial_rating",
    "scoring",
    "human_bot_factor",
    "rating_floor",
    *(name for names in SYSTEM_FIELDS.values() for name in names),
]


class LadderForm(RulesFields, forms.ModelForm):
    """A ladder's settings, the rules in fields; the rule set is checked by
    ``services.ladder_rules_check``, as the organiser API checks it."""

    class Meta:
        model = Ladder
        fields = [
            f.name for f in Ladder._meta.fields if f.editable and f.name not in ("id", "rules")
        ]
        widgets = {"rating_system": ShowsFieldsSelect(SYSTEM_FIELDS)}

    def clean(self):
        cleaned = super().clean()  # the rules, from their fields
        if self.errors:
            return cleaned
        candidate = Ladder(
            rules=cleaned["rules"],
            best_of=cleaned.get("best_of", self.instance.best_of),
            target=cleaned.get("target", self.instance.target),
        )
        try:
            services.ladder_rules_check(candidate)
        except ServiceError as error:
            self.add_rules_error(str(error), english=getattr(error, "english", None))
        return cleaned


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    form = LadderForm
    list_display = [
        "name",
        "kind",
        "is_open",
        "rating_system",
        "best_of",
        "target",
        "base_seconds",
        "scoring",
        "public_page",
    ]
    list_filter = ["kind", "is_open", "rating_system"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created_at"]
    actions = ["queue_bots"]

    def get_fieldsets(self, request, obj=None):
        """The settings in groups; each rating system's own shown by the system chosen."""
        listed = {*MATCH_FIELDS, *RATING_FIELDS, "rules", "created_at"}
        rest = [
            f.name
            for f in Ladder._meta.get_fields()
            if getattr(f, "editable", False) and f.concrete and not f.auto_created
            if f.name not in listed
        ]
        options = [n for n in RULE_FIELD_NAMES if n != "rules_preset"]
        return [
            (None, {"fields": rest}),
            (_("Match"), {"fields": MATCH_FIELDS}),
            (
                _("Rule options"),
                {
                    "fields": options,
                    "classes": ["collapse"],
                    "description": _("Change single rules of the preset; empty: the preset's."),
                },
            ),
            (_("Ratings"), {"fields": RATING_FIELDS}),
            (None, {"fields": ["created_at"]}),
        ]

    def view_on_site(self, obj):
        """The ladder's leaderboard ("View on site")."""
        return f"/leaderboard?ladder={obj.pk}"

    @admin.display(description=gettext_lazy("Page"))
    def public_page(self, ladder):
        return format_html('<a href="/leaderboard?ladder={}">{}</a>', ladder.pk, _("leaderboard"))

    @admin.action(
        description=gettext_lazy("Put every bot member of the ladder in its queue"),
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
        self.message_user(
            request,
            ngettext("%(count)s bot(s) queued.", "%(count)s bot(s) queued.", queued)
            % {"count": queued},
        )


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


@admin.register(FairPlayRefund)
class FairPlayRefundAdmin(admin.ModelAdmin):
    """The audit of fair-play refunds, read-only: they are made from the fair-play page."""

    list_display = ["created_at", "player", "ladder", "matches", "opponents", "points", "marked_by"]
    list_filter = ["ladder"]
    search_fields = ["player__name"]
    readonly_fields = [f.name for f in FairPlayRefund._meta.fields]

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
