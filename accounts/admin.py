from axes import admin as axes_admin  # registers the lockouts' admin first, to replace it
from axes.models import AccessAttempt
from django import forms
from django.contrib import admin
from django.utils import timezone

from accounts import names
from accounts.models import Player
from accounts.services import _name_errors


class PlayerAdminForm(forms.ModelForm):
    """Staff name players by the rules people and the API follow (``accounts.names``)."""

    class Meta:
        model = Player
        fields = ["kind", "name"]  # the admin adds the rest

    def clean_name(self) -> str:
        name = names.normalize(self.cleaned_data.get("name", ""))
        kind = self.cleaned_data.get("kind", self.instance.kind)  # cleaned first: it comes first
        errors = _name_errors(name, exclude_id=self.instance.pk, bot=kind == Player.Kind.BOT)
        if errors:
            raise forms.ValidationError(errors)
        return name


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Staff see and edit players here; bots are created here or by `manage.py demo`."""

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
