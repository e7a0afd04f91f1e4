"""Matches, games, deals and their append-only action logs, and the clocks of timed play.

The log is the truth: a match is its seed plus, per deal, its ordered actions (and the
forfeits recorded on games). ``Match.state`` is the engine's snapshot of the match in play,
kept beside the log as a cache so a move replays only the deal in play; a test rebuilds
every finished match from the log alone and compares.

Locking: every write inside a match (a move, a clock settlement, a forfeit) first locks the
match row (``select_for_update``). One game of a match is in play at a time, so this is the
same granularity as a lock per game, and it gives one lock order for the whole match.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.models import Player
from common.json_codec import JSONField
from games import clocks


class TimeoutPolicy(models.TextChoices):
    FORFEIT = clocks.FORFEIT, _("Forfeit the game")
    AUTOPLAY = clocks.AUTOPLAY, _("A bot moves (three in a row forfeit the game)")


def seed_commitment(seed: int) -> str:
    """SHA-256 (hex) of the match seed as published before the match (``"ginrummy:<seed>"``)."""
    return hashlib.sha256(f"ginrummy:{seed}".encode()).hexdigest()


class Match(models.Model):
    """Two players, a rule set, best of N games: the unit of play wherever it comes from.

    Played online (deals dealt by the server, moves and clocks) or at a table (real cards;
    the players enter each hand as their score pad records it, see :mod:`games.tables`).
    """

    class Status(models.TextChoices):
        CHALLENGED = "challenged", _("Challenge awaiting an answer")
        SCHEDULED = "scheduled", _("Waiting to start")
        ACTIVE = "active", _("In play")
        FINISHED = "finished", _("Finished")
        DECLINED = "declined", _("Challenge declined")
        CANCELLED = "cancelled", _("Cancelled")

    class EndReason(models.TextChoices):
        GAMES = "games", _("Won the majority of games")
        FORFEIT = "forfeit", _("Forfeit")
        TIMEOUT = "timeout", _("Out of time")
        BOT_FAILURE = "bot_failure", _("A bot failed")
        NO_SHOW = "no_show", _("No show")
        RESIGNED = "resigned", _("Resigned")
        ADMIN = "admin", _("Decided by an organiser")

    class Source(models.TextChoices):
        CHALLENGE = "challenge", _("Challenge")
        ADMIN = "admin", _("Admin")
        TOURNAMENT = "tournament", _("Tournament")
        LADDER = "ladder", _("Ladder")

    class Venue(models.TextChoices):
        ONLINE = "online", _("Online")
        TABLE = "table", _("At a table, with real cards")

    class Confirmation(models.TextChoices):
        """Where the result of a table match stands: its hands decide it, then the opponent
        of whoever entered the deciding hand confirms (or disputes), or an organiser does."""

        NONE = "", _("Not decided yet")
        AWAITING = "awaiting", _("Decided, awaiting confirmation")
        DISPUTED = "disputed", _("Disputed")
        CONFIRMED = "confirmed", _("Confirmed")

    player_a = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CHALLENGE)
    rules = JSONField(help_text=_("Every option of the engine's RuleSet."))
    best_of = models.PositiveSmallIntegerField(default=5)
    target = models.PositiveIntegerField(default=250)
    # Time control: no base time means untimed.
    base_seconds = models.PositiveIntegerField(null=True, blank=True)
    increment_seconds = models.PositiveIntegerField(default=0)
    turn_limit_seconds = models.PositiveIntegerField(null=True, blank=True)
    timeout_policy = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    # Timed games: no clock runs for this long after a deal ends (both players read the score
    # sheet; the next deal starts when both continue or the pause runs out). 0: no pause.
    pause_seconds = models.PositiveIntegerField(default=15)
    # Timed games: the mover's lag (their network's, measured on their socket, and the
    # server's own delay in handing them the view and taking the move) is credited back to
    # their clock, up to a quota per move (games.clocks.LAG_QUOTA_MS), banked up to a few quotas.
    lag_compensation = models.BooleanField(default=True)
    # Berserk (an arena's option): this player's base time is halved in every game of the
    # match; chosen before their first move (games.services.match_berserk).
    berserk_a = models.BooleanField(default=False, db_default=False)
    berserk_b = models.BooleanField(default=False, db_default=False)
    seed = models.BigIntegerField(help_text=_("Secret until the match ends."))
    seed_commitment = models.CharField(max_length=64, help_text=_("SHA-256 of 'ginrummy:<seed>'."))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SCHEDULED)
    games_won_a = models.PositiveSmallIntegerField(default=0)
    games_won_b = models.PositiveSmallIntegerField(default=0)
    margin_a = models.IntegerField(default=0, help_text=_("Player A's total margin over games."))
    winner = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    end_reason = models.CharField(max_length=12, choices=EndReason.choices, blank=True)
    end_detail = models.CharField(max_length=300, blank=True)
    # The engine's snapshot of the match in play (a cache of the log) and its move count.
    state = JSONField(null=True, blank=True, editable=False)
    ply = models.PositiveIntegerField(default=0, help_text=_("Moves made in the whole match."))
    start_deadline = models.DateTimeField(
        null=True, blank=True, help_text=_("Tournament matches: players must show up by then.")
    )
    venue = models.CharField(
        max_length=8, choices=Venue.choices, default=Venue.ONLINE, db_default=Venue.ONLINE
    )
    table = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("A table match: its table number in its round.")
    )
    # A table match: its hands (TableHand rows) decide it; then it waits for confirmation.
    confirmation = models.CharField(
        max_length=10, choices=Confirmation.choices, blank=True, default="", db_default=""
    )
    reported_by = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_(
            "A table match: the player who entered the deciding hand (empty: an organiser)."
        ),
    )
    dispute_reason = models.CharField(max_length=300, blank=True, default="", db_default="")
    confirm_result = models.BooleanField(
        default=True,
        db_default=True,
        help_text=_(
            "A table match: its entered result waits for the opponent's (or an "
            "organiser's) confirmation; off, it stands once entered."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = _("matches")
        constraints = [
            models.CheckConstraint(
                condition=~Q(player_a=models.F("player_b")), name="games_match_two_players"
            ),
            models.CheckConstraint(
                condition=~Q(status="finished") | Q(winner__isnull=False),
                name="games_match_finished_has_winner",
            ),
            models.CheckConstraint(
                condition=Q(venue="table") | (Q(table__isnull=True) & Q(confirmation="")),
                name="games_match_table_fields",
            ),
        ]
        indexes = [
            models.Index(fields=["status"]),
            models.Index(fields=["player_a", "status"]),
            models.Index(fields=["player_b", "status"]),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk}: {self.player_a_id} v {self.player_b_id}"

    @property
    def players(self) -> tuple[int, int]:
        """Player ids by index: 0 is player A, 1 is player B."""
        return (self.player_a_id, self.player_b_id)

    def index_of(self, player_id: int) -> int | None:
        """0 or 1 for a player of this match, None for anyone else."""
        if player_id == self.player_a_id:
            return 0
        if player_id == self.player_b_id:
            return 1
        return None

    @property
    def is_timed(self) -> bool:
        return self.base_seconds is not None

    def berserk(self, index: int) -> bool:
        """Whether player ``index`` (0: A, 1: B) halved their clock for this match."""
        return self.berserk_a if index == 0 else self.berserk_b

    def base_ms(self, index: int) -> int | None:
        """Player ``index``'s clock at the start of each game (halved by berserk)."""
        if self.base_seconds is None:
            return None
        base = self.base_seconds * 1000
        return base // 2 if self.berserk(index) else base

    @property
    def at_table(self) -> bool:
        """Played with real cards at a table: hands entered, no deals, no clocks."""
        return self.venue == self.Venue.TABLE

    @property
    def is_bot_match(self) -> bool:
        return self.player_a.is_bot and self.player_b.is_bot

    @property
    def games_won(self) -> tuple[int, int]:
        return (self.games_won_a, self.games_won_b)

    @property
    def seed_revealed(self) -> int | None:
        """The seed, once the match is over (before that it would reveal every deck)."""
        return self.seed if self.status == self.Status.FINISHED else None


