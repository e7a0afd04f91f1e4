"""OpenAPI post-processing: document the error answers every endpoint can give, and their codes.

drf-spectacular documents the success answers each view declares. The project's error shape
(``common.api.error_body``) comes from shared machinery instead: authentication, permissions,
throttling, validation, unknown objects, a database outage. This hook adds those answers to
every operation that can give them, so a client (or a fuzzer such as schemathesis) finds
every status code it can receive in the schema, including the web server's 414 for an
over-long URL. Each error answer's description names every ``code`` it can carry (also as
the extension ``x-error-codes``): the common ones (:data:`COMMON_CODES`) and the operation's
own, which each app declares beside its view with :func:`error_codes` (the platform names no
app's paths).

Two more corrections make the schema say what the server does:

- Optional query parameters get ``allowEmptyValue``: DRF and django-filter read ``?kind=``
  as if the parameter were left out, as HTML forms send it.
- Patterns written with ``\\w`` are dropped from the schema: Python's ``\\w`` takes every
  Unicode letter and digit (names such as "José" are allowed), while OpenAPI patterns are
  ECMA-262 regular expressions where ``\\w`` is ASCII only, so the schema would call valid
  names invalid. The rule stays in the field's description.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema

_View = TypeVar("_View", bound=Callable[..., Any])

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every error of the API: a summary, a machine-readable code, and for "
    "invalid input the messages per field.",
    "properties": {
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail", "code"],
}

DESCRIPTIONS = {
    "400": "Invalid input (query parameters or body): `errors` names the fields.",
    "401": "The token is missing, unknown, expired or revoked.",
    "403": "Signed in, but not allowed to do this.",
    "404": "No such object, or one you may not see; or a page past the end.",
    "415": "The body is not JSON (the API reads `application/json` only).",
    "409": "The request does not fit the current state (stale ply, already done, ...).",
    "413": "The body is larger than the server reads (`DATA_UPLOAD_MAX_MEMORY_SIZE`).",
    "429": "Too many requests: see `Retry-After`.",
    "503": "The database or Redis does not answer: try again after `Retry-After`.",
}
#: Answered by the web server (gunicorn's `limit_request_line`) before the API sees the request.
URI_TOO_LONG = {
    "description": "The URL is too long: the web server refuses a request line over 4 KiB "
    "(an HTML page, not the API's error shape).",
    "content": {"text/html": {"schema": {"type": "string"}}},
}

UNSAFE = {"post", "put", "patch", "delete"}

#: The codes the shared machinery answers with, by status: validation and parsing, sign-in,
#: permissions, unknown objects, the body's size and type, throttling, an outage.
COMMON_CODES: dict[str, list[str]] = {
    "400": ["invalid"],
    "401": ["not_authenticated", "authentication_failed"],
    "403": ["permission_denied", "bot_token_forbidden"],
    "404": ["not_found"],
    "413": ["request_too_large"],
    "415": ["unsupported_media_type"],
    "429": ["throttled"],
    "503": ["service_unavailable"],
}
#: Only where a body is read: malformed or too deeply nested JSON.
BODY_CODES = {"400": ["parse_error"]}

#: The key of an operation that carries a view's declared codes from drf-spectacular to
#: :func:`document_errors`, which takes it out: the schema never shows it.
OWN_CODES = "x-own-error-codes"

#: Every declaration :func:`error_codes` made, by the view (and methods) it decorates.
_DECLARED: dict[str, dict[str, list[str]]] = {}


def error_codes(
    *declarations: Mapping[str, Sequence[str]], methods: Sequence[str] | None = None
) -> Callable[[_View], _View]:
    """Declare the codes of a view's own refusals (its services'), by status, beside the
    common ones: ``@error_codes({"409": ["not_pending"]})``.

    Decorates a view's method (``post``, ...) or a view class, then for the ``methods``
    named (all when None), as drf-spectacular's ``extend_schema`` does, which carries it: a
    method's declaration reaches every view that inherits the method, and wins over theirs,
    so where views answer with other codes than the parent whose method they share, each
    class declares its own. Several declarations merge status by status in their order, so
    a list an app shares (say every organiser write's 403) is one more argument.
    ``tests/unit/test_api_contract.py`` checks that every code the code base can answer with
    is declared or common, and that every declaration reaches an operation.
    """
    codes: dict[str, list[str]] = {}
    for declaration in declarations:
        for status, named in declaration.items():
            if status not in DESCRIPTIONS:
                raise ValueError(f"{status} is not an error status the schema documents")
            codes[status] = [*codes.get(status, []), *named]

    def decorate(view: _View) -> _View:
        name = f"{view.__module__}.{view.__qualname__}"
        if methods:
            name = f"{name} {' '.join(sorted(methods))}"
        _DECLARED[name] = codes
        extensions = {OWN_CODES: {"view": name, "codes": codes}}
        return extend_schema(methods=methods, extensions=extensions)(view)

    return decorate


def declared_error_codes() -> dict[str, dict[str, list[str]]]:
    """Every declaration made with :func:`error_codes` so far (the API modules imported), by
    the view and methods it decorates."""
    return dict(_DECLARED)


def operation_codes(
    path: str, method: str, operation: dict[str, Any], own: Mapping[str, Sequence[str]]
) -> dict[str, list[str]]:
    """Every code the operation can answer with, by status: the common ones and its ``own``."""
    statuses = _codes(path, method, operation)
    if operation.get("requestBody"):
        statuses.add("413")
    codes: dict[str, list[str]] = {}
    for status in sorted(statuses):
        codes[status] = list(COMMON_CODES.get(status, []))
        if operation.get("requestBody"):
            codes[status] += BODY_CODES.get(status, [])
    for status, named in own.items():
        codes.setdefault(status, [])
        codes[status] += [code for code in named if code not in codes[status]]
    return {status: found for status, found in codes.items() if found}


def _codes(path: str, method: str, operation: dict[str, Any]) -> set[str]:
    codes = {"404", "429", "503"}  # any /api/ path may be unknown; throttling; an outage
    if any(operation.get("security") or []):  # [{}] alone means "anonymous is fine"
        codes |= {"401", "403"}
    if operation.get("parameters") or operation.get("requestBody") or method in UNSAFE:
        codes.add("400")
    if method in UNSAFE:
        codes |= {"403", "409"}
    if operation.get("requestBody"):
        codes.add("415")
    return codes


def _unicode_patterns(node: Any) -> None:
    """Drop ``\\w`` patterns (see the module's docstring), in place, everywhere below."""
    if isinstance(node, dict):
        pattern = node.get("pattern")
        if isinstance(pattern, str) and "\\w" in pattern:
            del node["pattern"]
            rule = f"Letters (any alphabet), digits and the characters of `{pattern}`."
            node["description"] = f"{node['description']} {rule}" if "description" in node else rule
        for value in node.values():
            _unicode_patterns(value)
    elif isinstance(node, list):
        for value in node:
            _unicode_patterns(value)


def document_errors(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        own = {
            method: operation.pop(OWN_CODES, {}).get("codes", {})
            for method, operation in operations.items()
            if isinstance(operation, dict)
        }
        if path == "/api/health":
            continue  # answers 200 or 503 with its own body, never an error shape
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code, names in operation_codes(path, method, operation, own[method]).items():
                if code not in responses:
                    responses[code] = {"content": reference, "description": DESCRIPTIONS[code]}
                response = responses[code]
                listed = ", ".join(f"`{name}`" for name in names)
                description = response.get("description") or DESCRIPTIONS.get(code, "")
                response["description"] = f"{description} Codes: {listed}.".strip()
                response["x-error-codes"] = names
            responses.setdefault("414", URI_TOO_LONG)
            for code, response in responses.items():
                # An error a view declared by its description only answers in the error shape.
                if str(code).startswith(("4", "5")) and not response.get("content"):
                    response["content"] = reference
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and not parameter.get("required"):
                    parameter["allowEmptyValue"] = True
    _unicode_patterns(result.get("components", {}).get("schemas", {}))
    return result
