"""The losers bracket's drop-in orders: measured per number of entrants, pinned here.

The table in tournaments/formats/drop_orders.py comes from ``make bench-tournaments``; these
tests replay the same measurement (the exact expected rematches when every match is a coin
toss), check it against random result sets played through the built bracket, and hold the
table to its promise.
"""

import random

import pytest

from tournaments.formats import two_stage
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
from tournaments.formats.drop_orders_v2 import DROP_ORDERS_V2


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


@pytest.mark.parametrize("n", [*range(4, 65), 65, 80, 100, 127, 128, 129, 160, 200, 255, 256])
def test_the_chosen_orders_are_no_worse_than_the_classic_order_nor_brackets_managers(n):
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


def test_an_event_keeps_the_orders_of_the_formats_version_it_started_with():
    assert drop_orders(20, version=None) == classic_orders(5)
    assert drop_orders(20, version=2) == DROP_ORDERS_V2[20]
    assert drop_orders(20, version=3) == drop_orders(20) == DROP_ORDERS[20]
    playoff = two_stage.build_playoff(4, 5, playoff_format="double_elim", formats_version=2)
    kept = build(20, orders=DROP_ORDERS_V2[20])
    assert {k: n.feeds for k, n in playoff.nodes.items()} == {
        k: n.feeds for k, n in kept.nodes.items()
    }


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


def test_17_to_32_entrants_expect_fewer_rematches_than_brackets_manager_and_at_most_0_75():
    for n in range(17, 33):
        chosen = rematch_profile(n, drop_orders(n))
        _, tlnet = baselines(n)
        assert chosen.mean <= 0.75 < tlnet.mean, (n, chosen, tlnet)
        assert chosen.earliest == tlnet.earliest == 5


def played_rematches(n, orders, result_sets, seed=7):
    """Random result sets played through the built bracket (every match a coin toss): the
    mean number of losers-bracket matches between two players who had met, and the earliest
    losers round one happened in."""
    bracket = build(n, reset=False, orders=orders)
    total, earliest = 0, None
    rng = random.Random(seed)
    for _ in range(result_sets):
        winner, loser, met = {}, {}, set()
        for key, node in bracket.nodes.items():
            if key == "GF":
                continue
            a, b = (
                (f.seed if f.seed <= n else None)
                if f.kind == "seed"
                else (winner if f.kind == "winner" else loser)[f.key]
                for f in node.feeds
            )
            if a is None or b is None:
                winner[key], loser[key] = a if b is None else b, None
                continue
            pair = frozenset((a, b))
            if key.startswith("L") and pair in met:
                total += 1
                losers_round = int(key[1:].split(".")[0])
                earliest = losers_round if earliest is None else min(earliest, losers_round)
            met.add(pair)
            winner[key], loser[key] = (a, b) if rng.random() < 0.5 else (b, a)
    return total / result_sets, earliest


@pytest.mark.parametrize("n", [6, 12, 20, 32, 45])
def test_the_exact_expectation_agrees_with_random_results_played_through_the_bracket(n):
    for orders in (drop_orders(n), TLNET_ORDERS[bracket_size(n)]):
        exact = rematch_profile(n, orders)
        mean, earliest = played_rematches(n, orders, result_sets=3000)
        # A bracket's count of rematches has a standard deviation under 0.9 at these sizes,
        # so the mean of 3,000 sets has a standard error under 0.017: 0.06 is 3.5 of them.
        assert abs(mean - exact.mean) < 0.06, (orders, mean, exact)
        assert earliest is not None and earliest >= exact.earliest
