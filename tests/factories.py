"""factory_boy factories for the project's models."""

import factory
from django.contrib.auth import get_user_model

from accounts.models import Player

PASSWORD = "a-long-test-passphrase"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)


class PlayerFactory(factory.django.DjangoModelFactory):
    """A human player with a user whose password is ``PASSWORD``."""

    class Meta:
        model = Player

    kind = Player.Kind.HUMAN
    user = factory.SubFactory(UserFactory)
    name = factory.LazyAttribute(lambda player: player.user.username.capitalize())


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    kind = Player.Kind.BOT
    user = None
    name = factory.Sequence(lambda n: f"Bot {n}")
    bot_strategy = "random"
