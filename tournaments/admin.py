"""Admin for organisers (staff): run events from registration to the champion.

Every action goes through a service, so the admin refuses what the API refuses and says why
in a message. Events: create and edit, open and close registration, add players (the entries
inline) and bots (a form), seed, start, cancel (with a reason). Entries: withdraw or disqualify
(with a reason), reinstate, check in. Pairings: override a result (a form: winner and reason,
audited), re-run a failed bot match. The audit log and webhook deliveries are read-only.
"""

from __future__ import annotations

import copy

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from accounts.models import Player
from games.engine import bots as engine_bots
from games.forms import RULE_FIELD_NAMES, RulesFields, ShowsFieldsSelect
from tournaments import services, webhooks
from tournaments.formats.standings import TIEBREAKS
from tournaments.models import (
    Entry,
    Event,
    EventLog,
    Pairing,
    Webhook,
    WebhookDelivery,
)
from tournaments.services.events import check_in_derive, clock_check
from tournaments.services.repeat import repeat_check
from tournaments.settings_fields import (
    CLOCK_SETTINGS,
    ENTRY_SETTINGS,
    EVENT_SETTINGS,
    FORMAT_FIELDS,
    GENERAL_SETTINGS,
    MATCH_SETTINGS,
    SCHEDULE_SETTINGS,
    TIEBREAK_FIELDS,
    TIEBREAK_LABELS,
    TIEBREAK_SETTINGS,
    format_fields,
)

FORM_TEMPLATE = "admin/tournaments/form.html"


def _report(modeladmin, request, verb: str, objects, act) -> None:
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


