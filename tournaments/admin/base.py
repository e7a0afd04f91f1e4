"""What the tournament admins share: the intermediate form page, an action run on each object
with one message per refusal (and the same asking for a reason first), and a webhook's
secret shown only to those who may change it.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.db import models
from django.template.response import TemplateResponse

from tournaments import services

FORM_TEMPLATE = "admin/tournaments/form.html"


def report(modeladmin, request, verb: str, objects, act) -> None:
    """Run ``act`` on each object; one message for the successes, one per refusal."""
    done = 0
    for obj in objects:
        try:
            act(obj)
            done += 1
        except services.TournamentError as error:
            modeladmin.message_user(request, f"{obj}: {error}", messages.ERROR)
    if done:
        modeladmin.message_user(request, f"{verb}: {done}.", messages.SUCCESS)


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=300, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), required=True
    )


def action_with_reason(modeladmin, request, queryset, *, action, title, submit, act):
    """An admin action that first asks for a reason (an intermediate page, as delete does)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        reason = form.cleaned_data["reason"]
        report(modeladmin, request, title, queryset, lambda obj: act(obj, reason))
        return None
    return TemplateResponse(
        request,
        FORM_TEMPLATE,
        {
            **modeladmin.admin_site.each_context(request),
            "opts": modeladmin.model._meta,
            "title": title,
            "objects": list(queryset),
            "form": form,
            "action": action,
            "submit": submit,
        },
    )


#: Organisers type URLs without a scheme at times: assume https, as Django 6 will.
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}


class SecretForThoseWhoMayChange:
    """A webhook's signing secret only for those who may change the webhook: with it anyone
    forges deliveries its receiver trusts. Never a changelist lookup (``?secret__startswith=``
    would spell it out a character at a time)."""

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if self.has_change_permission(request, obj):
            return fields
        return [name for name in fields if name != "secret"]

    def lookup_allowed(self, lookup, value, request=None):
        if lookup.split("__", 1)[0] == "secret":
            return False
        return super().lookup_allowed(lookup, value, request)