#: Statuses of a match its players are busy with: waiting to start or in play (a challenge
#: not yet answered is not one).
IN_PROGRESS = (Match.Status.SCHEDULED, Match.Status.ACTIVE)


class Game(models.Model):
    """One game of a match (for Hollywood scoring: one set of three games).

    Clocks: ``clock_a_ms``/``clock_b_ms`` are what each player had left when their clock
    was last charged; the player to act is charged from ``clock_charged_at``.
    ``turn_deadline`` is when the player to act runs out (also the per-turn limit): any read
    or write settles an expired clock first, and a sweeper settles due games.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", _("In play")
        FINISHED = "finished", _("Finished")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField(help_text=_("0 for the match's first game."))
    seed = models.BigIntegerField()
    first_dealer = models.PositiveSmallIntegerField(help_text=_("Player index (0 = A)."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    ply = models.PositiveIntegerField(default=0, help_text=_("Moves made in this game."))
    to_act = models.PositiveSmallIntegerField(null=True, blank=True)
    score_a = models.IntegerField(default=0, help_text=_("Hand points so far (first game)."))
    score_b = models.IntegerField(default=0)
    results = JSONField(default=list, help_text=_("Finished games' scores, in order."))
    winner_index = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_by = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_reason = models.CharField(max_length=300, blank=True)
    # Clocks (timed matches only).
    clock_a_ms = models.BigIntegerField(null=True, blank=True)
    clock_b_ms = models.BigIntegerField(null=True, blank=True)
    clock_charged_at = models.DateTimeField(null=True, blank=True)
    turn_began_at = models.DateTimeField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    autoplay_a = models.PositiveSmallIntegerField(default=0)
    autoplay_b = models.PositiveSmallIntegerField(default=0)
    # The pause between deals of a timed game: no clock runs until both players continue
    # (bit 0: player A, bit 1: player B) or the deadline passes; the sweep settles it.
    pause_deadline = models.DateTimeField(null=True, blank=True)
    continued = models.PositiveSmallIntegerField(default=0)
    # Lag compensation still owed to each player (ms), topped up by a quota each move.
    lag_bank_a_ms = models.PositiveIntegerField(default=0)
    lag_bank_b_ms = models.PositiveIntegerField(default=0)
    # The change number pushed to sockets: one more with each committed change of the game.
    seq = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="games_game_number_unique")
        ]
        indexes = [
            # The sweeper's query: due deadlines of games in play.
            models.Index(
                fields=["turn_deadline"],
                name="games_game_due_idx",
                condition=Q(status="active", turn_deadline__isnull=False),
            ),
            # The sweeper's other query: pauses between deals that ran out.
            models.Index(
                fields=["pause_deadline"],
                name="games_game_pause_due_idx",
                condition=Q(status="active", pause_deadline__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} (match {self.match_id}, #{self.number})"

    def clock_ms(self, index: int) -> int | None:
        return self.clock_a_ms if index == 0 else self.clock_b_ms

    def set_clock_ms(self, index: int, value: int) -> None:
        if index == 0:
            self.clock_a_ms = value
        else:
            self.clock_b_ms = value

    def lag_bank_ms(self, index: int) -> int:
        return self.lag_bank_a_ms if index == 0 else self.lag_bank_b_ms

    def set_lag_bank_ms(self, index: int, value: int) -> None:
        if index == 0:
            self.lag_bank_a_ms = value
        else:
            self.lag_bank_b_ms = value

    @property
    def paused(self) -> bool:
        return self.pause_deadline is not None

    def autoplays(self, index: int) -> int:
        return self.autoplay_a if index == 0 else self.autoplay_b

    def set_autoplays(self, index: int, value: int) -> None:
        if index == 0:
            self.autoplay_a = value
        else:
            self.autoplay_b = value


class Deal(models.Model):
    """One deal (hand): its seed and dealer define the cards; its actions are the log."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("In play")
        FINISHED = "finished", _("Finished")
        ABANDONED = "abandoned", _("Ended by a forfeit")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    dealer = models.PositiveSmallIntegerField(help_text=_("The dealer's seat (0 or 1)."))
    swap = models.PositiveSmallIntegerField(
        default=0, help_text=_("Seat s is played by player s ^ swap (duplicate deals).")
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    outcome = JSONField(null=True, blank=True)
    termination = models.CharField(max_length=10, blank=True)
    winner_index = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    # Timed games: when the first turn's clock started (the deal's start, or the end of the
    # pause after the deal before): with the moves' times and lag credits, the clocks replay
    # from the log (games.selectors.clocks_from_log).
    clock_started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="games_deal_number_unique")
        ]

    def __str__(self) -> str:
        return f"Deal {self.pk} (game {self.game_id}, #{self.number})"

    def player_of_seat(self, seat: int) -> int:
        return seat ^ self.swap


