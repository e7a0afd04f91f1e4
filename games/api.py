"""Play API: matches and challenges, the caller's view of a game, moves, replays.

Views validate input, call a service or selector, and serialize. A refused move writes
nothing and answers 4xx in the project's error shape: 403 for a non-player, 409 (with the
current ply) for a stale ply, a move out of turn or a game that is over, 400 naming the rule
for an illegal move.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from accounts.selectors import player_for_user
from common.api import error_body, refusal
from common.arrival import ARRIVED
from common.fields import (
    StrictBooleanField,
    StrictIntegerField,
    StrictPrimaryKeyRelatedField,
)
from common.schema import error_codes
from games import delivery, rating_hook, seeks, selectors, services
from games.engine.actions import Action as EngineAction
from games.engine.errors import EngineError
from games.models import Game, Match, Seek, TimeoutPolicy
from games.requests import ActionSerializer

# --- serializers -------------------------------------------------------------------------


class PlayerBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name", "kind"]
        read_only_fields = fields


RULES_NAME_MAX_LENGTH = services.RULES_NAME_MAX_LENGTH
RULES_MAX_OPTIONS = services.RULES_MAX_OPTIONS


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "minLength": 1, "maxLength": RULES_NAME_MAX_LENGTH},
            {
                "type": "object",
                "maxProperties": RULES_MAX_OPTIONS,
                "additionalProperties": {
                    "oneOf": [
                        {"type": "string", "maxLength": RULES_NAME_MAX_LENGTH},
                        {"type": "integer"},
                        {"type": "boolean"},
                    ]
                },
            },
        ]
    }
)
class RulesField(serializers.Field):
    """A preset name, or an object of rule options whose values are short strings, integers or
    booleans. Which names and options exist is the engine's to say (``rules_build``)."""

    default_error_messages = {
        "invalid": "Give a preset name or an object of rule options.",
        "name_too_long": f"A rule set name is at most {RULES_NAME_MAX_LENGTH} characters.",
        "too_many": f"Give at most {RULES_MAX_OPTIONS} rule options.",
        "option": "Rule option {option!r} must be a short string, an integer or a boolean.",
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if not data or len(data) > RULES_NAME_MAX_LENGTH:
                self.fail("name_too_long" if data else "invalid")
            return data
        if not isinstance(data, dict):
            self.fail("invalid")
        if len(data) > RULES_MAX_OPTIONS:
            self.fail("too_many")
        for key, value in data.items():
            short = len(key) <= RULES_NAME_MAX_LENGTH
            if isinstance(value, str):
                ok = short and len(value) <= RULES_NAME_MAX_LENGTH
            else:
                ok = short and isinstance(value, int | bool)
            if not ok:
                self.fail("option", option=key[:RULES_NAME_MAX_LENGTH])
        return data

    def to_representation(self, value):
        return value


class TimeControlSerializer(serializers.Serializer):
    base_seconds = StrictIntegerField(min_value=10, max_value=24 * 3600)
    increment_seconds = StrictIntegerField(min_value=0, max_value=600, default=0)
    turn_limit_seconds = StrictIntegerField(
        min_value=5, max_value=24 * 3600, required=False, allow_null=True, default=None
    )
    timeout_policy = serializers.ChoiceField(
        choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    pause_seconds = StrictIntegerField(
        min_value=0,
        max_value=120,
        default=15,
        help_text="No clock runs for this long after a deal while both read the result "
        "(the next deal starts when both continue); 0 for no pause.",
    )
    lag_compensation = StrictBooleanField(
        default=True,
        help_text="Credit the mover's lag back to their clock, within a bank of 500 ms a move "
        "(1.5 s at most): the network lag measured on their socket, and the server's own "
        "delay in handing them the view (a bot's game stream) and in taking their move.",
    )


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
            raise serializers.ValidationError("A match is best of an odd number of games.")
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


GameViewSerializer = inline_serializer(
    "GameView",
    {
        "id": serializers.IntegerField(),
        "match": serializers.IntegerField(),
        "number": serializers.IntegerField(),
        "status": serializers.CharField(),
        "ply": serializers.IntegerField(),
        "players": PlayerBriefSerializer(many=True),
        "you": serializers.IntegerField(allow_null=True),
        "to_act": serializers.IntegerField(allow_null=True),
        "your_turn": serializers.BooleanField(),
        "scores": serializers.DictField(),
        "results": serializers.ListField(child=serializers.DictField()),
        "clocks": serializers.ListField(child=serializers.DictField(), allow_null=True),
        "turn_deadline": serializers.DateTimeField(allow_null=True),
        "deal": serializers.DictField(allow_null=True),
        "hand": serializers.ListField(child=serializers.CharField(), allow_null=True),
        "melds": serializers.ListField(
            child=serializers.ListField(child=serializers.CharField()), allow_null=True
        ),
        "deadwood": serializers.ListField(child=serializers.CharField(), allow_null=True),
        "deadwood_points": serializers.IntegerField(allow_null=True),
        "opponent": serializers.DictField(allow_null=True),
        "legal_actions": serializers.ListField(child=serializers.DictField()),
        "last_deal": serializers.DictField(allow_null=True),
        "seq": serializers.IntegerField(
            help_text="The game's change number: one more with each change at the table."
        ),
        "pause": serializers.DictField(
            allow_null=True,
            help_text="Between deals of a timed game: {deadline, remaining_ms, continued}.",
        ),
        "next_game": serializers.IntegerField(
            allow_null=True, help_text="The match's next game, once this one is over."
        ),
        "venue": serializers.CharField(help_text="online, or table (real cards)."),
        "table": serializers.IntegerField(allow_null=True, help_text="A table match's table."),
        "sheet": serializers.DictField(
            allow_null=True,
            help_text="A table match: its score sheet (as GET /api/matches/{id}/sheet).",
        ),
    },
)


# --- matches -----------------------------------------------------------------------------


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.NumberFilter):
    """An id in a query string: a whole number (``1.5`` or ``-3e38`` is a 400, not a query)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


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
        "tournament match is ready or in play online.",
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


def _visible_match(request: Request, pk: int) -> Match:
    match = get_object_or_404(
        Match.objects.select_related("player_a", "player_b", "winner").prefetch_related("games"),
        pk=pk,
    )
    if not selectors.match_visible(match=match, viewer=player_for_user(user=request.user)):
        raise Http404  # another player's challenge: do not confirm that it exists
    return match


class MatchDetailView(APIView):
    """One match: players, rules, time control, games with their scores, the result."""

    @extend_schema(responses={200: MatchSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(MatchSerializer(_visible_match(request, pk)).data)


class _MatchCommand(APIView):
    """POST-only endpoints that act on a match as the caller."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    def act(self, match: Match, player: Player) -> Match:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: MatchSerializer})
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        match = _visible_match(request, pk)
        try:
            match = self.act(match, player)
        except services.PlayError as error:
            return refusal(error)
        match = _visible_match(request, pk)
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
            raise services.NotAPlayer("you are not a player of this match")
        return services.match_forfeit(
            match=match, loser=player, reason="resigned", end_reason=Match.EndReason.RESIGNED
        )


class MatchReplayView(APIView):
    """The full log of a finished match: seed, every deal, every action, every outcome.

    Anyone can re-deal it with ``python -m games.engine replay`` and check every score.
    """

    @extend_schema(
        responses={
            200: OpenApiTypes.OBJECT,
            409: OpenApiResponse(description="The match is not finished (`not_finished`)."),
        }
    )
    @error_codes({"409": ["not_finished"]})
    def get(self, request: Request, pk: int) -> Response:
        match = _visible_match(request, pk)
        if match.status != Match.Status.FINISHED:
            return Response(
                error_body("The replay is published when the match is finished.", "not_finished"),
                status=status.HTTP_409_CONFLICT,
            )
        log = selectors.match_log(match=match)
        log["players"] = PlayerBriefSerializer([match.player_a, match.player_b], many=True).data
        log["seed_commitment"] = match.seed_commitment
        return Response(log)


# --- games -------------------------------------------------------------------------------


def _game(pk: int) -> Game:
    game = get_object_or_404(
        Game.objects.select_related("match", "match__player_a", "match__player_b"), pk=pk
    )
    if not selectors.match_visible(match=game.match, viewer=None):
        raise Http404
    return game


def _game_etag(game: Game, viewer: Player | None) -> str:
    """A weak validator of one viewer's view of a game, cheap to compute from two rows.

    Everything in the view but the clocks' remaining times changes only with a move, a
    settled clock, a forfeit or the end of a game, and each of those moves the game's or
    the match's ply or status. Clients count clocks down themselves from the last full view
    (``remaining_ms`` and ``running``), so a 304 stays true until something happens.
    """
    match = game.match
    parts = (
        game.pk,
        game.seq,
        game.ply,
        game.status,
        match.ply,
        match.status,
        match.games_won_a,
        match.games_won_b,
        viewer.pk if viewer is not None else "-",
    )
    return 'W/"g' + ".".join(str(p) for p in parts) + '"'


def _with_etag(response: Response, etag: str) -> Response:
    response["ETag"] = etag
    # Revalidate every time (the view is live), and never share one player's hand.
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("Cookie", "Authorization"))
    return response


