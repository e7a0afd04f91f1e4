"""`manage.py ladder_calibrate`: bot-vs-bot ladder matches so the bots' ratings mean something.

    python manage.py ladder_calibrate --rounds 20                  # random, greedy, expert
    python manage.py ladder_calibrate --ladder standard --rounds 50 --strategies greedy,expert

Each round every bot plays every other once (sides alternate by round), as real ladder
matches rated by the ladder's own settings; matches are played in this process from seeds
derived from ``--seed``, so a run is reproducible. Prints the ratings at the end.
"""

from __future__ import annotations

import itertools
import time

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Player
from accounts.services import bot_create
from common import embedded
from games import services as games_services
from games.engine import bots as engine_bots
from games.engine.game import derive_seed
from ladders import services
from ladders.models import Ladder, Rating

DEFAULT_STRATEGIES = "random,greedy,expert"


def calibration_bot(strategy: str) -> Player:
    """The bot that stands for ``strategy`` in calibration runs (created once)."""
    name = f"Calibration ({strategy})"
    bot = Player.objects.filter(name__iexact=name).first()
    return bot or bot_create(name=name, strategy=strategy)


class Command(BaseCommand):
    help = "Play N rounds of rated bot-vs-bot ladder matches and print the bots' ratings."

    def add_arguments(self, parser):
        parser.add_argument(
            "--ladder", default="calibration", help="Ladder slug (created if missing)"
        )
        parser.add_argument(
            "--rounds", type=int, default=20, help="Round robins to play (default 20)"
        )
        parser.add_argument(
            "--strategies",
            default=DEFAULT_STRATEGIES,
            help=f"Comma-separated bot strategies (default {DEFAULT_STRATEGIES})",
        )
        parser.add_argument(
            "--best-of", type=int, choices=[1, 3, 5], help="Format of a new ladder (default 5)"
        )
        parser.add_argument("--seed", type=int, default=0, help="Base of the match seeds")

    def handle(self, *args, ladder: str, rounds: int, strategies: str, best_of, seed, **options):
        if rounds < 1:
            raise CommandError("--rounds must be at least 1")
        names = [s.strip() for s in strategies.split(",") if s.strip()]
        unknown = [s for s in names if s not in engine_bots.BOTS]
        if unknown or len(set(names)) < 2:
            known = ", ".join(sorted(engine_bots.BOTS))
            raise CommandError(f"give two or more known strategies (known: {known})")
        pool = Ladder.objects.filter(slug=ladder).first()
        if pool is None:
            pool = services.ladder_create(
                name=f"Ladder {ladder}",
                slug=ladder,
                best_of=best_of or 5,
                description="Bot calibration runs.",
                is_open=False,
            )
            self.stdout.write(f"Created ladder {pool.slug!r} (best of {pool.best_of}).")
        elif best_of and best_of != pool.best_of:
            raise CommandError(f"ladder {ladder!r} is best of {pool.best_of}, not {best_of}")
        bots = [calibration_bot(s) for s in dict.fromkeys(names)]
        started = time.monotonic()
        played = 0
        for round_no in range(rounds):
            for i, (a, b) in enumerate(itertools.combinations(bots, 2)):
                if round_no % 2:
                    a, b = b, a
                match = services.ladder_match_create(
                    ladder=pool,
                    player_a=a,
                    player_b=b,
                    seed=derive_seed(seed, "calibration", round_no * 1000 + i),
                )
                # Played here, whole; the match_finished receiver rates it on commit.
                games_services.match_play_bots(match_id=match.pk)
                played += 1
        # Embedded, what the matches queued on commit (requeued bots, ...) is done first.
        embedded.wait_idle(timeout=600)
        elapsed = time.monotonic() - started
        self.stdout.write(
            f"{played} matches in {elapsed:.1f} s on ladder {pool.slug!r} "
            f"(best of {pool.best_of}, K {pool.k_provisional:g}/{pool.k_established:g}/"
            f"{pool.k_top:g}, scoring {pool.scoring})."
        )
        self.stdout.write(f"{'bot':<24} {'strategy':<10} {'rating':>7} {'W-L':>9} {'matches':>8}")
        ratings = Rating.objects.filter(ladder=pool, player__in=bots).select_related("player")
        for r in sorted(ratings, key=lambda r: -r.rating):
            self.stdout.write(
                f"{r.player.name:<24} {r.player.bot_strategy:<10} {r.rating:>7.0f} "
                f"{f'{r.wins}-{r.losses}':>9} {r.matches_played:>8}"
            )
