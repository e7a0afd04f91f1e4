from axes import admin as axes_admin  # registers the lockouts' admin first, to replace it
from axes.models import AccessAttempt
from django import forms
from django.contrib import admin
from django.utils import timezone

from accounts import names
from accounts.models import Player
from accounts.services import _name_errors

#: What each kind of player needs, as the admin's "Add player" says it.
KIND_NEEDS = {
    Player.Kind.HUMAN: "a user (who signs in as this player), no strategy, no owner",
    Player.Kind.GUEST: "a name only: a walk-in without an account (no user, strategy or owner)",
    Player.Kind.BOT: "a strategy (the server plays it), no user, no owner",
    Player.Kind.EXTERNAL: "a user (holding its API tokens) and an owner (a human), no strategy",
}


class PlayerAdminForm(forms.ModelForm):
    """Staff name players by the rules people and the API follow (``accounts.names``), and
    choose a kind with what it needs: the combination is checked here, field by field, so a
    wrong one is a form error and never reaches the database's check (a 500)."""

    class Meta:
        model = Player
        fields = ["kind", "name", "user", "bot_strategy", "owner", "description", "auto_accept"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "kind" in self.fields:
            needs = "; ".join(f"{Player.Kind(k).label}: {v}" for k, v in KIND_NEEDS.items())
            self.fields["kind"].help_text = f"What each kind needs. {needs}."

    def clean_name(self) -> str:
        name = names.normalize(self.cleaned_data.get("name", ""))
        kind = self.cleaned_data.get("kind", self.instance.kind)  # cleaned first: it comes first
        errors = _name_errors(name, exclude_id=self.instance.pk, bot=kind == Player.Kind.BOT)
        if errors:
            raise forms.ValidationError(errors)
        return name

    def clean(self):
        data = super().clean()
        kind = data.get("kind")
        if kind is None:
            return data
        user = data.get("user", self.instance.user if self.instance.pk else None)
        owner = data.get("owner", self.instance.owner if self.instance.pk else None)
        strategy = (data.get("bot_strategy") or "").strip()
        if "bot_strategy" in data:
            data["bot_strategy"] = strategy
        needs = KIND_NEEDS[kind]
        wrong: dict[str, str] = {}
        if kind == Player.Kind.BOT:
            if not strategy:
                wrong["bot_strategy"] = "A house bot needs a strategy."
        elif strategy:
            wrong["bot_strategy"] = "Only a house bot has a strategy: leave it empty."
        if kind in (Player.Kind.GUEST, Player.Kind.BOT) and user is not None:
            wrong["user"] = f"A {Player.Kind(kind).label.lower()} has no user: leave it empty."
        if kind == Player.Kind.HUMAN and user is None and self.instance.deleted_at is None:
            wrong["user"] = "A human needs a user: the account they sign in with."
        if kind == Player.Kind.EXTERNAL and user is None:
            wrong["user"] = "An external bot needs a user, which holds its API tokens."
        if kind == Player.Kind.EXTERNAL:
            if owner is None:
                wrong["owner"] = "An external bot needs an owner: the person who runs it."
            elif owner.kind != Player.Kind.HUMAN or owner.pk == self.instance.pk:
                wrong["owner"] = "The owner of an external bot is a human (with an account)."
        elif owner is not None:
            wrong["owner"] = "Only an external bot has an owner: leave it empty."
        for field, message in wrong.items():
            if field in self.fields:
                self.add_error(field, message)
            else:
                self.add_error(None, f"{message} ({Player.Kind(kind).label} needs {needs}.)")
        return data


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Staff see and edit players here; bots are created here or by `manage.py demo`, guests
    here or by an organiser's ``POST /api/events/{id}/guests``."""

    form = PlayerAdminForm
    list_display = ["name", "kind", "bot_strategy", "owner", "user", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "user__username"]
    raw_id_fields = ["user", "owner"]
    readonly_fields = ["created_at"]


class LockoutAdmin(axes_admin.AccessAttemptAdmin):
    """django-axes' sign-in lockouts, whose clean-up needs the permission to delete them."""

    @admin.action(
        description=axes_admin.AccessAttemptAdmin.cleanup_expired_attempts.short_description,
        permissions=["delete"],
    )
    def cleanup_expired_attempts(self, request, queryset):
        # axes stamps this time on sign-in requests only, and its clean-up reads it.
        request.axes_attempt_time = timezone.now()
        return super().cleanup_expired_attempts(request, queryset)


admin.site.unregister(AccessAttempt)
admin.site.register(AccessAttempt, LockoutAdmin)