def _action_with_reason(modeladmin, request, queryset, *, action, title, submit, act):
    """An admin action that first asks for a reason (an intermediate page, as delete does)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        reason = form.cleaned_data["reason"]
        _report(modeladmin, request, title, queryset, lambda obj: act(obj, reason))
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


# --- events ---------------------------------------------------------------------------------


def _tiebreak_field(place: int) -> forms.ChoiceField:
    """The select of the tiebreak at ``place`` (1: the first after match points)."""
    return forms.ChoiceField(
        label=f"Tiebreak {place}",
        required=False,
        choices=[("", "—"), *((name, TIEBREAK_LABELS.get(name, name)) for name in TIEBREAKS)],
        help_text="After match points, in this order; empty places are skipped."
        if place == 1
        else "",
    )


#: A form class declaring the tiebreak selects (Django's metaclass collects them).
_TiebreakFields = type(forms.Form)(
    "_TiebreakFields",
    (forms.Form,),
    {name: _tiebreak_field(n) for n, name in enumerate(TIEBREAK_FIELDS, 1)},
)


class EventForm(RulesFields, _TiebreakFields, forms.ModelForm):
    """An event's settings in fields: the rules (a preset and the options changed from it),
    the tiebreaks in order, each format's options. Checked as a whole by
    ``services.event_validate``, the check the organiser API makes, so both refuse alike."""

    class Meta:
        model = Event
        fields = [name for name in EVENT_SETTINGS if name not in ("rules", "tiebreaks")]
        widgets = {"format": ShowsFieldsSelect(FORMAT_FIELDS)}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What is stored (a new event: the default tiebreaks); a given initial wins.
        for name, tiebreak in zip(TIEBREAK_FIELDS, self.instance.tiebreaks or [], strict=False):
            self.initial.setdefault(name, tiebreak)
        # Only a repeating event needs these: left empty, they keep the model's defaults.
        for name in ("repeat_lead_minutes", "repeat_timezone"):
            if name in self.fields:
                self.fields[name].required = False

    def clean_repeat_lead_minutes(self):
        given = self.cleaned_data.get("repeat_lead_minutes")
        return Event._meta.get_field("repeat_lead_minutes").default if given is None else given

    def clean_repeat_timezone(self):
        given = self.cleaned_data.get("repeat_timezone")
        return given or Event._meta.get_field("repeat_timezone").default

    def clean(self):
        cleaned = super().clean()  # the rules, from their fields
        tiebreaks = [cleaned[name] for name in TIEBREAK_FIELDS if cleaned.get(name)]
        cleaned["tiebreaks"] = self.instance.tiebreaks = tiebreaks
        if self.errors:
            return cleaned
        candidate = copy.copy(self.instance)
        model_fields = {f.name for f in Event._meta.fields}
        for name, value in cleaned.items():
            if name in model_fields:
                setattr(candidate, name, value)
        changed = set(self.changed_data)
        try:
            # The clock first, as POST and PATCH /api/events check it: a start to come, the
            # check-in window from its minutes, a repeat rule that can run.
            check_in_derive(candidate, given=changed)
            clock_check(candidate, changed=changed)
            repeat_check(candidate, changed=changed)
            self.instance.check_in_opens_at = candidate.check_in_opens_at
            cleaned["check_in_opens_at"] = candidate.check_in_opens_at
            services.event_validate(candidate)
        except services.TournamentError as error:
            option = getattr(error, "option", None)
            if option in self.fields and error.code not in ("invalid_rules", "invalid_tiebreaks"):
                self.add_error(option, str(error))
            elif error.code == "invalid_rules":
                self.add_rules_error(str(error))
            elif error.code == "invalid_tiebreaks" and "tiebreak_unplayed" not in str(error):
                self.add_error(self._tiebreak_at_fault(tiebreaks, str(error)), str(error))
            else:
                raise ValidationError(str(error), code=error.code) from None
        return cleaned

    def _tiebreak_at_fault(self, tiebreaks: list[str], message: str) -> str:
        """The select of the tiebreak a refusal names (its second place if repeated)."""
        chosen = [(name, self.cleaned_data.get(name)) for name in TIEBREAK_FIELDS]
        named = [field for field, value in chosen if value and f"'{value}'" in message]
        return named[-1] if named else TIEBREAK_FIELDS[0]

    def changed_settings(self) -> list[str]:
        """The event's fields that changed (the rule and tiebreak selects as ``rules`` and
        ``tiebreaks``), as the organiser API logs them."""
        changed = []
        for name in self.changed_data:
            if name in RULE_FIELD_NAMES:
                name = "rules"
            elif name in TIEBREAK_FIELDS:
                name = "tiebreaks"
            if name not in changed:
                changed.append(name)
        return changed


class StartedEventForm(forms.ModelForm):
    """A started event: only its name changes (the rest is shown read-only)."""

    class Meta:
        model = Event
        fields = ["name"]


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


class WebhookInline(SecretForThoseWhoMayChange, admin.TabularInline):
    model = Webhook
    formfield_overrides = URL_FIELDS
    extra = 0
    fields = ["url", "events", "active", "secret", "created_at"]
    readonly_fields = ["secret", "created_at"]
    show_change_link = True


class AddBotsForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=1024, initial=8)
    strategy = forms.ChoiceField(choices=[])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["strategy"].choices = [(name, name) for name in sorted(engine_bots.BOTS)]


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
        _report(
            self,
            request,
            "Registration opened",
            queryset,
            lambda e: services.event_open_registration(event=e, by=request.user),
        )

    @admin.action(description="Close registration", permissions=["change"])
    def close_registration(self, request, queryset):
        _report(
            self,
            request,
            "Registration closed",
            queryset,
            lambda e: services.event_close_registration(event=e, by=request.user),
        )

    @admin.action(description="Seed the entries now", permissions=["change"])
    def seed_entries(self, request, queryset):
        _report(
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
        _report(
            self,
            request,
            "Started",
            queryset,
            lambda e: services.event_start(event=e, by=request.user),
        )

    @admin.action(description="Cancel (asks for a reason)", permissions=["change"])
    def cancel_events(self, request, queryset):
        return _action_with_reason(
            self,
            request,
            queryset,
            action="cancel_events",
            title="Cancelled",
            submit="Cancel these events",
            act=lambda e, reason: services.event_cancel(event=e, by=request.user, reason=reason),
        )


# --- entries --------------------------------------------------------------------------------


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["player", "event", "seed", "status", "late", "rating", "final_rank"]
    list_filter = ["status", "event__status", "event"]
    search_fields = ["player__name", "event__name"]
    actions = ["withdraw_entries", "disqualify_entries", "reinstate_entries", "check_in_entries"]
    readonly_fields = [f.name for f in Entry._meta.fields]

    def has_add_permission(self, request):
        return False  # entries are added on their event (the inline) or by registering

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(
        description="Withdraw (forfeits the unfinished match; asks for a reason)",
        permissions=["change"],
    )
    def withdraw_entries(self, request, queryset):
        return _action_with_reason(
            self,
            request,
            queryset,
            action="withdraw_entries",
            title="Withdrawn",
            submit="Withdraw",
            act=lambda e, reason: services.entry_withdraw(entry=e, by=request.user, reason=reason),
        )

    @admin.action(
        description="Disqualify (forfeits the unfinished match; asks for a reason)",
        permissions=["change"],
    )
    def disqualify_entries(self, request, queryset):
        return _action_with_reason(
            self,
            request,
            queryset,
            action="disqualify_entries",
            title="Disqualified",
            submit="Disqualify",
            act=lambda e, reason: services.entry_withdraw(
                entry=e, by=request.user, reason=reason, disqualify=True
            ),
        )

    @admin.action(
        description="Reinstate (before the start, or into later Swiss rounds)",
        permissions=["change"],
    )
    def reinstate_entries(self, request, queryset):
        _report(
            self,
            request,
            "Reinstated",
            queryset,
            lambda e: services.entry_reinstate(entry=e, by=request.user),
        )

    @admin.action(description="Check in", permissions=["change"])
    def check_in_entries(self, request, queryset):
        _report(
            self,
            request,
            "Checked in",
            queryset,
            lambda e: services.entry_check_in(entry=e, by=request.user),
        )


# --- pairings -------------------------------------------------------------------------------


class OverrideForm(forms.Form):
    winner = forms.ModelChoiceField(queryset=Player.objects.all())
    reason = forms.CharField(
        max_length=1000, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), required=True
    )

    def __init__(self, *args, pairing: Pairing, **kwargs):
        super().__init__(*args, **kwargs)
        players = [e.player for e in (pairing.entry_a, pairing.entry_b) if e is not None]
        # Offer the two players; the service still refuses anyone else by name.
        self.fields["winner"].widget.choices = [("", "---------")] + [
            (p.pk, p.name) for p in players
        ]


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = [
        "key",
        "event",
        "round",
        "entry_a",
        "entry_b",
        "status",
        "result",
        "winner",
        "match",
    ]
    list_filter = ["status", "result", "event"]
    search_fields = ["event__name", "entry_a__player__name", "entry_b__player__name"]
    list_select_related = ["event", "round", "entry_a__player", "entry_b__player", "winner__player"]
    actions = ["rerun_bot_matches"]
    readonly_fields = [
        "event",
        "round",
        "key",
        "table",
        "entry_a",
        "entry_b",
        "status",
        "match",
        "result",
        "winner",
        "games_a",
        "games_b",
        "margin_a",
        "ready_a_at",
        "ready_b_at",
        "winner_to",
        "loser_to",
        "history",
        "decided_at",
        "organiser",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Organiser")
    def organiser(self, pairing):
        if pairing.pk is None:
            return "-"
        return format_html(
            '<a href="{}">override the result</a>',
            reverse("admin:tournaments_pairing_override", args=[pairing.pk]),
        )

    def get_urls(self):
        return [
            path(
                "<path:object_id>/override/",
                self.admin_site.admin_view(self.override_view),
                name="tournaments_pairing_override",
            ),
            *super().get_urls(),
        ]

    def override_view(self, request, object_id):
        """Decide a pairing: the winner (one of its two players) and a reason, audited."""
        pairing = get_object_or_404(
            Pairing.objects.select_related("entry_a__player", "entry_b__player", "event"),
            pk=object_id,
        )
        if not self.has_change_permission(request, pairing):
            raise PermissionDenied
        form = OverrideForm(request.POST or None, pairing=pairing)
        if request.method == "POST" and form.is_valid():
            try:
                services.pairing_override(
                    pairing=pairing,
                    winner=form.cleaned_data["winner"],
                    reason=form.cleaned_data["reason"],
                    by=request.user,
                )
            except services.TournamentError as error:
                form.add_error("winner" if error.code == "not_in_match" else None, str(error))
                self.message_user(request, f"Not overridden: {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"{pairing.key}: {form.cleaned_data['winner']} wins (overridden).",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:tournaments_pairing_change", args=[pairing.pk])
                )
        return TemplateResponse(
            request,
            FORM_TEMPLATE,
            {
                **self.admin_site.each_context(request),
                "opts": Pairing._meta,
                "title": f"Override the result of {pairing.event} {pairing.key}",
                "intro": f"{pairing.entry_a} v {pairing.entry_b} (now: {pairing.result or '-'})",
                "form": form,
                "submit": "Override",
            },
        )

    @admin.action(description="Re-run the failed bot matches", permissions=["change"])
    def rerun_bot_matches(self, request, queryset):
        _report(
            self,
            request,
            "Re-run",
            queryset,
            lambda p: services.pairing_rerun(pairing=p, by=request.user),
        )


# --- audit and webhooks ---------------------------------------------------------------------


@admin.register(EventLog)
class EventLogAdmin(admin.ModelAdmin):
    list_display = ["at", "event", "action", "actor", "reason", "pairing", "entry"]
    list_filter = ["action", "event"]
    search_fields = ["reason", "event__name"]
    readonly_fields = [f.name for f in EventLog._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
