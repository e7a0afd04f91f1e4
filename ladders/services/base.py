"""The errors of the ladders' services: every module of the package raises these."""

from __future__ import annotations

from common.errors import ServiceError


class LadderError(ServiceError):
    """A refused request of the ladders."""


class Conflict(LadderError):
    """The request does not fit the current state (already queued, in a match, ...)."""

    status = 409
    code = "conflict"
