"""Table matches API: the hands of a match played with real cards, its score sheet, its result.

Either player of a table match (or an organiser: a staff user with ``games.change_match``,
always with a ``reason``) enters each hand as the score pad records it; the engine scores
it. A refused entry writes nothing: 400 naming the rule (``knock_limit``,
``deadwood_range``, ...), 409 for a stale hand number (with the current ``hand``) or a
match that is decided or over, 403 ``not_a_player`` for anyone else. Every write answers
with the score sheet as it now stands.
"""

from __future__ import annotations

from django.http import Http404
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import player_for_user
from common.api import refusal
from common.fields import StrictCharField, StrictIntegerField
from common.schema import error_codes
from games import selectors, services, sheets, tables
from games.models import Match, TableHand

# --- serializers -------------------------------------------------------------------------------


@extend_schema_field(
    {"type": "object", "maxProperties": 2, "additionalProperties": {"type": "integer"}}
)
class DeadwoodField(serializers.DictField):
    """Each of the two players' deadwood by player id: at most two entries."""

    default_error_messages = {
        "too_many": gettext_lazy("Give the deadwood of at most the two players.")
    }

    def to_internal_value(self, data):
        if isinstance(data, dict) and len(data) > 2:
            self.fail("too_many")
        return super().to_internal_value(data)


class HandSerializer(serializers.Serializer):
    """One hand as the score pad records it."""

    number = StrictIntegerField(
        min_value=0,
        max_value=100_000,
        required=False,
        help_text="The number of the hand you are entering (the sheet's `next_hand`): if "
        "another phone entered it first, this one is refused (409 `stale_hand`) instead of "
        "being entered twice.",
    )
    kind = serializers.ChoiceField(choices=TableHand.Kind.choices)
    knocker = StrictIntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="The player id of who knocked or went gin (not for a drawn hand).",
    )
    deadwood = DeadwoodField(
        child=StrictIntegerField(),
        required=False,
        help_text='Each player\'s deadwood after lay-offs, by player id: {"12": 7, "15": 31}. '
        "Gin and big gin need only the defender's.",
    )
    upcard = StrictCharField(
        max_length=3,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="The deal's first upcard, e.g. QS (Oklahoma: it sets the knock limit).",
    )
    reason = StrictCharField(
        max_length=300,
        required=False,
        allow_blank=True,
        help_text="An organiser's reason for the audit log (required of organisers).",
    )

    def validate_deadwood(self, value):
        counts = {}
        for key, count in value.items():
            try:
                counts[int(key)] = count
            except ValueError:
                raise serializers.ValidationError(
                    _("%(key)s is not a player id") % {"key": repr(key)}
                ) from None
        return counts


class TableReasonSerializer(serializers.Serializer):
    reason = StrictCharField(
        max_length=300,
        required=False,
        allow_blank=True,
        help_text="Why: a dispute's, or an organiser's for the audit log.",
    )


SheetSerializer = inline_serializer(
    "ScoreSheet",
    {
        "match": serializers.IntegerField(),
        "venue": serializers.CharField(),
        "table": serializers.IntegerField(allow_null=True),
        "status": serializers.CharField(),
        "players": serializers.ListField(child=serializers.DictField()),
        "rules": serializers.DictField(),
        "hands": serializers.ListField(
            child=serializers.DictField(),
            help_text="Every hand: its game, dealer, kind, knocker, deadwood, upcard, how it "
            "ended (termination), winner, points and each column's running totals after it "
            "(player indices: 0 is player A).",
        ),
        "games": serializers.ListField(
            child=serializers.DictField(),
            help_text="Every game: its columns (one, or Hollywood's three) with scores, boxes "
            "(hands won) and result (bonuses, final scores).",
        ),
        "games_won": serializers.ListField(child=serializers.IntegerField()),
        "margin_a": serializers.IntegerField(),
        "decided": serializers.BooleanField(),
        "winner": serializers.IntegerField(allow_null=True),
        "next_hand": serializers.IntegerField(help_text="The number of the next hand to enter."),
        "next_dealer": serializers.IntegerField(allow_null=True),
        "confirmation": serializers.CharField(),
        "confirm_result": serializers.BooleanField(),
        "reported_by": serializers.IntegerField(allow_null=True),
        "dispute_reason": serializers.CharField(),
    },
)


