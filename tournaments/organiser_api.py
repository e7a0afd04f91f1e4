"""The organiser API: every action of the event admin, for staff, by the same services.

Each view checks the model permission its action needs (:class:`StaffMay`: the one Django's
admin asks for the same action, e.g. ``tournaments.change_event`` to start an event,
``tournaments.change_pairing`` to override a result), calls the service the admin calls, and
answers what changed. Every write on an event is for its organisers (its creator and the
co-organisers they named) or those who may manage every event (:class:`EventOrganiser`).
Every change is written to the event's audit log, which ``GET /api/events/{id}/log`` reads. A
refused request changes nothing: 400 naming what is wrong, 409 for a state that does not allow
it (``event_started``, ``event_full``, ...), 403 ``permission_denied`` for anyone without the
permission (players included), 403 ``not_your_event`` for staff who do not organise it.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as accounts
from accounts.api import NAME_CODES, name_refusal
from accounts.models import NAME_MAX_LENGTH, Player
from common.api import StaffModelPermissions, error_body, refusal
from common.fields import StrictCharField, StrictIntegerField
from common.schema import error_codes
from games.engine import bots as engine_bots
from tournaments import interchange, selectors, services, webhooks
from tournaments.api import (
    EVENT_OPTION_CODES,
    EVENT_ORGANISER_CODES,
    EntrySerializer,
    ErrorSerializer,
    EventOrganiser,
    EventSerializer,
    _event,
)
from tournaments.models import (
    WEBHOOK_EVENTS,
    Entry,
    Event,
    EventLog,
    Pairing,
    Seeding,
    Webhook,
    WebhookDelivery,
)

# --- permissions ----------------------------------------------------------------------------


class StaffMay(permissions.BasePermission):
    """A staff user holding the permission the view names for the method
    (``staff_permissions = {"POST": "tournaments.change_event"}``); methods it does not name
    are left to the view's other permissions. Refused: 403 ``permission_denied``.

    Put it after ``IsAuthenticated`` so that an anonymous caller is told to sign in (401).
    """

    message = StaffModelPermissions.message

    def has_permission(self, request, view) -> bool:
        needed = getattr(view, "staff_permissions", {}).get(request.method)
        if needed is None:
            return request.method in permissions.SAFE_METHODS
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and user.has_perm(needed))


class OrganiserView(APIView):
    """A staff action on one event (``pk``); drafts included, as staff see them. A write is
    for the event's organisers only (403 ``not_your_event``)."""

    permission_classes = [permissions.IsAuthenticated, StaffMay, EventOrganiser]
    staff_permissions: dict[str, str] = {"POST": "tournaments.change_event"}

    def event(self, pk: int) -> Event:
        return _event(self.request, pk)


def _event_body(request: Request, event: Event) -> dict:
    event = selectors.event_list().get(pk=event.pk)
    return EventSerializer(event, context={"request": request}).data


def _entries_body(entries) -> list[dict]:
    ids = [e.pk for e in entries]
    found = {e.pk: e for e in Entry.objects.select_related("player").filter(pk__in=ids)}
    return EntrySerializer([found[pk] for pk in ids], many=True).data


# --- serializers ----------------------------------------------------------------------------


class ReasonSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=300)


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


class ImportSerializer(serializers.Serializer):
    csv = StrictCharField(
        max_length=200_000,
        trim_whitespace=False,
        help_text="A header naming `name` or `player_id` (and optionally `seed`), then one "
        "entrant a line.",
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


class OverrideSerializer(serializers.Serializer):
    winner = StrictIntegerField(min_value=1, help_text="The winning player's id.")
    reason = StrictCharField(max_length=1000)


class EventLogSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.get_username", allow_null=True, default=None)
    pairing = serializers.CharField(source="pairing.key", allow_null=True, default=None)

    class Meta:
        model = EventLog
        fields = ["id", "at", "action", "actor", "reason", "pairing", "entry", "detail"]
        read_only_fields = fields


class WebhookSerializer(serializers.ModelSerializer):
    """A webhook; its signing secret only for those who may change webhooks (with it anyone
    forges deliveries the receiver trusts), as in the admin."""

    class Meta:
        model = Webhook
        fields = ["id", "event", "url", "events", "active", "secret", "created_at"]
        read_only_fields = ["id", "event", "secret", "created_at"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if request is None or not request.user.has_perm("tournaments.change_webhook"):
            data.pop("secret")
        return data


class WebhookCreateSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WEBHOOK_EVENTS), required=False, max_length=8
    )
    active = serializers.BooleanField(required=False)


