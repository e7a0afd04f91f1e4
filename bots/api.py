"""Bot API, the REST half: a person's external bots and their tokens; the bot's own account.

- ``GET/POST /api/bots``: the caller's bots; create one ``{name, description?}``.
- ``GET/PATCH /api/bots/{id}``: one of them; change ``description`` or ``auto_accept``.
- ``GET/POST /api/bots/{id}/tokens``: its tokens (key, created); issue one (the secret is
  shown once).
- ``DELETE /api/bots/{id}/tokens/{key}``: revoke a token.
- ``GET /api/bot/account``: with a bot's token, the bot itself.

Only a signed-in person manages bots (a bot's token is refused, see ``accounts.auth``);
another person's bot is a 404. The streams are in ``bots.streams``.
"""

from __future__ import annotations

from django.http import Http404
from django.urls import path
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.models import AuthToken
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.api import NAME_CODES, require_player
from accounts.models import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, Player
from accounts.selectors import player_for_user
from common.api import refusal
from common.fields import StrictCharField
from common.schema import error_codes


class BotSerializer(serializers.ModelSerializer):
    """An external bot as its owner sees it."""

    owner = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Player
        fields = ["id", "name", "kind", "owner", "description", "auto_accept", "created_at"]
        read_only_fields = fields


class BotCreateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=NAME_MAX_LENGTH)
    description = StrictCharField(
        max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True, default=""
    )


class BotUpdateSerializer(serializers.Serializer):
    description = StrictCharField(
        max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True
    )
    auto_accept = serializers.ChoiceField(
        choices=Player.AutoAccept.choices,
        required=False,
        help_text="Accept challenges at once: from nobody, from bots only, or from anyone.",
    )


class TokenInfoSerializer(serializers.ModelSerializer):
    """A token without its secret: the key (its first characters) names it."""

    class Meta:
        model = AuthToken
        fields = ["token_key", "created", "expiry"]
        read_only_fields = fields


IssuedTokenSerializer = inline_serializer(
    "BotToken",
    {
        "token": serializers.CharField(help_text="The secret: shown this once only."),
        "token_key": serializers.CharField(),
        "created": serializers.DateTimeField(),
        "expiry": serializers.DateTimeField(allow_null=True),
    },
)


def _owner(request: Request) -> Player:
    """The caller, who must be a person (a staff user without a player is refused too)."""
    player = require_player(request)
    if player.kind != Player.Kind.HUMAN:
        raise exceptions.PermissionDenied(_("Only a person can manage bots."))
    return player


def _own_bot(request: Request, pk: int) -> Player:
    owner = _owner(request)
    bot = Player.objects.filter(pk=pk, owner=owner, kind=Player.Kind.EXTERNAL).first()
    if bot is None:
        raise Http404  # someone else's bot: do not confirm it exists
    return bot


class BotListView(APIView):
    """Your external bots; POST creates one (it plays with the tokens you issue it)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: BotSerializer(many=True)})
    def get(self, request: Request) -> Response:
        bots = Player.objects.filter(owner=_owner(request)).order_by("pk")
        return Response(BotSerializer(bots, many=True).data)

    @extend_schema(request=BotCreateSerializer, responses={201: BotSerializer})
    @error_codes({"400": NAME_CODES, "403": ["not_a_person"], "409": ["too_many_bots"]})
    def post(self, request: Request) -> Response:
        owner = _owner(request)
        serializer = BotCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            bot = services.bot_register(owner=owner, **serializer.validated_data)
        except services.BotRefused as error:
            return refusal(error)
        return Response(BotSerializer(bot).data, status=status.HTTP_201_CREATED)


class BotDetailView(APIView):
    """One of your bots; PATCH changes its description or its ``auto_accept``."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: BotSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(BotSerializer(_own_bot(request, pk)).data)

    @extend_schema(request=BotUpdateSerializer, responses={200: BotSerializer})
    @error_codes({"400": NAME_CODES})
    def patch(self, request: Request, pk: int) -> Response:
        bot = _own_bot(request, pk)
        serializer = BotUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot = services.bot_update(bot=bot, **serializer.validated_data)
        return Response(BotSerializer(bot).data)


class BotTokensView(APIView):
    """Your bot's tokens (without their secrets); POST issues one, which never expires."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: TokenInfoSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        bot = _own_bot(request, pk)
        tokens = AuthToken.objects.filter(user=bot.user).order_by("created")
        return Response(TokenInfoSerializer(tokens, many=True).data)

    @extend_schema(request=None, responses={201: IssuedTokenSerializer})
    def post(self, request: Request, pk: int) -> Response:
        bot = _own_bot(request, pk)
        instance, token = services.bot_token_issue(bot=bot)
        data = {"token": token, **TokenInfoSerializer(instance).data}
        return Response(data, status=status.HTTP_201_CREATED)


class BotTokenDetailView(APIView):
    """Revoke one of your bot's tokens by its key."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, pk: int, key: str) -> Response:
        bot = _own_bot(request, pk)
        if not services.bot_token_revoke(bot=bot, token_key=key):
            raise Http404
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotAccountView(APIView):
    """The bot whose token this is (403 ``not_a_bot`` for anyone else's token)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: BotSerializer})
    @error_codes({"403": ["not_a_bot"]})
    def get(self, request: Request) -> Response:
        player = player_for_user(user=request.user)
        if player is None or not player.is_external:
            return refusal(
                services.BotRefused(_("this is for an external bot's token"), code="not_a_bot")
            )
        return Response(BotSerializer(player).data)


urlpatterns = [
    path("bots", BotListView.as_view(), name="bot-list"),
    path("bots/<int:pk>", BotDetailView.as_view(), name="bot-detail"),
    path("bots/<int:pk>/tokens", BotTokensView.as_view(), name="bot-tokens"),
    path("bots/<int:pk>/tokens/<str:key>", BotTokenDetailView.as_view(), name="bot-token-detail"),
    path("bot/account", BotAccountView.as_view(), name="bot-account"),
]
