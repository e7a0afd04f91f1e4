"""Matches and challenges: a match as the API renders it, the list (and a challenge posted to
it), one match, and the commands on it (accept, decline, cancel, resign).

The replay of a finished match is :mod:`games.api.replays`; what these share with the other
resources (players in brief, rules, time controls) is :mod:`games.api.base`.
"""

from __future__ import annotations

import django_filters
from django.db.models import Q
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from accounts.selectors import player_for_user
from common.api import refusal
from common.fields import StrictIntegerField, StrictPrimaryKeyRelatedField
from common.schema import error_codes
from games import rating_hook, selectors, services
from games.api.base import (
    IdFilter,
    PlayerBriefSerializer,
    RulesField,
    TimeControlSerializer,
    visible_match,
)
from games.models import Game, Match


class MatchCreateSerializer(serializers.Serializer):
    opponent = StrictPrimaryKeyRelatedField(queryset=Player.objects.all())
    rules = RulesField(
        required=False,
        help_text="A preset name (standard, oklahoma, straight, hollywood) or an object of "
        'rule options, e.g. {"preset": "standard", "knock_limit": 10}.',
    )
    best_of = StrictIntegerField(min_value=1, max_value=9, required=False)
    target = StrictIntegerField(min_value=25, max_value=1000, required=False)
    time_control = TimeControlSerializer(required=False, allow_null=True)

    def validate_best_of(self, value):
        if value % 2 == 0:
            raise serializers.ValidationError(_("A match is best of an odd number of games."))
        return value


class GameBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Game
        fields = [
            "id",
            "number",
            "status",
            "ply",
            "score_a",
            "score_b",
            "results",
            "winner_index",
            "forfeit_by",
            "forfeit_reason",
        ]
        read_only_fields = fields


class RatingPoolSerializer(serializers.Serializer):
    """The pool that rates a match: a ladder, or the pool of rated events."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    kind = serializers.ChoiceField(choices=["ladder", "pool"], help_text="ladder: it has a queue.")
    system = serializers.ChoiceField(choices=["elo", "glicko2"])
    provisional_matches = serializers.IntegerField(
        allow_null=True,
        help_text="Elo: a rating is provisional until this many rated matches (null: Glicko-2).",
    )
    provisional_deviation = serializers.FloatField(
        allow_null=True,
        help_text="Glicko-2: a rating is provisional while its deviation is above this "
        "(null: Elo).",
    )


class MatchRatingSerializer(serializers.Serializer):
    """What a rated match did to one player's rating."""

    player = serializers.IntegerField(help_text="The player's id.")
    before = serializers.FloatField()
    after = serializers.FloatField()
    change = serializers.FloatField(help_text="after - before.")
    provisional = serializers.BooleanField(
        help_text="Whether the rating after this match is still provisional."
    )
    rated_matches = serializers.IntegerField(
        help_text="The player's counted rated matches in the pool, this one included."
    )
    deviation = serializers.FloatField(
        allow_null=True, help_text="Glicko-2: the deviation after the match (null: Elo)."
    )
    counted = serializers.BooleanField(
        help_text="False for a match recorded without counting (rating farming, one stable, "
        "a resignation before any play): before and after are equal."
    )


class MatchSerializer(serializers.ModelSerializer):
    """A match as anyone allowed to see it sees it; the seed appears once it is over.

    ``rating_pool`` names the pool that rates it (null: unrated) and ``ratings`` what it did
    to each player's rating, in seat order, once the pool has rated it (null before).
    """

    player_a = PlayerBriefSerializer(read_only=True)
    player_b = PlayerBriefSerializer(read_only=True)
    winner = PlayerBriefSerializer(read_only=True, allow_null=True)
    end_reason = serializers.ChoiceField(
        choices=Match.EndReason.choices, allow_blank=True, read_only=True
    )
    games_won = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField()
    time_control = serializers.SerializerMethodField()
    games = GameBriefSerializer(many=True, read_only=True)
    current_game = serializers.SerializerMethodField()
    rating_pool = serializers.SerializerMethodField()
    ratings = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "player_a",
            "player_b",
            "status",
            "source",
            "venue",
            "table",
            "confirmation",
            "rules",
            "best_of",
            "target",
            "time_control",
            "games_won",
            "margin_a",
            "winner",
            "end_reason",
            "end_detail",
            "seed_commitment",
            "seed",
            "games",
            "current_game",
            "rating_pool",
            "ratings",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_games_won(self, match: Match) -> list[int]:
        return [match.games_won_a, match.games_won_b]

    def get_seed(self, match: Match) -> str | None:
        # As text: a 63-bit number does not survive JavaScript's doubles.
        seed = match.seed_revealed
        return None if seed is None else str(seed)

    def get_time_control(self, match: Match) -> dict | None:
        if not match.is_timed:
            return None
        return {
            "base_seconds": match.base_seconds,
            "increment_seconds": match.increment_seconds,
            "turn_limit_seconds": match.turn_limit_seconds,
            "timeout_policy": match.timeout_policy,
            "pause_seconds": match.pause_seconds,
            "lag_compensation": match.lag_compensation,
        }

    def get_current_game(self, match: Match) -> int | None:
        for game in match.games.all():
            if game.status == Game.Status.ACTIVE:
                return game.pk
        return None

    def _rating(self, match: Match) -> dict | None:
        # Read once for both fields (the hook answers from the rating app, see rating_hook).
        cache = self.context.setdefault("_match_rating", {})
        if match.pk not in cache:
            cache[match.pk] = rating_hook.match_rating(match.pk)
        return cache[match.pk]

    @extend_schema_field(RatingPoolSerializer(allow_null=True))
    def get_rating_pool(self, match: Match) -> dict | None:
        rating = self._rating(match)
        return None if rating is None else rating["pool"]

    @extend_schema_field(MatchRatingSerializer(many=True, allow_null=True))
    def get_ratings(self, match: Match) -> list[dict] | None:
        rating = self._rating(match)
        return None if rating is None else rating["ratings"]


