"""URL map: the API under /api/, its schema and docs, the admin, and the web pages."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog

from common import api, docs, health, metrics

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/health", health.HealthView.as_view(), name="health"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # The pages' scripts' translations, in the request's language (docs/translation.md).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    # Public when API_DOCS_PUBLIC is on, else for staff only (common/docs.py).
    path("api/schema/", docs.SchemaView.as_view(), name="schema"),
    path("api/docs/", docs.DocsView.as_view(url_name="schema"), name="docs"),
    path("api/", include("accounts.api")),
    path("api/", include("games.api")),
    path("api/", include("games.table_api")),
    path("api/", include("ladders.api")),
    path("api/", include("tournaments.api")),
    path("api/", include("tournaments.organiser_api")),
    path("api/", include("tournaments.arena_api")),
    path("api/", include("bots.urls")),
    # Last: any other /api/ path is a JSON 404 in the error shape, with DEBUG on or off.
    re_path(r"^api(?:/[\s\S]*)?\Z", api.api_not_found),  # [\s\S]: a newline in the path too
    # The web pages (sign-in, lobby, tables, replays, events, leaderboards) at the root.
    path("", include("web.urls")),
]

handler400 = "common.parsers.bad_request"
handler404 = "common.api.page_not_found"
handler500 = "common.api.server_error"
