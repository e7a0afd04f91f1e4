"""Form fields for a match's rule set, and a select that shows only the fields of its choice.

The admin's event and ladder forms choose the rules in fields (a preset, then any option
changed from it) instead of a JSON text box; :meth:`RulesFields.rules_value` writes the
``rules`` the model stores and the services check (``games.services.rules_build``): the forms
validate nothing of the rules themselves, so the admin and the API refuse the same rule sets
with the same message.

:class:`ShowsFieldsSelect` is a ``<select>`` that names, for each of its values, the form rows
that belong to it; ``games/admin/option-fields.js`` hides the rows of the other values (the
event's format, a ladder's rating system).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.engine.rules import PRESETS, RuleSet

#: What each preset is, as the select says it.
PRESET_LABELS = {
    "standard": _("Standard (knock at 10, to 250)"),
    "oklahoma": _("Oklahoma (the first upcard sets the knock limit; to 150)"),
    "straight": _("Straight gin (no knocking)"),
    "hollywood": _("Hollywood (three games scored at once)"),
}
#: Rule options that are fields of the event or ladder itself, not of the rule set's form.
OWN_FIELDS = frozenset({"name", "target", "best_of", "duplicate_deals"})
#: Every other option of the rule set, in the rule book's order.
RULE_OPTIONS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(RuleSet) if f.name not in OWN_FIELDS
)
#: The form field of a rule option: ``rule_<option>``.
PREFIX = "rule_"
AS_PRESET = _("As the preset")
#: Each rule option's label (an option not listed: its name, capitalised).
OPTION_LABELS = {
    "knock_limit": _("Knock limit"),
    "oklahoma": _("Oklahoma"),
    "oklahoma_spade_multiplier": _("Oklahoma spade multiplier"),
    "straight": _("Straight"),
    "allow_discard_of_drawn_upcard": _("Allow discard of drawn upcard"),
    "fiftieth_card": _("Fiftieth card"),
    "gin_bonus": _("Gin bonus"),
    "big_gin_bonus": _("Big gin bonus"),
    "undercut_bonus": _("Undercut bonus"),
    "game_bonus": _("Game bonus"),
    "line_bonus": _("Line bonus"),
    "shutout": _("Shutout"),
    "next_dealer": _("Next dealer"),
    "scoring": _("Scoring"),
}
#: The words of the choices of the options that are a choice (a value not listed: its code).
VALUE_LABELS = {
    "double_hand_points": _("double hand points"),
    "double_game_bonus": _("double game bonus"),
    "none": _("none"),
    "alternate": _("alternate"),
    "loser": _("loser"),
    "standard": _("standard"),
    "hollywood": _("hollywood"),
}


def _option_field(option: str) -> forms.Field:
    default = getattr(RuleSet(), option)
    label = OPTION_LABELS.get(option, option.replace("_", " ").capitalize())
    if isinstance(default, bool):
        return forms.NullBooleanField(
            label=label,
            required=False,
            widget=forms.Select(
                choices=[("unknown", AS_PRESET), ("true", _("Yes")), ("false", _("No"))]
            ),
        )
    if isinstance(default, enum.Enum):
        values = [
            (m.value, VALUE_LABELS.get(m.value, m.value.replace("_", " "))) for m in type(default)
        ]
        return forms.ChoiceField(label=label, required=False, choices=[("", AS_PRESET), *values])
    return forms.IntegerField(label=label, required=False, help_text=_("Empty: the preset's."))


def _rule_fields() -> dict[str, forms.Field]:
    fields: dict[str, forms.Field] = {
        "rules_preset": forms.ChoiceField(
            label=_("Rules"),
            choices=[(name, PRESET_LABELS.get(name, name)) for name in PRESETS],
            initial="standard",
            help_text=_("The variant; the options below change single rules of it."),
        ),
        "rules_name": forms.CharField(
            label=_("Rule set name"),
            required=False,
            max_length=60,
            help_text=_("Shown with each match; empty: the preset's name."),
        ),
    }
    fields.update({PREFIX + option: _option_field(option) for option in RULE_OPTIONS})
    return fields


def rules_initial(rules: Any) -> dict[str, Any]:
    """The rule fields' initial values for a stored ``rules`` (a preset name, ``{}``,
    ``{"preset": ..., options...}`` or a whole rule set as ``RuleSet.to_dict`` writes it)."""
    if isinstance(rules, str):
        return {"rules_preset": rules}
    rules = dict(rules) if isinstance(rules, dict) else {}
    preset = rules.pop("preset", None)
    name = rules.pop("name", None)
    if preset is None:
        preset = name if name in PRESETS else "standard"
    initial: dict[str, Any] = {"rules_preset": preset}
    if name is not None and name != preset:
        initial["rules_name"] = name
    base = PRESETS.get(str(preset), RuleSet()).to_dict()
    for option, value in rules.items():
        if option in RULE_OPTIONS and value != base.get(option):
            initial[PREFIX + option] = value
    return initial


#: A form class declaring the rule fields (Django's metaclass collects them).
_RuleFieldsForm = type(forms.Form)("_RuleFieldsForm", (forms.Form,), _rule_fields())


class RulesFields(_RuleFieldsForm):
    """The rule set in fields: mix into a ``ModelForm`` whose model stores ``rules``.

    Leave ``rules`` out of the form's fields; the form fills it from these on ``clean``.
    """

    rules_model_field = "rules"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        instance = getattr(self, "instance", None)
        if instance is not None:  # what is stored; a given initial (?name=...) wins
            for name, value in rules_initial(getattr(instance, self.rules_model_field)).items():
                self.initial.setdefault(name, value)

    def rules_value(self) -> dict[str, Any]:
        """The ``rules`` to store: ``{}`` for the standard game, else the preset and the
        options set (an unknown preset or a bad value is left to the rules' own check)."""
        data = self.cleaned_data
        rules: dict[str, Any] = {}
        for option in RULE_OPTIONS:
            value = data.get(PREFIX + option)
            if value is not None and value != "":
                rules[option] = value
        if data.get("rules_name"):
            rules["name"] = data["rules_name"]
        preset = data.get("rules_preset") or "standard"
        if preset != "standard" or rules:
            rules = {"preset": preset, **rules}
        return rules

    def clean(self):
        cleaned = super().clean()
        cleaned[self.rules_model_field] = self.rules_value()
        setattr(self.instance, self.rules_model_field, cleaned[self.rules_model_field])
        return cleaned

    def add_rules_error(self, message: str, *, english: str | None = None) -> None:
        """Put a refusal of the rules on the option it names (``rule option 'x' ...``), or
        on the form. ``english``: the refusal's English text (``PlayError.english``), read to
        find the option when ``message`` is in another language."""
        english = english or message
        found = re.search(r"rule option '?(\w+)'?", english)
        field = PREFIX + found.group(1) if found else None
        if field in self.fields:
            self.add_error(field, message)
        elif "rule set" in english:
            self.add_error("rules_preset", message)
        else:
            self.add_error(None, message)


#: The rule fields, for a fieldset.
RULE_FIELD_NAMES: tuple[str, ...] = tuple(_rule_fields())


class ShowsFieldsSelect(forms.Select):
    """A select whose value decides which other fields the form shows.

    ``fields`` maps each value to the names of the fields that belong to it; the fields of
    the other values are hidden (the rows stay in the page, so their values are sent back
    unchanged). The script is ``games/admin/option-fields.js``.
    """

    def __init__(self, fields: Mapping[str, Iterable[str]], *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields_of = fields  # read at each rendering: a declaration made later counts

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        shows = {str(value): list(names) for value, names in self.fields_of.items()}
        context["widget"]["attrs"]["data-shows-fields"] = json.dumps(shows)
        return context

    @property
    def media(self):
        return forms.Media(js=["games/admin/option-fields.js"])
