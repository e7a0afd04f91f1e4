"""Players: the humans and bots that sit at a table."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower

NAME_MAX_LENGTH = 40
STRATEGY_MAX_LENGTH = 40

name_validator = RegexValidator(
    r"^[\w][\w .'()\-]*$",
    "Use letters, digits, spaces and . ' ( ) - _ only, starting with a letter or digit.",
)


class Player(models.Model):
    """A seat at the table: a human (signed in through a Django user) or a bot.

    A bot names the strategy that plays for it and has no user, so it cannot sign in.
    Display names are unique regardless of case ("Alice" blocks "alice").
    """

    class Kind(models.TextChoices):
        HUMAN = "human", "Human"
        BOT = "bot", "Bot"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="player",
    )
    name = models.CharField(max_length=NAME_MAX_LENGTH, validators=[name_validator])
    bot_strategy = models.CharField(max_length=STRATEGY_MAX_LENGTH, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                name="accounts_player_name_ci_unique",
                violation_error_message="A player with this name already exists.",
            ),
            # The database, not only the forms, keeps the two kinds apart.
            models.CheckConstraint(
                condition=(
                    models.Q(kind="human", user__isnull=False, bot_strategy="")
                    | (models.Q(kind="bot", user__isnull=True) & ~models.Q(bot_strategy=""))
                ),
                name="accounts_player_kind_fields",
                violation_error_message=(
                    "A human has a user and no bot strategy; a bot has a strategy and no user."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_bot(self) -> bool:
        """True for a bot player."""
        return self.kind == self.Kind.BOT
