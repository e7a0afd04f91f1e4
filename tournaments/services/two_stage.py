"""Groups, then playoffs: the options checked, the groups dealt at the start.

An event of format ``two_stage`` starts by dealing its seeded field into groups in a snake
(``Entry.group``; see :mod:`tournaments.formats.two_stage`). :mod:`advancing
<tournaments.services.advancing>` plays the groups' rounds (all groups play their round
``r`` in the event's round ``r``), and after the longest group's last round gives the top of
each group their playoff seeds and creates the playoff's bracket.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.formats import bracket as brackets
from tournaments.formats import two_stage
from tournaments.models import Entry, Event, Format, Pairing
from tournaments.selectors import bracket_of
from tournaments.services.base import Conflict, TournamentError


def _refusal(error: two_stage.OptionError) -> TournamentError:
    """The option's refusal in the reader's language (the pure format says it in English)."""
    message = _(error.template) % error.params if error.params else _(error.template)
    return TournamentError(message, code="invalid_groups", option=error.option)


def plan_of(event: Event, entrants: int | None = None) -> two_stage.Plan:
    """The event's groups for ``entrants`` players (default: the field it started with).

    TournamentError ``invalid_groups`` names the option that makes it impossible.
    """
    n = event.entrants_count if entrants is None else entrants
    assert n is not None
    try:
        return two_stage.plan(
            n,
            group_count=event.group_count,
            group_size=event.group_size,
            advance=event.advance_per_group,
        )
    except two_stage.OptionError as error:
        raise _refusal(error) from None


def options_check(event: Event) -> None:
    """Refuse two-stage options that can never work, naming the option (``invalid_groups``).

    A full event (its capacity) must make playable groups; a smaller field is checked at
    the start.
    """
    for option, value, known in (
        ("group_format", event.group_format, two_stage.GROUP_FORMATS),
        ("playoff_format", event.playoff_format, two_stage.PLAYOFF_FORMATS),
    ):
        if value not in known:
            raise TournamentError(
                _("unknown %(option)s %(value)r; known: %(known)s")
                % {"option": option, "value": value, "known": ", ".join(known)},
                code="invalid_groups",
                option=option,
            )
    try:
        two_stage.group_count_for(
            max(event.capacity or 0, 2),
            group_count=event.group_count,
            group_size=event.group_size,
        )
    except two_stage.OptionError as error:
        raise _refusal(error) from None
    if event.advance_per_group < 1:
        raise TournamentError(
            _("advance_per_group is at least 1"), code="invalid_groups", option="advance_per_group"
        )
    if event.capacity is not None:
        plan_of(event, event.capacity)


def stage_rounds(event: Event) -> int:
    """Rounds of the group stage of a started event (the longest group's)."""
    return two_stage.stage_rounds(plan_of(event), event.group_format, event.swiss_rounds)


def rounds_planned(event: Event) -> int:
    """The group rounds, then the playoff's (its third-place match beside its final)."""
    return stage_rounds(event) + brackets.rounds_count(bracket_of(event))


def groups_deal(event: Event, order: list[Entry]) -> None:
    """At the start: each seeded entry's group by the snake (``order`` is by seed)."""
    for index, seeds in enumerate(plan_of(event).groups):
        for seed in seeds:
            order[seed - 1].group = index + 1
    Entry.objects.bulk_update(order, ["group"])


def playoff_started(event: Event) -> bool:
    """Whether the groups are over and the playoff's players known."""
    return event.entries.filter(playoff_seed__isnull=False).exists()


def group_results_open(event: Event, pairing: Pairing) -> None:
    """Refuse to change a group match's result once the playoff started (409
    ``playoff_started``): its players were qualified by the results as they stood."""
    if (
        event.format == Format.TWO_STAGE
        and two_stage.is_group_key(pairing.key)
        and playoff_started(event)
    ):
        raise Conflict(
            _("the playoff has started: the group results that qualified its players stand"),
            code="playoff_started",
        )


__all__ = [
    "group_results_open",
    "groups_deal",
    "options_check",
    "plan_of",
    "playoff_started",
    "rounds_planned",
    "stage_rounds",
]
