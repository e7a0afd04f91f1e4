"""The organiser pages' event form: fields to type in, checked by the API's own serializer.

:class:`EventForm` only reads what an organiser typed into the values the API takes (text into
numbers, dates and yes/no; a preset and options into ``rules``; one select per place into
``tiebreaks``). Whether they make an event is for ``EventCreateSerializer`` (what
``POST``/``PATCH /api/events`` check) and then the service (``event_create``,
``event_update``) to say; their words are put back next to the field they name.

A field is offered only while the API takes it (``EventCreateSerializer``'s fields), so a
setting the API gains shows up here by declaring its field below, and one it drops goes away.
Each format's own options are the lines of ``FORMAT_FIELDS`` (``tournaments.settings_fields``,
the admin's too): the form marks their rows with the formats they belong to and
``organise.js`` hides the others (without JavaScript every row shows, and the options of
other formats are ignored on submission).
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from games.forms import RULE_FIELD_NAMES, RulesFields, rules_initial
from games.models import TimeoutPolicy
from tournaments.api import EventCreateSerializer
from tournaments.formats.standings import TIEBREAKS
from tournaments.models import (
    Event,
    Format,
    GroupFormat,
    PlayoffFormat,
    Seeding,
    TiebreakUnplayed,
    Venue,
)
from tournaments.services import TournamentError
from tournaments.services.events import EDITABLE_ONCE_STARTED
from tournaments.settings_fields import FORMAT_FIELDS, TIEBREAK_FIELDS, TIEBREAK_LABELS

#: The datetime-local input's value (minutes, in the organiser's time zone).
DATETIME_INPUT = "%Y-%m-%dT%H:%M"


def _help(name: str) -> str:
    """The model's help text of an event setting (what the admin shows too; lazy, so it
    reads in the page's language)."""
    try:
        return Event._meta.get_field(name).help_text
    except FieldDoesNotExist:  # a setting the model does not have (yet)
        return ""