# --- views -------------------------------------------------------------------------------------


def _table_match(request: Request, pk: int) -> Match:
    """The table match, as the caller may see it (404 otherwise)."""
    match = Match.objects.select_related("player_a", "player_b").filter(pk=pk).first()
    if match is None or not selectors.match_visible(
        match=match, viewer=player_for_user(user=request.user)
    ):
        raise Http404
    return match


def _sheet(pk: int, status_code: int = status.HTTP_200_OK) -> Response:
    match = Match.objects.select_related("player_a", "player_b").get(pk=pk)
    return Response(sheets.sheet_for_match(match=match), status=status_code)


class _TableCommand(APIView):
    """A write to a table match: 404 for a match you may not see, then 403 ``not_a_player``
    for anyone but its players and organisers, then 400 for a malformed body."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "play"

    def match(self, request: Request, pk: int) -> Match:
        match = _table_match(request, pk)
        player = player_for_user(user=request.user)
        mine = player is not None and match.index_of(player.pk) is not None
        if not mine and not tables.may_organise(request.user):
            raise _NotAPlayer()
        return match


class _NotAPlayer(exceptions.PermissionDenied):
    default_detail = gettext_lazy("You are not a player of this match.")
    default_code = "not_a_player"


class SheetView(APIView):
    """The score sheet of a table match, scored by the engine: every hand with its points,
    every game with its totals, boxes, bonuses (Hollywood's three columns), the running match,
    who deals next. 409 ``not_at_table`` for a match played online."""

    @extend_schema(responses={200: SheetSerializer})
    @error_codes({"409": ["not_at_table"]})
    def get(self, request: Request, pk: int) -> Response:
        match = _table_match(request, pk)
        if not match.at_table:
            return refusal(services.Conflict(_("this match is played online"), code="not_at_table"))
        return Response(sheets.sheet_for_match(match=match))


#: A refused hand names the rule it broke (``games.engine.table.ENTRY_RULES`` that are about
#: the hand; those about the match's state answer 409).
HAND_RULES = [
    "invalid_entry",
    "invalid_card",
    "knocker_required",
    "drawn_hand_no_score",
    "deadwood_missing",
    "deadwood_range",
    "gin_with_deadwood",
    "upcard_required",
    "straight_gin_no_knock",
    "knock_limit",
    "duplicate_deals_at_table",
]
HAND_STATES = ["match_over", "game_over", "deal_in_progress"]
#: Refusals of the result (confirming, disputing).
RESULT_CONFLICTS = ["not_decided", "own_report", "match_over", "not_at_table"]


class HandsView(_TableCommand):
    """Enter the next hand: ``{number, kind, knocker, deadwood, upcard}``. Answers 201 with the
    score sheet. When the hands decide the match it waits for the opponent's confirmation."""

    @error_codes(
        {
            "400": ["reason_required", "not_in_match", *HAND_RULES],
            "403": ["not_a_player"],
            "409": ["stale_hand", "not_at_table", *HAND_STATES],
        }
    )
    @extend_schema(request=HandSerializer, responses={201: SheetSerializer})
    def post(self, request: Request, pk: int) -> Response:
        match = self.match(request, pk)
        body = HandSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            tables.hand_enter(
                match_id=match.pk,
                player=player_for_user(user=request.user),
                user=request.user,
                kind=data["kind"],
                knocker=data.get("knocker"),
                deadwood=data.get("deadwood"),
                upcard=data.get("upcard"),
                number=data.get("number"),
                reason=data.get("reason", ""),
            )
        except services.PlayError as error:
            return refusal(error)
        return _sheet(match.pk, status.HTTP_201_CREATED)


class LastHandView(_TableCommand):
    """Take back the last hand entered, until the result is confirmed. Answers with the sheet."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "number",
                OpenApiTypes.INT,
                description="The number of the hand you mean to take back: another last hand "
                "is refused (409 `stale_hand`), so two phones taking back remove one hand.",
            ),
            OpenApiParameter(
                "reason", OpenApiTypes.STR, description="An organiser's reason (required)."
            ),
        ],
        request=None,
        responses={200: SheetSerializer},
    )
    @error_codes(
        {
            "400": ["reason_required"],
            "403": ["not_a_player"],
            "409": ["no_hands", "stale_hand", "match_over", "not_at_table"],
        }
    )
    def delete(self, request: Request, pk: int) -> Response:
        match = self.match(request, pk)
        raw = request.query_params.get("number", "")
        number = None
        if raw:
            if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
                raise serializers.ValidationError(
                    {"number": [_("A hand number is a whole number.")]}
                )
            number = int(raw)
        reason = request.query_params.get("reason", "")[:300]
        try:
            tables.hand_take_back(
                match_id=match.pk,
                player=player_for_user(user=request.user),
                user=request.user,
                number=number,
                reason=reason,
            )
        except services.PlayError as error:
            return refusal(error)
        return _sheet(match.pk)


class CorrectedHandSerializer(HandSerializer):
    """An earlier hand as it should read, with the organiser's reason."""

    number = None  # the hand is the one in the path


class HandView(_TableCommand):
    """An organiser corrects an earlier hand (``{kind, knocker, deadwood, upcard, reason}``)
    until the result is confirmed: the later hands are scored again after it. A player takes
    back the last hand instead (403 ``organisers_only``); 409 ``no_such_hand``,
    ``later_hand_refused`` (a later hand no longer fits: take it back first)."""

    @extend_schema(request=CorrectedHandSerializer, responses={200: SheetSerializer})
    @error_codes(
        {
            "400": ["reason_required", "not_in_match", *HAND_RULES],
            "403": ["not_a_player", "organisers_only"],
            "409": ["no_such_hand", "later_hand_refused", "not_at_table", *HAND_STATES],
        }
    )
    def put(self, request: Request, pk: int, number: int) -> Response:
        match = self.match(request, pk)
        if not tables.may_organise(request.user):
            raise _OrganisersOnly()
        body = CorrectedHandSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            tables.hand_correct(
                match_id=match.pk,
                user=request.user,
                number=number,
                kind=data["kind"],
                knocker=data.get("knocker"),
                deadwood=data.get("deadwood"),
                upcard=data.get("upcard"),
                reason=data.get("reason", ""),
            )
        except services.PlayError as error:
            return refusal(error)
        return _sheet(match.pk)


class _OrganisersOnly(exceptions.PermissionDenied):
    default_detail = gettext_lazy(
        "Only an organiser corrects an earlier hand: take back the last hand, or dispute the "
        "result."
    )
    default_code = "organisers_only"


class _ResultCommand(_TableCommand):
    """Confirm or dispute: a reason in the body, the subclass's service, the sheet back."""

    @extend_schema(request=TableReasonSerializer, responses={200: SheetSerializer})
    def post(self, request: Request, pk: int) -> Response:
        match = self.match(request, pk)
        body = TableReasonSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            self.service(
                match_id=match.pk,
                player=player_for_user(user=request.user),
                user=request.user,
                reason=body.validated_data.get("reason", ""),
            )
        except services.PlayError as error:
            return refusal(error)
        return _sheet(match.pk)


@error_codes({"400": ["reason_required"], "403": ["not_a_player"], "409": RESULT_CONFLICTS})
class ConfirmView(_ResultCommand):
    """Confirm the result the hands decided: the opponent of whoever entered the deciding hand
    (or an organiser, with a reason). The match is then finished: the event advances, it is
    rated, its webhooks are sent."""

    service = staticmethod(tables.result_confirm)


@error_codes({"400": ["reason_required"], "403": ["not_a_player"], "409": RESULT_CONFLICTS})
class DisputeView(_ResultCommand):
    """Dispute the result the hands decided, saying why (``{reason}``): the match waits for an
    organiser, who corrects the hands and confirms, or decides."""

    service = staticmethod(tables.result_dispute)


urlpatterns = [
    path("matches/<int:pk>/sheet", SheetView.as_view(), name="match-sheet"),
    path("matches/<int:pk>/hands", HandsView.as_view(), name="match-hands"),
    path("matches/<int:pk>/hands/last", LastHandView.as_view(), name="match-hands-last"),
    path("matches/<int:pk>/hands/<int:number>", HandView.as_view(), name="match-hand"),
    path("matches/<int:pk>/confirm", ConfirmView.as_view(), name="match-confirm"),
    path("matches/<int:pk>/dispute", DisputeView.as_view(), name="match-dispute"),
]
