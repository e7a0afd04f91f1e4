"""Socket routes (the HTTP ones are in config/urls.py)."""

from django.urls import path

from games.consumers import GameConsumer, LobbyConsumer
from tournaments.consumers import EventConsumer
from web.consumers import MeConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>", GameConsumer.as_asgi()),
    path("ws/events/<int:event_id>", EventConsumer.as_asgi()),
    path("ws/me", MeConsumer.as_asgi()),
    path("ws/lobby", LobbyConsumer.as_asgi()),
]
