"""An organiser's actions on one pairing: a result overridden, a failed bot match re-run, a
mixed event's match moved to a table.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import Player
from common.api import refusal
from common.fields import StrictCharField, StrictIntegerField
from common.schema import error_codes
from tournaments import services
from tournaments.api import EVENT_ORGANISER_CODES, ErrorSerializer
from tournaments.models import Pairing
from tournaments.organiser_api.base import OrganiserView


class OverrideSerializer(serializers.Serializer):
    winner = StrictIntegerField(min_value=1, help_text="The winning player's id.")
    reason = StrictCharField(max_length=1000)


def _pairing_body(pairing: Pairing) -> dict:
    pairing = Pairing.objects.select_related("winner", "match").get(pk=pairing.pk)
    return {
        "key": pairing.key,
        "status": pairing.status,
        "result": pairing.result,
        "winner": pairing.winner.player_id if pairing.winner else None,
        "match": pairing.match_id,
        "match_venue": pairing.match.venue if pairing.match else None,
        "match_table": pairing.match.table if pairing.match else None,
    }


class PairingActionView(OrganiserView):
    staff_permissions = {"POST": "tournaments.change_pairing"}

    def pairing(self, pk: int, key: str) -> Pairing:
        return get_object_or_404(Pairing, event=self.event(pk), key=key)


class OverrideView(PairingActionView):
    """Decide a pairing: the winner (one of its two players) and a reason, audited; the
    bracket (or the standings) are repaired downstream. 400 ``not_in_match`` for a player
    who is not in the pairing."""

    @extend_schema(request=OverrideSerializer, responses={200: OpenApiTypes.OBJECT})
    @error_codes(
        {
            "400": ["reason_required", "not_in_match"],
            "409": ["event_not_running", "no_match", "no_change", "playoff_started"],
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int, key: str) -> Response:
        body = OverrideSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        pairing = self.pairing(pk, key)
        winner = Player.objects.filter(pk=body.validated_data["winner"]).first()
        if winner is None:
            raise serializers.ValidationError({"winner": [_("No player has this id.")]})
        try:
            pairing = services.pairing_override(
                pairing=pairing,
                winner=winner,
                reason=body.validated_data["reason"],
                by=request.user,
            )
        except services.TournamentError as error:
            return refusal(error)
        return Response(_pairing_body(pairing))


class RerunView(PairingActionView):
    """Play a failed bot match again (a new match); downstream is repaired."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: ErrorSerializer})
    @error_codes(
        {"409": ["event_not_running", "no_match", "not_bots", "not_failed", "playoff_started"]},
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int, key: str) -> Response:
        pairing = self.pairing(pk, key)
        try:
            pairing = services.pairing_rerun(pairing=pairing, by=request.user)
        except services.TournamentError as error:
            return refusal(error)
        return Response(_pairing_body(pairing))


class ToTableView(PairingActionView):
    """A mixed event: play this pairing's match at the round's next free table instead of
    online (before it started). It is in play at once, with no clock and no show-up deadline;
    its players enter its hands. Audited."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: ErrorSerializer})
    @error_codes(
        {
            "409": [
                "not_mixed",
                "event_not_running",
                "no_match",
                "already_at_table",
                "match_started",
                "bots_play_online",
            ]
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int, key: str) -> Response:
        pairing = self.pairing(pk, key)
        try:
            pairing = services.pairing_to_table(pairing=pairing, by=request.user)
        except services.TournamentError as error:
            return refusal(error)
        return Response(_pairing_body(pairing))
