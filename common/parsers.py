"""The API's JSON reader: a bounded body, bounded nesting, and JSON that is JSON.

DRF's own ``JSONParser`` reads the whole body whatever its size (Django's
``DATA_UPLOAD_MAX_MEMORY_SIZE`` guards ``request.body`` and forms, not the stream DRF reads)
and hands it to :func:`json.load`, which recurses once per level of nesting: a body of
``[[[[...]]]]`` a thousand deep ends in a ``RecursionError`` (a 500), and one just under
Python's limit gets through to code that recurses again (validation, storage, rendering).
No body of this API nests deeper than a few levels, so anything deeper than
:data:`MAX_DEPTH` is refused before any view sees it.

- A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes: 413 ``request_too_large``.
- Nesting deeper than :data:`MAX_DEPTH`, invalid JSON, ``NaN`` or ``Infinity`` (written as
  such or as a number too large for a float, ``1e999999``), or a lone UTF-16 surrogate
  (``"\ud800"``, which no UTF-8 text can hold, so no answer echoing it could be written):
  400 ``parse_error``.

Code that parses JSON itself (the sockets' messages) uses :func:`loads` for the same limits.
When Django itself reads the body first and finds it too large, :func:`bad_request` (the
``handler400``) answers the same 413 under ``/api/``.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import defaults
from rest_framework import exceptions, parsers, status
from rest_framework.settings import api_settings
from rest_framework.utils import json as drf_json

#: Levels of arrays and objects a JSON document may nest (``{"a": [1]}`` is two).
MAX_DEPTH = 10


class JSONTooDeepError(ValueError):
    """A JSON document nests deeper than :data:`MAX_DEPTH` (a ValueError like any bad JSON)."""


class JSONNotTextError(ValueError):
    """A JSON document holds what no UTF-8 text or JSON answer can: a lone surrogate, NaN."""


#: A UTF-16 surrogate: in JSON only as an escape (``\ud800``), meaningful only in a pair.
_SURROGATE = re.compile("[\ud800-\udfff]")


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")
    default_code = "request_too_large"


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True if ``value`` (parsed JSON) nests arrays and objects deeper than ``limit``.

    Walks with a stack of its own, so a deep value cannot exhaust Python's recursion.
    """
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def not_text(value: Any) -> str | None:
    """Why ``value`` (parsed JSON) cannot be echoed as UTF-8 JSON, or None if it can.

    A key or string holding a UTF-16 surrogate (a lone ``\ud800``: an escaped pair decodes
    to one character outside the range) or a float that is not finite. Walks with a stack
    of its own, like :func:`too_deep`.
    """
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return _("a string holds a lone UTF-16 surrogate")
        elif isinstance(node, float):
            if not math.isfinite(node):
                return _("numbers must be finite")
        elif isinstance(node, dict):
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _too_deep_message() -> str:
    return _("JSON may nest at most %(depth)s levels deep") % {"depth": MAX_DEPTH}


def loads(text: str | bytes, *, strict: bool = True) -> Any:
    """:func:`json.loads` that refuses nesting deeper than :data:`MAX_DEPTH`.

    Raises ValueError (:class:`JSONTooDeepError` for the nesting) on anything that is not
    an acceptable JSON document; ``strict`` also refuses ``NaN`` and ``Infinity`` (however
    written) and lone UTF-16 surrogates (:class:`JSONNotTextError`).
    """
    parse_constant = drf_json.strict_constant if strict else None
    try:
        value = json.loads(text, parse_constant=parse_constant)
    except RecursionError:
        raise JSONTooDeepError(_too_deep_message()) from None
    if too_deep(value):
        raise JSONTooDeepError(_too_deep_message())
    if strict and (reason := not_text(value)):
        raise JSONNotTextError(reason)
    return value


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with a size cap and a nesting cap (see the module's docstring)."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(raw) > limit:
            raise RequestTooLarge(_too_large_detail(limit))
        encoding = parsers.get_encoding(parser_context)
        try:
            text = codecs.decode(raw, encoding)
            return loads(text, strict=api_settings.STRICT_JSON)
        except ValueError as exc:  # UnicodeDecodeError is a ValueError too
            raise exceptions.ParseError(
                _("JSON parse error - %(error)s") % {"error": exc}
            ) from None


def _too_large_detail(limit: int | None) -> str:
    return _("A request body may be at most %(limit)s bytes.") % {"limit": limit}


def _too_large_body(limit: int | None) -> dict:
    return {"detail": _too_large_detail(limit), "code": "request_too_large"}


def bad_request(request: HttpRequest, exception: Exception | None = None):
    """Django's 400 handler: the API's error shape under ``/api/``, Django's page elsewhere.

    Django raises ``RequestDataTooBig`` itself when something reads ``request.body`` before
    the parser does; the API answers it as the parser would, 413 ``request_too_large``.
    """
    if request.path.startswith("/api/"):
        compact = {"separators": (",", ":")}
        if isinstance(exception, RequestDataTooBig):
            body = _too_large_body(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
            return JsonResponse(body, status=413, json_dumps_params=compact)
        body = {"detail": _("Bad request."), "code": "bad_request"}
        return JsonResponse(body, status=400, json_dumps_params=compact)
    return defaults.bad_request(request, exception)
