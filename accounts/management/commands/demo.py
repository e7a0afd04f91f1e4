"""`manage.py demo`: the demo data that `make run` loads. Safe to run again."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.crypto import get_random_string

from accounts.models import Player
from accounts.services import bot_create

DEMO_BOTS = [
    ("Randy (random)", "random"),
    ("Rita (random)", "random"),
    ("Greta (greedy)", "greedy"),
    ("Gus (greedy)", "greedy"),
    ("Ada (expert)", "expert"),
]


class Command(BaseCommand):
    help = "Create a staff account (password printed once, on creation) and a few bot players."

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
            for name, strategy in DEMO_BOTS
            if not Player.objects.filter(name__iexact=name).exists()
        ]
        bots = Player.objects.filter(kind=Player.Kind.BOT).count()
        self.stdout.write(f"Bots: {len(created)} created, {bots} in all.")
