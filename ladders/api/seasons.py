"""Seasons: a ladder's seasons (and the next one opened by staff), a division's standings."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import StaffModelPermissions, refusal
from common.schema import error_codes
from games.api import PlayerBriefSerializer
from ladders import selectors, services
from ladders.api.base import SeasonSerializer, ladder_or_404, rating_rounded
from ladders.models import Season
from ladders.services import seasons


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
        return rating_rounded(row.rating)

    def get_deviation(self, row: selectors.StandingRow) -> float | None:
        return rating_rounded(row.deviation)


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
        ladder = ladder_or_404(pk)
        return Response(SeasonSerializer(ladder.seasons.order_by("-number"), many=True).data)

    @extend_schema(request=SeasonOpenSerializer, responses={201: SeasonSerializer})
    @error_codes({"400": ["invalid_season"], "409": ["season_open"]})
    def post(self, request: Request, pk: int) -> Response:
        ladder = ladder_or_404(pk)
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
