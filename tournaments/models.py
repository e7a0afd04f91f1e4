"""Events, their entries, rounds and pairings (each pointing at a games.Match), webhooks, audit.

An :class:`Event` is run by the services in ``tournaments/services/``; the pairing logic is
pure and lives in ``tournaments/formats/``. The state of an elimination bracket is a function
of its recorded results (see :func:`tournaments.formats.bracket.resolve`): a
:class:`Pairing` row per bracket match keeps what that function last said, plus the match
played for it and the result recorded from it.

Locking: every change to a running event locks the event row. A match finishing locks its
match row first (games does), then the event row; so does every tournament write that touches
a match (lock order: matches by id, then the event, then pairings).
"""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Player
from games.models import Match, TimeoutPolicy
from tournaments.formats import ARENA, DOUBLE_ELIM, ROUND_ROBIN, SINGLE_ELIM, SWISS, TWO_STAGE
from tournaments.formats.standings import DEFAULT_TIEBREAKS, FIDE_UNPLAYED, PLAIN_UNPLAYED
from tournaments.webhook_urls import UnsafeWebhookURL, url_check


class Format(models.TextChoices):
    SINGLE_ELIM = SINGLE_ELIM, _("Single elimination")
    DOUBLE_ELIM = DOUBLE_ELIM, _("Double elimination")
    ROUND_ROBIN = ROUND_ROBIN, _("Round robin")
    SWISS = SWISS, _("Swiss")
    ARENA = ARENA, _("Arena")
    TWO_STAGE = TWO_STAGE, _("Groups, then playoffs")


class GroupFormat(models.TextChoices):
    """How the groups of a two-stage event play."""

    ROUND_ROBIN = ROUND_ROBIN, _("Round robin")
    SWISS = SWISS, _("Swiss")


class PlayoffFormat(models.TextChoices):
    """How the playoff of a two-stage event plays."""

    SINGLE_ELIM = SINGLE_ELIM, _("Single elimination")
    DOUBLE_ELIM = DOUBLE_ELIM, _("Double elimination")


class Seeding(models.TextChoices):
    RATING = "rating", _("By rating")
    RANDOM = "random", _("By a recorded random seed")
    MANUAL = "manual", _("By hand")


class TiebreakUnplayed(models.TextChoices):
    FIDE = FIDE_UNPLAYED, _("As FIDE rules: against a dummy opponent")
    PLAIN = PLAIN_UNPLAYED, _("Plain sums of the games played")


class Venue(models.TextChoices):
    """Where an event's matches between people are played."""

    ONLINE = "online", _("Online")
    TABLES = "tables", _("At tables, with real cards")
    MIXED = "mixed", _("Online, or at a table as the organiser chooses per match")


def default_tiebreaks() -> list[str]:
    return list(DEFAULT_TIEBREAKS)


