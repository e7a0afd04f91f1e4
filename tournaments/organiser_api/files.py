"""An event in files: its entrants imported from a CSV, a Swiss or round robin exported as a
FIDE TRF-16 report.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import refusal
from common.fields import StrictCharField
from common.schema import error_codes
from tournaments import interchange, services
from tournaments.api import EVENT_ORGANISER_CODES, EntrySerializer, ErrorSerializer, _event
from tournaments.organiser_api.base import OrganiserView, entries_body
from tournaments.organiser_api.entrants import ENTER_CODES, ENTER_CONFLICTS


class ImportSerializer(serializers.Serializer):
    csv = StrictCharField(
        max_length=200_000,
        trim_whitespace=False,
        help_text="A header naming `name` or `player_id` (and optionally `seed`), then one "
        "entrant a line.",
    )


class ImportView(OrganiserView):
    """Enter the players of a CSV, all or none; a refusal names its line (400 or 409)."""

    @extend_schema(
        request=ImportSerializer,
        responses={201: EntrySerializer(many=True), 400: ErrorSerializer, 409: ErrorSerializer},
    )
    @error_codes(
        {
            "400": [
                "invalid_csv",
                "unknown_player",
                "duplicate_entry",
                "invalid_seed",
                "duplicate_seed",
                "too_many",
                *ENTER_CODES,
            ],
            "409": [*ENTER_CONFLICTS, "event_started", "guests_need_tables"],
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int) -> Response:
        body = ImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        try:
            entries = interchange.entries_import(
                event=event, text=body.validated_data["csv"], by=request.user
            )
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body(entries), status=status.HTTP_201_CREATED)


class TrfView(APIView):
    """A Swiss or round robin as a FIDE TRF-16 report (``text/plain``)."""

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="TRF-16"),
            400: ErrorSerializer,
            409: ErrorSerializer,
        }
    )
    @error_codes({"400": ["trf_format"], "409": ["not_started"]})
    def get(self, request: Request, pk: int):
        event = _event(request, pk)
        try:
            text = interchange.trf16(event=event)
        except services.TournamentError as error:
            return refusal(error)
        response = HttpResponse(text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="event-{event.pk}.trf"'
        return response
