from django.apps import AppConfig


class LaddersConfig(AppConfig):
    """Ranked ladders and rating pools: Elo ratings, the matchmaking queue, leaderboards."""

    name = "ladders"

    def ready(self) -> None:
        from games.signals import match_finished
        from ladders import receivers

        # Inside the transaction that finishes a match: its rating commits with its result.
        match_finished.connect(receivers.on_match_finished, dispatch_uid="ladders.rate")
        try:
            from tournaments.signals import rated_match_finished
        except ImportError:  # tournaments without rated events yet
            return
        rated_match_finished.connect(
            receivers.on_rated_match_finished, dispatch_uid="ladders.rate_event"
        )
