"""JSON written and read on the hot path with orjson: the same text the standard library
wrote (a float aside, which may take another form of the same number: ``1e16`` for
``1e+16``).

Every move renders views for the sockets and the answer, writes the match's engine state
to a ``jsonb`` column and reads it back for each view. The standard library's encoder and
decoder took about a twentieth of a move's CPU; orjson (written in Rust) does the same
work in a fraction of the time. What it produces is what the API has always sent:

- compact, UTF-8, dict keys that are not strings written as strings (as :mod:`json` does);
- datetimes, dates, times, decimals, UUIDs, lazy translations and the like through DRF's
  own encoder (``rest_framework.utils.encoders.JSONEncoder``), so a datetime keeps DRF's
  form (``Z`` for UTC) rather than orjson's (``+00:00``);
- in answers to HTTP requests, U+2028 and U+2029 escaped, as DRF's renderer does.

Anything orjson refuses (an integer beyond 64 bits, a lone surrogate in a string) is
handed to the standard library, so the result, or the error, is the one it always was. A
float that is not a number (NaN, infinity) is written ``null``: no view holds one, and the
standard library's ``NaN`` is not JSON any browser reads.

Reading JSON that people send stays with :mod:`common.parsers` (its limits are the point).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from django.db import models
from psycopg.types.json import Jsonb
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

_ENCODER = JSONEncoder()
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
#: U+2028 and U+2029 in UTF-8, and their escapes (DRF's renderer writes them escaped).
_LINE_SEPARATORS = (("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def dumps_bytes(data: Any) -> bytes:
    """``data`` as compact UTF-8 JSON, as DRF's encoder writes it."""
    try:
        return orjson.dumps(data, default=_ENCODER.default, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return _stdlib_dumps(data).encode()


def dumps(data: Any) -> str:
    """``data`` as compact JSON text, as DRF's encoder writes it."""
    try:
        return orjson.dumps(data, default=_ENCODER.default, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return _stdlib_dumps(data)


def _stdlib_dumps(data: Any) -> str:
    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"), ensure_ascii=False)


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, its compact answers written by orjson.

    An answer asked for indented (``Accept: application/json; indent=4``), or one orjson
    refuses, is DRF's own.
    """

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        try:
            text = orjson.dumps(data, default=_ENCODER.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return super().render(data, accepted_media_type, renderer_context)
        for raw, escaped in _LINE_SEPARATORS:
            if raw in text:
                text = text.replace(raw, escaped)
        return text


def _db_dumps(value: Any) -> str:
    # Text, as json.dumps gives: code that writes the column itself (a COPY) takes the
    # wrapper's dumps as Django's.
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value)


class JSONField(models.JSONField):
    """Django's ``JSONField`` (same column, same values), read and written with orjson when
    it has no encoder or decoder of its own. For the columns every move reads or writes."""

    def from_db_value(self, value, expression, connection):
        if self.decoder is None and isinstance(value, str):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass  # what json reads and orjson does not (a huge integer): json's answer
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if self.encoder is not None or connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        return Jsonb(value, dumps=_db_dumps)


__all__ = ["JSONField", "JSONRenderer", "dumps", "dumps_bytes"]
