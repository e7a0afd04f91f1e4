"""Accounts API: registration, sign-in and sign-out, the caller's player, the player list.

Views validate input, call a service or selector, and serialize. Serializers list their fields
explicitly; everything but the display name is read-only.
"""

import django_filters
from django.contrib.auth import authenticate, user_logged_in, user_logged_out
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.views import LogoutAllView, LogoutView
from rest_framework import exceptions, generics, mixins, permissions, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from accounts import deletion, invitations, lockout, mail, names, selectors, services
from accounts.auth import TokenAuthentication
from accounts.models import NAME_MAX_LENGTH, Player
from common.api import error_body, refusal
from common.fields import StrictBooleanField, StrictCharField
from common.schema import error_codes

# --- Serializers ----------------------------------------------------------------------------


class PlayerSerializer(serializers.ModelSerializer):
    """A player as anyone may see them."""

    class Meta:
        model = Player
        fields = ["id", "name", "kind", "bot_strategy", "created_at"]
        read_only_fields = ["id", "kind", "bot_strategy", "created_at"]


class PlayerUpdateSerializer(serializers.Serializer):
    """What a player may change about themselves."""

    name = StrictCharField(
        max_length=NAME_MAX_LENGTH,
        required=False,
        error_messages={
            "blank": names.BLANK_MESSAGE,
            # Formatted here (lazily): DRF's own formatting then leaves it as it is.
            "max_length": names.TOO_LONG_MESSAGE.format(max_length=NAME_MAX_LENGTH),
        },
    )


class MeUpdateSerializer(PlayerUpdateSerializer):
    """What a person may change about themselves at ``/api/me``: the name and their
    preferences."""

    email_events = StrictBooleanField(
        required=False,
        help_text="E-mail me about my events: when an event I entered is about to start, and "
        "when my match is ready while I am not on the site (needs an e-mail address).",
    )
    language = serializers.ChoiceField(
        choices=Player._meta.get_field("language").choices,
        required=False,
        help_text="The site's language for this person (``en``, ``fr``, ``es``), or empty to "
        "follow the browser's ``Accept-Language``; it is also the language of the API's "
        "``detail`` messages for requests signed in with the web session.",
    )
    theme = serializers.ChoiceField(
        choices=Player.Theme.choices,
        required=False,
        help_text="The pages' colours: ``system`` (as the device is set), ``light`` or ``dark``.",
    )
    sounds = StrictBooleanField(
        required=False, help_text="Sounds at the table (your turn, a move, a deal's end, low time)."
    )
    confirm_discard = StrictBooleanField(
        required=False,
        help_text="A tapped card is only chosen; a second tap (or Enter) discards it.",
    )


class MeSerializer(serializers.ModelSerializer):
    """The caller's own player, with their account."""

    username = serializers.CharField(source="user.get_username", read_only=True)
    is_staff = serializers.BooleanField(source="user.is_staff", read_only=True)

    class Meta:
        model = Player
        fields = [
            "id",
            "name",
            "kind",
            "bot_strategy",
            "created_at",
            "username",
            "is_staff",
            "email_events",
            "language",
            "theme",
            "sounds",
            "confirm_discard",
        ]
        read_only_fields = fields


class RegisterSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)
    name = StrictCharField(
        max_length=NAME_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="The display name others see; without one, “Player 123456” (a random number), "
        "never the username.",
    )
    email = serializers.EmailField(
        max_length=254,
        required=False,
        allow_blank=True,
        help_text="Optional: where a password reset is sent (never shown to anyone).",
    )


class PasswordSerializer(serializers.Serializer):
    password = StrictCharField(
        max_length=128, write_only=True, trim_whitespace=False, help_text="The current password."
    )


class PasswordChangeSerializer(serializers.Serializer):
    old_password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)
    new_password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)


class SignInSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)


TokenSerializer = inline_serializer(
    "Token",
    {
        "token": serializers.CharField(),
        "expiry": serializers.DateTimeField(),
        "player": MeSerializer(allow_null=True),
    },
)


def _token_response(request: Request, user, player: Player | None, status: int) -> Response:
    instance, token = services.token_issue(user=user)
    data = {
        "token": token,
        "expiry": serializers.DateTimeField().to_representation(instance.expiry),
        "player": MeSerializer(player, context={"request": request}).data if player else None,
    }
    return Response(data, status=status)


#: The refusals of a display name whose code the answer carries instead of ``invalid``.
NAME_CODES = (names.MIXED_SCRIPT, names.CONFUSABLE, names.RESERVED)


