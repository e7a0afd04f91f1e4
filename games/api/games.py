"""A game as its players and spectators see it, and the moves made on it.

The caller's view (with a weak ``ETag`` so polling is cheap), a move, and Continue after a
deal of a timed game. A refused move writes nothing and answers 4xx in the project's error
shape: 403 for a non-player, 409 (with the current ply) for a stale ply, a move out of turn
or a game that is over, 400 naming the rule for an illegal move.
"""

from __future__ import annotations

from django.http import Http404
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from accounts.selectors import player_for_user
from common.api import refusal
from common.arrival import ARRIVED
from common.compiled import CompiledQuery
from common.schema import error_codes
from games import delivery, selectors, services
from games.api.base import PlayerBriefSerializer
from games.engine.actions import Action as EngineAction
from games.engine.errors import EngineError
from games.models import Game, Match
from games.requests import ActionSerializer, move_data

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


#: A game with its match and players: the read of every view (compiled once).
_GAME = CompiledQuery(
    lambda pk: Game.objects.select_related("match", "match__player_a", "match__player_b").filter(
        pk=pk
    ),
    -918_273_645,
)


def _game(pk: int) -> Game:
    try:
        game = _GAME.get(pk)
    except Game.DoesNotExist:
        raise Http404 from None
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


def _player_view(
    pk: int, player: Player, changed: Game | None = None, pushed: dict | None = None
) -> Response:
    """A player's view of the game as it is now, with its validator.

    ``changed`` is the row a service just changed and ``pushed`` the views it pushed then (by
    game id and audience): the view pushed to this player's sockets is the answer (the same
    view), so it is not read and rendered again.
    """
    views = (pushed or {}).get(pk) if changed is not None and changed.pk == pk else None
    index = changed.match.index_of(player.pk) if views else None
    if views and index in views:
        return _with_etag(Response(views[index]), _game_etag(changed, player))
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
        # A well-formed body is read without the serializer; any other is the serializer's.
        data = move_data(request.data)
        serializer = None if data is not None else ActionSerializer(data=request.data)
        if serializer is not None and serializer.is_valid():
            data = serializer.validated_data
        action = None if data is None else parsed_action(data)
        if player is None or not isinstance(action, EngineAction):
            _game_row, player = _game_and_player(request, pk)
            if player is None:
                return refusal(services.NotAPlayer(_("you are not a player of this game")))
            if data is None:
                serializer.is_valid(raise_exception=True)
            return refusal(action)
        ply = data["ply"]
        handed = delivery.delivered_at(pk, player.pk, ply) if player.is_external else None
        pushed: dict[int, dict] = {}
        try:
            changed = services.action_submit(
                game_id=pk,
                player=player,
                ply=ply,
                action=action,
                delivered_at=handed,
                arrived_at=arrived_at(request),
                views=pushed,
            )
        except Match.DoesNotExist:
            raise Http404 from None
        except services.NotAPlayer as error:
            _game(pk)  # 404 if the caller may not see it
            return refusal(error)
        except services.PlayError as error:
            return refusal(error)
        answer = _player_view(pk, player, changed, pushed)
        if player.is_external and delivery.is_on_move(answer.data):
            # Still on move (a draw, then the discard): this answer hands the bot its view.
            delivery.delivered_sync(pk, player.pk, answer.data["ply"])
        return answer


def arrived_at(request: Request) -> float | None:
    """When the request reached the ASGI server (epoch seconds; see config.asgi), if known."""
    scope = getattr(request._request, "scope", None)
    return scope.get(ARRIVED) if isinstance(scope, dict) else None


def parsed_action(data: dict) -> EngineAction | services.IllegalMove:
    """The engine's action a move's validated body names, or the refusal if it names none."""
    try:
        return EngineAction.from_parts(data["type"], data.get("card") or None, data.get("melds"))
    except EngineError as error:
        return services.IllegalMove(services.engine_text(error), code=error.rule)


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
            return refusal(services.NotAPlayer(_("you are not a player of this game")))
        pushed: dict[int, dict] = {}
        try:
            changed = services.game_continue(game_id=game.pk, player=player, views=pushed)
        except services.PlayError as error:
            return refusal(error)
        return _player_view(pk, player, changed, pushed)
