"""The Django admin's front page, ordered for organisers.

Events, ladders and players come first (what an organiser opens the admin for), then the
games; the sections the service keeps for itself (sign-in lockouts, API tokens, users and
groups, Celery's and the sessions' tables) are shown to superusers only, after the rest. A
staff user without a model's permissions never saw it; this also hides the internal ones
from staff who were given them for a single job.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig

#: The apps in the order the front page lists them (then any other, then the internal ones).
FIRST = ("tournaments", "ladders", "accounts", "games")
#: Within an app, the models first (by object name); the others follow alphabetically.
MODELS_FIRST = {
    "tournaments": ("Event", "Entry", "Pairing"),
    "ladders": ("Ladder", "Season"),
    "accounts": ("Player",),
    "games": ("Match", "Game"),
}
#: Apps the service keeps for itself: superusers only.
INTERNAL = frozenset({"axes", "knox", "auth", "sessions", "django_celery_beat", "contenttypes"})


class Site(admin.AdminSite):
    site_header = "Gin Rummy administration"
    site_title = "Gin Rummy admin"
    index_title = "Events, ladders and players"

    def get_app_list(self, request, app_label=None):
        """The apps ordered for organisers; the internal ones for superusers only, last."""
        apps = super().get_app_list(request, app_label)
        if not request.user.is_superuser:
            apps = [app for app in apps if app["app_label"] not in INTERNAL]

        def place(app: dict) -> tuple[int, str]:
            label = app["app_label"]
            if label in FIRST:
                return (FIRST.index(label), label)
            return (len(FIRST) + (1 if label in INTERNAL else 0), label)

        apps.sort(key=place)
        for app in apps:
            first = MODELS_FIRST.get(app["app_label"], ())
            app["models"].sort(
                key=lambda model: (
                    first.index(model["object_name"])
                    if model["object_name"] in first
                    else len(first),
                    model["name"],
                )
            )
        return apps


class AdminConfig(DjangoAdminConfig):
    """``django.contrib.admin`` with :class:`Site` as its site."""

    default_site = "config.admin_site.Site"
