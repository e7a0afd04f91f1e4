"""A running event keeps the pairing rules it started with across an upgrade."""

import pytest

from tests.tournaments import event_with, humans
from tournaments import services
from tournaments.formats import FORMATS_VERSION, double_elim, round_robin
from tournaments.formats.drop_orders_v2 import DROP_ORDERS_V2
from tournaments.models import Event, Pairing

pytestmark = pytest.mark.django_db


def losers_round_two_drops(bracket):
    return [bracket.nodes[f"L2.{i}"].feeds[0].key for i in (1, 2, 3, 4)]


def test_a_new_double_elimination_uses_the_measured_drop_in_orders():
    event = event_with(humans(16), "double_elim")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.formats_version == FORMATS_VERSION
    measured = double_elim.build(16)
    assert losers_round_two_drops(services.bracket_of(event)) == losers_round_two_drops(measured)


def test_a_double_elimination_started_before_keeps_the_classic_order():
    event = event_with(humans(16), "double_elim")
    services.event_start(event=event)
    Event.objects.filter(pk=event.pk).update(formats_version=None)
    event.refresh_from_db()
    classic = double_elim.build(16, orders=double_elim.classic_orders(4))
    assert losers_round_two_drops(services.bracket_of(event)) == losers_round_two_drops(classic)
    assert losers_round_two_drops(classic) != losers_round_two_drops(double_elim.build(16))


def test_a_double_elimination_started_with_version_2_keeps_its_drop_in_orders():
    # 20 entrants: version 2 dropped winners round 2 in pair-flip order, version 3 does not.
    event = event_with(humans(20), "double_elim")
    services.event_start(event=event)
    Event.objects.filter(pk=event.pk).update(formats_version=2)
    event.refresh_from_db()
    kept = double_elim.build(20, orders=DROP_ORDERS_V2[20])
    assert losers_round_two_drops(services.bracket_of(event)) == losers_round_two_drops(kept)
    assert losers_round_two_drops(kept) != losers_round_two_drops(double_elim.build(20))


@pytest.mark.parametrize(("version", "swapped"), [(FORMATS_VERSION, True), (None, False)])
def test_a_double_round_robin_swaps_its_last_two_first_cycle_rounds_only_if_started_so(
    version, swapped
):
    event = event_with(humans(4), "round_robin", double_round_robin=True)
    services.event_start(event=event)
    Event.objects.filter(pk=event.pk).update(formats_version=version)
    event.refresh_from_db()
    by_seed = {e.seed: e.pk for e in event.entries.all()}
    schedule = round_robin.berger(4, double=True, swap_last_rounds=swapped)
    # Play rounds 1 and 2 (forfeits are enough) and look at round 3, the cycle's last.
    from tests.tournaments import decide

    for number in (1, 2):
        for p in Pairing.objects.filter(event=event, round__number=number, status="playing"):
            decide(event, p.key, p.entry_a.player)
    third = Pairing.objects.filter(event=event, round__number=3).order_by("table")
    expected = {frozenset((by_seed[a], by_seed[b])) for a, b in schedule[2]}
    assert {frozenset(p.entries) for p in third} == expected
