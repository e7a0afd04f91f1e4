"""The API's schema and interactive docs, public only when ``API_DOCS_PUBLIC`` says so.

With the setting off (the default without ``DEBUG``), only staff read them: signed in to the
admin (the session cookie) or with a staff user's token. The docs page loads its start-up
script from its own URL (``?script``), so it runs under the Content-Security-Policy, which
allows no inline script.
"""

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import BasePermission


class DocsReadable(BasePermission):
    """Anyone, when ``API_DOCS_PUBLIC`` is on; else staff only."""

    message = _("The API docs are for staff on this server.")

    def has_permission(self, request, view) -> bool:
        return settings.API_DOCS_PUBLIC or bool(request.user and request.user.is_staff)


class SchemaView(SpectacularAPIView):
    """``GET /api/schema/``: the OpenAPI document."""

    permission_classes = [DocsReadable]


class DocsView(SpectacularSwaggerSplitView):
    """``GET /api/docs/``: Swagger UI over the schema, with no inline script."""

    permission_classes = [DocsReadable]
