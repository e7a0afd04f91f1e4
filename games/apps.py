from django.apps import AppConfig

from accounts.hooks import busy_check_register, deletion_hook_register


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs (models arrive with the play issue)."""

    name = "games"

    def ready(self) -> None:
        from games import deletion  # the app's own hooks: they need the models, loaded by now

        # A player in a match stays; their challenges end with their account.
        busy_check_register(deletion.player_busy)
        deletion_hook_register(deletion.player_challenges_drop)