def _number(label: str, name: str = "", help_text: str | None = None) -> forms.Field:
    return forms.IntegerField(
        label=label,
        required=False,
        help_text=_help(name) if help_text is None else help_text,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


def _yes(label: str, name: str = "", help_text: str | None = None) -> forms.Field:
    return forms.BooleanField(
        label=label, required=False, help_text=_help(name) if help_text is None else help_text
    )


def _choice(label: str, choices, name: str = "", blank: str | None = None) -> forms.Field:
    options = list(choices)
    if blank is not None:
        options.insert(0, ("", blank))
    return forms.ChoiceField(label=label, required=False, choices=options, help_text=_help(name))


def _when(label: str, name: str = "", help_text: str | None = None) -> forms.Field:
    return forms.DateTimeField(
        label=label,
        required=False,
        input_formats=[DATETIME_INPUT, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        help_text=_help(name) if help_text is None else help_text,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_INPUT),
    )


class UsernamesField(forms.CharField):
    """Usernames typed one after another (commas or spaces between them), as the list the
    API takes; whether each names someone is for its serializer to say."""

    def to_python(self, value) -> list[str]:
        return [name for name in str(super().to_python(value)).replace(",", " ").split() if name]

    def prepare_value(self, value) -> str:
        return ", ".join(value) if isinstance(value, list | tuple) else value


#: A translated text with its placeholders filled in, in the language of the page that shows it.
_formatted = lazy(lambda text, values: str(text) % values, str)


def _tiebreak(place: int) -> forms.Field:
    return forms.ChoiceField(
        label=_formatted(_("Tiebreak %(place)s"), {"place": place}),
        required=False,
        choices=[("", "—"), *((name, TIEBREAK_LABELS.get(name, name)) for name in TIEBREAKS)],
        help_text=_("After match points, in this order; empty places are skipped.")
        if place == 1
        else "",
    )


#: The event's settings as fields, in the order of the page's sections.
SETTING_FIELDS: dict[str, forms.Field] = {
    "name": forms.CharField(label=_("Name"), required=False, strip=False),
    "format": _choice(_("Format"), Format.choices),
    "description": forms.CharField(
        label=_("Description"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Shown on the event's page."),
    ),
    "co_organisers": UsernamesField(
        label=_("Co-organisers"),
        required=False,
        help_text=_(
            "Usernames, separated by commas: they may change and run the event as you may."
        ),
    ),
    "venue": _choice(_("Where it is played"), Venue.choices, "venue"),
    "accept_entered_results": _yes(
        _("A table result stands without confirmation"), "accept_entered_results"
    ),
    "rated": _yes(_("Rated"), help_text=_("Its matches change the players' ratings.")),
    "bots_only": _yes(_("For bots only"), "bots_only"),
    "capacity": _number(_("Most players"), "capacity"),
    # When.
    "registration_opens_at": _when(
        _("Registration opens"), help_text=_("Empty: when you open it (Open registration).")
    ),
    "registration_closes_at": _when(_("Registration closes"), help_text=_("Empty: at the start.")),
    "starts_at": _when(_("Starts at"), help_text=_("It starts by itself then.")),
    "check_in_opens_at": _when(_("Check-in opens"), "check_in_opens_at"),
    "check_in_minutes": _number(
        _("Check-in (minutes before the start)"),
        help_text=_("Only those who check in are paired. Empty: no check-in."),
    ),
    "repeat_rule": forms.CharField(
        label=_("Repeats (iCalendar rule)"),
        required=False,
        help_text=_(
            "E.g. FREQ=WEEKLY;BYDAY=SA;BYHOUR=14;BYMINUTE=0 (every Saturday at 14:00), "
            "the first time the start above. The event becomes a template: each time is a new "
            "event, a copy of it. Empty: it does not repeat (emptied: it stops)."
        ),
    ),
    "repeat_timezone": forms.CharField(
        label=_("Repeats in time zone"),
        required=False,
        help_text=_("The rule's times are in it, e.g. Europe/London (summer time followed)."),
    ),
    "repeat_lead_minutes": _number(
        _("Each created (minutes before its start)"), "repeat_lead_minutes"
    ),
    # Format options (each format's own: FORMAT_FIELDS).
    "third_place": _yes(_("Match for third place"), help_text=""),
    "bracket_reset": _yes(
        _("Bracket reset"),
        help_text=_(
            "Double elimination: the final is played again if the "
            "finalist from the losers' bracket wins it."
        ),
    ),
    "double_round_robin": _yes(
        _("Double round robin"), help_text=_("Everyone meets everyone twice.")
    ),
    "swiss_rounds": _number(_("Swiss rounds"), "swiss_rounds"),
    "late_registration": _yes(_("Late registration"), "late_registration"),
    "group_count": _number(_("Groups"), "group_count"),
    "group_size": _number(_("Players per group"), "group_size"),
    "group_format": _choice(_("Groups play"), GroupFormat.choices, "group_format"),
    "advance_per_group": _number(_("Go on from each group"), "advance_per_group"),
    "playoff_format": _choice(_("Playoff"), PlayoffFormat.choices, "playoff_format"),
    "arena_minutes": forms.FloatField(
        label=_("Arena minutes"), required=False, help_text=_help("arena_minutes")
    ),
    "berserk": _yes(_("Berserk"), "berserk"),
    **{name: _tiebreak(place) for place, name in enumerate(TIEBREAK_FIELDS, 1)},
    "tiebreak_unplayed": _choice(
        _("Unplayed rounds"), TiebreakUnplayed.choices, "tiebreak_unplayed"
    ),
    # The match.
    "best_of": _number(
        _("Best of (games)"),
        help_text=_("An odd number: the match goes to whoever wins more than half."),
    ),
    "target": _number(_("Game to (points)"), help_text=_("A game ends when a player reaches it.")),
    "duplicate_deals": _yes(_("Duplicate deals"), "duplicate_deals"),
    # The clock.
    "base_seconds": _number(_("Clock: base time (seconds)"), "base_seconds"),
    "increment_seconds": _number(
        _("Clock: increment (seconds)"), help_text=_("Added after each move.")
    ),
    "turn_limit_seconds": _number(
        _("Clock: turn limit (seconds)"), help_text=_("At most this long a move. Empty: no limit.")
    ),
    "timeout_policy": _choice(_("When a clock runs out"), TimeoutPolicy.choices),
    "grace_seconds": _number(_("Show-up time (seconds)"), "grace_seconds"),
    "seeding": _choice(_("Seeding"), Seeding.choices),
}

#: The page's sections: (key, title, fields); the rule options follow the match's section.
SECTIONS: list[tuple[str, str, list[str]]] = [
    ("event", _("Event"), ["name", "format", "description", "co_organisers", "venue",
               "accept_entered_results", "rated", "bots_only", "capacity"]),
    ("format-options", _("Format options"), [name for name in SETTING_FIELDS if any(
        name in own for own in FORMAT_FIELDS.values())]),
    ("when", _("When"), ["registration_opens_at", "registration_closes_at", "starts_at",
              "check_in_opens_at", "check_in_minutes", "repeat_rule", "repeat_timezone",
              "repeat_lead_minutes"]),
    ("matches", _("Matches"), ["rules_preset", "best_of", "target", "duplicate_deals"]),
    ("clock", _("Clock"), ["base_seconds", "increment_seconds", "turn_limit_seconds",
                           "timeout_policy", "grace_seconds"]),
    ("seeding", _("Seeding"), ["seeding"]),
]  # fmt: skip
#: The rule options (a preset's single rules), in a section that opens on demand.
RULE_OPTION_FIELDS = [name for name in RULE_FIELD_NAMES if name != "rules_preset"]

#: Where a service's refusal goes when its code names a setting.
REFUSAL_FIELDS = {
    "unknown_format": "format",
    "unknown_seeding": "seeding",
    "invalid_venue": "venue",
    "arena_online_only": "venue",
    "duplicate_deals_at_table": "duplicate_deals",
    "duplicate_deals_need_bots": "duplicate_deals",
    "invalid_registration_window": "registration_closes_at",
    "invalid_arena_minutes": "arena_minutes",
    "capacity": "capacity",
}


def api_fields() -> dict[str, Any]:
    """The serializer fields of ``POST /api/events``: what the API takes."""
    return EventCreateSerializer().fields


def formats_of(name: str) -> list[str]:
    """The formats whose own option ``name`` is (empty: a setting of every format)."""
    return [fmt for fmt, own in FORMAT_FIELDS.items() if name in own]


class EventForm(RulesFields, forms.Form):
    """An event's settings, as typed; :meth:`payload` is the body ``POST /api/events`` takes.

    ``event`` (editing): its settings are the initial values and only those changed are
    sent (``PATCH``); a started event offers its name only, as the API allows.
    """

    def __init__(self, *args, event: Event | None = None, **kwargs):
        self.event = event
        super().__init__(*args, **kwargs)
        offered = api_fields()
        started = event is not None and event.status not in (
            Event.Status.DRAFT,
            Event.Status.REGISTRATION,
        )
        for name, field in SETTING_FIELDS.items():
            base = "tiebreaks" if name in TIEBREAK_FIELDS else name
            if base in offered and not (started and name not in EDITABLE_ONCE_STARTED):
                self.fields[name] = copy.deepcopy(field)
        if started or "rules" not in offered:
            for name in RULE_FIELD_NAMES:
                self.fields.pop(name, None)
        self.fields.pop("rules_name", None)  # a label of the rule set: not for this form
        if event is None:
            self.initial.update(_defaults())
        else:
            self.initial.update(_settings_of(event))
        for name, field in self.fields.items():
            field.formats = " ".join(formats_of(name))  # the row's data-formats

    # --- what the API is given ------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        """The request body for the API's serializer (only changed settings when editing)."""
        data = self.cleaned_data
        offered = api_fields()
        chosen = data.get("format") or (self.event.format if self.event else "")
        own = set(FORMAT_FIELDS.get(chosen, ()))
        every_own = {name for names in FORMAT_FIELDS.values() for name in names}
        changed = set(self.changed_data) if self.event is not None else None
        body: dict[str, Any] = {}
        for name in self.fields:
            if name in RULE_FIELD_NAMES or name in TIEBREAK_FIELDS:
                continue
            if name in every_own and name not in own:
                continue  # another format's option
            if changed is not None and name not in changed:
                continue
            value = data.get(name)
            if value is None or value == "":
                if getattr(offered.get(name), "allow_null", False):
                    body[name] = None
                elif name in ("name", "format"):
                    body[name] = ""  # left empty: the API says it is needed
                elif name in ("description", "repeat_rule"):
                    body[name] = ""  # emptied: no description; no more repeats
                continue
            body[name] = value.isoformat() if isinstance(value, datetime) else value
        if "rules_preset" in self.fields and (changed is None or changed & set(RULE_FIELD_NAMES)):
            body["rules"] = self.rules_value()
        if (
            TIEBREAK_FIELDS[0] in self.fields
            and TIEBREAK_FIELDS[0] in own
            and (changed is None or changed & set(TIEBREAK_FIELDS))
        ):
            body["tiebreaks"] = [data[name] for name in TIEBREAK_FIELDS if data.get(name)]
        return body

    def clean(self):
        return forms.Form.clean(self)  # the rules are read by payload(), checked by the API

    # --- the API's words, next to the fields ----------------------------------------------

    def add_api_errors(self, errors: dict[str, Any]) -> None:
        """The serializer's errors (``{field: [message]}``, nested for lists) on the fields."""
        for name, messages in errors.items():
            if name == "tiebreaks" and isinstance(messages, dict):
                for index, inner in messages.items():
                    self._add(TIEBREAK_FIELDS[min(int(index), len(TIEBREAK_FIELDS) - 1)], inner)
            elif name == "rules":
                for message in _messages(messages):
                    self.add_rules_error(message)
            elif name in self.fields:
                self._add(name, messages)
            else:
                self._add(None, [f"{name}: {m}" for m in _messages(messages)])

    def add_refusal(self, error: TournamentError) -> None:
        """A service's refusal on the setting it names, or on the form."""
        message = str(error)
        option = getattr(error, "extra", {}).get("option")
        if error.code == "invalid_rules" and "rules_preset" in self.fields:
            if "best of" in message:
                self._add("best_of", [message])
            else:
                self.add_rules_error(message)
        elif error.code == "invalid_tiebreaks" and TIEBREAK_FIELDS[0] in self.fields:
            if "tiebreak_unplayed" in message:
                self._add("tiebreak_unplayed", [message])
            else:
                chosen = [n for n in TIEBREAK_FIELDS if self.cleaned_data.get(n)]
                named = [n for n in chosen if f"'{self.cleaned_data[n]}'" in message]
                self._add(named[-1] if named else TIEBREAK_FIELDS[0], [message])
        elif option in self.fields:
            self._add(option, [message])
        elif REFUSAL_FIELDS.get(error.code) in self.fields:
            self._add(REFUSAL_FIELDS[error.code], [message])
        else:
            self._add(None, [message])

    def _add(self, name: str | None, messages) -> None:
        for message in _messages(messages):
            self.add_error(name, message)

    # --- the page's layout ----------------------------------------------------------------

    def sections(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        """The fields by section (key, title, fields), as the page shows them (empty sections
        left out)."""
        shown = []
        for key, title, names in SECTIONS:
            names = [*names, *TIEBREAK_FIELDS, "tiebreak_unplayed"] if key == "format-options" \
                else names  # fmt: skip
            fields = [self[name] for name in dict.fromkeys(names) if name in self.fields]
            if fields:
                shown.append((key, title, fields))
        return shown

    def rule_options(self) -> list[forms.BoundField]:
        return [self[name] for name in RULE_OPTION_FIELDS if name in self.fields]

    def rule_errors(self) -> bool:
        """Whether a rule option was refused (its section opens)."""
        return any(name in self.errors for name in RULE_OPTION_FIELDS)


def _messages(messages) -> list[str]:
    if isinstance(messages, dict):
        return [m for inner in messages.values() for m in _messages(inner)]
    if isinstance(messages, list | tuple):
        return [m for inner in messages for m in _messages(inner)]
    return [str(messages)]


def _defaults() -> dict[str, Any]:
    """A new event's settings as the model sets them (what the API gives when left out)."""
    event = Event()
    return {**_settings_of(event), "format": Format.SWISS}


def _settings_of(event: Event) -> dict[str, Any]:
    """An event's settings as the form's initial values."""
    initial: dict[str, Any] = {}
    for name in SETTING_FIELDS:
        if name in TIEBREAK_FIELDS:
            continue
        if name != "co_organisers" and hasattr(event, name):
            value = getattr(event, name)
            if isinstance(value, datetime):  # as the form shows it: to the minute
                value = value.replace(second=0, microsecond=0)
            initial[name] = value
    initial["co_organisers"] = (
        sorted(u.get_username() for u in event.co_organisers.all()) if event.pk else []
    )
    for name, tiebreak in zip(TIEBREAK_FIELDS, event.tiebreaks or [], strict=False):
        initial[name] = tiebreak
    initial.update(rules_initial(event.rules))
    return initial
