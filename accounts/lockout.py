"""Sign-in lockout (django-axes): who a client is, and what a locked-out sign-in is answered.

Axes counts wrong passwords (``AXES_*`` in the settings) on every sign-in that goes through
``django.contrib.auth.authenticate`` with the request: the web sign-in page, the admin's, and
``POST /api/auth/login``. It counts them per (username, client address) pair and per client
address. Once the pair's count reaches ``AXES_FAILURE_LIMIT``, or the address's reaches
``SIGN_IN_ADDRESS_FAILURE_LIMIT`` (:class:`LockoutHandler`), sign-ins for that username from
that address, or all sign-ins from that address, are refused, even with the right password,
until the cool-down is over. Nobody can lock a person out from elsewhere: their own address
keeps its own count.

A sign-in checked in code without a request (a test, the shell) has no client to count and is
not refused (:class:`LockoutBackend`); every sign-in over HTTP passes its request.

A client's address is the one the API's throttles use (the peer address, or the one
``NUM_PROXIES`` trusted proxies put in ``X-Forwarded-For``), so a client cannot choose its
own identity by sending the header itself.
"""

from __future__ import annotations

import math

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_lockout_parameters
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.throttling import BaseThrottle

from common.api import error_body

LOCKED_OUT = "locked_out"


class LockoutBackend(AxesStandaloneBackend):
    """Axes's backend (``AUTHENTICATION_BACKENDS``, first): refuses a locked-out sign-in.

    Axes raises for a sign-in without a request; here such a sign-in (code, not a client)
    goes on to the next backend, as ``django.contrib.auth.authenticate`` promises.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class LockoutHandler(AxesDatabaseHandler):
    """Axes's database handler (``AXES_HANDLER``), with a limit of its own for an address.

    Axes sums the failures of each of ``AXES_LOCKOUT_PARAMETERS`` (the pair, the address) and
    compares the largest sum with its one limit, ``AXES_FAILURE_LIMIT``. An address's sum is
    first scaled so that it reaches that limit at ``SIGN_IN_ADDRESS_FAILURE_LIMIT``: the
    people behind one address (a school, a mobile network) share that count, so it may be
    higher than one account's.
    """

    def get_failures(self, request, credentials: dict | None = None) -> int:
        limit = settings.AXES_FAILURE_LIMIT
        address_limit = settings.SIGN_IN_ADDRESS_FAILURE_LIMIT
        counts = []
        for parameter, attempts in zip(
            get_lockout_parameters(request, credentials),
            self.get_user_attempts(request, credentials),
            strict=True,
        ):
            count = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            # Scaled down, the count reaches ``limit`` exactly when it reaches address_limit.
            counts.append(count * limit // address_limit if parameter == "ip_address" else count)
        return max(counts, default=0)


def client_address(request: HttpRequest) -> str:
    """The client's address as the API's throttles see it (``AXES_CLIENT_IP_CALLABLE``)."""
    return BaseThrottle().get_ident(request)


def cool_off_minutes() -> int:
    """How long a lockout lasts, in whole minutes."""
    return max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))


def lockout_message() -> str:
    """What a locked-out client is told: why, and when to try again."""
    minutes = cool_off_minutes()
    return (
        _("Too many failed sign-ins from this address, for this account or in all.")
        + " "
        + ngettext(
            "Sign-in is locked for %(minutes)s minute after the last failure; try again then.",
            "Sign-in is locked for %(minutes)s minutes after the last failure; try again then.",
            minutes,
        )
        % {"minutes": minutes}
    )


def lockout_json() -> JsonResponse:
    """The API's answer: 429 ``locked_out`` in the error shape, with ``Retry-After``."""
    response = JsonResponse(
        error_body(lockout_message(), LOCKED_OUT),
        status=429,
        json_dumps_params={"separators": (",", ":")},
    )
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


def lockout_response(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    """Axes's ``AXES_LOCKOUT_CALLABLE``: JSON under ``/api/``, the lockout page elsewhere.

    Axes passes the original response and the credentials too (in an order that differs
    between its sync and async paths); neither is needed.
    """
    if request.path.startswith("/api/"):
        return lockout_json()
    response = render(
        request,
        "web/locked_out.html",
        {"message": lockout_message(), "minutes": cool_off_minutes()},
        status=429,
    )
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response
