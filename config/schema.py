"""OpenAPI post-processing: document the error answers every endpoint can give.

drf-spectacular documents the success answers each view declares. The project's error shape
(``config.api.error_body``) comes from shared machinery instead: authentication, permissions,
throttling, validation, unknown objects, a database outage. This hook adds those answers to
every operation that can give them, so a client (or a fuzzer such as schemathesis) finds
every status code it can receive in the schema, including the web server's 414 for an
over-long URL.

Two more corrections make the schema say what the server does:

- Optional query parameters get ``allowEmptyValue``: DRF and django-filter read ``?kind=``
  as if the parameter were left out, as HTML forms send it.
- Patterns written with ``\\w`` are dropped from the schema: Python's ``\\w`` takes every
  Unicode letter and digit (names such as "José" are allowed), while OpenAPI patterns are
  ECMA-262 regular expressions where ``\\w`` is ASCII only, so the schema would call valid
  names invalid. The rule stays in the field's description.
"""

from __future__ import annotations

from typing import Any

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
        if path == "/api/health":
            continue  # answers 200 or 503 with its own body, never an error shape
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code in sorted(_codes(path, method, operation)):
                if code not in responses:
                    responses[code] = {"content": reference, "description": DESCRIPTIONS[code]}
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
