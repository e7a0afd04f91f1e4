"""API conventions shared by every endpoint: the error shape and pagination.

Kept free of views: DRF imports this module while it loads its own generic views.

Every error answers with one JSON shape::

    {"detail": "Human-readable summary.", "code": "machine_readable_code"}

and validation errors add the messages per field (nested fields joined with dots)::

    {"detail": "Invalid input.", "code": "invalid",
     "errors": {"password": ["This password is too common."]}}
"""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from django.views import defaults
from rest_framework import exceptions, pagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

# --- Errors ---------------------------------------------------------------------------------


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """Turn DRF's nested error detail into ``{"field.sub": ["message", ...]}``."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {prefix or "non_field_errors": [str(item) for item in detail]}
        flat = {}
        for index, item in enumerate(detail):
            flat.update(_flatten(item, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    return {prefix or "non_field_errors": [str(detail)]}


def error_body(detail: str, code: str, errors: dict[str, list[str]] | None = None) -> dict:
    """The one error shape of the API."""
    body: dict = {"detail": detail, "code": code}
    if errors is not None:
        body["errors"] = errors
    return body


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's exception handler, answering in the project's error shape.

    Django's own ``ValidationError`` (raised by services) becomes a 400 like DRF's.
    Anything unexpected is left to Django (a 500; see :func:`server_error`).
    """
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body("Invalid input.", "invalid", _flatten(exc.detail))
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = error_body(
            str(exc.detail), codes if isinstance(codes, str) else exc.default_code
        )
    elif isinstance(exc, Http404):
        response.data = error_body("Not found.", "not_found")
    elif isinstance(exc, DjangoPermissionDenied):
        response.data = error_body(
            "You do not have permission to perform this action.", "permission_denied"
        )
    return response


_COMPACT = {"separators": (",", ":")}  # as DRF renders JSON


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/api"


def api_not_found(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    """Unknown ``/api/...`` routes: 404 in the error shape (also with DEBUG on)."""
    return JsonResponse(
        error_body("Not found.", "not_found"), status=404, json_dumps_params=_COMPACT
    )


def page_not_found(request: HttpRequest, exception: Exception | None = None):
    """Django's 404 handler: JSON for the API, Django's page elsewhere."""
    if _is_api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest):
    """Django's 500 handler: JSON for the API, Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            error_body("Server error.", "server_error"), status=500, json_dumps_params=_COMPACT
        )
    return defaults.server_error(request)


# --- Pagination -----------------------------------------------------------------------------


class PageNumberPagination(pagination.PageNumberPagination):
    """``?page=N&page_size=M``; the page size is capped so one request stays cheap."""

    page_size_query_param = "page_size"
    max_page_size = 100
