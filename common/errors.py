"""The one base class of refusals raised by services, whatever the app.

Services raise a subclass naming the HTTP ``status`` and machine-readable ``code`` the API
answers with; :func:`config.api.refusal` turns one into a response in the error shape.
Anything given as keyword ``extra`` (e.g. the current ``ply``) is added to the body.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refused request; ``status`` and ``code`` say how the API answers it."""

    status = 400
    code = "invalid"

    def __init__(
        self, message: str, *, code: str | None = None, status: int | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = extra
