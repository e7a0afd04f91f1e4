"""WSGI entry point (gunicorn serves ``config.wsgi:application``; runserver loads it too)."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

if settings.CELERY_EMBEDDED and settings.EMBEDDED_CLOCK_SWEEP:
    # No broker, so no beat: sweep expired clocks in-process (see config/embedded.py).
    from config.embedded import start_clock_sweeper

    start_clock_sweeper()
