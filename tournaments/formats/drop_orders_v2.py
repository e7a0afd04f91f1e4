"""The losers bracket's drop-in orders of formats version 2, kept for the events started with
them: each event keeps the bracket it started with (see
:data:`tournaments.formats.FORMATS_VERSION`).

Measured over 400 random result sets and chosen per bracket size; the current orders are in
:mod:`tournaments.formats.drop_orders`. Each line: entrants from, to, and one order per
winners round. Never regenerated.
"""

from __future__ import annotations

_RUNS: tuple[tuple[int, int, tuple[str, ...]], ...] = (
    (4, 4, ("natural", "reverse")),
    (5, 8, ("natural", "reverse", "natural")),
    (9, 16, ("reverse_half_shift", "half_shift", "natural", "reverse")),
    (17, 32, ("pair_flip", "reverse_half_shift", "reverse", "natural", "natural")),
    (33, 64, ("reverse_half_shift", "half_shift", "pair_flip", "reverse", "natural", "reverse")),
    (
        65,
        65,
        ("natural", "reverse", "half_shift", "pair_flip", "pair_flip", "pair_flip", "natural"),
    ),
    (
        66,
        128,
        (
            "half_shift",
            "reverse_half_shift",
            "natural",
            "reverse",
            "reverse_half_shift",
            "reverse",
            "natural",
        ),
    ),
    (
        129,
        256,
        (
            "reverse_half_shift",
            "half_shift",
            "natural",
            "reverse",
            "reverse_half_shift",
            "half_shift",
            "natural",
            "reverse",
        ),
    ),
)

DROP_ORDERS_V2: dict[int, tuple[str, ...]] = {
    n: orders for first, last, orders in _RUNS for n in range(first, last + 1)
}
