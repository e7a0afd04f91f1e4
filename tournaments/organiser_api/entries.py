"""An organiser's actions on one entry: withdraw or disqualify (with a reason), reinstate,
check in and take the check-in back.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from common.api import refusal
from common.schema import error_codes
from tournaments import services
from tournaments.api import EVENT_ORGANISER_CODES, EntrySerializer, ErrorSerializer
from tournaments.models import Entry
from tournaments.organiser_api.base import OrganiserView, ReasonSerializer, entries_body


class EntryActionView(OrganiserView):
    """An organiser's action on one entry of the event."""

    staff_permissions = {"POST": "tournaments.change_entry"}
    needs_reason = False

    def act(self, entry: Entry, by, reason: str) -> Entry:
        raise NotImplementedError

    def post(self, request: Request, pk: int, entry_id: int) -> Response:
        reason = ""
        if self.needs_reason:
            body = ReasonSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            reason = body.validated_data["reason"]
        entry = get_object_or_404(Entry, pk=entry_id, event=self.event(pk))
        try:
            entry = self.act(entry, request.user, reason)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body([entry])[0])


_ENTRY_SCHEMA = {"responses": {200: EntrySerializer, 409: ErrorSerializer}}


@error_codes({"409": ["already_withdrawn", "event_over"]}, EVENT_ORGANISER_CODES)
class EntryWithdrawView(EntryActionView):
    """Withdraw an entry with a reason; in a running event its unfinished match is forfeited."""

    needs_reason = True

    @extend_schema(request=ReasonSerializer, **_ENTRY_SCHEMA)
    def post(self, request: Request, pk: int, entry_id: int) -> Response:
        return super().post(request, pk, entry_id)

    def act(self, entry, by, reason):
        return services.entry_withdraw(entry=entry, by=by, reason=reason)


@error_codes({"409": ["already_withdrawn", "event_over"]}, EVENT_ORGANISER_CODES)
class EntryDisqualifyView(EntryWithdrawView):
    """Disqualify an entry with a reason (it cannot come back)."""

    def act(self, entry, by, reason):
        return services.entry_withdraw(entry=entry, by=by, reason=reason, disqualify=True)


@error_codes(
    {
        "400": ["unknown_bot", "duplicate_deals_need_bots"],
        "403": ["bots_only", "assisted_account"],
        "409": [
            "not_withdrawn",
            "event_over",
            "cannot_reinstate",
            "event_full",
            "guests_need_tables",
            "guests_and_bots",
        ],
    },
    EVENT_ORGANISER_CODES,
    methods=["POST"],
)
class EntryReinstateView(EntryActionView):
    """Take a withdrawn entry back: before the start, or into later rounds of a Swiss."""

    @extend_schema(request=None, **_ENTRY_SCHEMA)
    def post(self, request: Request, pk: int, entry_id: int) -> Response:
        return super().post(request, pk, entry_id)

    def act(self, entry, by, reason):
        return services.entry_reinstate(entry=entry, by=by)


@error_codes(
    {"409": ["not_registered", "check_in_closed", "no_check_in"]},
    EVENT_ORGANISER_CODES,
    methods=["POST"],
)
class EntryCheckInView(EntryReinstateView):
    """Check an entry in (during the check-in window); DELETE takes the check-in back (a name
    tapped by mistake at the desk), before the start: the entry is registered again."""

    staff_permissions = {"POST": "tournaments.change_entry", "DELETE": "tournaments.change_entry"}

    def act(self, entry, by, reason):
        return services.entry_check_in(entry=entry, by=by)

    @extend_schema(request=None, **_ENTRY_SCHEMA)
    @error_codes({"409": ["check_in_closed"]}, EVENT_ORGANISER_CODES)
    def delete(self, request: Request, pk: int, entry_id: int) -> Response:
        entry = get_object_or_404(Entry, pk=entry_id, event=self.event(pk))
        try:
            entry = services.entry_check_in_undo(entry=entry, by=request.user)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body([entry])[0])
