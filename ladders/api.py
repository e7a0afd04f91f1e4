"""Ladders API: ladders, the queue (join, leave, status), leaderboards, ratings, head-to-head.

Views validate input, call a service or selector, and serialize. A refused request changes
nothing and answers 4xx in the project's error shape: 409 for a request that does not fit the
caller's state (already queued, in a match, not queued), 400 naming the field for bad query
parameters (a page number that is not a positive integer, or absurdly large), 404 for a page
past the end.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from common.api import PageNumberPagination, StaffModelPermissions, error_body, refusal
from common.errors import ServiceError
from common.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from common.schema import error_codes
from games.api import MatchListSerializer, PlayerBriefSerializer, RulesField
from ladders import selectors, services
from ladders.models import Ladder, Rating, RatingChange, Season, SeasonEntry
from ladders.services import seasons

#: The highest page number anyone may ask for: larger ones are refused before any query.
MAX_PAGE = 1_000_000


def _ladder(pk: int) -> Ladder:
    return get_object_or_404(Ladder, pk=pk)


def _rating(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


# --- serializers ----------------------------------------------------------------------------


class LadderSerializer(serializers.ModelSerializer):
    """A ladder or rated pool with every setting that decides play, ratings and pairing."""

    queue_size = serializers.IntegerField(read_only=True)
    time_control = serializers.SerializerMethodField()
    rating_settings = serializers.SerializerMethodField()
    leaderboard = serializers.SerializerMethodField()
    matchmaking = serializers.SerializerMethodField()
    seasons = serializers.SerializerMethodField()

    class Meta:
        model = Ladder
        fields = [
            "id",
            "name",
            "slug",
            "kind",
            "description",
            "is_open",
            "rules",
            "best_of",
            "target",
            "time_control",
            "rating_settings",
            "leaderboard",
            "matchmaking",
            "seasons",
            "queue_size",
        ]
        read_only_fields = fields

    def get_time_control(self, ladder: Ladder) -> dict[str, Any] | None:
        if ladder.base_seconds is None:
            return None
        return {
            "base_seconds": ladder.base_seconds,
            "increment_seconds": ladder.increment_seconds,
            "turn_limit_seconds": ladder.turn_limit_seconds,
            "timeout_policy": ladder.timeout_policy,
        }

    def get_rating_settings(self, ladder: Ladder) -> dict[str, Any]:
        return {
            "system": ladder.rating_system,
            "initial": ladder.initial_rating,
            "k_provisional": ladder.k_provisional,
            "provisional_matches": ladder.provisional_matches,
            "k_established": ladder.k_established,
            "k_top": ladder.k_top,
            "top_threshold": ladder.top_threshold,
            "floor": ladder.rating_floor,
            "scoring": ladder.scoring,
            "human_bot_factor": ladder.human_bot_factor,
            "glicko2": {
                "deviation": ladder.glicko_deviation,
                "volatility": ladder.glicko_volatility,
                "tau": ladder.glicko_tau,
                "period_days": ladder.glicko_period_days,
                "provisional_deviation": ladder.provisional_deviation,
            }
            if ladder.is_glicko
            else None,
        }

    def get_leaderboard(self, ladder: Ladder) -> dict[str, int]:
        return {
            "min_matches": ladder.leaderboard_min_matches,
            "active_days": ladder.leaderboard_active_days,
        }

    def get_seasons(self, ladder: Ladder) -> dict[str, Any]:
        return {
            "season_days": ladder.season_days,
            "pull": ladder.season_pull,
            "divisions": ladder.divisions,
            "division_size": ladder.division_size,
            "promotion": ladder.promotion,
        }

    def get_matchmaking(self, ladder: Ladder) -> dict[str, Any]:
        return {
            "window_initial": ladder.window_initial,
            "window_step": ladder.window_step,
            "window_step_seconds": ladder.window_step_seconds,
            "window_max": ladder.window_max,
            "window_deviation_factor": ladder.window_deviation_factor,
            "bot_pairs": ladder.bot_pairs,
            "bots_only": ladder.bots_only,
            "bot_requeue_seconds": ladder.bot_requeue_seconds,
        }


class RatingSerializer(serializers.ModelSerializer):
    player = PlayerBriefSerializer(read_only=True)
    rating = serializers.SerializerMethodField()
    deviation = serializers.SerializerMethodField(
        help_text="Glicko-2: the deviation as of now (it grows while the player is away); "
        "null under Elo."
    )
    volatility = serializers.SerializerMethodField(help_text="Glicko-2; null under Elo.")
    peak = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields = [
            "player",
            "rating",
            "deviation",
            "volatility",
            "peak",
            "matches_played",
            "wins",
            "losses",
            "provisional",
            "last_active",
        ]
        read_only_fields = fields

    def get_rating(self, rating: Rating) -> float:
        return _rating(rating.rating)

    def get_deviation(self, rating: Rating) -> float | None:
        return _rating(rating.deviation_now(timezone.now()))

    def get_volatility(self, rating: Rating) -> float | None:
        return None if rating.volatility is None else round(rating.volatility, 5)

    def get_peak(self, rating: Rating) -> float:
        return _rating(rating.peak)


class BoardRowSerializer(RatingSerializer):
    rank = serializers.IntegerField(read_only=True)

    class Meta(RatingSerializer.Meta):
        fields = ["rank", *RatingSerializer.Meta.fields]
        read_only_fields = fields


class SeasonSerializer(serializers.ModelSerializer):
    status = serializers.SerializerMethodField()

    class Meta:
        model = Season
        fields = ["number", "starts_at", "ends_at", "closed_at", "status"]
        read_only_fields = fields

    def get_status(self, season: Season) -> str:
        if season.closed_at is not None:
            return "closed"
        return "open" if season.starts_at <= timezone.now() else "scheduled"


class PlayerSeasonSerializer(serializers.ModelSerializer):
    ladder = serializers.IntegerField(source="season.ladder_id")
    ladder_name = serializers.CharField(source="season.ladder.name")
    season = SeasonSerializer()
    rating = serializers.SerializerMethodField()
    deviation = serializers.SerializerMethodField()

    class Meta:
        model = SeasonEntry
        fields = [
            "ladder",
            "ladder_name",
            "season",
            "division",
            "rank",
            "rating",
            "deviation",
            "matches_played",
            "wins",
            "losses",
            "movement",
        ]
        read_only_fields = fields

    def get_rating(self, entry: SeasonEntry) -> float | None:
        return _rating(entry.rating)

    def get_deviation(self, entry: SeasonEntry) -> float | None:
        return _rating(entry.deviation)


class PlayerRatingSerializer(RatingSerializer):
    rank = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="On the default leaderboard; null if not on it."
    )
    eligible = serializers.BooleanField(read_only=True)
    seasons = serializers.SerializerMethodField(
        help_text="The player's seasons in this ladder, newest first: division, and once "
        "closed the final rank, rating, record and movement."
    )

    class Meta(RatingSerializer.Meta):
        fields = [*RatingSerializer.Meta.fields, "rank", "eligible", "seasons"]
        read_only_fields = fields

    @extend_schema_field(PlayerSeasonSerializer(many=True))
    def get_seasons(self, rating: Rating) -> list[dict[str, Any]]:
        entries = selectors.seasons_of_player(player=rating.player, ladder=rating.ladder)
        return PlayerSeasonSerializer(entries, many=True).data


class RatingChangeSerializer(serializers.ModelSerializer):
    opponent = PlayerBriefSerializer(read_only=True)
    rating_before = serializers.SerializerMethodField()
    rating_after = serializers.SerializerMethodField()
    delta = serializers.SerializerMethodField()

    class Meta:
        model = RatingChange
        fields = [
            "match",
            "opponent",
            "won",
            "rating_before",
            "rating_after",
            "delta",
            "expected",
            "score",
            "k",
            "deviation_before",
            "deviation_after",
            "volatility_before",
            "volatility_after",
            "created_at",
        ]
        read_only_fields = fields

    def get_rating_before(self, change: RatingChange) -> float:
        return _rating(change.rating_before)

    def get_rating_after(self, change: RatingChange) -> float:
        return _rating(change.rating_after)

    def get_delta(self, change: RatingChange) -> float:
        return round(change.delta, 2)


class LeaderboardQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=PageNumberPagination.max_page_size, required=False
    )
    hide_provisional = serializers.BooleanField(
        default=False,
        help_text="Leave out provisional ratings: Elo, fewer rated matches than the ladder's "
        "provisional count; Glicko-2, a deviation above its provisional threshold (110).",
    )
    active_days = serializers.IntegerField(
        min_value=1,
        max_value=3650,
        required=False,
        help_text="Only players with a rated match in the last N days.",
    )
    kind = serializers.ChoiceField(choices=Player.Kind.choices, required=False)


LeaderboardSerializer = inline_serializer(
    "Leaderboard",
    {
        "count": serializers.IntegerField(help_text="Players ranked (refreshed every 30 s)."),
        "page": serializers.IntegerField(),
        "page_size": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": BoardRowSerializer(many=True),
    },
)


class QueueStatusSerializer(serializers.Serializer):
    ladder = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=["waiting", "paired", "idle"],
        help_text="waiting: in the queue; paired: your ladder match is on (see match); "
        "idle: neither.",
    )
    joined_at = serializers.DateTimeField(allow_null=True)
    waited_seconds = serializers.FloatField(allow_null=True)
    window = serializers.FloatField(
        allow_null=True, help_text="Rating gap you accept now (it widens while you wait)."
    )
    rating = serializers.FloatField(allow_null=True)
    match = MatchListSerializer(allow_null=True)
    last_match = MatchListSerializer(allow_null=True)


class HeadToHeadQuerySerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    opponent = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())

    def validate(self, attrs):
        if attrs["player"] == attrs["opponent"]:
            raise serializers.ValidationError({"opponent": ["Pick two different players."]})
        return attrs


class HeadToHeadSerializer(serializers.Serializer):
    player = PlayerBriefSerializer()
    opponent = PlayerBriefSerializer()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    rating_delta = serializers.FloatField(help_text="What the player gained against the opponent.")
    recent = RatingChangeSerializer(many=True)


# --- pagination -----------------------------------------------------------------------------


class StrictPagination(PageNumberPagination):
    """The house pagination, but a page that is not a positive integer is a 400 naming it."""

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if not raw:  # left out or empty (as a form sends it): the first page
            return 1
        field = serializers.IntegerField(min_value=1, max_value=MAX_PAGE)
        try:
            return field.run_validation(raw)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({"page": error.detail}) from None


# --- ladders --------------------------------------------------------------------------------


class LadderWriteSerializer(serializers.Serializer):
    """The settings staff give a ladder (the rest keep their defaults; the admin sets all)."""

    name = StrictCharField(max_length=80, required=False)
    slug = serializers.SlugField(max_length=80, required=False)
    kind = serializers.ChoiceField(choices=Ladder.Kind.choices, required=False)
    description = StrictCharField(max_length=2000, required=False, allow_blank=True)
    is_open = StrictBooleanField(required=False)
    rules = RulesField(required=False)
    best_of = StrictIntegerField(min_value=1, max_value=9, required=False)
    target = StrictIntegerField(min_value=25, max_value=1000, required=False)
    base_seconds = StrictIntegerField(
        min_value=10, max_value=24 * 3600, required=False, allow_null=True
    )
    increment_seconds = StrictIntegerField(min_value=0, max_value=600, required=False)
    rating_system = serializers.ChoiceField(choices=Ladder.System.choices, required=False)
    bot_pairs = StrictBooleanField(required=False)
    bots_only = StrictBooleanField(required=False)


def _ladders():
    return Ladder.objects.annotate(queue_size=Count("queue"))


class LadderListView(generics.ListAPIView):
    """Ladders and rated pools, with their settings and how many players are waiting.

    Staff who may add ladders POST to create one (``services.ladder_create``, as the admin's
    form checks it: a rule set the engine accepts, unique name and slug)."""

    serializer_class = LadderSerializer
    pagination_class = StrictPagination
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, StaffModelPermissions]
    queryset = Ladder.objects.all()  # whose model permission a write needs (add_ladder)

    def get_queryset(self):
        return _ladders().order_by("name")

    @extend_schema(request=LadderWriteSerializer, responses={201: LadderSerializer})
    def post(self, request: Request) -> Response:
        body = LadderWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        if "name" not in data:
            raise serializers.ValidationError({"name": ["This field is required."]})
        try:
            ladder = services.ladder_create(name=data.pop("name"), **data)
        except ServiceError as error:  # the ladder's refusals, or the engine's (rules)
            return refusal(error)
        return Response(
            LadderSerializer(_ladders().get(pk=ladder.pk)).data, status=status.HTTP_201_CREATED
        )


class LadderDetailView(generics.RetrieveAPIView):
    """A ladder; staff who may change ladders PATCH its settings (checked as the admin's form
    checks them)."""

    serializer_class = LadderSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, StaffModelPermissions]

    def get_queryset(self):
        return _ladders()

    @extend_schema(request=LadderWriteSerializer, responses={200: LadderSerializer})
    def patch(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        body = LadderWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            ladder_update(ladder=ladder, **body.validated_data)
        except ServiceError as error:
            return refusal(error)
        return Response(LadderSerializer(_ladders().get(pk=pk)).data)


def ladder_update(*, ladder: Ladder, **changes: Any) -> Ladder:
    """Change a ladder's settings: validated as the admin's form validates them (Django's
    ValidationError, a 400 naming the field) and its rule set by the engine (``invalid_rules``),
    saved in one go."""
    for name, value in changes.items():
        setattr(ladder, name, value)
    if {"rules", "best_of", "target"} & set(changes):
        services.ladder_rules_check(ladder)
    ladder.full_clean()
    ladder.save()
    return ladder


class StaffMayChangeLadders(StaffModelPermissions):
    """A POST to a ladder's command changes the ladder: it needs ``change_ladder``."""

    perms_map = {
        **StaffModelPermissions.perms_map,
        "POST": ["%(app_label)s.change_%(model_name)s"],
    }


