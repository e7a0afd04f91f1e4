"""Project configuration: settings, URLs, the Celery app, WSGI/ASGI entry points."""

# Load the Celery app whenever Django starts, so `shared_task` binds to it and
# `delay_on_commit` works from web processes too.
from .celery import app as celery_app

__all__ = ["celery_app"]