def _etag_matches(request: Request, etag: str) -> bool:
    """If-None-Match with weak comparison (RFC 9110 13.1.2)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    tags = parse_etags(header)
    return "*" in tags or etag.removeprefix("W/") in {t.removeprefix("W/") for t in tags}


class GameView(APIView):
    """The caller's view of a game; a spectator's view (no hidden card) for anyone else.

    Answers with a weak ``ETag``; polling with ``If-None-Match`` gets an empty 304 until
    something happens at the table.
    """

    @extend_schema(responses={200: GameViewSerializer, 304: None})
    def get(self, request: Request, pk: int) -> Response:
        game = _game(pk)
        if services.clock_settle_if_due(game=game):
            game = _game(pk)
        viewer = player_for_user(user=request.user)
        etag = _game_etag(game, viewer)
        if _etag_matches(request, etag):
            return _with_etag(Response(status=status.HTTP_304_NOT_MODIFIED), etag)
        return _with_etag(Response(selectors.game_view(game=game, viewer=viewer)), etag)


def _game_and_player(request: Request, pk: int) -> tuple[Game, Player | None]:
    """The game and the caller's player, or None when the caller does not play it."""
    game = _game(pk)
    player = player_for_user(user=request.user)
    if player is None or game.match.index_of(player.pk) is None:
        return game, None
    return game, player


