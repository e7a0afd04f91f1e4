"""Tournaments API: events, registration, the bracket, standings, CSV exports, showing up.

One module, a little over the usual size: an event's reads and a player's own actions on it
(register, check in, withdraw, show up) share its serializers, lookups and visibility rule.

Views validate, call one service or selector, and serialize. A refused request changes nothing
and answers 4xx in the project's error shape, e.g. 409 ``already_registered``,
``registration_closed``, ``event_full``, ``event_over``; 400 for unknown filters or options.
Draft events are visible to staff only (404 for anyone else).
"""

from __future__ import annotations

import csv
import io

import django_filters
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Case, IntegerField, Q, Value, When
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import exceptions, generics, permissions, serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import require_player
from accounts.models import Player
from common.api import StaffModelPermissions, refusal
from common.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from common.schema import error_codes
from games.api import IdFilter, PlayerBriefSerializer, RulesField
from games.models import Match, TimeoutPolicy
from tournaments import selectors, services
from tournaments.formats.standings import TIEBREAKS
from tournaments.formats.two_stage import MAX_GROUPS
from tournaments.models import (
    Entry,
    Event,
    Format,
    GroupFormat,
    PlayoffFormat,
    Seeding,
    TiebreakUnplayed,
    Venue,
)
from tournaments.serializers import (
    EntrySerializer,
    EventSerializer,
    is_staff,
)
from tournaments.services.events import DESCRIPTION_MAX
from tournaments.settings_fields import API_SETTINGS

# --- helpers ---------------------------------------------------------------------------------


class FormatIsAFilter(DefaultContentNegotiation):
    """``?format=swiss`` filters events here; it must not pick DRF's renderer."""

    class settings:  # stands in for DRF's api_settings, the only setting it reads
        URL_FORMAT_OVERRIDE = None


def _event(request: Request, pk: int) -> Event:
    event = get_object_or_404(selectors.event_list(), pk=pk)
    if event.status == Event.Status.DRAFT and not is_staff(request):
        raise Http404
    return event


def organiser_name(user) -> str:
    """An organiser as others are told of them: their player's name, else their username."""
    player = getattr(user, "player", None)
    return player.name if player is not None else user.get_username()


def not_your_event(event: Event) -> str:
    """Why a write on someone else's event is refused, naming who may make it."""
    names = [organiser_name(user) for user in selectors.organisers_of(event)]
    if not names:
        return _(
            "This event is not yours: it has no organiser, so only those who may manage every "
            "event change it."
        )
    return _(
        "This event is not yours: its organisers are %(organisers)s. Ask one of them to "
        "name you a co-organiser."
    ) % {"organisers": ", ".join(names)}


class EventOrganiser(permissions.BasePermission):
    """A write on an existing event (the view's ``pk``) only by one of its organisers (its
    creator and co-organisers) or someone who may manage every event
    (:func:`tournaments.selectors.may_manage`). Refused: 403 ``not_your_event``, naming the
    organisers. Reads are left to the view's other permissions.

    Put it after the model permission (``StaffMay``, ``StaffModelPermissions``): someone who
    may not change events at all is told that first (403 ``permission_denied``).
    """

    def has_permission(self, request, view) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        pk = view.kwargs.get("pk")
        event = Event.objects.filter(pk=pk).first() if pk is not None else None
        if event is None:
            return True  # nothing to change: the view answers 404
        if not selectors.may_manage(request.user, event):
            raise exceptions.PermissionDenied(not_your_event(event), code="not_your_event")
        return True


#: What :class:`EventOrganiser` adds to the codes of a view it guards (an organiser's write).
EVENT_ORGANISER_CODES = {"403": ["not_your_event"]}


# --- serializers -----------------------------------------------------------------------------


class OffsetDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date and time with its offset from UTC: a time without one would be read
    in the server's zone, silently hours away from the organiser's."""

    default_error_messages = {
        "naive": gettext_lazy("Give the time with its UTC offset, e.g. 2027-03-01T19:30:00+01:00.")
    }

    def to_internal_value(self, value):
        if isinstance(value, str):
            parsed = parse_datetime(value.strip())
            if parsed is not None and parsed.tzinfo is None:
                self.fail("naive")
        return super().to_internal_value(value)


class EventCreateSerializer(serializers.Serializer):
    """What staff give to create an event; everything but name and format has a default."""

    name = StrictCharField(max_length=120)
    format = serializers.ChoiceField(choices=Format.choices)
    seeding = serializers.ChoiceField(choices=Seeding.choices, required=False)
    rules = RulesField(required=False)
    best_of = StrictIntegerField(min_value=1, max_value=9, required=False)
    target = StrictIntegerField(min_value=25, max_value=1000, required=False)
    duplicate_deals = StrictBooleanField(required=False)
    base_seconds = StrictIntegerField(
        min_value=10, max_value=24 * 3600, required=False, allow_null=True
    )
    increment_seconds = StrictIntegerField(min_value=0, max_value=600, required=False)
    turn_limit_seconds = StrictIntegerField(
        min_value=5, max_value=24 * 3600, required=False, allow_null=True
    )
    timeout_policy = serializers.ChoiceField(choices=TimeoutPolicy.choices, required=False)
    grace_seconds = StrictIntegerField(min_value=0, max_value=24 * 3600, required=False)
    rated = StrictBooleanField(required=False)
    venue = serializers.ChoiceField(
        choices=Venue.choices,
        required=False,
        help_text="Where matches between people are played: online, at numbered tables with "
        "real cards (their hands entered by the players), or mixed (online unless the "
        "organiser moves a match to a table). Not with duplicate deals.",
    )
    accept_entered_results = StrictBooleanField(
        required=False,
        help_text="Table matches: the result a player enters stands without the opponent's "
        "confirmation.",
    )
    registration_opens_at = serializers.DateTimeField(required=False, allow_null=True)
    registration_closes_at = serializers.DateTimeField(required=False, allow_null=True)
    check_in_opens_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="Check-in opens then; derived from starts_at and check_in_minutes when both "
        "are set (giving another time with them is refused).",
    )
    starts_at = OffsetDateTimeField(
        required=False,
        allow_null=True,
        help_text="ISO 8601 with its UTC offset. The event starts by itself then (if "
        "registration is open), or is cancelled if fewer than two players are left.",
    )
    check_in_minutes = StrictIntegerField(
        min_value=1,
        max_value=7 * 24 * 60,
        required=False,
        allow_null=True,
        help_text="A check-in window this many minutes before starts_at: only those who "
        "checked in are paired (house bots check in themselves).",
    )
    repeat_rule = StrictCharField(
        max_length=500,
        required=False,
        allow_blank=True,
        help_text="The event repeats: an iCalendar repeat rule, e.g. "
        "FREQ=WEEKLY;BYDAY=SA;BYHOUR=14;BYMINUTE=0, its first start starts_at. A draft with a "
        "rule is a template: each occurrence (a copy of its settings) is created, registration "
        "open, repeat_lead_minutes before its start. At most once every 15 minutes. Empty: "
        "stops repeating (the occurrences created stay).",
    )
    repeat_lead_minutes = StrictIntegerField(
        min_value=1,
        max_value=30 * 24 * 60,
        required=False,
        help_text="How long before each start its occurrence is created (default 60).",
    )
    repeat_timezone = StrictCharField(
        max_length=64,
        required=False,
        help_text="The time zone of the rule's times (IANA name, default UTC): 20:00 daily "
        "stays 20:00 there across summer time.",
    )
    description = StrictCharField(
        max_length=DESCRIPTION_MAX,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Plain text or Markdown, shown on the event's page.",
    )
    capacity = StrictIntegerField(min_value=2, max_value=4096, required=False, allow_null=True)
    bots_only = StrictBooleanField(required=False)
    late_registration = StrictBooleanField(required=False)
    third_place = StrictBooleanField(required=False)
    bracket_reset = StrictBooleanField(required=False)
    double_round_robin = StrictBooleanField(required=False)
    swiss_rounds = StrictIntegerField(min_value=1, max_value=50, required=False)
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=TIEBREAKS), required=False, max_length=6
    )
    tiebreak_unplayed = serializers.ChoiceField(choices=TiebreakUnplayed.choices, required=False)
    group_count = StrictIntegerField(
        min_value=1, max_value=MAX_GROUPS, required=False, allow_null=True
    )
    group_size = StrictIntegerField(min_value=2, max_value=4096, required=False, allow_null=True)
    group_format = serializers.ChoiceField(choices=GroupFormat.choices, required=False)
    advance_per_group = StrictIntegerField(min_value=1, max_value=4096, required=False)
    playoff_format = serializers.ChoiceField(choices=PlayoffFormat.choices, required=False)
    arena_minutes = serializers.FloatField(
        min_value=0.1, max_value=24 * 60, required=False, allow_null=True
    )
    berserk = StrictBooleanField(required=False)
    co_organisers = serializers.ListField(
        child=StrictCharField(max_length=150),
        required=False,
        max_length=50,
        help_text="The usernames of those who may change the event besides its creator (the "
        "whole list: it replaces the one before; empty: nobody else).",
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        """The declared fields, which must be the settings the API takes
        (``tournaments.settings_fields``, the admin's list too): a setting added there without
        its field here, or a field without its setting, fails loudly instead of being left out.
        """
        fields = super().get_fields()
        if set(fields) != API_SETTINGS:
            raise ImproperlyConfigured(
                "EventCreateSerializer's fields are not tournaments.settings_fields.API_SETTINGS: "
                f"{sorted(set(fields) ^ API_SETTINGS)}"
            )
        return fields

    def validate_co_organisers(self, names: list[str]) -> list:
        """The users named, in order; a name no active user has is refused (400)."""
        users = get_user_model().objects.filter(
            is_active=True, **{f"{get_user_model().USERNAME_FIELD}__in": names}
        )
        by_name = {user.get_username(): user for user in users}
        unknown = [name for name in names if name not in by_name]
        if unknown:
            raise serializers.ValidationError(
                _("No user has the username %(usernames)s.")
                % {"usernames": ", ".join(map(repr, unknown))}
            )
        return list({by_name[name].pk: by_name[name] for name in names}.values())

    def to_internal_value(self, data):
        """Refuse options this API does not know (400 naming each), as the service does."""
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: [_("unknown event option")] for name in unknown}
                )
        return super().to_internal_value(data)


ErrorSerializer = inline_serializer(
    "TournamentError", {"detail": serializers.CharField(), "code": serializers.CharField()}
)

BracketSerializer = inline_serializer(
    "Bracket",
    {
        "event": serializers.IntegerField(),
        "format": serializers.CharField(),
        "status": serializers.CharField(),
        "rounds_planned": serializers.IntegerField(allow_null=True),
        "champion": PlayerBriefSerializer(allow_null=True),
        "rounds": serializers.ListField(child=serializers.DictField()),
    },
)

StandingsSerializer = inline_serializer(
    "Standings",
    {
        "event": serializers.IntegerField(),
        "status": serializers.CharField(),
        "format": serializers.CharField(),
        "tiebreaks": serializers.ListField(child=serializers.CharField()),
        "tiebreak_unplayed": serializers.CharField(),
        "columns": serializers.ListField(child=serializers.CharField()),
        "rows": serializers.ListField(child=serializers.DictField()),
    },
)

ReadySerializer = inline_serializer(
    "MatchReady",
    {
        "match": serializers.IntegerField(),
        "status": serializers.CharField(),
        "ready": serializers.ListField(child=serializers.BooleanField()),
        "start_deadline": serializers.DateTimeField(allow_null=True),
    },
)


# --- events ----------------------------------------------------------------------------------


class EventFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=Event.Status.choices)
    format = django_filters.ChoiceFilter(choices=Format.choices)
    # "true" or "false" and nothing else (a bare 1 or yes is a 400, as the schema says).
    repeats = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")],
        method="filter_repeats",
        label="true: the recurring events (templates) only; false: none of them.",
    )
    template = IdFilter(field_name="template", label="The occurrences of this recurring event.")

    class Meta:
        model = Event
        fields = ["status", "format", "repeats", "template"]

    def filter_repeats(self, queryset, name, value):
        templates = Q(status=Event.Status.DRAFT) & ~Q(repeat_rule="")
        return queryset.filter(templates) if value == "true" else queryset.exclude(templates)


#: What an event's options can be refused with (creating, editing or starting it).
EVENT_OPTION_CODES = [
    "unknown_format",
    "unknown_seeding",
    "invalid_rules",
    "invalid_tiebreaks",
    "invalid_registration_window",
    "capacity",
    "invalid_groups",
    "invalid_arena_minutes",
    "invalid_venue",
    "duplicate_deals_at_table",
    "arena_online_only",
    "start_in_past",
    "registration_after_start",
    "check_in_needs_start",
    "check_in_too_long",
    "check_in_before_registration",
    "check_in_conflict",
    "description_too_long",
    "invalid_repeat_rule",
]


class EventListView(generics.ListAPIView):
    """Events, newest first (for staff, those they organise first), filtered by ``status``,
    ``format``, ``repeats`` (recurring events) and ``template`` (its occurrences). Staff POST
    to create one, and organise it."""

    serializer_class = EventSerializer
    filterset_class = EventFilter
    content_negotiation_class = FormatIsAFilter
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, StaffModelPermissions]

    def get_queryset(self):
        """Staff see drafts too, and the events they organise first."""
        events = selectors.event_list().prefetch_related(
            "created_by__player", "co_organisers__player"
        )
        if not is_staff(self.request):
            return events.exclude(status=Event.Status.DRAFT)
        yours = When(selectors.organised_by(self.request.user), then=Value(1))
        return events.annotate(
            yours=Case(yours, default=Value(0), output_field=IntegerField())
        ).order_by("-yours", "-id")

    @extend_schema(
        request=EventCreateSerializer, responses={201: EventSerializer, 400: ErrorSerializer}
    )
    @error_codes({"400": EVENT_OPTION_CODES})
    def post(self, request: Request) -> Response:
        serializer = EventCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        try:
            event = services.event_create(
                name=data.pop("name"), format=data.pop("format"), created_by=request.user, **data
            )
        except services.TournamentError as error:
            return refusal(error)
        event = selectors.event_list().get(pk=event.pk)
        return Response(
            EventSerializer(event, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class EventDetailView(APIView):
    """One event: format, match format, registration, progress, champion, organisers. Its
    organisers (staff who may change events) PATCH its settings (any of those it was created
    with; once started only the name and the co-organisers); anyone else 403
    ``not_your_event``."""

    permission_classes = [
        permissions.IsAuthenticatedOrReadOnly,
        StaffModelPermissions,
        EventOrganiser,
    ]
    queryset = Event.objects.all()  # whose model permission a write needs (change_event)

    @extend_schema(responses={200: EventSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(EventSerializer(_event(request, pk), context={"request": request}).data)

    @extend_schema(
        request=EventCreateSerializer,
        responses={200: EventSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
    )
    @error_codes(
        {"400": [*EVENT_OPTION_CODES, "guests_need_tables"], "409": ["event_started"]},
        EVENT_ORGANISER_CODES,
    )
    def patch(self, request: Request, pk: int) -> Response:
        event = _event(request, pk)
        serializer = EventCreateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        try:
            event = services.event_update(event=event, by=request.user, **serializer.validated_data)
        except services.TournamentError as error:
            return refusal(error)
        event = selectors.event_list().get(pk=event.pk)
        return Response(EventSerializer(event, context={"request": request}).data)


class EventEntriesView(APIView):
    """The entries of an event, by seed (then registration)."""

    @extend_schema(responses={200: EntrySerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        event = _event(request, pk)
        entries = event.entries.select_related("player").order_by("seed", "registered_at", "pk")
        return Response(EntrySerializer(entries, many=True).data)


class _EntryCommand(APIView):
    permission_classes = [permissions.IsAuthenticated]
    success_status = status.HTTP_200_OK

    def act(self, event: Event, player: Player) -> Entry:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: EntrySerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        player = require_player(request)
        event = _event(request, pk)
        try:
            entry = self.act(event, player)
        except services.TournamentError as error:
            return refusal(error)
        entry = Entry.objects.select_related("player").get(pk=entry.pk)
        return Response(EntrySerializer(entry).data, status=self.success_status)


def _own_entry(event: Event, player: Player) -> Entry:
    entry = selectors.entry_of(event=event, player=player)
    if entry is None:
        raise services.Conflict(_("you are not registered for this event"), code="not_registered")
    return entry


class RegisterView(_EntryCommand):
    """Register yourself (while registration is open; late into a Swiss if it allows)."""

    success_status = status.HTTP_201_CREATED

    @extend_schema(request=None, responses={201: EntrySerializer, 409: ErrorSerializer})
    @error_codes(
        {
            "400": ["unknown_bot", "duplicate_deals_need_bots"],
            "403": ["bots_only", "assisted_account"],
            "409": [
                "already_registered",
                "disqualified",
                "event_full",
                "event_over",
                "registration_closed",
            ],
        }
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)

    def act(self, event, player):
        return services.entry_register(event=event, player=player)


@error_codes({"409": ["not_registered", "already_withdrawn", "event_over"]})
class WithdrawView(_EntryCommand):
    """Withdraw yourself; in a running event your unfinished match is forfeited."""

    def act(self, event, player):
        return services.entry_withdraw(
            entry=_own_entry(event, player), by=player.user, reason="withdrew"
        )


@error_codes({"409": ["not_registered", "check_in_closed", "no_check_in"]})
class CheckInView(_EntryCommand):
    """Check in during the check-in window (those who do not are removed at the start)."""

    def act(self, event, player):
        return services.entry_check_in(entry=_own_entry(event, player), by=player.user)


class BracketView(APIView):
    """Rounds and pairings: players, match, result, where each winner and loser goes."""

    @extend_schema(responses={200: BracketSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(selectors.bracket_for_event(event=_event(request, pk)))


class StandingsView(APIView):
    """Standings: rank, the columns that fit the format (``columns``), the rating when known."""

    @extend_schema(responses={200: StandingsSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(selectors.standings_view(event=_event(request, pk)))


def _csv(name: str, columns: list[str], rows: list[dict]) -> HttpResponse:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


CSV_RESPONSE = {(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV")}


class StandingsCsvView(APIView):
    """The standings as CSV."""

    @extend_schema(responses=CSV_RESPONSE)
    def get(self, request: Request, pk: int) -> HttpResponse:
        event = _event(request, pk)
        standings = selectors.standings_for_event(event=event)
        rows = []
        for row in standings:
            rows.append({**row, "player": row["player"]["name"], "player_id": row["player"]["id"]})
        columns = ["rank", "player", "player_id", "seed", "status"]
        columns += selectors.standings_columns(event=event, rows=standings)
        return _csv(f"event-{event.pk}-standings.csv", columns, rows)


class ResultsCsvView(APIView):
    """Every decided pairing as CSV: round, table, players, winner, result, games, margin."""

    @extend_schema(responses=CSV_RESPONSE)
    def get(self, request: Request, pk: int) -> HttpResponse:
        event = _event(request, pk)
        rows = selectors.results_rows(event=event)
        return _csv(f"event-{event.pk}-results.csv", list(selectors.RESULT_COLUMNS), rows)


class MatchReadyView(APIView):
    """Show up for your tournament match; it starts when every human player has.

    After the grace period the player who did not show up forfeits (no show); a late call
    answers 409 ``too_late``.
    """

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: ReadySerializer, 409: ErrorSerializer})
    @error_codes({"403": ["not_a_player"], "409": ["match_over", "too_late"]})
    def post(self, request: Request, pk: int, match_id: int) -> Response:
        player = require_player(request)
        event = _event(request, pk)
        match = get_object_or_404(Match, pk=match_id)
        if not event.pairings.filter(match=match).exists():
            raise Http404
        try:
            pairing = services.match_ready(match=match, player=player)
        except services.TournamentError as error:
            return refusal(error)
        match.refresh_from_db()
        return Response(
            {
                "match": match.pk,
                "status": match.status,
                "ready": [pairing.ready_a_at is not None, pairing.ready_b_at is not None],
                "start_deadline": match.start_deadline,
            }
        )


urlpatterns = [
    path("events", EventListView.as_view(), name="event-list"),
    path("events/<int:pk>", EventDetailView.as_view(), name="event-detail"),
    path("events/<int:pk>/entries", EventEntriesView.as_view(), name="event-entries"),
    path("events/<int:pk>/register", RegisterView.as_view(), name="event-register"),
    path("events/<int:pk>/withdraw", WithdrawView.as_view(), name="event-withdraw"),
    path("events/<int:pk>/check-in", CheckInView.as_view(), name="event-check-in"),
    path("events/<int:pk>/bracket", BracketView.as_view(), name="event-bracket"),
    path("events/<int:pk>/standings", StandingsView.as_view(), name="event-standings"),
    path("events/<int:pk>/standings.csv", StandingsCsvView.as_view(), name="event-standings-csv"),
    path("events/<int:pk>/results.csv", ResultsCsvView.as_view(), name="event-results-csv"),
    path(
        "events/<int:pk>/matches/<int:match_id>/ready",
        MatchReadyView.as_view(),
        name="event-match-ready",
    ),
]
