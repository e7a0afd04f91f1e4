from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs (models arrive with the play issue)."""

    name = "games"

    def ready(self) -> None:
        # The table module builds on the services, which cannot import it: it hands them its
        # concession of a table match here, once the models are loaded.
        from games import services, tables

        services.table_concession_register(tables.table_concede)