class _LadderCommand(APIView):
    permission_classes = [permissions.IsAuthenticated, StaffMayChangeLadders]
    queryset = Ladder.objects.all()  # whose model permission a command needs


class LadderOpenView(_LadderCommand):
    """Open the ladder's queue to players (``is_open``)."""

    is_open = True

    @extend_schema(request=None, responses={200: LadderSerializer})
    def post(self, request: Request, pk: int) -> Response:
        ladder_update(ladder=_ladder(pk), is_open=self.is_open)
        return Response(LadderSerializer(_ladders().get(pk=pk)).data)


class LadderCloseView(LadderOpenView):
    """Close the queue: nobody new joins (those waiting stay until they leave or are paired)."""

    is_open = False


class LadderQueueBotsView(_LadderCommand):
    """Put every bot member of the ladder in its queue (the admin's action); each bot the
    queue refuses (already queued, in a match) is named with its reason."""

    @extend_schema(
        request=None,
        responses={
            200: inline_serializer(
                "QueuedBots",
                {
                    "queued": serializers.ListField(child=serializers.IntegerField()),
                    "refused": serializers.ListField(child=serializers.DictField()),
                },
            )
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        queued, refused = [], []
        for bot in Player.objects.filter(ratings__ladder=ladder, kind=Player.Kind.BOT):
            try:
                services.queue_join(ladder=ladder, player=bot)
            except services.LadderError as error:
                refused.append({"player": bot.pk, "code": error.code, "detail": str(error)})
            else:
                queued.append(bot.pk)
        return Response({"queued": queued, "refused": refused})


# --- the queue ------------------------------------------------------------------------------


def _queue_status(ladder: Ladder, player: Player) -> dict[str, Any]:
    state = selectors.queue_status(ladder=ladder, player=player)
    entry = state.entry
    rating = Rating.objects.filter(ladder=ladder, player=player).values_list("rating", flat=True)
    if entry is not None:
        status_name = "waiting"
    elif state.match is not None:
        status_name = "paired"
    else:
        status_name = "idle"
    return {
        "ladder": ladder.pk,
        "status": status_name,
        "joined_at": entry.joined_at if entry else None,
        "waited_seconds": state.waited_seconds,
        "window": state.window,
        "rating": _rating(rating.first()),
        "match": state.match,
        "last_match": state.last_match,
    }


class QueueJoinSerializer(serializers.Serializer):
    new_opponent = StrictBooleanField(
        required=False,
        default=False,
        help_text="Never be paired with the opponent of your last match of this ladder while "
        "you wait (without it, only while anyone else is in reach).",
    )


class QueueView(APIView):
    """Your place in this ladder's queue: GET to see it, POST to join, DELETE to leave.

    Once paired, the status is ``paired`` and ``match`` is your new match. A join may ask
    for a new opponent (``{"new_opponent": true}``, the table's "New opponent").
    """

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    @extend_schema(responses={200: QueueStatusSerializer})
    def get(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        ladder = _ladder(pk)
        return Response(QueueStatusSerializer(_queue_status(ladder, player)).data)

    @extend_schema(request=QueueJoinSerializer, responses={201: QueueStatusSerializer})
    @error_codes(
        {
            "400": ["unknown_bot"],
            "403": ["bots_only", "guest_cannot_queue"],
            "409": [
                "already_queued",
                "queued_elsewhere",
                "in_match",
                "match_in_progress",
                "ladder_closed",
                "not_a_ladder",
            ],
        }
    )
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        body = QueueJoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        ladder = _ladder(pk)
        try:
            services.queue_join(
                ladder=ladder, player=player, new_opponent=body.validated_data["new_opponent"]
            )
        except services.LadderError as error:
            return refusal(error)
        data = QueueStatusSerializer(_queue_status(ladder, player)).data
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @error_codes({"409": ["not_queued"]})
    def delete(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        ladder = _ladder(pk)
        try:
            services.queue_leave(ladder=ladder, player=player)
        except services.LadderError as error:
            return refusal(error)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- leaderboards and ratings ---------------------------------------------------------------


class LeaderboardView(APIView):
    """The ladder's players ranked by rating, with rank numbers.

    Only eligible players are ranked: at least the ladder's minimum of rated matches (10 by
    default), one of them in its activity window (30 days by default).
    """

    @extend_schema(parameters=[LeaderboardQuerySerializer], responses={200: LeaderboardSerializer})
    def get(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        page = params["page"]
        page_size = params.get("page_size") or settings.REST_FRAMEWORK["PAGE_SIZE"]
        filters = selectors.BoardFilters(
            hide_provisional=params["hide_provisional"],
            active_days=params.get("active_days"),
            kind=params.get("kind"),
        )
        board = selectors.leaderboard_page(
            ladder=ladder, page=page, page_size=page_size, filters=filters
        )
        count = selectors.leaderboard_size(ladder=ladder, filters=filters)
        if not board.rows and page > 1:
            pages = max(1, -(-count // page_size))
            return Response(
                error_body(
                    f"Page {page} is past the end: the leaderboard has {pages} "
                    f"page{'s' if pages != 1 else ''} of {page_size}.",
                    "not_found",
                ),
                status=status.HTTP_404_NOT_FOUND,
            )
        url = request.build_absolute_uri()
        rows = []
        for rank, rating in board.rows:
            rating.rank = rank
            rows.append(rating)
        return Response(
            {
                "count": max(count, (rows[-1].rank if rows else 0)),
                "page": page,
                "page_size": page_size,
                "next": replace_query_param(url, "page", page + 1) if board.has_next else None,
                "previous": None
                if page == 1
                else (
                    remove_query_param(url, "page")
                    if page == 2
                    else replace_query_param(url, "page", page - 1)
                ),
                "results": BoardRowSerializer(rows, many=True).data,
            }
        )


def _member(ladder: Ladder, player_id: int) -> Rating:
    return get_object_or_404(
        Rating.objects.select_related("player", "ladder"), ladder=ladder, player_id=player_id
    )


class PlayerRatingView(APIView):
    """A player's rating in this ladder, and their rank if they are on the leaderboard."""

    @extend_schema(responses={200: PlayerRatingSerializer})
    def get(self, request: Request, pk: int, player_id: int) -> Response:
        rating = _member(_ladder(pk), player_id)
        rating.rank = selectors.rank_of(rating=rating)
        rating.eligible = rating.rank is not None
        return Response(PlayerRatingSerializer(rating).data)


class RatingHistoryView(generics.ListAPIView):
    """A player's rating changes in this ladder, newest first (one per rated match)."""

    serializer_class = RatingChangeSerializer
    pagination_class = StrictPagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no ids
            return RatingChange.objects.none()
        rating = _member(_ladder(self.kwargs["pk"]), self.kwargs["player_id"])
        return selectors.rating_history(pool=rating.ladder, player=rating.player)


class HeadToHeadView(APIView):
    """The record of ``player`` against ``opponent`` in this ladder's rated matches."""

    @extend_schema(parameters=[HeadToHeadQuerySerializer], responses={200: HeadToHeadSerializer})
    def get(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        query = HeadToHeadQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        a, b = query.validated_data["player"], query.validated_data["opponent"]
        record = selectors.head_to_head(pool=ladder, a=a, b=b)
        data = {
            "player": a,
            "opponent": b,
            "matches": record.matches,
            "wins": record.wins,
            "losses": record.losses,
            "rating_delta": round(record.rating_delta, 2),
            "recent": record.recent,
        }
        return Response(HeadToHeadSerializer(data).data)


# --- seasons --------------------------------------------------------------------------------


class SeasonOpenSerializer(serializers.Serializer):
    starts_at = serializers.DateTimeField(required=False, help_text="Default: now.")
    ends_at = serializers.DateTimeField()


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = PlayerBriefSerializer()
    division = serializers.IntegerField()
    rating = serializers.SerializerMethodField()
    deviation = serializers.SerializerMethodField()
    matches_played = serializers.IntegerField(help_text="Rated matches in the season.")
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    movement = serializers.CharField(
        help_text="promoted, relegated or stayed once the season is closed; empty while open."
    )

    def get_rating(self, row: selectors.StandingRow) -> float | None:
        return _rating(row.rating)

    def get_deviation(self, row: selectors.StandingRow) -> float | None:
        return _rating(row.deviation)


class StandingsQuerySerializer(serializers.Serializer):
    division = serializers.IntegerField(min_value=1, max_value=20, default=1)


StandingsSerializer = inline_serializer(
    "SeasonStandings",
    {
        "season": SeasonSerializer(),
        "division": serializers.IntegerField(),
        "divisions": serializers.IntegerField(),
        "final": serializers.BooleanField(help_text="The season is closed: these never change."),
        "results": StandingSerializer(many=True),
    },
)


class SeasonListView(APIView):
    """The ladder's seasons, newest first; staff POST to open the next one.

    Opening refuses 400 ``invalid_season`` (it would end before it starts, or has ended) and
    409 ``season_open`` (another season of the ladder is not closed).
    """

    permission_classes = [permissions.IsAuthenticatedOrReadOnly, StaffModelPermissions]
    queryset = Season.objects.all()  # whose model permission a write needs (add_season)

    @extend_schema(responses={200: SeasonSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        return Response(SeasonSerializer(ladder.seasons.order_by("-number"), many=True).data)

    @extend_schema(request=SeasonOpenSerializer, responses={201: SeasonSerializer})
    @error_codes({"400": ["invalid_season"], "409": ["season_open"]})
    def post(self, request: Request, pk: int) -> Response:
        ladder = _ladder(pk)
        body = SeasonOpenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            season = seasons.season_open(
                ladder=ladder,
                starts_at=body.validated_data.get("starts_at") or timezone.now(),
                ends_at=body.validated_data["ends_at"],
            )
        except services.LadderError as error:
            return refusal(error)
        return Response(SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class SeasonStandingsView(APIView):
    """A division's standings in a season: final once it is closed, live while it is open."""

    @extend_schema(parameters=[StandingsQuerySerializer], responses={200: StandingsSerializer})
    def get(self, request: Request, pk: int, number: int) -> Response:
        season = get_object_or_404(
            Season.objects.select_related("ladder"), ladder_id=pk, number=number
        )
        query = StandingsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        division = query.validated_data["division"]
        rows = selectors.season_standings(season=season, division=division)
        return Response(
            {
                "season": SeasonSerializer(season).data,
                "division": division,
                "divisions": season.ladder.divisions,
                "final": season.closed_at is not None,
                "results": StandingSerializer(rows, many=True).data,
            }
        )


urlpatterns = [
    path("ladders", LadderListView.as_view(), name="ladder-list"),
    path("ladders/<int:pk>", LadderDetailView.as_view(), name="ladder-detail"),
    path("ladders/<int:pk>/queue", QueueView.as_view(), name="ladder-queue"),
    path("ladders/<int:pk>/open", LadderOpenView.as_view(), name="ladder-open"),
    path("ladders/<int:pk>/close", LadderCloseView.as_view(), name="ladder-close"),
    path("ladders/<int:pk>/queue-bots", LadderQueueBotsView.as_view(), name="ladder-queue-bots"),
    path("ladders/<int:pk>/leaderboard", LeaderboardView.as_view(), name="ladder-leaderboard"),
    path(
        "ladders/<int:pk>/ratings/<int:player_id>",
        PlayerRatingView.as_view(),
        name="ladder-rating",
    ),
    path(
        "ladders/<int:pk>/ratings/<int:player_id>/history",
        RatingHistoryView.as_view(),
        name="ladder-rating-history",
    ),
    path("ladders/<int:pk>/head-to-head", HeadToHeadView.as_view(), name="ladder-head-to-head"),
    path("ladders/<int:pk>/seasons", SeasonListView.as_view(), name="ladder-seasons"),
    path(
        "ladders/<int:pk>/seasons/<int:number>",
        SeasonStandingsView.as_view(),
        name="ladder-season-standings",
    ),
]
