"""The event admin: create and edit, the entries and webhooks inline, add bots (a form), and
the actions: open and close registration, seed, start, cancel (with a reason).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from games.forms import RULE_FIELD_NAMES
from tournaments import services
from tournaments.admin.base import (
    FORM_TEMPLATE,
    URL_FIELDS,
    SecretForThoseWhoMayChange,
    action_with_reason,
    report,
)
from tournaments.admin.event_forms import AddBotsForm, EventForm, StartedEventForm
from tournaments.models import Entry, Event, EventLog, Webhook
from tournaments.settings_fields import (
    CLOCK_SETTINGS,
    ENTRY_SETTINGS,
    EVENT_SETTINGS,
    FORMAT_FIELDS,
    GENERAL_SETTINGS,
    MATCH_SETTINGS,
    SCHEDULE_SETTINGS,
    TIEBREAK_FIELDS,
    TIEBREAK_SETTINGS,
    format_fields,
)


class EntryInlineForm(forms.ModelForm):
    class Meta:
        model = Entry
        fields = ["player", "seed"]

    def clean_player(self):
        player = self.cleaned_data["player"]
        if self.instance.pk and player != self.instance.player:
            raise ValidationError("An entry's player cannot change: withdraw it and add another.")
        return player


class EntryInline(admin.TabularInline):
    """Add players and bots (by id; the magnifier finds them); set seeds by hand."""

    model = Entry
    form = EntryInlineForm
    extra = 1
    can_delete = False
    raw_id_fields = ["player"]
    fields = ["player", "seed", "status", "late", "rating", "final_rank", "note"]
    readonly_fields = ["status", "late", "rating", "final_rank", "note"]
    show_change_link = True
    ordering = ["seed", "registered_at"]


class WebhookInline(SecretForThoseWhoMayChange, admin.TabularInline):
    model = Webhook
    formfield_overrides = URL_FIELDS
    extra = 0
    fields = ["url", "events", "active", "secret", "created_at"]
    readonly_fields = ["secret", "created_at"]
    show_change_link = True


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    form = EventForm
    filter_horizontal = ["co_organisers"]
    list_display = [
        "name",
        "format",
        "status",
        "entries_active",
        "rated",
        "started_at",
        "champion",
        "public_page",
    ]
    list_filter = ["status", "format", "rated"]
    search_fields = ["name"]
    inlines = [EntryInline, WebhookInline]
    actions = [
        "open_registration",
        "close_registration",
        "seed_entries",
        "start_events",
        "cancel_events",
    ]
    progress = [
        "status",
        "rounds_planned",
        "entrants_count",
        "champion",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "cancel_reason",
        "links",
    ]
    settings_fields = EVENT_SETTINGS

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("champion")

    @staticmethod
    def _started(obj) -> bool:
        return obj is not None and obj.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION)

    def get_fieldsets(self, request, obj=None):
        """The settings in groups; every format's own options, shown by the format chosen
        (a started event: only its format's, read-only, with the rules as stored)."""
        own = format_fields()
        # Each format's own options first, the tiebreaks (which two formats share) after.
        own = [n for n in own if n not in TIEBREAK_SETTINGS] + [
            n for n in own if n in TIEBREAK_SETTINGS
        ]
        if self._started(obj):
            shown = set(FORMAT_FIELDS.get(obj.format, ()))
            options = ["tiebreaks" if n in TIEBREAK_FIELDS else n for n in own if n in shown]
            match = ["rules", *MATCH_SETTINGS]
        else:
            options = own
            match = ["rules_preset", *MATCH_SETTINGS]
        options = list(dict.fromkeys(options))
        general = list(GENERAL_SETTINGS)
        clock = list(CLOCK_SETTINGS)
        schedule = list(SCHEDULE_SETTINGS)
        entry = list(ENTRY_SETTINGS)
        listed = {*general, *match, *clock, *schedule, *entry, *own, "rules", "tiebreaks"}
        rest = [n for n in self.settings_fields if n not in listed]  # a setting added later
        fieldsets = [
            (None, {"fields": general + rest}),
            ("Match", {"fields": match}),
        ]
        if not self._started(obj):
            fieldsets.append(
                (
                    "Rule options",
                    {
                        "fields": [n for n in RULE_FIELD_NAMES if n != "rules_preset"],
                        "classes": ["collapse"],
                        "description": "Change single rules of the preset; empty: the preset's.",
                    },
                )
            )
        fieldsets += [
            ("Clock", {"fields": clock}),
            (
                "Schedule",
                {
                    "fields": schedule,
                    "description": "When it starts by itself, its check-in, and how it "
                    "repeats (an iCalendar rule, e.g. FREQ=WEEKLY;BYDAY=SA;BYHOUR=14).",
                },
            ),
            ("Registration and seeding", {"fields": entry}),
            ("Format options", {"fields": options}),
            ("Progress", {"fields": self.progress}),
        ]
        return fieldsets

    def get_form(self, request, obj=None, change=False, **kwargs):
        if self._started(obj):
            kwargs["form"] = StartedEventForm
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        if self._started(obj):
            # Started: only the name changes; everything else made the field what it is.
            return [f for f in self.settings_fields if f != "name"] + self.progress
        return self.progress

    def view_on_site(self, obj):
        """The event's public page ("View on site")."""
        return reverse("web:event", args=[obj.pk])

    @admin.display(description="Page")
    def public_page(self, event):
        return format_html('<a href="{}">view</a>', reverse("web:event", args=[event.pk]))

    @admin.display(description="Entries")
    def entries_active(self, event):
        return event.entries.filter(status__in=Entry.ACTIVE).count()

    @admin.display(description="Links")
    def links(self, event):
        if event.pk is None:
            return "-"
        return format_html(
            '<a href="{}">public page</a> · '
            '<a href="{}">add bots</a> · <a href="{}">pairings</a> · <a href="{}">audit log</a>'
            ' · <a href="/api/events/{}/bracket">bracket JSON</a>'
            ' · <a href="/api/events/{}/standings">standings JSON</a>'
            ' · <a href="/api/events/{}/results.csv">results CSV</a>',
            reverse("web:event", args=[event.pk]),
            reverse("admin:tournaments_event_add_bots", args=[event.pk]),
            reverse("admin:tournaments_pairing_changelist") + f"?event__id__exact={event.pk}",
            reverse("admin:tournaments_eventlog_changelist") + f"?event__id__exact={event.pk}",
            event.pk,
            event.pk,
            event.pk,
        )

    def save_model(self, request, obj, form, change):
        created = obj.pk is None
        if created:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        if created:
            EventLog.objects.create(event=obj, action="create", actor=request.user)
        elif changed := getattr(form, "changed_settings", lambda: form.changed_data)():
            EventLog.objects.create(
                event=obj, action="edit", actor=request.user, detail={"fields": changed}
            )

    def save_formset(self, request, form, formset, change):
        if formset.model is not Entry:
            return super().save_formset(request, form, formset, change)
        event = form.instance
        for entry_form in formset.forms:
            if not entry_form.has_changed() or not entry_form.is_valid():
                continue
            data = entry_form.cleaned_data
            entry = entry_form.instance
            if entry.pk is None:
                try:
                    added = services.entry_add(event=event, player=data["player"], by=request.user)
                except services.TournamentError as error:
                    self.message_user(request, f"{data['player']}: {error}", messages.ERROR)
                    continue
                if data.get("seed") is not None:
                    Entry.objects.filter(pk=added.pk).update(seed=data["seed"])
            elif "seed" in entry_form.changed_data:
                if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
                    self.message_user(
                        request, "Seeds cannot change once the event started.", messages.ERROR
                    )
                    continue
                Entry.objects.filter(pk=entry.pk).update(seed=data["seed"])
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    def get_urls(self):
        return [
            path(
                "<path:object_id>/add-bots/",
                self.admin_site.admin_view(self.add_bots_view),
                name="tournaments_event_add_bots",
            ),
            *super().get_urls(),
        ]

    def add_bots_view(self, request, object_id):
        """A form: create N bots of a strategy and enter them."""
        event = get_object_or_404(Event, pk=object_id)
        if not self.has_change_permission(request, event):
            raise PermissionDenied
        form = AddBotsForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                entries = services.bots_add(
                    event=event,
                    count=form.cleaned_data["count"],
                    strategy=form.cleaned_data["strategy"],
                    by=request.user,
                )
            except services.TournamentError as error:
                self.message_user(request, f"No bots added: {error}", messages.ERROR)
            else:
                self.message_user(request, f"Added {len(entries)} bot(s).", messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:tournaments_event_change", args=[event.pk])
                )
        return TemplateResponse(
            request,
            FORM_TEMPLATE,
            {
                **self.admin_site.each_context(request),
                "opts": Event._meta,
                "title": f"Add bots to {event}",
                "form": form,
                "submit": "Add bots",
            },
        )

    @admin.action(description="Open registration", permissions=["change"])
    def open_registration(self, request, queryset):
        report(
            self,
            request,
            "Registration opened",
            queryset,
            lambda e: services.event_open_registration(event=e, by=request.user),
        )

    @admin.action(description="Close registration", permissions=["change"])
    def close_registration(self, request, queryset):
        report(
            self,
            request,
            "Registration closed",
            queryset,
            lambda e: services.event_close_registration(event=e, by=request.user),
        )

    @admin.action(description="Seed the entries now", permissions=["change"])
    def seed_entries(self, request, queryset):
        report(
            self,
            request,
            "Seeded",
            queryset,
            lambda e: services.event_seed(event=e, by=request.user),
        )

    @admin.action(
        description="Start (seeds, pairs the first round, starts matches)",
        permissions=["change"],
    )
    def start_events(self, request, queryset):
        report(
            self,
            request,
            "Started",
            queryset,
            lambda e: services.event_start(event=e, by=request.user),
        )

    @admin.action(description="Cancel (asks for a reason)", permissions=["change"])
    def cancel_events(self, request, queryset):
        return action_with_reason(
            self,
            request,
            queryset,
            action="cancel_events",
            title="Cancelled",
            submit="Cancel these events",
            act=lambda e, reason: services.event_cancel(event=e, by=request.user, reason=reason),
        )