class DeliverySerializer(serializers.ModelSerializer):
    response_excerpt = serializers.SerializerMethodField()

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "uuid",
            "event_type",
            "status",
            "attempts",
            "response_status",
            "response_excerpt",
            "error",
            "created_at",
            "last_attempt_at",
            "delivered_at",
        ]
        read_only_fields = fields

    def get_response_excerpt(self, delivery: WebhookDelivery) -> str:
        """The receiver's answer only as a short excerpt (it is whatever they sent)."""
        return webhooks.excerpt(delivery.response_body.encode())


# --- events ---------------------------------------------------------------------------------


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
        return Response(_event_body(request, event))


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
            raise serializers.ValidationError({"player": ["No player has this id."]})
        try:
            entry = services.entry_add(event=event, player=player, by=request.user)
        except services.TournamentError as error:
            return refusal(error)
        return Response(_entries_body([entry])[0], status=status.HTTP_201_CREATED)


def guest_name_refusal(error: DjangoValidationError) -> Response:
    """A refused guest name as a 400: ``name_taken`` for a name in use (ignoring case), else
    the code registration answers with (``name_confusable``, ``invalid``, ...)."""
    refused = error.error_dict.get("name", []) if hasattr(error, "error_dict") else []
    if any(e.code == "unique" for e in refused):
        body = error_body(
            "A player with this name already exists: enter them by their id "
            "(POST /api/events/{id}/players), or give the guest another name.",
            "name_taken",
            error.message_dict,
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
        return Response(_entries_body([entry])[0], status=status.HTTP_201_CREATED)


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
        return Response(_entries_body(entries), status=status.HTTP_201_CREATED)


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
        return Response(_entries_body(entries), status=status.HTTP_201_CREATED)


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
        return Response(_entries_body(order))


class EventLogView(OrganiserView):
    """The event's audit log, newest first: who did what, when and why."""

    staff_permissions = {"GET": "tournaments.view_eventlog"}

    @extend_schema(responses={200: EventLogSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        event = self.event(pk)
        log = event.log.select_related("actor", "pairing")
        return Response(EventLogSerializer(log, many=True).data)


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


# --- entries and pairings -------------------------------------------------------------------


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
        return Response(_entries_body([entry])[0])


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
        "403": ["bots_only"],
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
        return Response(_entries_body([entry])[0])


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
            raise serializers.ValidationError({"winner": ["No player has this id."]})
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


# --- webhooks -------------------------------------------------------------------------------


class WebhooksView(OrganiserView):
    """The event's webhooks (GET); POST registers one. Its URL must be one the service may
    call (400 ``webhook_url_refused`` naming why); its secret is shown only to staff who may
    change webhooks."""

    staff_permissions = {"GET": "tournaments.view_webhook", "POST": "tournaments.add_webhook"}

    @extend_schema(responses={200: WebhookSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        hooks = self.event(pk).webhooks.order_by("pk")
        return Response(WebhookSerializer(hooks, many=True, context={"request": request}).data)

    @extend_schema(
        request=WebhookCreateSerializer, responses={201: WebhookSerializer, 400: ErrorSerializer}
    )
    @error_codes({"400": ["webhook_url_refused"]}, EVENT_ORGANISER_CODES)
    def post(self, request: Request, pk: int) -> Response:
        body = WebhookCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = self.event(pk)
        hook = Webhook(event=event, **body.validated_data)
        try:
            hook.clean()  # the admin's check: no private, loopback or unresolvable address
        except DjangoValidationError as error:
            problem = error.error_dict["url"][0]
            return refusal(webhooks.UnsafeWebhookURL(problem.messages[0], code=problem.code))
        with transaction.atomic():
            hook.save()
            EventLog.objects.create(
                event=event, action="add_webhook", actor=request.user, detail={"webhook": hook.pk}
            )
        return Response(
            WebhookSerializer(hook, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class DeliveriesView(OrganiserView):
    """A webhook's deliveries, newest first: type, status, attempts, the receiver's answer."""

    staff_permissions = {"GET": "tournaments.view_webhookdelivery"}

    @extend_schema(responses={200: DeliverySerializer(many=True)})
    def get(self, request: Request, pk: int, webhook_id: int) -> Response:
        hook = get_object_or_404(Webhook, pk=webhook_id, event=self.event(pk))
        deliveries = hook.deliveries.order_by("-pk")[:200]
        return Response(DeliverySerializer(deliveries, many=True).data)


class ResendView(OrganiserView):
    """Send a delivery again, whatever became of it (the admin's "Deliver again")."""

    staff_permissions = {"POST": "tournaments.change_webhookdelivery"}

    @extend_schema(request=None, responses={202: DeliverySerializer})
    @error_codes(EVENT_ORGANISER_CODES)
    def post(self, request: Request, pk: int, webhook_id: int, delivery_id: int) -> Response:
        event = self.event(pk)
        delivery = get_object_or_404(
            WebhookDelivery, pk=delivery_id, webhook_id=webhook_id, webhook__event=event
        )
        with transaction.atomic():
            webhooks.redeliver(delivery)
            EventLog.objects.create(
                event=event,
                action="resend_delivery",
                actor=request.user,
                detail={"delivery": delivery.pk},
            )
        delivery.refresh_from_db()
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)


urlpatterns = [
    path(
        "events/<int:pk>/open-registration",
        OpenRegistrationView.as_view(),
        name="event-open-registration",
    ),
    path(
        "events/<int:pk>/close-registration",
        CloseRegistrationView.as_view(),
        name="event-close-registration",
    ),
    path("events/<int:pk>/players", PlayersAddView.as_view(), name="event-players"),
    path("events/<int:pk>/guests", GuestsAddView.as_view(), name="event-guests"),
    path("events/<int:pk>/bots", BotsAddView.as_view(), name="event-bots"),
    path("events/<int:pk>/import", ImportView.as_view(), name="event-import"),
    path("events/<int:pk>/seed", SeedView.as_view(), name="event-seed"),
    path("events/<int:pk>/start", StartView.as_view(), name="event-start"),
    path("events/<int:pk>/cancel", CancelView.as_view(), name="event-cancel"),
    path("events/<int:pk>/log", EventLogView.as_view(), name="event-log"),
    path("events/<int:pk>/trf", TrfView.as_view(), name="event-trf"),
    path(
        "events/<int:pk>/entries/<int:entry_id>/withdraw",
        EntryWithdrawView.as_view(),
        name="event-entry-withdraw",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/disqualify",
        EntryDisqualifyView.as_view(),
        name="event-entry-disqualify",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/reinstate",
        EntryReinstateView.as_view(),
        name="event-entry-reinstate",
    ),
    path(
        "events/<int:pk>/entries/<int:entry_id>/check-in",
        EntryCheckInView.as_view(),
        name="event-entry-check-in",
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/override",
        OverrideView.as_view(),
        name="event-pairing-override",
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/rerun", RerunView.as_view(), name="event-pairing-rerun"
    ),
    path(
        "events/<int:pk>/pairings/<str:key>/table",
        ToTableView.as_view(),
        name="event-pairing-table",
    ),
    path("events/<int:pk>/webhooks", WebhooksView.as_view(), name="event-webhooks"),
    path(
        "events/<int:pk>/webhooks/<int:webhook_id>/deliveries",
        DeliveriesView.as_view(),
        name="event-webhook-deliveries",
    ),
    path(
        "events/<int:pk>/webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/resend",
        ResendView.as_view(),
        name="event-webhook-resend",
    ),
]
