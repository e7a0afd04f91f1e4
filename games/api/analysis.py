"""A finished match's analysis: asked for by its players or staff, read by whoever may see
the replay (the method: :mod:`games.engine.analysis`; the work: :mod:`games.services.analysis`)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import error_body, refusal
from common.schema import error_codes
from games.api.base import PlayerBriefSerializer, visible_match
from games.models import Match, MatchAnalysis
from games.services import analysis as service
from games.services.base import PlayError


def analysis_json(analysis: MatchAnalysis, match: Match) -> dict[str, Any]:
    """An analysis as the API answers it: where the work stands, and the result once done."""
    done = analysis.status == MatchAnalysis.Status.DONE
    return {
        "match": match.pk,
        "status": analysis.status,
        "decisions_done": analysis.result["decisions"] if done else len(analysis.rows),
        "decisions_total": analysis.decisions_total,
        "requested_at": analysis.created_at,
        "finished_at": analysis.finished_at,
        "players": PlayerBriefSerializer([match.player_a, match.player_b], many=True).data,
        "analysis": analysis.result if done else None,
        "error": analysis.error or None,
    }


class MatchAnalysisView(APIView):
    """``GET``: the analysis of a finished match (anyone who may see its replay). ``POST``:
    ask for it (the match's players, and staff with the permission to add match analyses);
    202 when the work was queued, 200 when it was already asked for (the same analysis is
    answered)."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    def _unfinished(self, match: Match) -> Response | None:
        if match.status == Match.Status.FINISHED:
            return None
        return Response(
            error_body(_("A match is analysed once it is finished."), "not_finished"),
            status=status.HTTP_409_CONFLICT,
        )

    @extend_schema(
        responses={
            200: OpenApiTypes.OBJECT,
            404: OpenApiResponse(description="Not analysed yet (`not_analysed`)."),
            409: OpenApiResponse(description="The match is not finished (`not_finished`)."),
        }
    )
    @error_codes({"404": ["not_analysed"], "409": ["not_finished"]})
    def get(self, request: Request, pk: int) -> Response:
        match = visible_match(request, pk)
        refused = self._unfinished(match)
        if refused is not None:
            return refused
        analysis = MatchAnalysis.objects.filter(match=match).first()
        if analysis is None:
            code = "not_analysed"
            body = error_body(_("This match has not been analysed."), code)
            body["may_request"] = service.may_request(match=match, user=request.user)
            return Response(body, status=status.HTTP_404_NOT_FOUND)
        return Response(analysis_json(analysis, match))

    @extend_schema(
        request=None,
        responses={
            200: OpenApiTypes.OBJECT,
            202: OpenApiTypes.OBJECT,
            403: OpenApiResponse(description="Not a player of the match (`not_a_player`)."),
            409: OpenApiResponse(
                description="Not finished (`not_finished`), or played with real cards "
                "(`no_decisions`)."
            ),
            429: OpenApiResponse(description="Too many under way (`too_many_analyses`)."),
        },
    )
    @error_codes(
        {
            "403": ["not_a_player"],
            "409": ["not_finished", "no_decisions"],
            "429": ["too_many_analyses"],
        }
    )
    def post(self, request: Request, pk: int) -> Response:
        match = visible_match(request, pk)
        try:
            analysis, queued = service.analysis_request(match=match, user=request.user)
        except PlayError as error:
            return refusal(error)
        code = status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK
        return Response(analysis_json(analysis, match), status=code)
