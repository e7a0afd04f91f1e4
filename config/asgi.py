"""ASGI entry point: the pages and the API over HTTP, the live sockets over WebSocket.

``uvicorn config.asgi:application`` (``make run``) or gunicorn with uvicorn workers
(``deploy/gunicorn.conf.py``) serve it. Embedded (no broker), the process also starts what
the embedded mode runs in the background (the clock sweep, the in-process task worker).
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from common.admission import get_admitted_asgi_application

# Django first: the routes import models. At most WEB_VIEW_CONCURRENCY requests at once in
# the views (common/admission.py).
http_application = get_admitted_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from common.arrival import stamped  # noqa: E402
from common.sockets import socket_stack  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": stamped(http_application),
        "websocket": socket_stack(URLRouter(websocket_urlpatterns)),
    }
)

if settings.CELERY_EMBEDDED:
    from common import embedded

    if hasattr(embedded, "embedded_start"):
        embedded.embedded_start()
    elif settings.EMBEDDED_CLOCK_SWEEP:
        embedded.start_clock_sweeper()
