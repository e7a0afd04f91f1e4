"""Ladders and rating pools: ratings per pool and player, their history, the queue.

A :class:`Ladder` is a rating pool. A ladder proper (``kind=ladder``) also has a matchmaking
queue and plays its own matches; a rated pool (``kind=pool``) only rates matches that others
hand it (the rated events of tournaments). Every match a pool rates is linked to it by a
:class:`LadderMatch` row; each rated match leaves one :class:`RatingChange` per player, and a
unique constraint on (match, player) makes a second application impossible, not just unlikely.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Player
from games.clocks import TimeControl
from games.models import Match, TimeoutPolicy
from ratings.elo import INITIAL_RATING, RatingConfig, Scoring
from ratings.glicko2 import GlickoConfig, deviation_after_absence


class Ladder(models.Model):
    """A rating pool; a ladder proper also has a queue, a rule set and a match format."""

    class Kind(models.TextChoices):
        LADDER = "ladder", _("Ladder (queue and matchmaking)")
        POOL = "pool", _("Rated pool (ratings only, for rated events)")

    class System(models.TextChoices):
        ELO = "elo", _("Elo")
        GLICKO2 = "glicko2", _("Glicko-2")

    class Format(models.IntegerChoices):
        SINGLE_GAME = 1, _("Single game")
        BEST_OF_THREE = 3, _("Best of three")
        BEST_OF_FIVE = 5, _("Best of five")

    name = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.LADDER)
    description = models.TextField(blank=True)
    is_open = models.BooleanField(default=True, help_text=_("Players may join the queue."))
    # What is played.
    rules = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            "Rule options of the engine's RuleSet ({} is the standard game), "
            'e.g. {"preset": "oklahoma"}.'
        ),
    )
    best_of = models.PositiveSmallIntegerField(choices=Format.choices, default=Format.BEST_OF_FIVE)
    target = models.PositiveIntegerField(
        default=250, validators=[MinValueValidator(25), MaxValueValidator(10_000)]
    )
    base_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        default=600,
        help_text=_("Clock per player per game; empty: untimed."),
    )
    increment_seconds = models.PositiveIntegerField(default=5)
    turn_limit_seconds = models.PositiveIntegerField(null=True, blank=True)
    timeout_policy = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    # Ratings (ratings.elo.RatingConfig, ratings.glicko2.GlickoConfig).
    rating_system = models.CharField(
        max_length=8,
        choices=System.choices,
        default=System.ELO,
        help_text=_("elo: a rating per player; glicko2: a rating, a deviation and a volatility."),
    )
    initial_rating = models.FloatField(default=INITIAL_RATING)
    k_provisional = models.FloatField(default=40, validators=[MinValueValidator(1)])
    provisional_matches = models.PositiveIntegerField(default=30)
    k_established = models.FloatField(default=20, validators=[MinValueValidator(1)])
    k_top = models.FloatField(default=10, validators=[MinValueValidator(1)])
    top_threshold = models.FloatField(default=2400)
    rating_floor = models.FloatField(null=True, blank=True)
    scoring = models.CharField(
        max_length=8,
        choices=[(s.value, s.value) for s in Scoring],
        default=Scoring.MATCH.value,
        help_text=_(
            "match: 1 or 0; games: the share of games won; margin: 1/0 with K weighted "
            "by the margin of victory."
        ),
    )
    human_bot_factor = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.01), MaxValueValidator(1)],
        help_text=_("Factor on rating changes between a human and a bot (0.5 halves them)."),
    )
    # Glicko-2 only (ratings.glicko2.GlickoConfig).
    glicko_deviation = models.FloatField(
        default=350,
        validators=[MinValueValidator(30), MaxValueValidator(1000)],
        help_text=_("A new player's deviation, and the most time away grows one to."),
    )
    glicko_volatility = models.FloatField(
        default=0.06, validators=[MinValueValidator(0.001), MaxValueValidator(1)]
    )
    glicko_tau = models.FloatField(
        default=0.5,
        validators=[MinValueValidator(0.05), MaxValueValidator(3)],
        help_text=_("How much a volatility may change (0.3 to 1.2 are usual)."),
    )
    glicko_period_days = models.FloatField(
        default=7,
        validators=[MinValueValidator(0.01), MaxValueValidator(365)],
        help_text=_("Days away that grow the deviation as much as one rating period."),
    )
    provisional_deviation = models.FloatField(
        default=110,
        validators=[MinValueValidator(0)],
        help_text=_("Glicko-2: a rating is provisional while its deviation is above this."),
    )
    # Leaderboard eligibility: enough rated matches, one of them recent (no camping the top).
    leaderboard_min_matches = models.PositiveIntegerField(default=10)
    leaderboard_active_days = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(1)]
    )
    # Matchmaking.
    window_initial = models.FloatField(default=50, validators=[MinValueValidator(0)])
    window_step = models.FloatField(default=25, validators=[MinValueValidator(0)])
    window_step_seconds = models.FloatField(default=10, validators=[MinValueValidator(0.1)])
    window_max = models.FloatField(
        null=True, blank=True, default=1000, help_text=_("Widest window; empty: no limit.")
    )
    window_deviation_factor = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0), MaxValueValidator(10)],
        help_text=_(
            "Glicko-2: the window widens by this times the deviation above the "
            "provisional threshold (uncertain ratings accept wider gaps)."
        ),
    )
    # Seasons (ladders.seasons): divisions, promotion and relegation, the pull at a season's end.
    season_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Closing a season opens the next, this many days long; empty: seasons are "
            "opened by hand."
        ),
    )
    season_pull = models.FloatField(
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_(
            "At a season's end each rating moves this share of the way to the initial "
            "rating (0 keeps them, 1 resets everyone)."
        ),
    )
    divisions = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(20)],
        help_text=_("Divisions of a season (1: one leaderboard)."),
    )
    division_size = models.PositiveIntegerField(
        default=50,
        validators=[MinValueValidator(2)],
        help_text=_(
            "Players per division when a season places them by rating (the last division "
            "takes the rest)."
        ),
    )
    promotion = models.PositiveSmallIntegerField(
        default=2,
        help_text=_("The top N of a division go up and the bottom N down at a season's end."),
    )
    bot_pairs = models.BooleanField(
        default=False, help_text=_("Two bots may be paired (else bots wait for humans).")
    )
    bots_only = models.BooleanField(
        default=False,
        help_text=_("Only bots (house and external) may queue: a ladder for programs."),
    )
    bot_requeue_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        default=10,
        validators=[MinValueValidator(1)],
        help_text=_("Bots rejoin the queue this long after each ladder match; empty: they do not."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def has_queue(self) -> bool:
        return self.kind == self.Kind.LADDER

    def clean(self) -> None:
        super().clean()
        if self.divisions > 1 and 2 * self.promotion > self.division_size:
            raise ValidationError(
                {"promotion": _("More players would go up and down than a division holds.")}
            )
        if self.rating_system == self.System.GLICKO2 and self.scoring == Scoring.MARGIN:
            raise ValidationError(
                {"scoring": _("Glicko-2 has no K to weight by the margin: use match or games.")}
            )

    @property
    def is_glicko(self) -> bool:
        return self.rating_system == self.System.GLICKO2

    def is_provisional(self, matches_played: int, deviation: float | None) -> bool:
        """Elo: fewer rated matches than the provisional count; Glicko-2: a wide deviation."""
        if self.is_glicko:
            return deviation is None or deviation > self.provisional_deviation
        return matches_played < self.provisional_matches

    def newcomer(self) -> dict[str, float | bool | None]:
        """The rating fields of a player new to this pool."""
        glicko = self.is_glicko
        return {
            "rating": self.initial_rating,
            "peak": self.initial_rating,
            "deviation": self.glicko_deviation if glicko else None,
            "volatility": self.glicko_volatility if glicko else None,
            "provisional": (
                self.glicko_deviation > self.provisional_deviation
                if glicko
                else self.provisional_matches > 0
            ),
        }

    @property
    def glicko_config(self) -> GlickoConfig:
        return GlickoConfig(
            initial=self.initial_rating,
            deviation=self.glicko_deviation,
            volatility=self.glicko_volatility,
            tau=self.glicko_tau,
            period_days=self.glicko_period_days,
            provisional_deviation=self.provisional_deviation,
            scoring=Scoring(self.scoring),
            human_bot_factor=self.human_bot_factor,
            floor=self.rating_floor,
        )

    @property
    def rating_config(self) -> RatingConfig:
        return RatingConfig(
            initial=self.initial_rating,
            k_provisional=self.k_provisional,
            provisional_matches=self.provisional_matches,
            k_established=self.k_established,
            k_top=self.k_top,
            top_threshold=self.top_threshold,
            floor=self.rating_floor,
            scoring=Scoring(self.scoring),
            human_bot_factor=self.human_bot_factor,
        )

    def time_control(self):
        """The games' TimeControl of this ladder, or None when untimed."""
        if self.base_seconds is None:
            return None
        return TimeControl(
            base_seconds=self.base_seconds,
            increment_seconds=self.increment_seconds,
            turn_limit_seconds=self.turn_limit_seconds,
            timeout_policy=self.timeout_policy,
        )


