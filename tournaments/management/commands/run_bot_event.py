"""Run a whole bot event from nothing: migrate, create the bots and the event, start, wait.

    python manage.py run_bot_event --players 256 --format single_elim
    python manage.py run_bot_event --players 256 --format two_stage --group-size 8 --advance 2
    python manage.py run_bot_event --players 64 --format arena --minutes 10

Embedded (no broker) the matches run in this process on the in-process worker's batch threads
(``EMBEDDED_WORKER=inline``: one after the other, inside the start); with ``CELERY_BROKER_URL``
the workers play them. Either way this command waits for the champion, then (embedded) for the
work that follows it. Prints the wall time and matches per second (``--json`` for a machine).
"""

from __future__ import annotations

import json
import logging
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Player
from common import embedded
from games.engine import bots as engine_bots
from games.models import Action, Deal, Game, Match
from tournaments import services
from tournaments.formats import FORMATS
from tournaments.models import Event, Pairing
from tournaments.services import arena as arenas


class Command(BaseCommand):
    help = "Create N bots and an event of the given format, run it to its champion, report."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=16)
        parser.add_argument("--format", default="single_elim", help=", ".join(FORMATS))
        parser.add_argument("--best-of", type=int, default=5)
        parser.add_argument("--target", type=int, default=250)
        parser.add_argument("--strategy", default="greedy", help="the bots' strategy")
        parser.add_argument("--seed", type=int, default=None, help="seeding seed (recorded)")
        parser.add_argument("--rounds", type=int, default=None, help="Swiss rounds")
        parser.add_argument("--group-size", type=int, default=None, help="two_stage: per group")
        parser.add_argument("--group-count", type=int, default=None, help="two_stage: groups")
        parser.add_argument(
            "--group-format", default=None, help="two_stage: round_robin or swiss groups"
        )
        parser.add_argument("--advance", type=int, default=None, help="two_stage: per group")
        parser.add_argument(
            "--playoff", default=None, help="two_stage: single_elim or double_elim playoff"
        )
        parser.add_argument(
            "--minutes", type=float, default=None, help="arena: how long it runs (10)"
        )
        parser.add_argument("--duplicate-deals", action="store_true")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait")
        parser.add_argument("--no-migrate", action="store_true", help="skip `migrate`")
        parser.add_argument("--json", action="store_true", help="print one JSON line")

    def handle(self, *args, **options):
        if options["format"] not in FORMATS:
            raise CommandError(f"unknown format {options['format']!r}; known: {', '.join(FORMATS)}")
        if options["strategy"] not in engine_bots.BOTS:
            known = ", ".join(sorted(engine_bots.BOTS))
            raise CommandError(f"unknown bot strategy {options['strategy']!r}; known: {known}")
        if options["players"] < 2:
            raise CommandError("an event needs at least two players")
        if options["verbosity"] < 2:
            # One line per task played in-process (embedded) would drown the report.
            logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        if not options["no_migrate"]:
            call_command("migrate", verbosity=0, interactive=False)
        players = self._bots(options["players"], options["strategy"])
        extra = {"swiss_rounds": options["rounds"]} if options["rounds"] else {}
        stages = {
            "group_size": options["group_size"],
            "group_count": options["group_count"],
            "group_format": options["group_format"],
            "advance_per_group": options["advance"],
            "playoff_format": options["playoff"],
        }
        extra.update({name: value for name, value in stages.items() if value is not None})
        if options["format"] == "arena":
            extra["arena_minutes"] = options["minutes"] if options["minutes"] else 10.0
            if options["minutes"] is not None and not 0 < options["minutes"] <= 24 * 60:
                raise CommandError("--minutes: more than 0 and at most a day")
        try:
            event = services.event_create(
                name=f"{options['players']} {options['strategy']} bots, {options['format']}",
                format=options["format"],
                best_of=options["best_of"],
                target=options["target"],
                duplicate_deals=options["duplicate_deals"],
                seeding="random",
                seeding_seed=options["seed"],
                base_seconds=None,
                **extra,
            )
            services.event_open_registration(event=event)
            for player in players:
                services.entry_add(event=event, player=player)
        except services.TournamentError as error:
            raise CommandError(str(error)) from None
        mode = "embedded" if settings.CELERY_EMBEDDED else "workers"
        if not options["json"]:
            self.stdout.write(
                f"Event {event.pk}: {event.name}, best of {options['best_of']} to "
                f"{options['target']}, {mode}; starting."
            )
        arena_stats_before = arenas.pass_stats()
        started = time.perf_counter()
        services.event_start(event=event)
        deadline = started + options["timeout"]
        event.refresh_from_db()
        while event.status == Event.Status.RUNNING:
            if time.perf_counter() > deadline:
                raise CommandError(f"event {event.pk} did not finish in {options['timeout']} s")
            time.sleep(0.25)
            if event.is_arena and settings.CELERY_EMBEDDED:
                # No beat here: this command sweeps (finishes the arena once time is up).
                arenas.arenas_sweep()
            event.refresh_from_db()
        wall = time.perf_counter() - started
        # Embedded, the work that follows the champion (ratings, webhooks); with workers the
        # in-process worker ran nothing and is idle at once.
        if not embedded.wait_idle(max(1.0, deadline - time.perf_counter())):
            raise CommandError("the in-process worker was still busy at the timeout")
        self._report(event, wall, mode, options["json"], arena_stats_before)

    def _bots(self, count: int, strategy: str) -> list[Player]:
        """Reuse the bots of earlier runs (same names), create the rest."""
        names = [f"{strategy.capitalize()} event bot {i}" for i in range(1, count + 1)]
        existing = {p.name: p for p in Player.objects.filter(name__in=names)}
        missing = [
            Player(kind=Player.Kind.BOT, name=name, bot_strategy=strategy)
            for name in names
            if name not in existing
        ]
        Player.objects.bulk_create(missing)
        found = {p.name: p for p in Player.objects.filter(name__in=names)}
        return [found[name] for name in names]

    def _report(
        self, event: Event, wall: float, mode: str, as_json: bool, before: dict | None = None
    ) -> None:
        matches = Match.objects.filter(
            pk__in=Pairing.objects.filter(event=event).values("match_id"),
            status=Match.Status.FINISHED,
        )
        count = matches.count()
        games = Game.objects.filter(match__in=matches).count()
        deals = Deal.objects.filter(game__match__in=matches).count()
        actions = Action.objects.filter(deal__game__match__in=matches).count()
        result = {
            "event": event.pk,
            "format": event.format,
            "status": event.status,
            "mode": mode,
            "players": event.entrants_count,
            "matches": count,
            "games": games,
            "deals": deals,
            "actions": actions,
            "wall_seconds": round(wall, 3),
            "matches_per_second": round(count / wall, 2) if wall else None,
            "champion": event.champion.name if event.champion else None,
        }
        if event.is_arena:
            result["minutes"] = event.arena_minutes
            if settings.CELERY_EMBEDDED and before is not None:  # the passes ran here
                after = arenas.pass_stats()
                passes = int(after["passes"] - before["passes"])
                result["passes"] = passes
                result["pass_ms_mean"] = (
                    round((after["ms"] - before["ms"]) / passes, 2) if passes else None
                )
                result["pass_ms_max"] = round(after["max_ms"], 2)
        if as_json:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(
            f"Event {event.pk} {event.status}: champion {result['champion']}. "
            f"{count} matches ({games} games, {deals} deals, {actions} moves) in {wall:.1f} s: "
            f"{result['matches_per_second']} matches/s ({mode})."
        )
        if "passes" in result:
            self.stdout.write(
                f"Arena pairing: {result['passes']} passes, {result['pass_ms_mean']} ms each on "
                f"average, {result['pass_ms_max']} ms the slowest."
            )
