"""WSGI entry point (gunicorn serves ``config.wsgi:application``; runserver loads it too)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Embedded (no broker): the in-process worker and the clock sweeper (see common/embedded.py).
from common.embedded import embedded_start  # noqa: E402  (after Django is set up)

embedded_start()