class Event(models.Model):
    """A tournament: its format, match format, registration, field and progress."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        REGISTRATION = "registration", _("Registration")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(max_length=120)
    format = models.CharField(max_length=16, choices=Format.choices)
    # The match format: any rule options (or {"preset": "oklahoma"}), best of N to a target.
    rules = models.JSONField(
        default=dict, blank=True, help_text=_('Rule options, e.g. {"preset": "oklahoma"}.')
    )
    best_of = models.PositiveSmallIntegerField(default=5)
    target = models.PositiveIntegerField(default=250)
    duplicate_deals = models.BooleanField(
        default=False,
        help_text=_("Every seeded deal is played twice, the second time with the seats swapped."),
    )
    # Time control of human matches (bot matches are played whole by a worker).
    base_seconds = models.PositiveIntegerField(
        null=True, blank=True, default=600, help_text=_("Empty: untimed.")
    )
    increment_seconds = models.PositiveIntegerField(default=5)
    turn_limit_seconds = models.PositiveIntegerField(null=True, blank=True)
    timeout_policy = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    grace_seconds = models.PositiveIntegerField(
        default=300, help_text=_("How long a human match waits for its players to show up.")
    )
    rated = models.BooleanField(default=False)
    venue = models.CharField(
        max_length=8,
        choices=Venue.choices,
        default=Venue.ONLINE,
        db_default=Venue.ONLINE,
        help_text=_(
            "Tables: every match between people is played at a numbered table with real "
            "cards, its hands entered by the players (bot matches are played by the workers)."
        ),
    )
    accept_entered_results = models.BooleanField(
        default=False,
        db_default=False,
        help_text=_(
            "Table matches: the result a player enters stands on its own (no "
            "confirmation by the opponent)."
        ),
    )
    # Registration.
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    check_in_opens_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_(
            "Check-in runs from then until the start; those who did not check in are "
            "removed at the start. Empty: no check-in."
        ),
    )
    capacity = models.PositiveIntegerField(null=True, blank=True, help_text=_("Empty: no limit."))
    bots_only = models.BooleanField(
        default=False,
        help_text=_("Only bots enter: house bots, and external bots with their own tokens."),
    )
    late_registration = models.BooleanField(
        default=False, help_text=_("Swiss: register until half the rounds have started.")
    )
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RANDOM)
    seeding_seed = models.BigIntegerField(
        null=True, blank=True, help_text=_("The recorded seed of a random seeding.")
    )
    # Format options.
    third_place = models.BooleanField(default=False, help_text=_("Single elimination."))
    bracket_reset = models.BooleanField(default=True, help_text=_("Double elimination."))
    double_round_robin = models.BooleanField(default=False, help_text=_("Round robin."))
    swiss_rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Swiss: empty for ceil(log2 N).")
    )
    tiebreaks = models.JSONField(default=default_tiebreaks, blank=True)
    arena_minutes = models.FloatField(
        null=True, blank=True, help_text=_("Arena: how long it runs, in minutes (empty: 60).")
    )
    berserk = models.BooleanField(
        default=True,
        db_default=True,
        help_text=_(
            "Arena: a player may halve their own clock at the start of a match for an "
            "extra point if they win it."
        ),
    )
    # Groups, then playoffs (see tournaments.formats.two_stage).
    group_count = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Groups then playoffs: how many groups (or a size).")
    )
    group_size = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_("Groups then playoffs: players per group, at most (empty, and no count: 4)."),
    )
    group_format = models.CharField(
        max_length=12,
        choices=GroupFormat.choices,
        default=GroupFormat.ROUND_ROBIN,
        db_default=GroupFormat.ROUND_ROBIN,
        help_text=_("Groups then playoffs: how the groups play (a Swiss plays swiss_rounds)."),
    )
    advance_per_group = models.PositiveSmallIntegerField(
        default=2,
        db_default=2,
        help_text=_("Groups then playoffs: how many of each group go on to the playoff."),
    )
    playoff_format = models.CharField(
        max_length=12,
        choices=PlayoffFormat.choices,
        default=PlayoffFormat.SINGLE_ELIM,
        db_default=PlayoffFormat.SINGLE_ELIM,
        help_text=_(
            "Groups then playoffs: the playoff's bracket (third_place, bracket_reset apply)."
        ),
    )
    tiebreak_unplayed = models.CharField(
        max_length=8,
        choices=TiebreakUnplayed.choices,
        default=TiebreakUnplayed.FIDE,
        # Also in the database: the web processes of the release before insert events too.
        db_default=TiebreakUnplayed.FIDE,
        help_text=_("How byes, forfeits and withdrawals count in Buchholz and Sonneborn-Berger."),
    )
    # Progress.
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    rounds_planned = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # The pairing rules an event started with (tournaments.formats.FORMATS_VERSION), so a
    # running event keeps them across an upgrade; None: started before they were versioned.
    formats_version = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    entrants_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    champion = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+", editable=False
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    co_organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="co_organised_events",
        help_text=_("Who may change the event besides its creator."),
    )
    description = models.TextField(
        blank=True, max_length=10_000, help_text=_("Plain text or Markdown, shown on its page.")
    )
    # On a clock: registration opens and the event starts by itself, check-in opens
    # check_in_minutes before the start (tournaments.services.schedule, events.check_in_derive).
    starts_at = models.DateTimeField(null=True, blank=True)
    check_in_minutes = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_(
            "A check-in window this many minutes before the start: only those who "
            "checked in are paired."
        ),
    )
    # Recurring: a draft with a repeat rule is a template, never started itself; the clock
    # creates each occurrence (a copy of its settings) repeat_lead_minutes before its start
    # (tournaments.services.repeat, tournaments.services.schedule).
    repeat_rule = models.CharField(
        max_length=500,
        blank=True,
        default="",
        db_default="",
        help_text=_(
            "An iCalendar repeat rule, e.g. FREQ=WEEKLY;BYDAY=SA;BYHOUR=14;BYMINUTE=0; "
            "the first start is starts_at. Empty: the event does not repeat."
        ),
    )
    repeat_lead_minutes = models.PositiveIntegerField(
        default=60,
        db_default=60,
        help_text=_(
            "Each occurrence is created, registration open, this many minutes before its start."
        ),
    )
    repeat_timezone = models.CharField(
        max_length=64,
        default="UTC",
        db_default="UTC",
        help_text=_("The time zone the rule's times are in (IANA name, e.g. Europe/London)."),
    )
    template = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="occurrences",
        editable=False,
        help_text=_("The recurring event this one is an occurrence of."),
    )
    repeat_stopped_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Arena: no match starts from then on (matches in play still count).
    ends_at = models.DateTimeField(null=True, blank=True, editable=False)
    cancel_reason = models.CharField(max_length=300, blank=True, editable=False)
    # One more with each committed change anyone watching the event would see (see
    # tournaments.live): a socket's client tells a newer message from an older one.
    seq = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["status", "format"]),
            models.Index(fields=["status", "starts_at"], name="tournaments_event_due"),
        ]
        constraints = [
            # Each occurrence of a recurring event is created once, however many sweepers race.
            models.UniqueConstraint(
                fields=["template", "starts_at"], name="tournaments_event_occurrence_once"
            )
        ]
        permissions = [
            ("manage_all_events", "May change every event, not only their own"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_elimination(self) -> bool:
        return self.format in (Format.SINGLE_ELIM, Format.DOUBLE_ELIM)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)

    @property
    def is_arena(self) -> bool:
        return self.format == Format.ARENA

    @property
    def is_two_stage(self) -> bool:
        return self.format == Format.TWO_STAGE

    @property
    def rounds_up_to(self) -> bool:
        """True when ``rounds_planned`` counts a grand final's reset, played only if the
        losers-bracket champion wins the grand final: the event plays "up to" that many."""
        double = self.format == Format.DOUBLE_ELIM or (
            self.format == Format.TWO_STAGE and self.playoff_format == Format.DOUBLE_ELIM
        )
        return double and self.bracket_reset

    @property
    def grace(self) -> timedelta:
        return timedelta(seconds=self.grace_seconds)


class Entry(models.Model):
    """A player in an event: seed, status, and the final rank once it is over."""

    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
        CHECKED_IN = "checked_in", _("Checked in")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        DISQUALIFIED = "disqualified", _("Disqualified")

    ACTIVE = (Status.REGISTERED, Status.CHECKED_IN)

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    seed = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    late = models.BooleanField(default=False, help_text=_("Joined a running Swiss."))
    rating = models.IntegerField(null=True, blank=True, help_text=_("Rating when seeded."))
    final_rank = models.PositiveIntegerField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True)
    registered_at = models.DateTimeField(auto_now_add=True)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    group = models.PositiveSmallIntegerField(
        null=True, blank=True, editable=False, help_text=_("Groups then playoffs: 1 is group A.")
    )
    playoff_seed = models.PositiveSmallIntegerField(
        null=True, blank=True, editable=False, help_text=_("Groups then playoffs: once qualified.")
    )
    paused_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("Arena: paused since then; not paired until they rejoin."),
    )

    class Meta:
        ordering = ["event", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="tournaments_entry_once")
        ]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.player} in {self.event}" if self.player_id else f"Entry {self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


class Round(models.Model):
    """A round of play: a Swiss or round-robin round, or one round of a bracket."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Not started")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(help_text=_("1 for the first, in order of play."))
    name = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="tournaments_round_number")
        ]

    def __str__(self) -> str:
        return f"{self.event}: {self.name}"


