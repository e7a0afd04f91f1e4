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


_KINDS = frozenset(k.value for k in ActionKind)


def _card_text(value: object, *, blank: bool) -> bool:
    """Whether ``value`` is a card's text the serializer takes unchanged (no whitespace to
    trim, no character it refuses): up to three ASCII letters and digits."""
    if type(value) is not str or len(value) > 3:
        return False
    return (blank and value == "") or (value.isascii() and value.isalnum())


def move_data(data: object) -> dict | None:
    """A well-formed move's ``validated_data``, as :class:`ActionSerializer` would give it,
    read without building the serializer (most of what validating a move costs); None when
    the body is anything else, for the serializer to decide and to say what is wrong.

    Only bodies the serializer takes unchanged are read here: a JSON object whose ``ply``
    is an integer in range, ``type`` an action's name, ``card`` (if any) up to three ASCII
    letters and digits or blank, ``melds`` (if any) null or up to four lists of up to
    thirteen such cards. Other keys are ignored, as the serializer ignores them.
    """
    if type(data) is not dict:
        return None
    ply, kind = data.get("ply"), data.get("type")
    if type(ply) is not int or not 0 <= ply <= 100_000:
        return None
    if type(kind) is not str or kind not in _KINDS:
        return None
    out: dict = {"ply": ply, "type": kind}
    if "card" in data:
        if not _card_text(data["card"], blank=True):
            return None
        out["card"] = data["card"]
    if "melds" in data:
        melds = data["melds"]
        if melds is not None:
            if type(melds) is not list or len(melds) > 4:
                return None
            for meld in melds:
                if type(meld) is not list or len(meld) > 13:
                    return None
                if not all(_card_text(card, blank=False) for card in meld):
                    return None
            melds = [list(meld) for meld in melds]
        out["melds"] = melds
    return out
