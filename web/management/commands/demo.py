"""`manage.py demo`: the demo data that `make run` loads. Safe to run again."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.crypto import get_random_string

from accounts.models import Player
from accounts.services import bot_create
from common.errors import ServiceError
from ladders import services as ladder_services
from ladders.models import Ladder, QueueEntry

DEMO_BOTS = [
    ("Randy (random)", "random"),
    ("Rita (random)", "random"),
    ("Greta (greedy)", "greedy"),
    ("Gus (greedy)", "greedy"),
    ("Ada (expert)", "expert"),
]
#: The ladder a newcomer can queue on at once: short timed matches, the demo bots waiting in
#: its queue (bots are never paired with each other there, and rejoin after each match).
DEMO_LADDER = {
    "name": "Quick ladder",
    "slug": "quick",
    "description": "One game to 100, 3 min + 2 s. The house bots wait in the queue.",
    "best_of": Ladder.Format.SINGLE_GAME,
    "target": 100,
    "base_seconds": 180,
    "increment_seconds": 2,
    "bot_pairs": False,
    "bot_requeue_seconds": 5,
}
#: House bots of the bot ladder (a player waits in one queue at a time, so they are not the
#: Quick ladder's).
BOT_LADDER_BOTS = [
    ("Rex (random)", "random"),
    ("Gil (greedy)", "greedy"),
    ("Eve (expert)", "expert"),
    ("Max (expert)", "expert"),
]
#: A ladder for programs (docs/bots.md): house bots are paired with each other and rejoin
#: after each match, so they play continuously; an external bot joins the queue with its
#: token. One game to 100 with 30 s a game and no increment, the EAAI challenge's budget.
BOT_LADDER = {
    "name": "Bot ladder",
    "slug": "bots",
    "description": "For bots only: house bots and your own (see Write a bot). One game to "
    "100, 30 s a game, no increment.",
    "best_of": Ladder.Format.SINGLE_GAME,
    "target": 100,
    "base_seconds": 30,
    "increment_seconds": 0,
    "bot_pairs": True,
    "bots_only": True,
    "bot_requeue_seconds": 10,
}


class Command(BaseCommand):
    help = (
        "Create a staff account (password printed once, on creation), a few bot players, "
        "an open ladder with the bots in its queue and a bot-only ladder where house bots "
        "play each other continuously."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin", help="Staff username (default admin)")

    @transaction.atomic
    def handle(self, *args, username: str, **options):
        User = get_user_model()
        staff = User.objects.filter(username=username).first()
        if staff is None:
            password = get_random_string(20)
            User.objects.create_superuser(username=username, password=password)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Staff account {username!r} created. Password (shown only this once): "
                    f"{password}"
                )
            )
        else:
            self.stdout.write(
                f"Staff account {username!r} exists; password unchanged "
                f"(`manage.py changepassword {username}` sets a new one)."
            )
        created = [
            bot_create(name=name, strategy=strategy).name
            for name, strategy in DEMO_BOTS + BOT_LADDER_BOTS
            if not Player.objects.filter(name__iexact=name).exists()
        ]
        bots = Player.objects.filter(kind=Player.Kind.BOT).count()
        self.stdout.write(f"Bots: {len(created)} created, {bots} in all.")
        self._ladder(DEMO_LADDER, DEMO_BOTS)
        self._ladder(BOT_LADDER, BOT_LADDER_BOTS)

    def _ladder(self, settings: dict, members: list[tuple[str, str]]) -> None:
        """An open demo ladder, and its bots in its queue (unless waiting or playing)."""
        ladder = Ladder.objects.filter(slug=settings["slug"]).first()
        if ladder is None:
            ladder = ladder_services.ladder_create(**settings)
            self.stdout.write(f"Ladder {ladder.name!r} created.")
        queued = 0
        for bot in Player.objects.filter(name__in=[name for name, _ in members], kind="bot"):
            if QueueEntry.objects.filter(player=bot).exists():
                continue
            try:
                ladder_services.queue_join(ladder=ladder, player=bot)
            except ServiceError as error:  # e.g. a bot playing a match now
                self.stdout.write(f"{bot.name} not queued: {error}")
                continue
            queued += 1
        waiting = QueueEntry.objects.filter(ladder=ladder).count()
        state = "open" if ladder.is_open else "closed (open it in the admin)"
        self.stdout.write(
            f"Ladder {ladder.name!r} is {state}: {queued} bots queued now, {waiting} waiting."
        )
