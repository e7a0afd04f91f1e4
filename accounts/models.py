"""Players: the people (with an account, or guests without one) and bots that sit at a table."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

NAME_MAX_LENGTH = 40
STRATEGY_MAX_LENGTH = 40

name_validator = RegexValidator(
    r"^[\w][\w .'()\-]*$",
    _("Use letters, digits, spaces and . ' ( ) - _ only, starting with a letter or digit."),
)


DESCRIPTION_MAX_LENGTH = 300


def stable_of(player_id: int, kind: str, owner_id: int | None) -> int | None:
    """:attr:`Player.stable_id` from a player's id, kind and owner (for rows read in bulk)."""
    if kind == Player.Kind.EXTERNAL:
        return owner_id
    if kind in (Player.Kind.HUMAN, Player.Kind.GUEST):
        return player_id
    return None


class Player(models.Model):
    """A seat at the table: a human, a guest, a house bot, or an external bot.

    - A human signs in through their Django user.
    - A guest is a person an organiser entered by name alone, for an event played at real
      tables: no user, so no sign-in, no online play, no ladder queue. Everywhere else
      (entries, standings, ratings of a rated event) a guest counts as a person. An
      invitation link lets the person take the guest over with an account of their own
      (:func:`accounts.services.guest_claim`): the same row becomes a human, so their results
      and ratings stay theirs.
    - A house bot names the strategy the server plays it with and has no user, so it cannot
      sign in.
    - An external bot is a program a person (its ``owner``) runs elsewhere; it plays over the
      Bot API with tokens issued to its user, which has no usable password, so it cannot sign
      in to the web pages. The server treats it as it treats a person: it answers challenges,
      runs on the clock and continues after each deal itself.

    Display names are unique regardless of case ("Alice" blocks "alice").
    """

    class Kind(models.TextChoices):
        HUMAN = "human", _("Human")
        GUEST = "guest", _("Guest")
        BOT = "bot", _("Bot")
        EXTERNAL = "external", _("External bot")

    class AutoAccept(models.TextChoices):
        NOBODY = "nobody", _("Nobody (the bot answers each challenge)")
        BOTS = "bots", _("Challenges from bots")
        ANYONE = "anyone", _("Challenges from anyone")

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
    owner = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="bots",
        help_text=_("External bots: the person who runs it."),
    )
    description = models.CharField(max_length=DESCRIPTION_MAX_LENGTH, blank=True, default="")
    auto_accept = models.CharField(
        max_length=8,
        choices=AutoAccept.choices,
        default=AutoAccept.NOBODY,
        help_text=_("External bots: which challenges the server accepts for it at once."),
    )
    email_events = models.BooleanField(
        default=True,
        help_text=_(
            "E-mail me about my events: when an event I entered is about to start, and "
            "when my match is ready while I am not on the site."
        ),
    )

    class Theme(models.TextChoices):
        SYSTEM = "system", _("As my device is set")
        LIGHT = "light", _("Light")
        DARK = "dark", _("Dark")

    theme = models.CharField(
        max_length=6,
        choices=Theme.choices,
        default=Theme.SYSTEM,
        help_text=_("The pages' colours: light, dark, or as the device is set (the default)."),
    )
    sounds = models.BooleanField(
        default=True,
        help_text=_("Sounds at the table: your turn, a move, a deal's end, low time."),
    )
    confirm_discard = models.BooleanField(
        default=False,
        help_text=_(
            "Confirm before discarding: a card tapped (or Enter) is only chosen, and a "
            "second tap or Enter discards it."
        ),
    )
    language = models.CharField(
        max_length=8,
        blank=True,
        default="",
        choices=[("", _("As my browser asks")), *settings.LANGUAGES],
        help_text=_(
            "The site's language for this person: one of the languages it speaks, or "
            "empty to follow the browser's Accept-Language."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "A person who deleted their account: their user is gone, their player stays "
            "(anonymised) so that their matches, brackets and ratings stay whole."
        ),
    )

    assisted_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "When staff marked this account as playing with a program's help (fair play): "
            "it is off the leaderboards, paired with bots only, and its rated results were "
            "taken back."
        ),
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                name="accounts_player_name_ci_unique",
                violation_error_message=_("A player with this name already exists."),
            ),
            # The database, not only the forms, keeps the kinds apart.
            models.CheckConstraint(
                condition=(
                    (
                        models.Q(kind="human", bot_strategy="", owner__isnull=True)
                        & (models.Q(user__isnull=False) | models.Q(deleted_at__isnull=False))
                    )
                    | (
                        models.Q(kind="bot", user__isnull=True, owner__isnull=True)
                        & ~models.Q(bot_strategy="")
                    )
                    | models.Q(
                        kind="external", user__isnull=False, bot_strategy="", owner__isnull=False
                    )
                    | models.Q(kind="guest", user__isnull=True, bot_strategy="", owner__isnull=True)
                ),
                name="accounts_player_kind_fields",
                violation_error_message=(
                    "A human has a user (unless they deleted their account) and no bot "
                    "strategy; a guest has a name only (no user, strategy or owner); a house "
                    "bot has a strategy and no user; an external bot has a user and an owner "
                    "and no strategy."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_deleted(self) -> bool:
        """True for the anonymised player of a person who deleted their account."""
        return self.deleted_at is not None

    @property
    def is_assisted(self) -> bool:
        """True for an account staff marked as assisted (fair play): paired with bots only."""
        return self.assisted_at is not None

    @property
    def is_guest(self) -> bool:
        """True for a guest: a person entered by name alone, who cannot sign in or play online."""
        return self.kind == self.Kind.GUEST

    @property
    def is_bot(self) -> bool:
        """True for a house bot: the server plays it, at once, with its strategy."""
        return self.kind == self.Kind.BOT

    @property
    def is_external(self) -> bool:
        """True for an external bot: its owner's program plays it over the Bot API."""
        return self.kind == self.Kind.EXTERNAL

    def accepts_at_once(self, challenger: Player) -> bool:
        """Whether a challenge from ``challenger`` is accepted for this player at once: an
        external bot's ``auto_accept``, from bots only or from anyone."""
        if not self.is_external:
            return False
        if self.auto_accept == self.AutoAccept.ANYONE:
            return True
        return self.auto_accept == self.AutoAccept.BOTS and challenger.is_any_bot

    @property
    def stable_id(self) -> int | None:
        """Who stands behind this player in rated play: a person's own id (a guest's too), an
        external bot's owner's id; None for a house bot, which nobody runs.

        A person and the bots they own are one stable: two players of one stable are never
        paired in rated play nor rated against each other (a bot that loses on purpose
        would hand its owner rating).
        """
        return stable_of(self.pk, self.kind, self.owner_id)

    @property
    def is_any_bot(self) -> bool:
        """True for a program, house or external (bot-only ladders and challenges)."""
        return self.kind in (self.Kind.BOT, self.Kind.EXTERNAL)


class BotStream(models.Model):
    """One open Bot API stream of an external bot, wherever the web process serving it runs.

    The streams are long-lived responses spread over several web processes, so the count
    that caps them per bot lives here: a stream writes its row when it opens, touches
    ``seen_at`` with every keep-alive and deletes the row when it ends. A row whose process
    died stops being touched and no longer counts once it is stale
    (``BOT_STREAM_STALE_SECONDS``).
    """

    bot = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=40, help_text="'event', or 'game.<id>' for a game.")
    channel = models.CharField(max_length=200, help_text="The stream's channel-layer name.")
    opened_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["bot", "seen_at"], name="accounts_botstream_seen_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.key}"


class Mail(models.Model):
    """One e-mail to a player about one thing (``kind`` and ``about``: an event about to
    start, a match ready), sent at most once.

    The row is the claim: its unique constraint lets one sweeper or task of many write it,
    and only the one that wrote it sends (:mod:`accounts.mail`). ``subject`` and ``body`` are
    rendered when it is queued; the address, the preference and the unsubscribe link are read
    when it is sent, so an address changed or mail turned off meanwhile is honoured.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        SENT = "sent", _("Sent")
        DROPPED = "dropped", _("Not sent")

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32, help_text="What about: event_starting, match_ready.")
    about = models.PositiveBigIntegerField(help_text="The id of the event or match.")
    subject = models.CharField(max_length=200)
    body = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    reason = models.CharField(
        max_length=40, blank=True, help_text="Why it was not sent (expired, turned off, ...)."
    )
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Not sent after this (the event or the match began)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    tried_at = models.DateTimeField(
        null=True, blank=True, help_text="The last send that failed, or the last retry queued."
    )
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "kind", "about"], name="accounts_mail_once_per_thing"
            )
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="accounts_mail_queued_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.about} to {self.player_id}"