class Rating(models.Model):
    """A player's standing in a pool: membership, rating, record, peak, last activity."""

    # No index of its own: the unique (ladder, player) and the leaderboard index lead with it.
    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    is_bot = models.BooleanField(default=False, help_text=_("Copied from the player (filters)."))
    rating = models.FloatField()
    # Glicko-2 pools only (empty under Elo): as of the last rated match; the deviation grows
    # with time away from there (see deviation_now).
    deviation = models.FloatField(null=True, blank=True)
    volatility = models.FloatField(null=True, blank=True)
    peak = models.FloatField()
    matches_played = models.PositiveIntegerField(default=0, help_text=_("Rated matches."))
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    provisional = models.BooleanField(default=True)
    last_active = models.DateTimeField(null=True, blank=True, help_text=_("Last rated match."))
    last_opponent = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-rating", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "player"], name="ladders_rating_unique")
        ]
        indexes = [
            # The leaderboard: the ladder's ratings in rank order, and (trailing keys) every
            # column its eligibility and filters test, so a page is read from the index alone.
            models.Index(
                "ladder",
                models.F("rating").desc(),
                "player",
                "matches_played",
                "last_active",
                "provisional",
                "is_bot",
                name="ladders_rating_board",
            ),
            # The leaderboard's size: a range of recent activity, counted from the index.
            models.Index(
                fields=["ladder", "last_active", "matches_played", "provisional", "is_bot"],
                name="ladders_rating_active",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.ladder_id}: {self.rating:.0f}"

    def deviation_now(self, now: datetime) -> float | None:
        """The Glicko-2 deviation grown by the time since the last rated match (None: Elo)."""
        if self.deviation is None or self.volatility is None:
            return None
        return deviation_as_of(
            self.deviation, self.volatility, self.last_active, self.ladder.glicko_config, now
        )


def deviation_as_of(
    deviation: float,
    volatility: float,
    last_active: datetime | None,
    config: GlickoConfig,
    now: datetime,
) -> float:
    """A Glicko-2 deviation grown by the time from ``last_active`` (the last rated match) to
    ``now``: :meth:`Rating.deviation_now` for a rating read as plain values."""
    if last_active is None:
        return deviation
    days = (now - last_active).total_seconds() / 86400
    return deviation_after_absence(deviation, volatility, days, config)


class LadderMatch(models.Model):
    """A match rated in a pool: a ladder's own pairing, or a rated event's match.

    ``processed_at`` is set once the pool has taken the finished (or cancelled) match into
    account: ratings applied, bots back in the queue. The periodic sweep looks for finished
    matches without it, in case the ``match_finished`` receiver failed.
    """

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="ladder_link"
    )
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="matches")
    created_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-match"]
        verbose_name_plural = _("ladder matches")
        indexes = [
            # The sweep's query: matches the pool has not yet taken into account.
            models.Index(
                fields=["created_at"],
                name="ladders_match_unprocessed",
                condition=Q(processed_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"{self.ladder_id}: match {self.match_id}"


class RatingChange(models.Model):
    """What one rated match did to one player's rating: the history, replayable in order."""

    # Indexed by the constraint and indexes below only: a million rows a pool, kept lean.
    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="rating_changes", db_index=False
    )
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="rating_changes", db_index=False
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False)
    opponent = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", db_index=False)
    won = models.BooleanField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    delta = models.FloatField()
    expected = models.FloatField(help_text=_("The expected score, 0 to 1."))
    score = models.FloatField(help_text=_("The score the match counted as, 0 to 1."))
    k = models.FloatField()
    # Taken back: a match against an account marked as assisted (fair play). The rating
    # replay leaves it out; the row stays, as the history of what was once counted.
    voided = models.BooleanField(default=False)
    # Glicko-2 pools only (empty under Elo); "before" is as the match found it (after time away).
    deviation_before = models.FloatField(null=True, blank=True)
    deviation_after = models.FloatField(null=True, blank=True)
    volatility_before = models.FloatField(null=True, blank=True)
    volatility_after = models.FloatField(null=True, blank=True)
    # The season the match counts in (none when the ladder was not in a season).
    season = models.ForeignKey(
        "Season", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # Exactly once: a redelivered task or a receiver run twice cannot rate twice.
            models.UniqueConstraint(fields=["match", "player"], name="ladders_change_once")
        ]
        indexes = [
            models.Index(fields=["ladder", "player", "-id"], name="ladders_change_history"),
            models.Index(fields=["ladder", "player", "opponent"], name="ladders_change_h2h"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.delta:+.1f} (match {self.match_id})"


class QueueEntry(models.Model):
    """A player waiting in a ladder's queue. One per player: nobody waits in two queues.

    The entry is deleted when the player is paired (the match then shows where they are) or
    leaves. ``available_at`` holds back a bot's automatic return after a match.
    """

    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="queue", db_index=False
    )
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="queue_entry")
    membership = models.ForeignKey(
        Rating, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    joined_at = models.DateTimeField()
    available_at = models.DateTimeField()
    # "New opponent" after a ladder match: never paired with that match's opponent in this wait
    # (games.matchmaking.Seeker.avoid); a plain join avoids them only while others are in reach.
    avoid = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )

    class Meta:
        ordering = ["joined_at"]
        verbose_name_plural = _("queue entries")
        indexes = [models.Index(fields=["ladder", "available_at"], name="ladders_queue_ready")]

    def __str__(self) -> str:
        return f"{self.player_id} waiting in {self.ladder_id}"