def name_refusal(error: DjangoValidationError) -> Response:
    """A service's invalid input as a 400; a refused look-alike name's ``code`` names why.

    The answer has the usual shape of invalid input (the messages per field), with ``code``
    one of :data:`NAME_CODES` (``name_mixed_script``, ``name_confusable``, ``name_reserved``)
    when the display name was refused for its look, else ``invalid``.
    """
    refused = error.error_dict.get("name", []) if hasattr(error, "error_dict") else []
    code = next((e.code for e in refused if e.code in NAME_CODES), "invalid")
    messages = (
        error.message_dict if hasattr(error, "error_dict") else {"non_field_errors": error.messages}
    )
    return Response(error_body(_("Invalid input."), code, messages), status=400)


# --- Sign-up, sign-in, sign-out -------------------------------------------------------------


class RegisterView(APIView):
    """Create an account and its human player; answers with a sign-in token."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_scope = "register"

    @extend_schema(request=RegisterSerializer, responses={201: TokenSerializer}, auth=[])
    @error_codes({"400": NAME_CODES})
    def post(self, request: Request) -> Response:
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            player = services.player_register(**serializer.validated_data)
        except DjangoValidationError as error:
            return name_refusal(error)
        return _token_response(request, player.user, player, status=201)


class SignInView(APIView):
    """Exchange a username and password for a token that expires (``Authorization: Token …``).

    Wrong passwords count towards the sign-in lockout (``accounts.lockout``): past the limit,
    for the username or from the address, the answer is 429 ``locked_out``, whatever the
    password, until the cool-down is over.
    """

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_scope = "sign-in"

    @extend_schema(request=SignInSerializer, responses={200: TokenSerializer}, auth=[])
    @error_codes({"429": ["locked_out"]})
    def post(self, request: Request) -> Response:
        serializer = SignInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # Django's request, not DRF's: the lockout marks it, and its middleware reads it.
        user = authenticate(request=request._request, **serializer.validated_data)
        if getattr(request._request, "axes_locked_out", False):
            return lockout.lockout_json()
        if user is None:  # wrong password, unknown or inactive user; bots have no user at all
            raise serializers.ValidationError(
                {"non_field_errors": [_("Unable to sign in with the given username and password.")]}
            )
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        return _token_response(request, user, selectors.player_for_user(user=user), status=200)


class SignOutView(LogoutView):
    """Revoke the token this request was made with."""

    authentication_classes = [TokenAuthentication]  # knox's, as everywhere: a token only

    @extend_schema(request=None, responses={204: None})
    def post(self, request, format=None):
        return super().post(request, format)


class SignOutEverywhereView(LogoutAllView):
    """Sign the caller out everywhere: every token revoked, every web session ended."""

    authentication_classes = [TokenAuthentication]

    @extend_schema(request=None, responses={204: None})
    def post(self, request, format=None):
        services.sign_out_everywhere(user=request.user)
        user_logged_out.send(sender=request.user.__class__, request=request, user=request.user)
        return self.get_post_response(request)


ErrorSerializer = inline_serializer(
    "AccountError",
    {
        "detail": serializers.CharField(),
        "code": serializers.CharField(),
        "match": serializers.IntegerField(required=False),
        "event": serializers.IntegerField(required=False),
    },
)


def _check_password(request: Request, password: str) -> Response | None:
    """The caller's password, checked as a sign-in checks it (a wrong one counts towards the
    lockout): None when right; else the answer (400 naming ``password``, 429 locked out)."""
    user = authenticate(
        request=request._request, username=request.user.get_username(), password=password
    )
    if getattr(request._request, "axes_locked_out", False):
        return lockout.lockout_json()
    if user is None or user.pk != request.user.pk:
        return Response(
            error_body(
                _("Invalid input."),
                code="wrong_password",
                errors={"password": [_("Wrong password.")]},
            ),
            status=400,
        )
    return None


class PasswordChangeView(APIView):
    """Change the caller's password. Every sign-in of theirs ends (all their tokens revoked,
    all their web sessions ended); the answer is a new token, as a sign-in's."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "sign-in"

    @extend_schema(request=PasswordChangeSerializer, responses={200: TokenSerializer})
    @error_codes({"400": ["wrong_password"]})
    def post(self, request: Request) -> Response:
        body = PasswordChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if refused := _check_password(request, body.validated_data["old_password"]):
            return refused
        user = request.user
        try:
            validate_password(body.validated_data["new_password"], user=user)
        except DjangoValidationError as error:
            raise serializers.ValidationError({"new_password": list(error.messages)}) from None
        user.set_password(body.validated_data["new_password"])
        user.save(update_fields=["password"])
        services.sign_out_everywhere(user=user)
        return _token_response(request, user, selectors.player_for_user(user=user), status=200)


