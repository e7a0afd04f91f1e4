from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs (models arrive with the play issue)."""

    name = "games"
