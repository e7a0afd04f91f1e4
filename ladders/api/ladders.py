"""Ladders and rated pools: their settings, the list (and a ladder created), one ladder (and
its settings changed), and staff's commands (open, close, queue the bots).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from common.api import StaffModelPermissions, refusal
from common.errors import ServiceError
from common.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from games.api import RulesField
from ladders import services
from ladders.api.base import StrictPagination, ladder_or_404
from ladders.models import Ladder


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
            raise serializers.ValidationError({"name": [_("This field is required.")]})
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
        ladder = ladder_or_404(pk)
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
        ladder_update(ladder=ladder_or_404(pk), is_open=self.is_open)
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
        ladder = ladder_or_404(pk)
        queued, refused = [], []
        for bot in Player.objects.filter(ratings__ladder=ladder, kind=Player.Kind.BOT):
            try:
                services.queue_join(ladder=ladder, player=bot)
            except services.LadderError as error:
                refused.append({"player": bot.pk, "code": error.code, "detail": str(error)})
            else:
                queued.append(bot.pk)
        return Response({"queued": queued, "refused": refused})
