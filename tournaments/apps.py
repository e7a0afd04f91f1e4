from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Events, brackets, ladders and ratings (models arrive with their issues)."""

    name = "tournaments"
