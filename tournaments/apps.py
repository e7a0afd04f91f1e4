from django.apps import AppConfig

from config import lanes


class TournamentsConfig(AppConfig):
    """Events in four formats, brackets and standings, advancing as matches finish."""

    name = "tournaments"

    def ready(self) -> None:
        from games.signals import match_finished, table_match_changed
        from tournaments import receivers

        lanes.play_tasks(
            # A human arena's pairing pass (someone waits for their next opponent); a bot
            # arena's is tournaments.arena_pair_bots, batch.
            "tournaments.arena_pair",
            "tournaments.arena_sweep",
            # Players wait for a scheduled start: not behind a backlog of whole bot matches.
            "tournaments.clock_sweep",
            "tournaments.clock_due",
        )

        match_finished.connect(
            receivers.advance_on_match_finished, dispatch_uid="tournaments.advance"
        )
        table_match_changed.connect(
            receivers.table_match_changed, dispatch_uid="tournaments.table_match_changed"
        )
