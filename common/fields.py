"""Serializer fields for JSON request bodies that take exactly the JSON type the schema names.

DRF's fields coerce on purpose, for HTML forms: ``CharField`` keeps ``0`` as ``"0"``,
``IntegerField`` takes ``"3"`` and ``3.0``, ``BooleanField`` takes ``"yes"`` and ``1``. The API
reads JSON only, and its schema promises a string, an integer or a boolean; a client sending
something else has a bug worth a 400. Query-string serializers keep DRF's own fields (every
query value is text).
"""

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string, nothing else."""

    default_error_messages = {"invalid": _("Not a valid string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer (not a string of digits, a float or a boolean)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """``true`` or ``false``."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


#: The largest id a database column holds (a signed 64-bit integer).
ID_MAX = 2**63 - 1


class StrictPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """An object's id as a JSON integer (not ``"23"``, ``23.5`` or ``true``)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if not 1 <= data <= ID_MAX:
            # No row has it, and a database cannot even compare a larger integer.
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)
