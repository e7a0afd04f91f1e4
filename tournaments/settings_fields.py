"""The settings of an event, declared once: what an organiser sets, in groups, and each
format's own options. The admin's event form and its fieldsets, the organiser pages' form and
the API's ``EventCreateSerializer`` (``POST`` and ``PATCH /api/events``) all read them here.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments.formats.standings import TIEBREAKS
from tournaments.models import Format

#: The tiebreaks as the forms name them, and one select per place in their order.
TIEBREAK_LABELS = {
    "direct_encounter": _("Direct encounter"),
    "buchholz": "Buchholz",
    "median_buchholz": _("Median Buchholz"),
    "sonneborn_berger": "Sonneborn-Berger",
    "games_won": _("Games won"),
    "margin": _("Point margin"),
}
TIEBREAK_FIELDS: tuple[str, ...] = tuple(f"tiebreak_{n}" for n in range(1, len(TIEBREAKS) + 1))
TIEBREAK_SETTINGS: tuple[str, ...] = (*TIEBREAK_FIELDS, "tiebreak_unplayed")

#: Each format's own settings (fields of Event or of the admin's EventForm): the forms show
#: them only while that format is chosen, and a started event's page only its format's. A new
#: format declares its line here; a field not listed under any format is shown for all.
FORMAT_FIELDS: dict[str, tuple[str, ...]] = {
    Format.SINGLE_ELIM: ("third_place",),
    Format.DOUBLE_ELIM: ("bracket_reset",),
    Format.ROUND_ROBIN: ("double_round_robin", *TIEBREAK_SETTINGS),
    Format.SWISS: ("swiss_rounds", "late_registration", *TIEBREAK_SETTINGS),
    Format.ARENA: ("arena_minutes", "berserk"),
    Format.TWO_STAGE: (
        "group_count",
        "group_size",
        "group_format",
        "swiss_rounds",
        "advance_per_group",
        "playoff_format",
        "third_place",
        "bracket_reset",
        *TIEBREAK_SETTINGS,
    ),
}


def format_fields() -> list[str]:
    """Every format's own fields, each once, in the order the formats declare them."""
    return list(dict.fromkeys(name for names in FORMAT_FIELDS.values() for name in names))


#: What an organiser sets on an event (the rest is progress, kept by the services), in the
#: order the admin's form checks them (and the audit log lists what changed).
EVENT_SETTINGS = [
    "name",
    "format",
    "rules",
    "best_of",
    "target",
    "duplicate_deals",
    "base_seconds",
    "increment_seconds",
    "turn_limit_seconds",
    "timeout_policy",
    "grace_seconds",
    "rated",
    "venue",
    "accept_entered_results",
    "description",
    "co_organisers",
    "starts_at",
    "registration_opens_at",
    "registration_closes_at",
    "check_in_minutes",
    "check_in_opens_at",
    "repeat_rule",
    "repeat_timezone",
    "repeat_lead_minutes",
    "capacity",
    "bots_only",
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
    "tiebreaks",
    "tiebreak_unplayed",
]
#: Settings the API does not take: a random seeding's seed is drawn at the start (staff may
#: fix it in the admin, to replay a draw).
ADMIN_ONLY_SETTINGS = frozenset({"seeding_seed"})
#: What ``POST /api/events`` takes (and ``PATCH`` changes).
API_SETTINGS = frozenset(EVENT_SETTINGS) - ADMIN_ONLY_SETTINGS

#: The settings by group, as the admin's event page shows them (each format's own options
#: and the match's rules are grouped by the page itself).
GENERAL_SETTINGS = ["name", "format", "rated"]
MATCH_SETTINGS = ["target", "best_of", "duplicate_deals"]
CLOCK_SETTINGS = [
    "base_seconds",
    "increment_seconds",
    "turn_limit_seconds",
    "timeout_policy",
    "grace_seconds",
]
SCHEDULE_SETTINGS = [
    "description",
    "co_organisers",
    "starts_at",
    "registration_opens_at",
    "registration_closes_at",
    "check_in_minutes",
    "check_in_opens_at",
    "repeat_rule",
    "repeat_timezone",
    "repeat_lead_minutes",
]
ENTRY_SETTINGS = ["capacity", "bots_only", "seeding", "seeding_seed"]
