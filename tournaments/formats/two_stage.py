"""Groups, then playoffs: snake-seeded groups, then a cross-seeded elimination bracket.

**The groups.** The field (seeds 1..N, by rating or the event's seeding) is dealt into ``G``
groups in a snake: seeds 1..G go to groups A, B, C, ... in order, seeds G+1..2G back from the
last group to A, and so on, so every group holds one player of each band of ``G`` seeds and
the groups are as even as the field allows (their sizes differ by one at most). The number of
groups is given, or follows from a group size (``ceil(N / size)`` groups, none of one).
Each group plays a round robin (:mod:`~tournaments.formats.round_robin`) or a Swiss
(:mod:`~tournaments.formats.swiss`) among its players, and is ranked by the event's
tiebreaks (:mod:`~tournaments.formats.standings`).

**The playoff.** The top ``K`` of every group go on to a single- or double-elimination
bracket of ``G * K`` players. The group winners take playoff seeds 1..G (A's winner first),
the runners-up seeds G+1..2G, and so on: the places of a group are never mixed up. Within a
band of one place the groups are arranged so that group mates meet as late as possible, which
puts every group winner against a runner-up of another group in the first round (A1-B2,
B1-A2 with two groups; with four, A1 and A2 land in opposite halves). The arrangement is an
assignment per band (:func:`playoff_order`): the cost of a place is how early it meets the
group mates already placed, an earlier meeting costing more than every later one together.

Group match keys: ``G<group><round>.<table>`` (``GB3.2``: group B, round 3, table 2); the
playoff keeps the bracket's keys (``R1.1``, ``W2.1``, ``L3.2``, ``GF``, ``3P``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.formats import (
    DOUBLE_ELIM,
    FORMATS_VERSION,
    ROUND_ROBIN,
    SINGLE_ELIM,
    SWISS,
    double_elim,
    round_robin,
    single_elim,
)
from tournaments.formats import swiss as swiss_format
from tournaments.formats.bracket import Bracket, bracket_size, seed_positions

#: How the groups are played.
GROUP_FORMATS: tuple[str, ...] = (ROUND_ROBIN, SWISS)
#: How the playoff is played.
PLAYOFF_FORMATS: tuple[str, ...] = (SINGLE_ELIM, DOUBLE_ELIM)
#: The group size when neither a group count nor a size is given.
DEFAULT_GROUP_SIZE = 4
_GROUP_KEY = re.compile(r"G([A-Z]+)\d+\.\d+\Z")
#: The most groups an event may have (group names run A..Z, AA..ZZ).
MAX_GROUPS = 26 * 27


def gettext_noop(message: str) -> str:
    """Marks ``message`` for the catalogues (``makemessages`` finds it by this name) without
    translating it: this pure library imports no Django; the services translate it."""
    return message


class OptionError(ValueError):
    """A two-stage option that makes no sense; ``option`` names it.

    The message is ``template % params`` in English; the services say it in the reader's
    language (``gettext(template) % params``).
    """

    def __init__(self, option: str, template: str, **params: object) -> None:
        super().__init__(template % params if params else template)
        self.option = option
        self.template = template
        self.params = params


@dataclass(frozen=True, slots=True)
class Plan:
    """The shape of a two-stage event of ``entrants`` players.

    ``groups[g]`` lists the seeds of group ``g`` (0 is group A) in seed order.
    """

    entrants: int
    groups: tuple[tuple[int, ...], ...]
    advance: int

    @property
    def group_count(self) -> int:
        return len(self.groups)

    @property
    def qualifiers(self) -> int:
        """How many players reach the playoff."""
        return self.group_count * self.advance


def group_name(index: int) -> str:
    """The letter(s) of group ``index`` (0-based): A..Z, then AA, AB, ..."""
    if index < 0:
        raise ValueError("a group index is not negative")
    if index < 26:
        return chr(ord("A") + index)
    return group_name(index // 26 - 1) + chr(ord("A") + index % 26)


def group_count_for(
    entrants: int, *, group_count: int | None = None, group_size: int | None = None
) -> int:
    """How many groups: ``group_count`` if given, else ``ceil(entrants / group_size)``."""
    if group_count is not None and group_size is not None:
        raise OptionError("group_count", gettext_noop("give group_count or group_size, not both"))
    if group_count is not None:
        if group_count < 1:
            raise OptionError("group_count", gettext_noop("group_count is at least 1"))
        return group_count
    size = DEFAULT_GROUP_SIZE if group_size is None else group_size
    if size < 2:
        raise OptionError("group_size", gettext_noop("group_size is at least 2"))
    groups = max(1, math.ceil(entrants / size))
    # Groups of two: an odd field would leave a group of one, so one group takes three.
    return groups if entrants // groups >= 2 else max(1, entrants // 2)


def snake(entrants: int, groups: int) -> tuple[tuple[int, ...], ...]:
    """Seeds 1..entrants dealt into ``groups`` groups in a snake (A..last, last..A, ...).

    >>> snake(8, 2)
    ((1, 4, 5, 8), (2, 3, 6, 7))
    """
    if groups < 1:
        raise ValueError("at least one group")
    dealt: list[list[int]] = [[] for _ in range(groups)]
    for seed in range(1, entrants + 1):
        band, place = divmod(seed - 1, groups)
        dealt[place if band % 2 == 0 else groups - 1 - place].append(seed)
    return tuple(tuple(group) for group in dealt)


def plan(
    entrants: int,
    *,
    group_count: int | None = None,
    group_size: int | None = None,
    advance: int = 2,
) -> Plan:
    """The groups and the playoff's size for ``entrants`` players; OptionError if impossible.

    Every group has at least two players and at least ``advance`` of them; the playoff has
    at least two.
    """
    groups = group_count_for(entrants, group_count=group_count, group_size=group_size)
    if groups > MAX_GROUPS:
        raise OptionError("group_count", gettext_noop("at most %(max)s groups"), max=MAX_GROUPS)
    if advance < 1:
        raise OptionError(
            "advance", gettext_noop("advance (players going on from each group) is at least 1")
        )
    smallest = entrants // groups
    if smallest < 2:
        option = "group_count" if group_count is not None else "group_size"
        raise OptionError(
            option,
            gettext_noop(
                "%(setting)s: %(entrants)s players make groups of fewer than two in %(groups)s "
                "groups"
            ),
            setting=option,
            entrants=entrants,
            groups=groups,
        )
    if advance > smallest:
        raise OptionError(
            "advance",
            gettext_noop(
                "advance is %(advance)s but the smallest of %(groups)s groups of %(entrants)s "
                "players has %(smallest)s"
            ),
            advance=advance,
            groups=groups,
            entrants=entrants,
            smallest=smallest,
        )
    if groups * advance < 2:
        raise OptionError(
            "advance", gettext_noop("the playoff needs at least two players: advance more")
        )
    return Plan(entrants, snake(entrants, groups), advance)


def group_rounds(size: int, group_format: str, swiss_rounds: int | None = None) -> int:
    """Rounds a group of ``size`` plays: its round robin, or ``swiss_rounds`` (default
    ceil(log2 size)) capped at what a round robin would take."""
    if group_format == ROUND_ROBIN:
        return round_robin.rounds_count(size)
    if group_format == SWISS:
        cap = round_robin.rounds_count(size)
        return min(swiss_rounds or swiss_format.default_rounds(size), cap)
    raise OptionError(
        "group_format", gettext_noop("unknown group_format %(value)r"), value=group_format
    )


def stage_rounds(plan: Plan, group_format: str, swiss_rounds: int | None = None) -> int:
    """Rounds of the group stage: the longest group's (all groups play round r together)."""
    return max(group_rounds(len(g), group_format, swiss_rounds) for g in plan.groups)


