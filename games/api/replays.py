"""A finished match's replay: its seed, every deal, every action, every outcome."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import error_body
from common.schema import error_codes
from games import selectors
from games.api.base import PlayerBriefSerializer, visible_match
from games.models import Match


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
        match = visible_match(request, pk)
        if match.status != Match.Status.FINISHED:
            return Response(
                error_body(
                    _("The replay is published when the match is finished."), "not_finished"
                ),
                status=status.HTTP_409_CONFLICT,
            )
        log = selectors.match_log(match=match)
        log["players"] = PlayerBriefSerializer([match.player_a, match.player_b], many=True).data
        log["seed_commitment"] = match.seed_commitment
        return Response(log)
