"""How an event and an entry read, for the REST API and the event socket alike.

The event socket (``tournaments.consumers``) sends what ``GET /api/events/{id}`` answers, so
both render with these serializers; the API's views and its other serializers stay in
``tournaments.api``.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request

from accounts.selectors import player_for_user
from games.api import PlayerBriefSerializer
from tournaments import selectors, services
from tournaments.models import Entry, Event


def is_staff(request: Request) -> bool:
    """Whether the request is a staff user's (drafts and usernames are shown to staff only)."""
    return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class EntrySerializer(serializers.ModelSerializer):
    player = PlayerBriefSerializer(read_only=True)

    class Meta:
        model = Entry
        fields = [
            "id",
            "event",
            "player",
            "seed",
            "status",
            "late",
            "rating",
            "final_rank",
            "registered_at",
            "checked_in_at",
            "withdrawn_at",
            "paused_at",
        ]
        read_only_fields = fields


OrganiserSerializer = inline_serializer(
    "Organiser",
    many=True,
    fields={
        "id": serializers.IntegerField(help_text="The user's id."),
        "username": serializers.CharField(
            allow_null=True, help_text="Shown to staff only (null for anyone else)."
        ),
        "name": serializers.CharField(allow_null=True, help_text="Their player's name, if any."),
    },
)


class EventSerializer(serializers.ModelSerializer):
    """An event as everyone sees it; ``your_entry`` for a signed-in player."""

    champion = PlayerBriefSerializer(read_only=True, allow_null=True)
    time_control = serializers.SerializerMethodField()
    entries_count = serializers.IntegerField(read_only=True)
    registration_open = serializers.SerializerMethodField()
    your_entry = serializers.SerializerMethodField()
    seeding_seed = serializers.SerializerMethodField()
    organisers = serializers.SerializerMethodField()
    next_occurrence = serializers.SerializerMethodField(
        help_text="A recurring event (a draft with a repeat_rule): the next start its rule "
        "gives; null for any other event."
    )

    class Meta:
        model = Event
        fields = [
            "id",
            "name",
            "format",
            "status",
            "rules",
            "best_of",
            "target",
            "duplicate_deals",
            "time_control",
            "grace_seconds",
            "rated",
            "venue",
            "accept_entered_results",
            "registration_opens_at",
            "registration_closes_at",
            "registration_open",
            "check_in_opens_at",
            "starts_at",
            "check_in_minutes",
            "repeat_rule",
            "repeat_lead_minutes",
            "repeat_timezone",
            "next_occurrence",
            "template",
            "repeat_stopped_at",
            "description",
            "capacity",
            "bots_only",
            "entries_count",
            "late_registration",
            "seeding",
            "seeding_seed",
            "third_place",
            "bracket_reset",
            "double_round_robin",
            "swiss_rounds",
            "group_count",
            "group_size",
            "group_format",
            "advance_per_group",
            "playoff_format",
            "arena_minutes",
            "berserk",
            "ends_at",
            "tiebreaks",
            "tiebreak_unplayed",
            "rounds_planned",
            "champion",
            "organisers",
            "your_entry",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_time_control(self, event: Event) -> dict | None:
        if event.base_seconds is None:
            return None
        return {
            "base_seconds": event.base_seconds,
            "increment_seconds": event.increment_seconds,
            "turn_limit_seconds": event.turn_limit_seconds,
            "timeout_policy": event.timeout_policy,
        }

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_next_occurrence(self, event: Event) -> str | None:
        start = services.next_occurrence(event, timezone.now())
        return None if start is None else serializers.DateTimeField().to_representation(start)

    def get_registration_open(self, event: Event) -> bool:
        return services.registration_open(event)

    def get_seeding_seed(self, event: Event) -> int | None:
        """A random seeding's seed, published once the event started: before, it would give
        the bracket away while entries may still come."""
        return event.seeding_seed if event.started_at is not None else None

    @extend_schema_field(OrganiserSerializer)
    def get_organisers(self, event: Event) -> list[dict]:
        """Its creator, then its co-organisers; usernames for staff only (they sign in)."""
        request = self.context.get("request")
        staff = bool(request is not None and is_staff(request))
        return [
            {
                "id": user.pk,
                "username": user.get_username() if staff else None,
                "name": getattr(getattr(user, "player", None), "name", None),
            }
            for user in selectors.organisers_of(event)
        ]

    def get_your_entry(self, event: Event) -> dict | None:
        request = self.context.get("request")
        entry = selectors.entry_of(
            event=event, player=player_for_user(user=request.user) if request else None
        )
        return None if entry is None else EntrySerializer(entry).data