class MatchListSerializer(MatchSerializer):
    class Meta(MatchSerializer.Meta):
        fields = [
            f
            for f in MatchSerializer.Meta.fields
            if f not in ("games", "rules", "rating_pool", "ratings")
        ]
        read_only_fields = fields


class MatchFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    player = IdFilter(method="filter_player", help_text="A player's id.")

    class Meta:
        model = Match
        fields = ["status", "player"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(Q(player_a_id=value) | Q(player_b_id=value))


class MatchListView(generics.ListAPIView):
    """Matches: public ones for anyone, your own challenges too. POST challenges someone."""

    serializer_class = MatchListSerializer
    filterset_class = MatchFilter
    throttle_scope = "play"

    def get_queryset(self):
        return selectors.match_list(viewer=player_for_user(user=self.request.user))

    @extend_schema(
        request=MatchCreateSerializer,
        responses={201: MatchSerializer},
        description="Challenge a bot (the match starts at once: 409 ``in_ranked_match`` while "
        "you play a ladder match) or a person, who accepts or declines. 409 "
        "``in_tournament_match`` (with the ``match`` and the ``url`` of its page) while your "
        "tournament match is ready or in play online. 403 ``assisted_account`` between a "
        "person and an account marked as assisted (fair play), which plays bots only.",
    )
    @error_codes(
        {
            "400": [
                "invalid_rules",
                "same_player",
                "unknown_bot",
                "bot_challenger",
                "duplicate_deals_need_bots",
            ],
            "403": ["assisted_account"],
            "409": [
                "in_ranked_match",
                "in_tournament_match",
                "player_deleted",
                "opponent_is_guest",
            ],
        }
    )
    def post(self, request: Request) -> Response:
        challenger = require_player(request)
        serializer = MatchCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        time_control = None
        if data.get("time_control"):
            time_control = services.TimeControl(**data["time_control"])
        try:
            match = services.challenge_create(
                challenger=challenger,
                opponent=data["opponent"],
                rules=data.get("rules"),
                best_of=data.get("best_of"),
                target=data.get("target"),
                time_control=time_control,
            )
        except services.PlayError as error:
            return refusal(error)
        match.refresh_from_db()
        return Response(MatchSerializer(match).data, status=status.HTTP_201_CREATED)


class MatchDetailView(APIView):
    """One match: players, rules, time control, games with their scores, the result."""

    @extend_schema(responses={200: MatchSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(MatchSerializer(visible_match(request, pk)).data)


class _MatchCommand(APIView):
    """POST-only endpoints that act on a match as the caller."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    def act(self, match: Match, player: Player) -> Match:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: MatchSerializer})
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        match = visible_match(request, pk)
        try:
            match = self.act(match, player)
        except services.PlayError as error:
            return refusal(error)
        match = visible_match(request, pk)
        return Response(MatchSerializer(match).data)


@error_codes(
    {
        "403": ["not_a_player"],
        "409": ["not_pending", "in_ranked_match", "in_tournament_match", "not_scheduled"],
    }
)
class MatchAcceptView(_MatchCommand):
    """The challenged player accepts: the match starts.

    409 ``not_pending`` once it was answered or withdrawn, ``in_ranked_match`` while either
    player has a ladder match in progress, ``in_tournament_match`` while either has a
    tournament match ready or in play online (nothing changes).
    """

    def act(self, match, player):
        return services.challenge_answer(match=match, player=player, accept=True)


@error_codes({"403": ["not_a_player"], "409": ["not_pending"]})
class MatchDeclineView(_MatchCommand):
    """The challenged player declines."""

    def act(self, match, player):
        return services.challenge_answer(match=match, player=player, accept=False)


@error_codes({"403": ["not_a_player"], "409": ["too_late"]})
class MatchCancelView(_MatchCommand):
    """The challenger withdraws a challenge not yet answered."""

    def act(self, match, player):
        return services.match_cancel(match=match, player=player)


@error_codes({"403": ["not_a_player"], "409": ["too_late"]})
class MatchResignView(_MatchCommand):
    """A player resigns the match (the opponent wins it)."""

    def act(self, match, player):
        if match.index_of(player.pk) is None:
            raise services.NotAPlayer(_("you are not a player of this match"))
        return services.match_forfeit(
            match=match, loser=player, reason="resigned", end_reason=Match.EndReason.RESIGNED
        )