class Action(models.Model):
    """One move of a deal's append-only log: ply, actor, kind, card(s), server time."""

    # No index of its own: the unique (deal, ply) index below serves every lookup by deal,
    # and one index fewer is one fewer to fill for every move written.
    #
    # Neither key is a constraint of the database (``db_constraint=False``): PostgreSQL checks
    # a foreign key with a trigger and a locking lookup per row, which cost a bot match (its
    # 2,600 actions written in one COPY) about a fifth of its database time. The rows are
    # written only by the play services, in the transaction that holds the match's lock and
    # made or read the deal; Django still cascades a deleted deal to its actions and refuses
    # to delete a player who has moved (``on_delete``).
    deal = models.ForeignKey(
        Deal,
        on_delete=models.CASCADE,
        related_name="actions",
        db_index=False,
        db_constraint=False,
    )
    ply = models.PositiveIntegerField(help_text=_("0 for the deal's first move."))
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", db_constraint=False
    )
    kind = models.CharField(max_length=16)
    card = models.CharField(max_length=2, blank=True)
    melds = JSONField(null=True, blank=True)
    auto = models.BooleanField(default=False, help_text=_("Made by the clock's autoplay."))
    # Database defaults too: the bulk writer (COPY) names only the columns it fills.
    lag_ms = models.PositiveIntegerField(
        default=0, db_default=0, help_text=_("Network lag credited back to the mover's clock.")
    )
    client_id = models.CharField(
        max_length=64,
        blank=True,
        db_default="",
        help_text=_("The mover's id for the move, to answer repeats."),
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["deal", "ply"]
        constraints = [
            # One action per ply of a deal: a double submission cannot write twice.
            models.UniqueConstraint(fields=["deal", "ply"], name="games_action_ply_unique")
        ]

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        """The engine's text form, e.g. ``discard TS`` or ``knock 9C [AS 2S 3S]``."""
        parts = [self.kind]
        if self.card:
            parts.append(self.card)
        for meld in self.melds or []:
            parts.append("[" + " ".join(meld) + "]")
        return " ".join(parts)


class TableHand(models.Model):
    """One hand of a table match as the score pad records it: the log of a table match.

    The engine scores it (``games.engine.table``) exactly as it scores a deal played online;
    the match's games, totals and result are a replay of its hands in order.
    """

    class Kind(models.TextChoices):
        KNOCK = "knock", pgettext_lazy("hand kind", "Knock")
        GIN = "gin", pgettext_lazy("hand kind", "Gin")
        BIG_GIN = "big_gin", pgettext_lazy("hand kind", "Big gin")
        DRAWN = "drawn", pgettext_lazy("hand kind", "Drawn (no one knocked)")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="table_hands")
    number = models.PositiveIntegerField(help_text=_("0 for the match's first hand."))
    kind = models.CharField(max_length=8, choices=Kind.choices)
    knocker = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Player index (0 = A); none for a drawn hand.")
    )
    deadwood_a = models.PositiveSmallIntegerField(null=True, blank=True)
    deadwood_b = models.PositiveSmallIntegerField(null=True, blank=True)
    upcard = models.CharField(
        max_length=2, blank=True, help_text=_("Oklahoma: the upcard, e.g. QS.")
    )
    entered_by = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The player who entered it (empty: an organiser)."),
    )
    entered_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            # One row per hand of a match: two phones entering the same hand write one.
            models.UniqueConstraint(fields=["match", "number"], name="games_tablehand_number")
        ]

    def __str__(self) -> str:
        return f"Hand {self.number} of match {self.match_id}: {self.kind}"

    @property
    def deadwood(self) -> tuple[int | None, int | None]:
        """Each player's deadwood (player A's first), as entered."""
        return (self.deadwood_a, self.deadwood_b)


