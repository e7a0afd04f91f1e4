"""The Bot API's routes under /api/: the REST endpoints and the two streams."""

from bots import api, streams

urlpatterns = [*api.urlpatterns, *streams.urlpatterns]