def _player_view(pk: int, player: Player, changed: Game | None = None) -> Response:
    """A player's view of the game as it is now, with its validator.

    ``changed`` is the row a service just changed: the view it pushed to this player's
    sockets then is the answer (the same view), so it is not read and rendered again.
    """
    pushed = getattr(changed, "pushed_views", None) if changed is not None else None
    index = changed.match.index_of(player.pk) if pushed else None
    if pushed and changed.pk == pk and index in pushed:
        return _with_etag(Response(pushed[index]), _game_etag(changed, player))
    game = _game(pk)
    return _with_etag(
        Response(selectors.game_view(game=game, viewer=player)), _game_etag(game, player)
    )


#: A refused move names the rule it broke (the engine's ``rule`` of the error).
MOVE_RULES = [
    "big_gin_needs_eleven_melded",
    "card_not_in_hand",
    "card_required",
    "deal_over",
    "discard_of_taken_card",
    "gin_needs_no_deadwood",
    "illegal_action",
    "invalid_action",
    "invalid_card",
    "invalid_melds",
    "knock_limit",
    "straight_gin_no_knock",
    "upcard_offer",
    "wrong_phase",
]


class GameActionView(APIView):
    """Make a move: ``{ply, type, card?, melds?}``. Answers with your view after it."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    @error_codes(
        {
            "400": MOVE_RULES,
            "403": ["not_a_player"],
            "409": ["stale_ply", "not_your_turn", "game_over", "paused"],
        }
    )
    @extend_schema(request=ActionSerializer, responses={200: GameViewSerializer})
    def post(self, request: Request, pk: int) -> Response:
        # The game is not read first: the service finds and locks it and checks that the
        # caller plays it. A refusal reads it, so refusals come in the order they always
        # did: no game to see (404), not your game (403), a malformed move (400).
        player = player_for_user(user=request.user)
        serializer = ActionSerializer(data=request.data)
        action = _parsed_action(serializer)
        if player is None or not isinstance(action, EngineAction):
            _, player = _game_and_player(request, pk)
            if player is None:
                return refusal(services.NotAPlayer("you are not a player of this game"))
            serializer.is_valid(raise_exception=True)
            return refusal(action)
        ply = serializer.validated_data["ply"]
        handed = delivery.delivered_at(pk, player.pk, ply) if player.is_external else None
        try:
            changed = services.action_submit(
                game_id=pk,
                player=player,
                ply=ply,
                action=action,
                delivered_at=handed,
                arrived_at=arrived_at(request),
            )
        except Match.DoesNotExist:
            raise Http404 from None
        except services.NotAPlayer as error:
            _game(pk)  # 404 if the caller may not see it
            return refusal(error)
        except services.PlayError as error:
            return refusal(error)
        answer = _player_view(pk, player, changed)
        if player.is_external and delivery.is_on_move(answer.data):
            # Still on move (a draw, then the discard): this answer hands the bot its view.
            delivery.delivered_sync(pk, player.pk, answer.data["ply"])
        return answer


def arrived_at(request: Request) -> float | None:
    """When the request reached the ASGI server (epoch seconds; see config.asgi), if known."""
    scope = getattr(request._request, "scope", None)
    return scope.get(ARRIVED) if isinstance(scope, dict) else None


def _parsed_action(serializer: ActionSerializer) -> EngineAction | services.IllegalMove | None:
    """The engine's action a move's body names; the refusal if it names none; None if the body
    does not validate."""
    if not serializer.is_valid():
        return None
    data = serializer.validated_data
    try:
        return EngineAction.from_parts(data["type"], data.get("card") or None, data.get("melds"))
    except EngineError as error:
        return services.IllegalMove(str(error), code=error.rule)


class GameContinueView(APIView):
    """Ready for the next deal: after a deal of a timed game no clock runs until both players
    continue (or the pause runs out). Answers with your view.

    409 ``not_paused`` once the next deal has started, ``game_over`` when the game is over.
    """

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    @extend_schema(request=None, responses={200: GameViewSerializer})
    @error_codes({"403": ["not_a_player"], "409": ["game_over", "not_paused"]})
    def post(self, request: Request, pk: int) -> Response:
        game, player = _game_and_player(request, pk)
        if player is None:
            return refusal(services.NotAPlayer("you are not a player of this game"))
        try:
            changed = services.game_continue(game_id=game.pk, player=player)
        except services.PlayError as error:
            return refusal(error)
        return _player_view(pk, player, changed)


# --- open games (seeks) ------------------------------------------------------------------


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
            raise serializers.ValidationError("A match is best of an odd number of games.")
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
        "400 ``rated_unavailable`` for a rated one, 409 ``too_many_seeks`` past three open.",
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
    ``outside_rating_range``, ``in_ranked_match``, ``in_tournament_match``.
    """

    def act(self, seek, player):
        return seeks.seek_join(seek=seek, player=player)


