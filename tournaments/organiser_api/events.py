"""An event's course by its organisers: registration opened and closed, the entries seeded,
the start, the cancellation; and the event's audit log.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from common.api import refusal
from common.fields import StrictIntegerField
from common.schema import error_codes
from tournaments import services
from tournaments.api import (
    EVENT_OPTION_CODES,
    EVENT_ORGANISER_CODES,
    EntrySerializer,
    ErrorSerializer,
    EventSerializer,
)
from tournaments.models import EventLog, Seeding
from tournaments.organiser_api.base import (
    OrganiserView,
    ReasonSerializer,
    entries_body,
    event_body,
)


class SeedSerializer(serializers.Serializer):
    seeding = serializers.ChoiceField(
        choices=Seeding.choices, required=False, help_text="The event's own when left out."
    )
    seed = StrictIntegerField(
        min_value=0,
        max_value=2**62,
        required=False,
        help_text="Random seeding: the seed to record (published once the event starts). "
        "Left out, the start draws one and records it.",
    )
    order = serializers.ListField(
        child=StrictIntegerField(min_value=1),
        required=False,
        max_length=4096,
        help_text="Manual seeding: entry ids, first seed first (every active entry once).",
    )


class EventLogSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.get_username", allow_null=True, default=None)
    pairing = serializers.CharField(source="pairing.key", allow_null=True, default=None)

    class Meta:
        model = EventLog
        fields = ["id", "at", "action", "actor", "reason", "pairing", "entry", "detail"]
        read_only_fields = fields


class OpenRegistrationView(OrganiserView):
    """Open registration now (a draft, or an event whose registration closed)."""

    @error_codes({"409": ["event_started", "event_repeats"]}, EVENT_ORGANISER_CODES)
    @extend_schema(request=None, responses={200: EventSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        return self.act(request, pk, services.event_open_registration)

    def act(self, request, pk, service, **kwargs) -> Response:
        try:
            event = service(event=self.event(pk), by=request.user, **kwargs)
        except services.TournamentError as error:
            return refusal(error)
        return Response(event_body(request, event))


class CloseRegistrationView(OpenRegistrationView):
    """Close registration now; the event can still start (or reopen)."""

    @error_codes({"409": ["registration_closed"]}, EVENT_ORGANISER_CODES)
    @extend_schema(request=None, responses={200: EventSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        return self.act(request, pk, services.event_close_registration)


class StartView(OpenRegistrationView):
    """Start: drop those who did not check in, seed, pair the first round, start matches."""

    @error_codes(
        {
            "400": ["not_enough_entries", "unknown_bot", *EVENT_OPTION_CODES],
            "409": ["event_started", "same_stable", "event_repeats"],
        },
        EVENT_ORGANISER_CODES,
    )
    @extend_schema(request=None, responses={200: EventSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        return self.act(request, pk, services.event_start)


class CancelView(OpenRegistrationView):
    """Cancel an event that has not ended, with a reason; unfinished matches are cancelled."""

    @error_codes({"409": ["event_over"]}, EVENT_ORGANISER_CODES)
    @extend_schema(request=ReasonSerializer, responses={200: EventSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        body = ReasonSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self.act(request, pk, services.event_cancel, reason=body.validated_data["reason"])


class SeedView(OrganiserView):
    """Seed the active entries now: by rating, random (with the seed to record) or a manual
    order of entry ids. The start seeds again by the same method."""

    @extend_schema(
        request=SeedSerializer, responses={200: EntrySerializer(many=True), 409: ErrorSerializer}
    )
    @error_codes(
        {
            "400": ["invalid_seed", "duplicate_seed", "unknown_entry", "incomplete_order"],
            "409": ["event_started", "same_stable"],
        },
        EVENT_ORGANISER_CODES,
    )
    def post(self, request: Request, pk: int) -> Response:
        body = SeedSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        try:
            order = services.event_seed(event=event, by=request.user, **body.validated_data)
        except services.TournamentError as error:
            return refusal(error)
        return Response(entries_body(order))


class EventLogView(OrganiserView):
    """The event's audit log, newest first: who did what, when and why."""

    staff_permissions = {"GET": "tournaments.view_eventlog"}

    @extend_schema(responses={200: EventLogSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        event = self.event(pk)
        log = event.log.select_related("actor", "pairing")
        return Response(EventLogSerializer(log, many=True).data)
