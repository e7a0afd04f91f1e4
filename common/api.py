"""API conventions shared by every endpoint: the error shape, staff permissions, pagination.

Kept free of views: DRF imports this module while it loads its own generic views.

Every error answers with one JSON shape::

    {"detail": "Human-readable summary.", "code": "machine_readable_code"}

and validation errors add the messages per field (nested fields joined with dots)::

    {"detail": "Invalid input.", "code": "invalid",
     "errors": {"password": ["This password is too common."]}}
"""

import logging

import kombu.exceptions
import redis.exceptions
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, pagination, permissions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)

# --- Errors ---------------------------------------------------------------------------------

#: Seconds a client is asked to wait when the database or Redis does not answer.
UNAVAILABLE_RETRY_AFTER = 5


#: Errors that mean a backing service (PostgreSQL, Redis, the broker) is down, not a bug of ours.
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    kombu.exceptions.OperationalError,
)


def flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """Turn DRF's nested error detail into ``{"field.sub": ["message", ...]}``."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            flat.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {prefix or "non_field_errors": [str(item) for item in detail]}
        flat = {}
        for index, item in enumerate(detail):
            flat.update(flatten(item, f"{prefix}.{index}" if prefix else str(index)))
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

    Django's own ``ValidationError`` (raised by services) becomes a 400 like DRF's. The
    database or Redis not answering (a restart, a failover) is a 503 with ``Retry-After``:
    the request changed nothing it could not roll back, and the client may try again.
    Anything unexpected is left to Django (a 500; see :func:`server_error`).
    """
    if isinstance(exc, OUTAGE_ERRORS):
        return unavailable_response(exc)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(_("Invalid input."), "invalid", flatten(exc.detail))
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = error_body(
            str(exc.detail), codes if isinstance(codes, str) else exc.default_code
        )
    elif isinstance(exc, Http404):
        response.data = error_body(_("Not found."), "not_found")
    elif isinstance(exc, DjangoPermissionDenied):
        response.data = error_body(
            _("You do not have permission to perform this action."), "permission_denied"
        )
    return response


_COMPACT = {"separators": (",", ":")}  # as DRF renders JSON


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/api"


def unavailable_response(exc: BaseException) -> JsonResponse:
    """503 in the error shape for an outage of the database or Redis."""
    logger.warning("service unavailable: %s: %s", type(exc).__name__, exc)
    response = JsonResponse(
        error_body(
            _("A service this request needs is not answering; try again shortly."),
            "service_unavailable",
        ),
        status=503,
        json_dumps_params=_COMPACT,
    )
    response["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER)
    return response


class OutageMiddleware:
    """Outside DRF's views (pages, the admin, an unknown API path): a database or Redis outage
    is a 503 (JSON under /api/, a short page elsewhere), never a 500 with a traceback."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not isinstance(exception, OUTAGE_ERRORS):
            return None
        if _is_api(request):
            return unavailable_response(exception)
        logger.warning("service unavailable: %s: %s", type(exception).__name__, exception)
        title = _("Service unavailable")
        advice = _("Please try again in a few seconds.")
        response = HttpResponse(
            f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{advice}</p>",
            status=503,
        )
        response["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER)
        return response


@csrf_exempt  # a 404 for any method: CSRF's 403 page would hide that the path is unknown
def api_not_found(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    """Unknown ``/api/...`` routes: 404 in the error shape (also with DEBUG on)."""
    return JsonResponse(
        error_body(_("Not found."), "not_found"), status=404, json_dumps_params=_COMPACT
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
            error_body(_("Server error."), "server_error"), status=500, json_dumps_params=_COMPACT
        )
    return defaults.server_error(request)


def refusal(error: Exception) -> Response:
    """A service's refusal (a :class:`common.errors.ServiceError`) in the error shape."""
    body = error_body(str(error), getattr(error, "code", "invalid"))
    body.update(getattr(error, "extra", {}))
    return Response(body, status=getattr(error, "status", 400))


# --- Permissions ----------------------------------------------------------------------------


class StaffModelPermissions(permissions.DjangoModelPermissions):
    """Reads as the view allows them; a write needs a staff user holding the model permission
    Django's admin asks for (``POST``: ``add``, ``PUT``/``PATCH``: ``change``, ``DELETE``:
    ``delete``), so a staff member who may only view changes nothing through the API either.

    Refused: 403 ``permission_denied``. Put it after ``IsAuthenticatedOrReadOnly`` so that an
    anonymous write is told to sign in (401) first.
    """

    authenticated_users_only = False
    message = gettext_lazy("Only staff with the permission to change this may do it.")

    def has_permission(self, request, view) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        user = request.user
        return bool(user and user.is_staff) and super().has_permission(request, view)


# --- Pagination -----------------------------------------------------------------------------


class PageNumberPagination(pagination.PageNumberPagination):
    """``?page=N&page_size=M``; the page size is capped so one request stays cheap.

    A ``page_size`` that is not a positive integer is a 400 naming it (DRF would quietly use
    the default); one above the cap is served at the cap.
    """

    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw:  # empty: as if left out, like every optional query parameter
            try:
                value = int(raw)
            except ValueError:
                value = 0
            if value < 1:
                raise exceptions.ValidationError(
                    {self.page_size_query_param: [_("A page size is a positive integer.")]}
                )
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["description"] = (
                    f"Number of results to return per page (at most {self.max_page_size}: "
                    "larger sizes are served at the cap)."
                )
        return parameters
