"""Elimination events started before brackets counted their rounds as players live them
kept the number of round columns drawn as their planned rounds: an 8-player single
elimination with a third-place match said 4 rounds (3: the third-place match is played beside
the final), a double elimination of 8 said 9 (up to 7). Count them again, as the start does
now (``tournaments.formats.bracket.rounds_count``); a groups-then-playoffs event's group
rounds stay as they are."""

from django.db import migrations

from tournaments.formats import bracket as brackets
from tournaments.formats import double_elim, single_elim, two_stage

ELIMINATION = ("single_elim", "double_elim")


def _bracket(event) -> brackets.Bracket:
    """The event's bracket (a two-stage event's playoff), as ``bracket_of`` builds it."""
    if event.format == "two_stage":
        plan = two_stage.plan(
            event.entrants_count,
            group_count=event.group_count,
            group_size=event.group_size,
            advance=event.advance_per_group,
        )
        option = event.third_place if event.playoff_format == "single_elim" else event.bracket_reset
        return two_stage.build_playoff(
            plan.group_count,
            plan.advance,
            playoff_format=event.playoff_format,
            third_place=option,
            bracket_reset=option,
            formats_version=event.formats_version,
        )
    if event.format == "single_elim":
        return single_elim.build(event.entrants_count, third_place=event.third_place)
    orders = double_elim.drop_orders(event.entrants_count, version=event.formats_version)
    return double_elim.build(event.entrants_count, reset=event.bracket_reset, orders=orders)


def count_bracket_rounds(apps, schema_editor) -> None:
    """Every started elimination (or two-stage) event's ``rounds_planned`` from its bracket:
    the columns drawn before, its rounds now (a two-stage event: its group rounds, then
    its playoff's)."""
    Event = apps.get_model("tournaments", "Event")
    started = Event.objects.filter(
        format__in=(*ELIMINATION, "two_stage"),
        entrants_count__isnull=False,
        rounds_planned__isnull=False,
    )
    for event in started.iterator():
        try:
            bracket = _bracket(event)
        except (ValueError, two_stage.OptionError):
            continue  # settings no start would take: nothing was counted for them
        rounds = brackets.rounds_count(bracket)
        if event.format == "two_stage":
            plan = two_stage.plan(
                event.entrants_count,
                group_count=event.group_count,
                group_size=event.group_size,
                advance=event.advance_per_group,
            )
            rounds += two_stage.stage_rounds(plan, event.group_format, event.swiss_rounds)
        if rounds != event.rounds_planned:
            Event.objects.filter(pk=event.pk).update(rounds_planned=rounds)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_event_repeat"),
    ]

    operations = [
        migrations.RunPython(count_bracket_rounds, migrations.RunPython.noop, elidable=True),
    ]
