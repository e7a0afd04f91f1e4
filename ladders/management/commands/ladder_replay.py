"""`manage.py ladder_replay <slug>`: recompute a pool's ratings from its history and compare.

    python manage.py ladder_replay standard            # audit: report mismatches, change nothing
    python manage.py ladder_replay standard --write    # set the ratings to the replayed state

Exits with status 1 when the audit finds the stored ratings differ from the history.
"""

import time

from django.core.management.base import BaseCommand, CommandError

from ladders import services
from ladders.models import Ladder


class Command(BaseCommand):
    help = "Replay a ladder's rating history and compare (or, with --write, reset) its ratings."

    def add_arguments(self, parser):
        parser.add_argument("ladder", help="Ladder or pool slug")
        parser.add_argument("--write", action="store_true", help="Store the replayed ratings")

    def handle(self, *args, ladder: str, write: bool, **options):
        pool = Ladder.objects.filter(slug=ladder).first()
        if pool is None:
            raise CommandError(f"no ladder or pool with slug {ladder!r}")
        started = time.monotonic()
        report = services.ratings_replay(pool=pool, write=write)
        elapsed = time.monotonic() - started
        self.stdout.write(
            f"{report.changes} rating changes of {report.matches} matches replayed in "
            f"{elapsed:.2f} s: {report.players} players, {report.mismatches} history "
            f"mismatches, {report.drifted} ratings off the replay"
            + (f", {report.written} rewritten" if write else "")
            + (
                f"; {report.voided} changes left out (matches taken back for fair play), "
                f"{report.revised} revised by a refund"
                if report.voided
                else ""
            )
            + "."
        )
        if report.first_mismatch:
            self.stdout.write(f"First mismatch: {report.first_mismatch}")
        if not write and (report.mismatches or report.drifted):
            raise SystemExit(1)
