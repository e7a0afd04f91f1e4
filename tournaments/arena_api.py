"""Arena API: a player pauses and rejoins a running arena, or goes berserk in their match.

``POST /api/events/{id}/pause`` and ``/rejoin`` act on the caller's own entry (409
``not_entered`` without one, ``not_arena`` for another format, ``event_not_running``);
``POST /api/events/{id}/matches/{match}/berserk`` halves the caller's clock in their arena
match, before their first move of it (409 ``berserk_too_late``, ``berserk_already``,
``berserk_not_allowed``; 403 ``not_a_player`` for someone else's match).
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from common.api import refusal
from common.errors import ServiceError
from common.schema import error_codes
from games.models import Match
from tournaments.api import EntrySerializer, ErrorSerializer, _event
from tournaments.models import Entry
from tournaments.services import arena as arenas

BerserkSerializer = inline_serializer(
    "ArenaBerserk",
    {
        "match": serializers.IntegerField(),
        "status": serializers.CharField(),
        "berserk": serializers.ListField(child=serializers.BooleanField()),
    },
)


class _ArenaEntryCommand(APIView):
    permission_classes = [permissions.IsAuthenticated]

    def act(self, event, player, user) -> Entry:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: EntrySerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        event = _event(request, pk)
        try:
            entry = self.act(event, player, request.user)
        except ServiceError as error:
            return refusal(error)
        entry = Entry.objects.select_related("player").get(pk=entry.pk)
        return Response(EntrySerializer(entry).data)


@error_codes({"409": ["not_arena", "event_not_running", "not_entered"]})
class ArenaPauseView(_ArenaEntryCommand):
    """Take a break from a running arena: no new match until you rejoin (yours goes on)."""

    def act(self, event, player, user):
        return arenas.arena_pause(event=event, player=player, by=user)


@error_codes({"409": ["not_arena", "event_not_running", "not_entered", "arena_over"]})
class ArenaRejoinView(_ArenaEntryCommand):
    """Come back to a running arena: you are paired as soon as another player is free."""

    def act(self, event, player, user):
        return arenas.arena_rejoin(event=event, player=player, by=user)


class ArenaBerserkView(APIView):
    """Go berserk in your arena match: half your clock, one point more if you win it."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=None, responses={200: BerserkSerializer, 403: ErrorSerializer, 409: ErrorSerializer}
    )
    @error_codes(
        {
            "403": ["not_a_player"],
            "409": [
                "not_arena",
                "berserk_not_allowed",
                "match_over",
                "not_timed",
                "berserk_already",
                "berserk_too_late",
            ],
        }
    )
    def post(self, request: Request, pk: int, match_id: int) -> Response:
        player = require_player(request)
        event = _event(request, pk)
        match = get_object_or_404(Match, pk=match_id)
        if not event.pairings.filter(match=match).exists():
            raise Http404
        try:
            match = arenas.arena_berserk(match=match, player=player)
        except ServiceError as error:
            return refusal(error)
        return Response(
            {
                "match": match.pk,
                "status": match.status,
                "berserk": [match.berserk_a, match.berserk_b],
            }
        )


urlpatterns = [
    path("events/<int:pk>/pause", ArenaPauseView.as_view(), name="event-arena-pause"),
    path("events/<int:pk>/rejoin", ArenaRejoinView.as_view(), name="event-arena-rejoin"),
    path(
        "events/<int:pk>/matches/<int:match_id>/berserk",
        ArenaBerserkView.as_view(),
        name="event-match-berserk",
    ),
]