@error_codes({"403": ["not_a_player"], "409": ["seek_taken", "seek_closed"]})
class SeekCancelView(_SeekCommand):
    """Its poster cancels an open game. 409 ``seek_taken`` or ``seek_closed`` when too late."""

    def act(self, seek, player):
        return seeks.seek_cancel(seek=seek, player=player)


urlpatterns = [
    path("matches", MatchListView.as_view(), name="match-list"),
    path("matches/<int:pk>", MatchDetailView.as_view(), name="match-detail"),
    path("matches/<int:pk>/accept", MatchAcceptView.as_view(), name="match-accept"),
    path("matches/<int:pk>/decline", MatchDeclineView.as_view(), name="match-decline"),
    path("matches/<int:pk>/cancel", MatchCancelView.as_view(), name="match-cancel"),
    path("matches/<int:pk>/resign", MatchResignView.as_view(), name="match-resign"),
    path("matches/<int:pk>/replay", MatchReplayView.as_view(), name="match-replay"),
    path("games/<int:pk>", GameView.as_view(), name="game-detail"),
    path("games/<int:pk>/actions", GameActionView.as_view(), name="game-actions"),
    path("games/<int:pk>/continue", GameContinueView.as_view(), name="game-continue"),
    path("seeks", SeekListView.as_view(), name="seek-list"),
    path("seeks/<int:pk>", SeekDetailView.as_view(), name="seek-detail"),
    path("seeks/<int:pk>/join", SeekJoinView.as_view(), name="seek-join"),
    path("seeks/<int:pk>/cancel", SeekCancelView.as_view(), name="seek-cancel"),
]
