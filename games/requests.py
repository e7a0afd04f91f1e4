"""The requests of play both interfaces read: a move, as the REST API (``POST
/api/games/{id}/action``) and the table socket (a ``move`` message) take it.

Below both (:mod:`games.api`, :mod:`games.consumers`), so the socket validates a move with the
very serializer the API documents, and neither interface imports the other.
"""

from __future__ import annotations

from rest_framework import serializers

from common.fields import StrictCharField, StrictIntegerField
from games.engine.actions import ActionKind


# No docstring: the schema would take it as the Action body's description.
class ActionSerializer(serializers.Serializer):
    ply = StrictIntegerField(min_value=0, max_value=100_000, help_text="The game's ply you saw.")
    type = serializers.ChoiceField(choices=[k.value for k in ActionKind])
    card = StrictCharField(max_length=3, required=False, allow_blank=True)
    melds = serializers.ListField(
        child=serializers.ListField(child=StrictCharField(max_length=3), max_length=13),
        required=False,
        allow_null=True,
        max_length=4,
        help_text="With a knock: the melds to show (the engine picks if omitted).",
    )