class Pairing(models.Model):
    """One table of a round (one match of a bracket): two entries and the match they play."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for earlier results")
        PLAYING = "playing", _("Match scheduled or in play")
        FINISHED = "finished", _("Decided")
        BYE = "bye", _("Bye or walkover")
        SKIPPED = "skipped", _("Not needed")

    class Result(models.TextChoices):
        NONE = "", _("None yet")
        PLAYED = "played", _("Played")
        FORFEIT = "forfeit", _("Forfeit")
        NO_SHOW = "no_show", _("No show")
        DOUBLE_NO_SHOW = "double_no_show", _("Neither player showed up")
        OVERRIDE = "override", _("Decided by an organiser")
        WALKOVER = "walkover", _("Walkover (opponent withdrawn)")
        BYE = "bye", _("Bye")

    #: Results that come from a match or an organiser (byes and walkovers are derived).
    RECORDED = (
        Result.PLAYED,
        Result.FORFEIT,
        Result.NO_SHOW,
        Result.DOUBLE_NO_SHOW,
        Result.OVERRIDE,
    )
    SETTLED = (Status.FINISHED, Status.BYE, Status.SKIPPED)

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="pairings")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    key = models.CharField(max_length=16, help_text="R1.3, W2.1, L3.2, GF, 3P; S4.7 in a Swiss.")
    table = models.PositiveSmallIntegerField()
    entry_a = models.ForeignKey(
        Entry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    entry_b = models.ForeignKey(
        Entry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    match = models.OneToOneField(
        Match, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    result = models.CharField(max_length=16, choices=Result.choices, blank=True, default="")
    winner = models.ForeignKey(
        Entry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    games_a = models.PositiveSmallIntegerField(default=0)
    games_b = models.PositiveSmallIntegerField(default=0)
    margin_a = models.IntegerField(default=0)
    ready_a_at = models.DateTimeField(null=True, blank=True)
    ready_b_at = models.DateTimeField(null=True, blank=True)
    winner_to = models.CharField(max_length=24, blank=True)
    loser_to = models.CharField(max_length=24, blank=True)
    history = models.JSONField(
        default=list, blank=True, help_text="Matches and results superseded by repairs."
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event", "round__number", "table"]
        constraints = [
            models.UniqueConstraint(fields=["event", "key"], name="tournaments_pairing_key")
        ]
        indexes = [models.Index(fields=["event", "status"])]

    def __str__(self) -> str:
        return f"{self.event_id}:{self.key}"

    @property
    def entries(self) -> tuple[int | None, int | None]:
        return (self.entry_a_id, self.entry_b_id)

    def side_of(self, entry_id: int) -> int | None:
        if entry_id == self.entry_a_id:
            return 0
        if entry_id == self.entry_b_id:
            return 1
        return None


class EventLog(models.Model):
    """The audit trail: who did what to an event, when and why (overrides above all)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="log")
    action = models.CharField(max_length=32)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)
    pairing = models.ForeignKey(
        Pairing, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action}"


