"""The queue: a player's place in a ladder's queue, joining it and leaving it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from common.api import refusal
from common.fields import StrictBooleanField
from common.schema import error_codes
from games.api import MatchListSerializer
from ladders import selectors, services
from ladders.api.base import ladder_or_404, rating_rounded
from ladders.models import Ladder, Rating


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
        "rating": rating_rounded(rating.first()),
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
        ladder = ladder_or_404(pk)
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
        ladder = ladder_or_404(pk)
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
        ladder = ladder_or_404(pk)
        try:
            services.queue_leave(ladder=ladder, player=player)
        except services.LadderError as error:
            return refusal(error)
        return Response(status=status.HTTP_204_NO_CONTENT)
