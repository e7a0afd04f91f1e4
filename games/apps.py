from django.apps import AppConfig

from accounts.hooks import busy_check_register, deletion_hook_register


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs, clocks, table matches, open games."""

    name = "games"

    def ready(self) -> None:
        # The one import inside a function that stays: these modules import the models, which
        # Django allows only once every app is loaded (here).
        from games import deletion, services, tables

        # A player in a match stays; their challenges end with their account.
        busy_check_register(deletion.player_busy)
        deletion_hook_register(deletion.player_challenges_drop)
        # The table module builds on the services, which cannot import it: it hands them its
        # concession of a table match here.
        services.table_concession_register(tables.table_concede)
