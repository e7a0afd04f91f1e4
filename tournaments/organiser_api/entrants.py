"""Entrants entered by an organiser: a player or bot by id, a walk-in guest by name, a
number of house bots; and the refusals that entering shares with the import.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import services as accounts
from accounts.api import NAME_CODES, name_refusal
from accounts.models import NAME_MAX_LENGTH, Player
from common.api import error_body, refusal
from common.fields import StrictCharField, StrictIntegerField
from common.schema import error_codes
from games.engine import bots as engine_bots
from tournaments import services
from tournaments.api import EVENT_ORGANISER_CODES, EntrySerializer, ErrorSerializer
from tournaments.organiser_api.base import OrganiserView, entries_body


class PlayerAddSerializer(serializers.Serializer):
    player = StrictIntegerField(min_value=1, help_text="The player's (or bot's) id.")


class GuestAddSerializer(serializers.Serializer):
    name = StrictCharField(
        max_length=NAME_MAX_LENGTH,
        help_text="The walk-in's name, as a person's display name: unique regardless of case, "
        "no look-alike of another player's.",
    )


class BotsAddSerializer(serializers.Serializer):
    count = StrictIntegerField(min_value=1, max_value=1024)
    strategy = serializers.ChoiceField(choices=sorted(engine_bots.BOTS))


#: Entering a player (an organiser's add or import).
ENTER_CODES = ["unknown_bot", "duplicate_deals_need_bots"]
ENTER_CONFLICTS = [
    "already_registered",
    "disqualified",
    "event_full",
    "event_over",
    "registration_closed",
    "guests_and_bots",
]


class PlayersAddView(OrganiserView):
    """Enter a player or bot (before the start, or late into a Swiss); closed registration is
    no obstacle for an organiser, a full event is (409 ``event_full``)."""

    @extend_schema(
        request=PlayerAddSerializer, responses={201: EntrySerializer, 409: ErrorSerializer}
    )
    @error_codes(
        {
            "400": ENTER_CODES,
            "403": ["bots_only"],
            "409": [*ENTER_CONFLICTS, "guests_need_tables"],
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int) -> Response:
        body = PlayerAddSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        player = Player.objects.filter(pk=body.validated_data["player"]).first()
        if player is None:
            raise serializers.ValidationError({"player": [_("No player has this id.")]})
        try:
            entry = services.entry_add(event=event, player=player, by=request.user)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body([entry])[0], status=status.HTTP_201_CREATED)


def guest_name_refusal(error: DjangoValidationError) -> Response:
    """A refused guest name as a 400: ``name_taken`` for a name in use (ignoring case), else
    the code registration answers with (``name_confusable``, ``invalid``, ...)."""
    refused = error.error_dict.get("name", []) if hasattr(error, "error_dict") else []
    if any(e.code == "unique" for e in refused):
        body = error_body(
            _(
                "A player with this name already exists: enter them by their id "
                "(POST /api/events/{id}/players), or give the guest another name."
            ),
            code="name_taken",
            errors=error.message_dict,
        )
        return Response(body, status=400)
    return name_refusal(error)


class GuestsAddView(OrganiserView):
    """Enter a walk-in by name alone: create a guest player (no account, no password) and
    enter it, or neither. The answer is the entry, with the new player's id; an invitation
    link (``POST /api/players/{id}/invitation``) later lets the person take the guest over
    with an account. A guest plays only at a table: 409 ``guests_need_tables`` in an online
    event. Otherwise the refusals of ``POST /api/events/{id}/players``."""

    @extend_schema(
        request=GuestAddSerializer,
        responses={201: EntrySerializer, 400: ErrorSerializer, 409: ErrorSerializer},
    )
    @error_codes(
        {
            "400": ["name_taken", *NAME_CODES],
            "403": ["bots_only"],
            "409": [*ENTER_CONFLICTS, "guests_need_tables"],
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int) -> Response:
        body = GuestAddSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        try:
            with transaction.atomic():  # a refused entry leaves no guest behind
                guest = accounts.guest_create(name=body.validated_data["name"])
                entry = services.entry_add(event=event, player=guest, by=request.user)
        except DjangoValidationError as error:
            return guest_name_refusal(error)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body([entry])[0], status=status.HTTP_201_CREATED)


class BotsAddView(OrganiserView):
    """Create ``count`` house bots of a strategy and enter them (all or none)."""

    @extend_schema(
        request=BotsAddSerializer, responses={201: EntrySerializer(many=True), 409: ErrorSerializer}
    )
    @error_codes(
        {"400": ["unknown_bot", "invalid_count"], "409": ENTER_CONFLICTS}, EVENT_ORGANISER_CODES
    )
    def post(self, request: Request, pk: int) -> Response:
        body = BotsAddSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        try:
            with transaction.atomic():
                entries = services.bots_add(event=event, by=request.user, **body.validated_data)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body(entries), status=status.HTTP_201_CREATED)
