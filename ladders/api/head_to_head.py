"""Head-to-head: one player's record against another in a ladder's rated matches."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from games.api import PlayerBriefSerializer
from ladders import selectors
from ladders.api.base import ladder_or_404
from ladders.api.ratings import RatingChangeSerializer


class HeadToHeadQuerySerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    opponent = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())

    def validate(self, attrs):
        if attrs["player"] == attrs["opponent"]:
            raise serializers.ValidationError({"opponent": [_("Pick two different players.")]})
        return attrs


class HeadToHeadSerializer(serializers.Serializer):
    player = PlayerBriefSerializer()
    opponent = PlayerBriefSerializer()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    rating_delta = serializers.FloatField(help_text="What the player gained against the opponent.")
    recent = RatingChangeSerializer(many=True)


class HeadToHeadView(APIView):
    """The record of ``player`` against ``opponent`` in this ladder's rated matches."""

    @extend_schema(parameters=[HeadToHeadQuerySerializer], responses={200: HeadToHeadSerializer})
    def get(self, request: Request, pk: int) -> Response:
        ladder = ladder_or_404(pk)
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