def meeting_round(size: int, seed_a: int, seed_b: int) -> int:
    """The round (1 is the first) in which seeds ``a`` and ``b`` of a standard bracket of
    ``size`` meet if both keep winning."""
    positions = {seed: i for i, seed in enumerate(seed_positions(size))}
    return (positions[seed_a] ^ positions[seed_b]).bit_length()


def playoff_order(groups: int, advance: int) -> list[tuple[int, int]]:
    """Who takes each playoff seed: ``order[s - 1] = (group, place)`` (group 0 is A, place 1
    is the winner). Places fill bands of seeds in order; within a band, group mates meet as
    late as possible (see the module).
    """
    if groups < 1 or advance < 1 or groups * advance < 2:
        raise ValueError("a playoff needs at least two qualifiers")
    size = bracket_size(groups * advance)
    rounds = size.bit_length() - 1
    positions = {seed: i for i, seed in enumerate(seed_positions(size))}
    # One earlier meeting outweighs every later one of the whole band together.
    weight = groups * advance + 1
    seed_of: dict[tuple[int, int], int] = {(g, 1): g + 1 for g in range(groups)}
    for place in range(2, advance + 1):
        band = [(place - 1) * groups + j + 1 for j in range(groups)]
        cost = [
            [
                sum(
                    weight ** (rounds - (positions[seed] ^ positions[seed_of[g, p]]).bit_length())
                    for p in range(1, place)
                )
                for seed in band
            ]
            for g in range(groups)
        ]
        for g, j in enumerate(assignment(cost)):
            seed_of[g, place] = band[j]
    order = sorted(seed_of, key=lambda gp: seed_of[gp])
    return order


def assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """The cheapest one-to-one assignment of rows to columns of a square ``cost`` matrix:
    ``result[row] = column`` (the Hungarian method, O(n^3), exact on integers)."""
    n = len(cost)
    if any(len(row) != n for row in cost):
        raise ValueError("the cost matrix is square")
    if n == 0:
        return []
    inf = math.inf
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    way = [0] * (n + 1)
    match = [0] * (n + 1)  # match[column] = row, 1-based; 0: free
    for row in range(1, n + 1):
        match[0] = row
        column = 0
        least = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[column] = True
            i0, delta, next_column = match[column], inf, 0
            for j in range(1, n + 1):
                if used[j]:
                    continue
                reduced = cost[i0 - 1][j - 1] - u[i0] - v[j]
                if reduced < least[j]:
                    least[j], way[j] = reduced, column
                if least[j] < delta:
                    delta, next_column = least[j], j
            for j in range(n + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            column = next_column
            if match[column] == 0:
                break
        while column:
            previous = way[column]
            match[column] = match[previous]
            column = previous
    result = [0] * n
    for j in range(1, n + 1):
        result[match[j] - 1] = j - 1
    return result


def build_playoff(
    groups: int,
    advance: int,
    *,
    playoff_format: str = SINGLE_ELIM,
    third_place: bool = False,
    bracket_reset: bool = True,
    formats_version: int | None = FORMATS_VERSION,
) -> Bracket:
    """The playoff's bracket for ``groups * advance`` qualifiers (seeded by
    :func:`playoff_order`), a double elimination's drop-in orders those of the formats
    version the event started with."""
    entrants = groups * advance
    if playoff_format == SINGLE_ELIM:
        return single_elim.build(entrants, third_place=third_place)
    if playoff_format == DOUBLE_ELIM:
        orders = double_elim.drop_orders(entrants, version=formats_version)
        return double_elim.build(entrants, reset=bracket_reset, orders=orders)
    raise OptionError(
        "playoff_format", gettext_noop("unknown playoff_format %(value)r"), value=playoff_format
    )


def group_key(group: int, round_number: int, table: int) -> str:
    """A group match's key: ``GB3.2`` is group B, round 3, table 2."""
    return f"G{group_name(group)}{round_number}.{table}"


def group_of_key(key: str) -> str | None:
    """The group's name in a group match's key (``GB3.2`` -> ``B``); None for the playoff's."""
    found = _GROUP_KEY.match(key)
    return found.group(1) if found else None


def is_group_key(key: str) -> bool:
    """Whether a pairing key is a group match's (the playoff's keys never start with G)."""
    return _GROUP_KEY.match(key) is not None


__all__ = [
    "DEFAULT_GROUP_SIZE",
    "GROUP_FORMATS",
    "MAX_GROUPS",
    "PLAYOFF_FORMATS",
    "OptionError",
    "Plan",
    "assignment",
    "build_playoff",
    "group_count_for",
    "group_key",
    "group_name",
    "group_of_key",
    "group_rounds",
    "is_group_key",
    "meeting_round",
    "plan",
    "playoff_order",
    "snake",
    "stage_rounds",
]
