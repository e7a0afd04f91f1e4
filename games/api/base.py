"""What the play API's resources share: a player in brief, rule sets, time controls, an id
filter, and a match looked up as the caller may see it.

The bottom of :mod:`games.api`: every other module of the package imports this one, and it
imports none of them. Tournaments and ladders render players and rules with these too.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from accounts.models import Player
from accounts.selectors import player_for_user
from common.fields import StrictBooleanField, StrictIntegerField
from games import selectors, services
from games.models import Match, TimeoutPolicy


class PlayerBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name", "kind"]
        read_only_fields = fields


RULES_NAME_MAX_LENGTH = services.RULES_NAME_MAX_LENGTH
RULES_MAX_OPTIONS = services.RULES_MAX_OPTIONS


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "minLength": 1, "maxLength": RULES_NAME_MAX_LENGTH},
            {
                "type": "object",
                "maxProperties": RULES_MAX_OPTIONS,
                "additionalProperties": {
                    "oneOf": [
                        {"type": "string", "maxLength": RULES_NAME_MAX_LENGTH},
                        {"type": "integer"},
                        {"type": "boolean"},
                    ]
                },
            },
        ]
    }
)
class RulesField(serializers.Field):
    """A preset name, or an object of rule options whose values are short strings, integers or
    booleans. Which names and options exist is the engine's to say (``rules_build``)."""

    default_error_messages = {
        "invalid": _("Give a preset name or an object of rule options."),
        "name_too_long": _("A rule set name is at most {max_length} characters."),
        "too_many": _("Give at most {max_options} rule options."),
        "option": _("Rule option {option!r} must be a short string, an integer or a boolean."),
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if not data or len(data) > RULES_NAME_MAX_LENGTH:
                if data:
                    self.fail("name_too_long", max_length=RULES_NAME_MAX_LENGTH)
                self.fail("invalid")
            return data
        if not isinstance(data, dict):
            self.fail("invalid")
        if len(data) > RULES_MAX_OPTIONS:
            self.fail("too_many", max_options=RULES_MAX_OPTIONS)
        for key, value in data.items():
            short = len(key) <= RULES_NAME_MAX_LENGTH
            if isinstance(value, str):
                ok = short and len(value) <= RULES_NAME_MAX_LENGTH
            else:
                ok = short and isinstance(value, int | bool)
            if not ok:
                self.fail("option", option=key[:RULES_NAME_MAX_LENGTH])
        return data

    def to_representation(self, value):
        return value


class TimeControlSerializer(serializers.Serializer):
    base_seconds = StrictIntegerField(min_value=10, max_value=24 * 3600)
    increment_seconds = StrictIntegerField(min_value=0, max_value=600, default=0)
    turn_limit_seconds = StrictIntegerField(
        min_value=5, max_value=24 * 3600, required=False, allow_null=True, default=None
    )
    timeout_policy = serializers.ChoiceField(
        choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    pause_seconds = StrictIntegerField(
        min_value=0,
        max_value=120,
        default=15,
        help_text="No clock runs for this long after a deal while both read the result "
        "(the next deal starts when both continue); 0 for no pause.",
    )
    lag_compensation = StrictBooleanField(
        default=True,
        help_text="Credit the mover's lag back to their clock, within a bank of 500 ms a move "
        "(1.5 s at most): the network lag measured on their socket, and the server's own "
        "delay in handing them the view (a bot's game stream) and in taking their move.",
    )


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.NumberFilter):
    """An id in a query string: a whole number (``1.5`` or ``-3e38`` is a 400, not a query)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


def visible_match(request: Request, pk: int) -> Match:
    """The match, with its players and games, if the caller may see it; 404 otherwise."""
    match = get_object_or_404(
        Match.objects.select_related("player_a", "player_b", "winner").prefetch_related("games"),
        pk=pk,
    )
    if not selectors.match_visible(match=match, viewer=player_for_user(user=request.user)):
        raise Http404  # another player's challenge: do not confirm that it exists
    return match
