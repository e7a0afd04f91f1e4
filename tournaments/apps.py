from django.apps import AppConfig

from accounts.hooks import busy_check_register
from games.signals import match_finished, table_match_changed


class TournamentsConfig(AppConfig):
    """Events in four formats, brackets and standings, advancing as matches finish."""

    name = "tournaments"

    def ready(self) -> None:
        # The app's own receivers and reads: they need the models, loaded by now.
        from tournaments import receivers, selectors

        match_finished.connect(
            receivers.advance_on_match_finished, dispatch_uid="tournaments.advance"
        )
        table_match_changed.connect(
            receivers.table_match_changed, dispatch_uid="tournaments.table_match_changed"
        )
        # A player entered in an event that has not ended keeps their account.
        busy_check_register(selectors.player_busy)
