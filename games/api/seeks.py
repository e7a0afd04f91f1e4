"""Open games (seeks): the lobby's list, posting one, one open game, joining or cancelling it.

Posting is refused as a challenge with the same settings is; :mod:`games.seeks` holds the
writes and renders an open game.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from common.api import refusal
from common.fields import StrictBooleanField, StrictIntegerField
from common.schema import error_codes
from games import seeks, services
from games.api.base import RulesField, TimeControlSerializer
from games.models import Seek


class SeekCreateSerializer(serializers.Serializer):
    """An open game's settings: those of a challenge, and who may join."""

    rules = RulesField(
        required=False,
        help_text="A preset name (standard, oklahoma, straight, hollywood) or an object of "
        'rule options, e.g. {"preset": "standard", "knock_limit": 10}.',
    )
    best_of = StrictIntegerField(min_value=1, max_value=9, required=False)
    target = StrictIntegerField(min_value=25, max_value=1000, required=False)
    time_control = TimeControlSerializer(required=False, allow_null=True)
    rated = StrictBooleanField(
        default=False,
        help_text="Must be false: no pool rates a casual game yet (400 ``rated_unavailable``).",
    )
    rating_min = StrictIntegerField(min_value=0, max_value=4000, required=False, allow_null=True)
    rating_max = StrictIntegerField(min_value=0, max_value=4000, required=False, allow_null=True)

    def validate_best_of(self, value):
        if value % 2 == 0:
            raise serializers.ValidationError(_("A match is best of an odd number of games."))
        return value


class SeekPosterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    rating = serializers.IntegerField(
        allow_null=True, help_text="Their rating in the pool of rated events."
    )


class SeekSerializer(serializers.Serializer):
    """An open game as the lobby shows it (``seeks.seek_payload`` renders it)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Seek.Status.choices)
    poster = SeekPosterSerializer()
    rules = serializers.DictField(help_text="Every rule option, as a match shows them.")
    best_of = serializers.IntegerField()
    target = serializers.IntegerField()
    time_control = serializers.DictField(allow_null=True)
    rated = serializers.BooleanField()
    rating_min = serializers.IntegerField(allow_null=True)
    rating_max = serializers.IntegerField(allow_null=True)
    match = serializers.IntegerField(allow_null=True, help_text="Once taken: its match.")
    game = serializers.IntegerField(allow_null=True, help_text="Once taken: the table to open.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class SeekListView(APIView):
    """The open games (``GET``, anyone); ``POST`` posts one as the caller."""

    throttle_scope = "play"

    @extend_schema(responses={200: SeekSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(SeekSerializer(seeks.seeks_open(), many=True).data)

    @extend_schema(
        request=SeekCreateSerializer,
        responses={201: SeekSerializer},
        description="Post an open game: refused as a challenge with the same settings is "
        "(``invalid_rules``, ``duplicate_deals_need_bots``, 409 ``in_tournament_match``), "
        "400 ``rated_unavailable`` for a rated one, 409 ``too_many_seeks`` past three open, "
        "403 ``assisted_account`` for an account marked as assisted (it plays bots only).",
    )
    @error_codes(
        {
            "400": [
                "invalid_rules",
                "bot_challenger",
                "duplicate_deals_need_bots",
                "rated_unavailable",
                "invalid_rating_range",
            ],
            "403": ["assisted_account"],
            "409": ["in_tournament_match", "too_many_seeks"],
        }
    )
    def post(self, request: Request) -> Response:
        poster = require_player(request)
        serializer = SeekCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        time_control = None
        if data.get("time_control"):
            time_control = services.TimeControl(**data["time_control"])
        try:
            seek = seeks.seek_create(
                poster=poster,
                rules=data.get("rules"),
                best_of=data.get("best_of"),
                target=data.get("target"),
                time_control=time_control,
                rated=data["rated"],
                rating_min=data.get("rating_min"),
                rating_max=data.get("rating_max"),
            )
        except services.PlayError as error:
            return refusal(error)
        return Response(
            SeekSerializer(seeks.seek_payload(seek)).data, status=status.HTTP_201_CREATED
        )


def _seek(pk: int) -> Seek:
    return get_object_or_404(Seek.objects.select_related("poster"), pk=pk)


class SeekDetailView(APIView):
    """One open game, open or not: once taken, its ``match`` and ``game``."""

    @extend_schema(responses={200: SeekSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(SeekSerializer(seeks.seek_payload(_seek(pk))).data)


class _SeekCommand(APIView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    def act(self, seek: Seek, player: Player) -> Seek:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: SeekSerializer})
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        try:
            seek = self.act(_seek(pk), player)
        except services.PlayError as error:
            return refusal(error)
        return Response(SeekSerializer(seeks.seek_payload(_seek(seek.pk))).data)


@error_codes(
    {
        "400": ["invalid_rules", "duplicate_deals_need_bots"],
        "403": ["assisted_account"],
        "409": [
            "own_seek",
            "seek_taken",
            "seek_closed",
            "outside_rating_range",
            "in_ranked_match",
            "in_tournament_match",
        ],
    }
)
class SeekJoinView(_SeekCommand):
    """Join an open game: its match starts for both (answers with ``match`` and ``game``).

    409 ``own_seek``, ``seek_taken``, ``seek_closed`` (cancelled or expired),
    ``outside_rating_range``, ``in_ranked_match``, ``in_tournament_match``; 403
    ``assisted_account`` between a person and an account marked as assisted.
    """

    def act(self, seek, player):
        return seeks.seek_join(seek=seek, player=player)


@error_codes({"403": ["not_a_player"], "409": ["seek_taken", "seek_closed"]})
class SeekCancelView(_SeekCommand):
    """Its poster cancels an open game. 409 ``seek_taken`` or ``seek_closed`` when too late."""

    def act(self, seek, player):
        return seeks.seek_cancel(seek=seek, player=player)
