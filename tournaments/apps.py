from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Events in four formats, brackets and standings, advancing as matches finish."""

    name = "tournaments"

    def ready(self) -> None:
        from games.signals import match_finished, table_match_changed
        from tournaments import receivers

        match_finished.connect(
            receivers.advance_on_match_finished, dispatch_uid="tournaments.advance"
        )
        table_match_changed.connect(
            receivers.table_match_changed, dispatch_uid="tournaments.table_match_changed"
        )
