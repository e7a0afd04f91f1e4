"""The event admin's forms: an event's settings in fields (the rules, the tiebreaks in order,
each format's options), a started event's name, the bots to add.
"""

from __future__ import annotations

import copy

from django import forms
from django.core.exceptions import ValidationError

from games.engine import bots as engine_bots
from games.forms import RULE_FIELD_NAMES, RulesFields, ShowsFieldsSelect
from tournaments import services
from tournaments.formats.standings import TIEBREAKS
from tournaments.models import Event
from tournaments.services.events import check_in_derive, clock_check
from tournaments.services.repeat import repeat_check
from tournaments.settings_fields import (
    EVENT_SETTINGS,
    FORMAT_FIELDS,
    TIEBREAK_FIELDS,
    TIEBREAK_LABELS,
)


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


class AddBotsForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=1024, initial=8)
    strategy = forms.ChoiceField(choices=[])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["strategy"].choices = [(name, name) for name in sorted(engine_bots.BOTS)]
