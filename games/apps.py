from django.apps import AppConfig

from config import lanes


class GamesConfig(AppConfig):
    """Matches, games, deals and their action logs (models arrive with the play issue)."""

    name = "games"

    def ready(self) -> None:
        # A person waits for these: a bot's reply, a clock settled, the clocks' sweep.
        lanes.play_tasks("games.bot_move", "games.settle_clock", "games.sweep_clocks")
        lanes.play_paths(
            # A game's view, a move, a Continue (games.api).
            r"^/api/games/\d+(?:/actions|/continue)?/?$",
            # A table match's hands entered, taken back or corrected, its sheet, its result
            # confirmed or disputed (games.table_api).
            r"^/api/matches/\d+/(?:hands(?:/last|/\d+)?|sheet|confirm|dispute)/?$",
        )
