"""Leaderboards and ratings: a ladder's players ranked, one player's rating (with their
seasons), and their rating history.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import ngettext
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from accounts.models import Player
from common.api import PageNumberPagination, error_body
from common.compiled import CompiledQuery
from games.api import PlayerBriefSerializer
from ladders import selectors
from ladders.api.base import (
    MAX_PAGE,
    SeasonSerializer,
    StrictPagination,
    ladder_or_404,
    rating_rounded,
)
from ladders.models import Ladder, Rating, RatingChange, SeasonEntry


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
        return rating_rounded(rating.rating)

    def get_deviation(self, rating: Rating) -> float | None:
        return rating_rounded(rating.deviation_now(timezone.now()))

    def get_volatility(self, rating: Rating) -> float | None:
        return None if rating.volatility is None else round(rating.volatility, 5)

    def get_peak(self, rating: Rating) -> float:
        return rating_rounded(rating.peak)


class BoardRowSerializer(RatingSerializer):
    rank = serializers.IntegerField(read_only=True)

    class Meta(RatingSerializer.Meta):
        fields = ["rank", *RatingSerializer.Meta.fields]
        read_only_fields = fields


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
        return rating_rounded(entry.rating)

    def get_deviation(self, entry: SeasonEntry) -> float | None:
        return rating_rounded(entry.deviation)


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
    voided = serializers.BooleanField(
        read_only=True,
        help_text="Taken back: a match against an account marked as assisted (fair play); the "
        "pool's ratings were replayed without it.",
    )
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
            "voided",
            "created_at",
        ]
        read_only_fields = fields

    def get_rating_before(self, change: RatingChange) -> float:
        return rating_rounded(change.rating_before)

    def get_rating_after(self, change: RatingChange) -> float:
        return rating_rounded(change.rating_after)

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


#: A ladder with only what its leaderboard reads (compiled once).
_BOARD_LADDER = CompiledQuery(
    lambda pk: Ladder.objects.filter(pk=pk).order_by().only(*selectors.BOARD_LADDER_FIELDS),
    -918_273_647,
)


def _board_row(rank: int, row: tuple, when: serializers.DateTimeField) -> dict[str, Any]:
    """A row of :func:`selectors.leaderboard_values` as :class:`BoardRowSerializer` shows it
    (``when`` shows ``last_active``)."""
    (player_id, name, kind, rating, deviation, volatility, peak) = row[:7]
    return {
        "rank": rank,
        "player": {"id": player_id, "name": name, "kind": kind},
        "rating": rating_rounded(rating),
        "deviation": rating_rounded(deviation),
        "volatility": None if volatility is None else round(volatility, 5),
        "peak": rating_rounded(peak),
        "matches_played": row[7],
        "wins": row[8],
        "losses": row[9],
        "provisional": row[10],
        "last_active": when.to_representation(row[11]),
    }


def _page_only(params: Any) -> int | None:
    """The page of a query that asks for nothing else, when it is a plain valid number (as
    most do): no serializer to validate it. None otherwise, for the serializer to judge."""
    if not params:
        return 1
    if len(params) != 1:
        return None
    raw = params.get("page")
    if raw is None or not (0 < len(raw) < 8 and raw.isascii() and raw.isdigit()):
        return None
    page = int(raw)
    return page if 1 <= page <= MAX_PAGE else None


class LeaderboardView(APIView):
    """The ladder's players ranked by rating, with rank numbers.

    Only eligible players are ranked: at least the ladder's minimum of rated matches (10 by
    default), one of them in its activity window (30 days by default).
    """

    @extend_schema(parameters=[LeaderboardQuerySerializer], responses={200: LeaderboardSerializer})
    def get(self, request: Request, pk: int) -> Response:
        try:
            ladder = _BOARD_LADDER.get(pk)
        except Ladder.DoesNotExist:
            raise Http404 from None
        page = _page_only(request.query_params)
        page_size = settings.REST_FRAMEWORK["PAGE_SIZE"]
        filters = selectors.BoardFilters()
        if page is None:
            query = LeaderboardQuerySerializer(data=request.query_params)
            query.is_valid(raise_exception=True)
            params = query.validated_data
            page = params["page"]
            page_size = params.get("page_size") or page_size
            filters = selectors.BoardFilters(
                hide_provisional=params["hide_provisional"],
                active_days=params.get("active_days"),
                kind=params.get("kind"),
            )
        board = selectors.leaderboard_values(
            ladder=ladder, page=page, page_size=page_size, filters=filters
        )
        count = selectors.leaderboard_size(ladder=ladder, filters=filters)
        if not board.rows and page > 1:
            pages = max(1, -(-count // page_size))
            return Response(
                error_body(
                    ngettext(
                        "Page %(page)s is past the end: the leaderboard has %(pages)s page "
                        "of %(size)s.",
                        "Page %(page)s is past the end: the leaderboard has %(pages)s pages "
                        "of %(size)s.",
                        pages,
                    )
                    % {"page": page, "pages": pages, "size": page_size},
                    "not_found",
                ),
                status=status.HTTP_404_NOT_FOUND,
            )
        url = request.build_absolute_uri()
        # The time zone looked up once a page, not once a row (as a serializer field does).
        when = serializers.DateTimeField(default_timezone=timezone.get_current_timezone())
        return Response(
            {
                "count": max(count, (board.rows[-1][0] if board.rows else 0)),
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
                "results": [_board_row(rank, row, when) for rank, row in board.rows],
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
        rating = _member(ladder_or_404(pk), player_id)
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
        rating = _member(ladder_or_404(self.kwargs["pk"]), self.kwargs["player_id"])
        return selectors.rating_history(pool=rating.ladder, player=rating.player)
