"""The losers bracket's drop-in orders: measured per number of entrants, pinned here.

The table in tournaments/formats/drop_orders.py comes from ``make bench-tournaments``; these
tests replay the same measurement (same random result sets) and hold it to its promise.
"""

import pytest

from tournaments.formats.bracket import bracket_size
from tournaments.formats.double_elim import (
    ORDERINGS,
    TLNET_ORDERS,
    build,
    classic_orders,
    drop_orders,
    rematch_profile,
)
from tournaments.formats.drop_orders import DROP_ORDERS


def baselines(n):
    rounds = bracket_size(n).bit_length() - 1
    return rematch_profile(n, classic_orders(rounds)), rematch_profile(
        n, TLNET_ORDERS[bracket_size(n)]
    )


def test_every_size_from_4_to_256_has_a_drop_in_order_for_each_winners_round():
    assert sorted(DROP_ORDERS) == list(range(4, 257))
    for n, orders in DROP_ORDERS.items():
        assert len(orders) == bracket_size(n).bit_length() - 1
        assert set(orders) <= set(ORDERINGS)
        assert drop_orders(n) == orders


@pytest.mark.parametrize("n", [*range(4, 41), 48, 63, 64, 100, 128, 129, 200, 256])
def test_the_chosen_orders_are_no_worse_than_the_classic_order_nor_tlnets(n):
    chosen = rematch_profile(n, drop_orders(n))
    classic, tlnet = baselines(n)
    assert chosen.no_worse_than(classic), (chosen, classic)
    assert chosen.no_worse_than(tlnet), (chosen, tlnet)


@pytest.mark.parametrize("n", [32, 64, 128, 256])
def test_large_brackets_have_far_fewer_early_rematches_than_the_classic_order(n):
    chosen = rematch_profile(n, drop_orders(n))
    classic, _ = baselines(n)
    assert chosen.mean < 0.75 * classic.mean
    assert chosen.earliest is None or chosen.earliest > classic.earliest


def test_the_bracket_is_built_with_the_measured_orders():
    # 8 entrants: losers round 2 takes the winners round 2 losers in the table's order.
    orders = drop_orders(8)
    bracket = build(8)
    dropped = [bracket.nodes[f"L2.{i}"].feeds[0].key for i in (1, 2)]
    assert dropped == ORDERINGS[orders[1]](["W2.1", "W2.2"])


def test_orderings_move_the_losers_as_named():
    items = ["a", "b", "c", "d"]
    assert ORDERINGS["natural"](items) == ["a", "b", "c", "d"]
    assert ORDERINGS["reverse"](items) == ["d", "c", "b", "a"]
    assert ORDERINGS["half_shift"](items) == ["c", "d", "a", "b"]
    assert ORDERINGS["reverse_half_shift"](items) == ["b", "a", "d", "c"]
    assert ORDERINGS["pair_flip"](items) == ["b", "a", "d", "c"]