class Seek(models.Model):
    """An open game in the lobby: a player's offer to play anyone who takes it.

    Whoever joins first plays it: the join claims the row with a conditional update (``open``
    to ``taken``) and starts the match in the same transaction, so two joins at once start
    one match. A seek ends when taken, cancelled by its poster, when the poster leaves the
    lobby, or once ``expires_at`` has passed (an open seek past it is not offered).
    """

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        TAKEN = "taken", _("Taken")
        CANCELLED = "cancelled", _("Cancelled")
        EXPIRED = "expired", _("Expired")

    poster = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seeks")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    rules = models.JSONField(help_text=_("The rule set's options, as a match stores them."))
    best_of = models.PositiveSmallIntegerField(default=1)
    target = models.PositiveIntegerField(default=100)
    time_control = models.JSONField(
        null=True, blank=True, help_text=_("The match's time control; empty: untimed.")
    )
    rated = models.BooleanField(default=False)
    rating_min = models.PositiveIntegerField(null=True, blank=True)
    rating_max = models.PositiveIntegerField(null=True, blank=True)
    match = models.OneToOneField(
        Match, on_delete=models.SET_NULL, null=True, blank=True, related_name="seek"
    )
    taken_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["status", "expires_at"], name="games_seek_open")]

    def __str__(self) -> str:
        return f"Seek {self.pk} by {self.poster_id} ({self.status})"


class MatchAnalysis(models.Model):
    """The analysis of a finished match: each decision's expected loss, from its seat.

    Computed in steps on the batch queue (:func:`games.services.analysis.analysis_step`):
    ``rows`` holds the decisions analysed so far, in the order played, so a step lost with
    its worker is done again from where the last one stopped, and the result is the same
    (every decision's random numbers come from ``seed``). ``result`` is filled once every
    decision is done (and ``rows`` emptied: they are in it); it is never changed afterwards.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    seed = models.BigIntegerField(help_text=_("Seeds every decision's samples."))
    samples = models.PositiveSmallIntegerField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decisions_total = models.PositiveIntegerField(default=0)
    rows = models.JSONField(default=list, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    cpu_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["status", "updated_at"], name="games_analysis_open")]

    def __str__(self) -> str:
        return f"Analysis of match {self.match_id} ({self.status})"