class Season(models.Model):
    """A season of a ladder: from ``starts_at`` to ``ends_at``; frozen once ``closed_at`` is set.

    A rated match counts in the season open when it is rated (see ladders.seasons); closing
    freezes the final standings in :class:`SeasonEntry` rows that never change afterwards.
    """

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    pull = models.FloatField(
        default=0,
        help_text=_("The share of the way to the initial rating the close moved ratings."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "number"], name="ladders_season_number"),
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="ladders_season_span"
            ),
        ]
        indexes = [
            # The sweep's query: open seasons that are due.
            models.Index(
                fields=["ends_at"], name="ladders_season_due", condition=Q(closed_at__isnull=True)
            )
        ]

    def __str__(self) -> str:
        return f"{self.ladder_id} season {self.number}"

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None


class SeasonEntry(models.Model):
    """A player in a season: their division, and once it closes their final standing."""

    class Movement(models.TextChoices):
        PROMOTED = "promoted", _("Promoted")
        RELEGATED = "relegated", _("Relegated")
        STAYED = "stayed", _("Stayed")

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="season_entries")
    division = models.PositiveSmallIntegerField(default=1, help_text=_("1 is the top division."))
    # The final standing, set when the season closes (empty while it is open).
    rank = models.PositiveIntegerField(null=True, blank=True, help_text=_("In the division."))
    rating = models.FloatField(null=True, blank=True)
    deviation = models.FloatField(null=True, blank=True)
    matches_played = models.PositiveIntegerField(default=0, help_text=_("Rated in the season."))
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    movement = models.CharField(max_length=9, choices=Movement.choices, blank=True)

    class Meta:
        ordering = ["season", "division", "rank", "player_id"]
        verbose_name_plural = _("season entries")
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="ladders_season_entry")
        ]
        indexes = [models.Index(fields=["player", "season"], name="ladders_season_player")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.season}: division {self.division}"