def _webhook_secret() -> str:
    return secrets.token_hex(32)


WEBHOOK_EVENTS = ("event.started", "round.started", "match.finished", "event.finished")


def default_webhook_events() -> list[str]:
    return list(WEBHOOK_EVENTS)


class Webhook(models.Model):
    """A URL an organiser registered for an event's notifications, with its signing secret."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(
        max_length=128, default=_webhook_secret, help_text="Signs every delivery (HMAC-SHA256)."
    )
    events = models.JSONField(default=default_webhook_events, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "id"]

    def __str__(self) -> str:
        return self.url

    def clean(self) -> None:
        """Refuse a URL the service must not call (see :func:`tournaments.webhook_urls.url_check`,
        which :mod:`tournaments.webhooks` offers too).

        The admin's forms call this; deliveries check the URL again at every attempt.
        """
        if not self.url:
            return
        try:
            url_check(self.url)
        except UnsafeWebhookURL as exc:
            raise ValidationError({"url": ValidationError(str(exc), code=exc.code)}) from None


class WebhookDelivery(models.Model):
    """One notification to one webhook: its payload, attempts and the last response."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed")

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event_type = models.CharField(max_length=32)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(
                fields=["created_at"],
                name="tournaments_delivery_pending",
                condition=Q(status="pending"),
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_type} -> {self.webhook_id} ({self.status})"