# --- The caller -----------------------------------------------------------------------------


def require_player(request: Request) -> Player:
    """The signed-in caller's player; 403 for anyone else (a staff user without one too)."""
    player = selectors.player_for_user(user=request.user)
    if player is None:
        raise exceptions.PermissionDenied(_("Only a signed-in player can do this."))
    return player


# --- Players --------------------------------------------------------------------------------


class IsOwnerOrReadOnly(permissions.BasePermission):
    """Anyone may read; only the player's own user may change it (staff use the admin)."""

    message = gettext_lazy("You can change only your own player.")

    def has_object_permission(self, request, view, obj: Player) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return obj.user_id is not None and obj.user_id == request.user.id


class PlayerFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=Player.Kind.choices)
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Part of the name.")

    class Meta:
        model = Player
        fields = ["kind", "name"]


class PlayerViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Players: public to read; each player edits only their own name."""

    serializer_class = PlayerSerializer
    filterset_class = PlayerFilter
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]

    def get_queryset(self):
        return selectors.player_list()

    @extend_schema(request=PlayerUpdateSerializer, responses={200: PlayerSerializer})
    @error_codes({"400": NAME_CODES})
    def partial_update(self, request: Request, pk=None) -> Response:
        player = self.get_object()
        serializer = PlayerUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            player = services.player_update(player=player, **serializer.validated_data)
        except DjangoValidationError as error:
            return name_refusal(error)
        return Response(PlayerSerializer(player).data)


class MayInviteGuests(permissions.BasePermission):
    """Staff who enter guests into events (``tournaments.change_event``, as the organiser
    API's entrant endpoints ask) or who change players in the admin (``accounts.change_player``).
    Refused: 403 ``permission_denied``."""

    message = gettext_lazy("Only staff who organise events may invite a guest to an account.")

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(
            user
            and user.is_authenticated
            and user.is_staff
            and (
                user.has_perm("tournaments.change_event") or user.has_perm("accounts.change_player")
            )
        )


InvitationSerializer = inline_serializer(
    "GuestInvitation",
    {
        "player": serializers.IntegerField(help_text="The guest's id."),
        "name": serializers.CharField(),
        "url": serializers.URLField(
            help_text="The page where the person creates an account that takes the guest over."
        ),
        "expires_at": serializers.DateTimeField(),
    },
)


class GuestInvitationView(APIView):
    """An invitation link for a guest, to send or print: its page lets the person behind the
    guest sign up, and the guest becomes their player (results and ratings kept). The link
    works until ``expires_at`` and once; asking again gives a new link (earlier ones keep
    working until they expire or the guest is claimed). 409 ``not_a_guest`` for any other
    player."""

    permission_classes = [permissions.IsAuthenticated, MayInviteGuests]

    @extend_schema(request=None, responses={200: InvitationSerializer, 409: ErrorSerializer})
    @error_codes({"409": ["not_a_guest"]})
    def post(self, request: Request, pk: int) -> Response:
        guest = get_object_or_404(Player, pk=pk)
        try:
            token, expires_at = invitations.invitation_issue(guest=guest)
        except services.NotAGuest as error:
            return refusal(error)
        url = request.build_absolute_uri(reverse("web:guest_claim", args=[token]))
        return Response(
            {
                "player": guest.pk,
                "name": guest.name,
                "url": url,
                "expires_at": serializers.DateTimeField().to_representation(expires_at),
            }
        )


#: The permissions a client of the organiser API looks at to know what a staff user may do.
ORGANISER_PERMISSIONS = (
    "tournaments.add_event",
    "tournaments.change_event",
    "tournaments.change_entry",
    "tournaments.change_pairing",
    "tournaments.view_eventlog",
    "tournaments.add_webhook",
    "tournaments.change_webhook",
    "tournaments.change_webhookdelivery",
    "ladders.add_ladder",
    "ladders.change_ladder",
    "ladders.add_season",
)


def staff_permissions(user) -> list[str]:
    """Which of :data:`ORGANISER_PERMISSIONS` a staff user holds (none for anyone else)."""
    if not user.is_staff:
        return []
    return [name for name in ORGANISER_PERMISSIONS if user.has_perm(name)]


MeAnswerSerializer = inline_serializer(
    "MeAnswer",
    {
        "id": serializers.IntegerField(allow_null=True),
        "name": serializers.CharField(allow_null=True),
        "kind": serializers.CharField(allow_null=True),
        "bot_strategy": serializers.CharField(),
        "created_at": serializers.DateTimeField(allow_null=True),
        "username": serializers.CharField(),
        "is_staff": serializers.BooleanField(),
        "email_events": serializers.BooleanField(
            allow_null=True, help_text="E-mail me about my events (null: no player)."
        ),
        "language": serializers.CharField(
            help_text="en, fr, es, or empty: the browser's (a staff user without a player: empty)."
        ),
        "theme": serializers.CharField(
            help_text="system, light or dark (a staff user without a player: system)."
        ),
        "sounds": serializers.BooleanField(),
        "confirm_discard": serializers.BooleanField(),
        "permissions": serializers.ListField(
            child=serializers.CharField(), required=False, help_text="Staff only."
        ),
    },
)


class MeView(generics.GenericAPIView):
    """The caller: their player and account. Staff are also told the organiser permissions
    they hold (``permissions``); a staff user without a player is answered their account
    with the player's fields empty (``id`` and ``name`` null), and cannot rename (404)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = MeSerializer

    def get_object(self) -> Player:
        player = selectors.player_for_user(user=self.request.user)
        if player is None:
            raise Http404  # e.g. a staff account made with createsuperuser
        return player

    @extend_schema(responses={200: MeAnswerSerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        player = selectors.player_for_user(user=user)
        if player is not None:
            body = MeSerializer(player).data
        else:
            body = {
                **{name: None for name in ("id", "name", "kind", "created_at")},
                "bot_strategy": "",
                "username": user.get_username(),
                "is_staff": user.is_staff,
                "email_events": None,
                # No player, nowhere to keep them: the defaults, which the pages use too.
                "language": "",
                "theme": Player.Theme.SYSTEM,
                "sounds": True,
                "confirm_discard": False,
            }
        if user.is_staff:
            body["permissions"] = staff_permissions(user)
        return Response(body)

    @extend_schema(
        request=PasswordSerializer,
        responses={204: None, 400: ErrorSerializer, 409: ErrorSerializer},
    )
    @error_codes({"400": ["wrong_password"], "409": ["account_busy"]})
    def delete(self, request: Request) -> Response:
        """Delete the caller's account (``accounts.deletion``), with their password in a
        JSON body, ``{"password": "..."}`` (OpenAPI 3.0 describes no body for a DELETE; this
        one has one): the person's data goes, their player stays as ``deleted-<id>`` so that
        finished matches, brackets and ratings stay whole. 409 ``account_busy`` (naming the
        ``match`` or the ``event``) while they play a match or are entered in an event that
        has not ended: resign or withdraw first. Staff accounts are removed by an
        administrator (403)."""
        body = PasswordSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if request.user.is_staff:
            raise exceptions.PermissionDenied(_("Staff accounts are removed by an administrator."))
        if refused := _check_password(request, body.validated_data["password"]):
            return refused
        try:
            deletion.account_delete(user=request.user)
        except deletion.AccountBusy as error:
            return refusal(error)
        return Response(status=204)

    @extend_schema(request=MeUpdateSerializer, responses={200: MeSerializer})
    @error_codes({"400": NAME_CODES})
    def patch(self, request: Request) -> Response:
        """Change the caller's display name (checked as at sign-up: the same refusals in the
        same words as ``/account``) and their preferences (``email_events``, ``language``,
        ``theme``, ``sounds``, ``confirm_discard``)."""
        player = self.get_object()
        serializer = MeUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        email_events = changes.pop("email_events", None)
        preferences = {key: changes.pop(key) for key in services.PREFERENCES if key in changes}
        try:
            player = services.player_update(player=player, **changes)
        except DjangoValidationError as error:
            return name_refusal(error)
        player = services.preferences_update(player=player, **preferences)
        if email_events is not None:
            player = mail.email_events_set(player=player, on=email_events)
        return Response(MeSerializer(player).data)


# --- URLs -----------------------------------------------------------------------------------

router = SimpleRouter(trailing_slash=False)
router.register("players", PlayerViewSet, basename="player")

urlpatterns = [
    path("auth/register", RegisterView.as_view(), name="register"),
    path("auth/login", SignInView.as_view(), name="login"),
    path("auth/logout", SignOutView.as_view(), name="logout"),
    path("auth/logoutall", SignOutEverywhereView.as_view(), name="logoutall"),
    path("auth/password", PasswordChangeView.as_view(), name="password-change"),
    path("me", MeView.as_view(), name="me"),
    path("players/<int:pk>/invitation", GuestInvitationView.as_view(), name="player-invitation"),
    *router.urls,
]