class FairPlayRecord(models.Model):
    """An account's figures for fair play in a pool: from the analyses of its rated matches
    against people, how often its choice was the house expert's, by phase, and its loss.

    A draw decision is a take or pass of the upcard or a draw from the stock or the pile; a
    discard decision is the choice of a discard (with or without a knock). Counted once per
    match (:class:`FairPlayMatch`).
    """

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="fair_play")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="fair_play")
    matches = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    draws_agreed = models.PositiveIntegerField(default=0)
    discards = models.PositiveIntegerField(default=0)
    discards_agreed = models.PositiveIntegerField(default=0)
    loss_total = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "player"], name="ladders_fairplay_once")
        ]

    def __str__(self) -> str:
        return f"fair play of {self.player_id} in {self.ladder_id}"


class FairPlayMatch(models.Model):
    """A rated match whose analysis fair play has counted (its primary key: counted once)."""

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="fair_play_counted"
    )
    counted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"fair play counted match {self.match_id}"


class FairPlayFlag(models.Model):
    """An account whose agreement with the house expert is implausible for its rating band:
    flagged for review by staff, never punished automatically. ``evidence`` holds the figures
    the test saw (per phase: decisions, agreements, the band's ceiling, the tail probability)
    and the matches counted."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        DISMISSED = "dismissed", _("Dismissed")
        ASSISTED = "assisted", _("Marked as assisted")

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="fair_play_flags")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="fair_play_flags")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    evidence = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["ladder", "player"],
                condition=Q(status="open"),
                name="ladders_fairplay_one_open_flag",
            )
        ]

    def __str__(self) -> str:
        return f"flag of {self.player_id} in {self.ladder_id} ({self.status})"


class FairPlayRefund(models.Model):
    """The audit of one pool's refund for an account marked as assisted: its rated matches
    taken back (their rating changes voided) and the pool's ratings replayed without them,
    once per pool and account (the unique constraint). ``report`` holds each opponent's
    rating before and after and what the replay found."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="fair_play_refunds")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="fair_play_refunds")
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    matches = models.PositiveIntegerField(help_text=_("Rated matches taken back."))
    opponents = models.PositiveIntegerField(help_text=_("Opponents whose rating was restored."))
    points = models.FloatField(help_text=_("Rating points given back to the opponents in all."))
    ratings_written = models.PositiveIntegerField(help_text=_("Rating rows the replay rewrote."))
    last_change = models.PositiveBigIntegerField(
        help_text=_("The pool's newest rating change when the refund was made.")
    )
    report = models.JSONField()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "player"], name="ladders_refund_once")
        ]

    def __str__(self) -> str:
        return f"refund for {self.player_id} in {self.ladder_id}"
