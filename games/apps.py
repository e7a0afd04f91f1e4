from django.apps import AppConfig

from accounts.hooks import busy_check_register, deletion_hook_register
from accounts.language import language_for
from common import lanes, periodic


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs, clocks, table matches, open games."""

    name = "games"

    def ready(self) -> None:
        # The imports inside a function that stay: these modules import the models, which
        # Django allows only once every app is loaded (here).
        from common import sockets
        from games import deletion, services, tables

        # A player in a match stays; their challenges end with their account.
        busy_check_register(deletion.player_busy)
        deletion_hook_register(deletion.player_challenges_drop)
        # The table module builds on the services, which cannot import it: it hands them its
        # concession of a table match here.
        services.table_concession_register(tables.table_concede)
        # A socket speaks its account's language, else its handshake's Accept-Language
        # (the platform's sockets import no app: they are told how here).
        sockets.socket_language_register(language_for)

        # A person waits for these: a bot's reply, a clock settled, the clocks' sweep.
        lanes.play_tasks("games.bot_move", "games.settle_clock", "games.sweep_clocks")
        lanes.play_paths(
            # A game's view, a move, a Continue (games.api).
            r"^/api/games/\d+(?:/actions|/continue)?/?$",
            # A table match's hands entered, taken back or corrected, its sheet, its result
            # confirmed or disputed (games.table_api).
            r"^/api/matches/\d+/(?:hands(?:/last|/\d+)?|sheet|confirm|dispute)/?$",
        )
        # Deadlines live in the database; this sweep settles whatever the countdowns missed,
        # and makes the bot replies to people whose task was lost.
        periodic.periodic_task("sweep-clocks", task="games.sweep_clocks", every=1.0, expires=5)
        # Bot-vs-bot matches whose play_match task was lost, played on the batch queue (behind
        # the matches queued before the sweep, so a long queue is not mistaken for a lost
        # task). Embedded, two at most a second, so the sweeper's clocks never wait long.
        periodic.periodic_task(
            "sweep-bot-matches",
            task="games.sweep_bot_matches",
            every=10.0,
            expires=60,
            embedded_every=1.0,
            embedded_kwargs={"matches": 2},
        )
        # Match analyses whose step was lost with its worker (games.services.analysis).
        periodic.periodic_task(
            "sweep-analyses", task="games.sweep_analyses", every=60.0, expires=120
        )
        # Open games past their lifetime: marked expired and the lobby told (games.seeks).
        # Beat only: embedded, the lobby leaves them out as it lists them.
        periodic.periodic_task(
            "sweep-seeks", task="games.sweep_seeks", every=15.0, expires=30, embedded=False
        )
