"""Melds, deadwood and lay-offs, exact and fast.

How the minimum is found: a run lies within one suit, so for the cards of one suit that
are not in a set, the best choice of runs depends on that suit's 13-bit mask alone.
:data:`RUN_DEADWOOD` holds, for every one of the 8,192 suit masks, the least deadwood that
runs can leave.  Sets are the only melds that cross suits, and a hand of ten or eleven
cards has at most three ranks with three or more cards; the solver tries every way of
using those ranks as sets (none, the set of four, each set of three) and looks the
leftovers up per suit.  That is exact, and for most hands it is four table look-ups.

For eleven cards the best discard comes from the same pass: discarding a card ``c`` from
an arrangement whose deadwood is ``D`` leaves ``D - points(c)``, so per suit the table
:data:`RUN_DISCARD` holds the least deadwood after throwing one card of that suit.

>>> from .cards import parse_cards, mask_of, format_cards
>>> min_deadwood(mask_of(parse_cards("AS 2S 3S 4H 5H 6H KD KC KS 9C")))
9
>>> card, points = best_discard(mask_of(parse_cards("3C 3D 6D 4C 4H 5C 5H 6H 6C AH 5D")))
>>> format_cards([card]), points
('6D', 9)
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Final

from .cards import BIT, CARD_POINTS, RANK_POINTS, SUIT_MASK, card_name, cards_of, points_of

#: Deadwood worth more than any hand: marks "no card to discard" in the tables.
_NONE: Final = 1_000_000


def _build_run_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    deadwood = [0] * 8192
    choice = [0] * 8192  # 0: the lowest card is deadwood; otherwise the run mask it starts
    for m in range(1, 8192):
        low = m & -m
        r = low.bit_length() - 1
        best = RANK_POINTS[r] + deadwood[m ^ low]
        pick = 0
        run = low
        k = r + 1
        while k < 13 and m >> k & 1:
            run |= 1 << k
            if k - r >= 2:
                rest = deadwood[m ^ run]
                if rest < best:
                    best, pick = rest, run
            k += 1
        deadwood[m] = best
        choice[m] = pick
    discard = [_NONE] * 8192
    discard_rank = [-1] * 8192
    for m in range(1, 8192):
        # Highest rank first with a strict comparison: among equal results, throw the
        # highest card (it is worth the most if the hand is later caught).
        for r in range(12, -1, -1):
            if m >> r & 1:
                rest = deadwood[m ^ (1 << r)]
                if rest < discard[m]:
                    discard[m], discard_rank[m] = rest, r
    return deadwood, choice, discard, discard_rank


#: Least deadwood the cards of one suit (a 13-bit mask) can have using runs only.
#: RUN_CHOICE: the run the lowest card starts in the optimum (0: that card is deadwood).
#: RUN_DISCARD: least such deadwood after throwing one card of the suit; RUN_DISCARD_RANK:
#: the rank to throw.
RUN_DEADWOOD, RUN_CHOICE, RUN_DISCARD, RUN_DISCARD_RANK = _build_run_tables()


def _build_meld_table() -> tuple[int, ...]:
    melds = []
    for rank in range(13):
        suits = [rank + 13 * s for s in range(4)]
        for size in (3, 4):
            for combo in itertools.combinations(suits, size):
                melds.append(sum(1 << c for c in combo))
    for suit in range(4):
        for start in range(13):
            for end in range(start + 3, 14):
                run = sum(1 << (13 * suit + r) for r in range(start, end))
                melds.append(run)
    return tuple(melds)


#: Every possible meld: 65 sets and 264 runs.
ALL_MELDS: Final = _build_meld_table()
_MELD_SET: Final = frozenset(ALL_MELDS)
#: Melds indexed by their lowest card.
MELDS_BY_LOW_CARD: Final = tuple(
    tuple(m for m in ALL_MELDS if (m & -m) == 1 << c) for c in range(52)
)


def _build_set_options() -> list[list[tuple[int, ...]]]:
    """For a rank and the 4-bit pattern of suits held, the ways to use them as a set."""
    table: list[list[tuple[int, ...]]] = [[(0,)] * 16 for _ in range(13)]
    for rank in range(13):
        for pattern in range(16):
            suits = [s for s in range(4) if pattern >> s & 1]
            if len(suits) < 3:
                continue
            held = [1 << (13 * s + rank) for s in suits]
            options = [0]
            for combo in itertools.combinations(held, 3):
                options.append(sum(combo))
            if len(held) == 4:
                options.append(sum(held))
            table[rank][pattern] = tuple(options)
    return table


_SET_OPTIONS: Final = _build_set_options()


def is_meld(mask: int) -> bool:
    """True if the cards form one set (3-4 of a rank) or one run (3+ in a suit, in order)."""
    return mask in _MELD_SET


def is_set(mask: int) -> bool:
    """True if the cards are one set of three or four of a rank."""
    return mask in _MELD_SET and _is_same_rank(mask)


def _is_same_rank(mask: int) -> bool:
    ranks = {c % 13 for c in cards_of(mask)}
    return len(ranks) == 1


def _set_combos(mask: int, trips: int, a: int, b: int, c: int, d: int) -> list[int]:
    """Every choice of sets among the ranks in ``trips`` (as masks of the cards used)."""
    combos = [0]
    while trips:
        low = trips & -trips
        r = low.bit_length() - 1
        trips ^= low
        pattern = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        options = _SET_OPTIONS[r][pattern]
        combos = [x | o for x in combos for o in options]
    return combos


def min_deadwood(mask: int) -> int:
    """Least deadwood count of a hand (any size) over all arrangements of melds."""
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39
    trips = (a & b & (c | d)) | (c & d & (a | b))
    table = RUN_DEADWOOD
    if not trips:
        return table[a] + table[b] + table[c] + table[d]
    best = _NONE
    for used in _set_combos(mask, trips, a, b, c, d):
        m = mask & ~used
        total = (
            table[m & SUIT_MASK]
            + table[m >> 13 & SUIT_MASK]
            + table[m >> 26 & SUIT_MASK]
            + table[m >> 39]
        )
        if total < best:
            best = total
    return best


@functools.lru_cache(maxsize=4096)
def best_discard(mask: int) -> tuple[int | None, int]:
    """For an 11-card hand: the card to throw and the least deadwood of the ten kept.

    Returns ``(None, 0)`` when all eleven cards meld (big gin).  Among equally good
    discards the highest card is thrown.  Of ten cards it gives the best nine in the same
    way (ten cards that all meld hold a meld of four, so one can go with no deadwood).

    Remembered for the hands seen last: a turn asks it of the same hand more than once
    (the legal actions, then the player's choice).
    """
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39
    trips = (a & b & (c | d)) | (c & d & (a | b))
    combos = _set_combos(mask, trips, a, b, c, d) if trips else (0,)
    table = RUN_DEADWOOD
    disc = RUN_DISCARD
    best = _NONE
    best_card: int | None = None
    for used in combos:
        if used:
            m = mask & ~used
            a = m & SUIT_MASK
            b = m >> 13 & SUIT_MASK
            c = m >> 26 & SUIT_MASK
            d = m >> 39
        ta, tb, tc, td = table[a], table[b], table[c], table[d]
        total = ta + tb + tc + td
        if total == 0:
            return None, 0
        # Throwing a card of suit s saves table[s] - disc[s]; take the suit that saves most.
        gain, suit, sm = ta - disc[a], 0, a
        g = tb - disc[b]
        if g > gain:
            gain, suit, sm = g, 1, b
        g = tc - disc[c]
        if g > gain:
            gain, suit, sm = g, 2, c
        g = td - disc[d]
        if g > gain:
            gain, suit, sm = g, 3, d
        value = total - gain
        if value < best:
            best = value
            best_card = 13 * suit + RUN_DISCARD_RANK[sm]
    return best_card, best


def best_discard_points(mask: int) -> int:
    """For an 11-card hand: the least deadwood of ten cards kept after one discard.

    Zero for big gin too (discarding from a fully melded eleven never helps, but knocking
    rules ask only whether the best ten reach the limit).
    """
    card, points = best_discard(mask)
    if card is None:
        return 0
    return points


def discard_deadwoods(mask: int) -> list[tuple[int, int]]:
    """For each card of the hand: (card, least deadwood of the hand without it)."""
    return [(card, min_deadwood(mask ^ BIT[card])) for card in cards_of(mask)]


# --- arrangements -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds (as masks) and the deadwood mask left over, with its point count."""

    melds: tuple[int, ...]
    deadwood: int
    points: int

    def meld_names(self) -> list[list[str]]:
        return [[card_name(c) for c in cards_of(m)] for m in self.melds]

    def deadwood_names(self) -> list[str]:
        return [card_name(c) for c in cards_of(self.deadwood)]


def _runs_of(suit_mask: int, suit: int) -> list[int]:
    """The runs chosen by the table for one suit, as 52-bit masks."""
    runs = []
    m = suit_mask
    while m:
        pick = RUN_CHOICE[m]
        if pick:
            runs.append(pick << (13 * suit))
            m ^= pick
        else:
            m ^= m & -m
    return runs


def _sets_of(used: int) -> list[int]:
    """Split a mask of cards used as sets into one mask per rank."""
    by_rank: dict[int, int] = {}
    for card in cards_of(used):
        by_rank[card % 13] = by_rank.get(card % 13, 0) | BIT[card]
    return list(by_rank.values())


def arrange(mask: int) -> Arrangement:
    """One arrangement of least deadwood (melds ordered sets first, then runs by suit)."""
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39
    trips = (a & b & (c | d)) | (c & d & (a | b))
    combos = _set_combos(mask, trips, a, b, c, d) if trips else [0]
    table = RUN_DEADWOOD
    best, best_used = _NONE, 0
    for used in combos:
        m = mask & ~used
        total = sum(table[m >> (13 * s) & SUIT_MASK] for s in range(4))
        if total < best:
            best, best_used = total, used
    melds = _sets_of(best_used)
    rest = mask & ~best_used
    for s in range(4):
        melds.extend(_runs_of(rest >> (13 * s) & SUIT_MASK, s))
    melded = 0
    for m in melds:
        melded |= m
    return Arrangement(tuple(melds), mask & ~melded, best)


def _covers(
    mask: int, pieces_by_low: dict[int, list[int]], limit: int
) -> list[tuple[list[int], int]]:
    """Every way to place disjoint pieces on ``mask`` leaving at most ``limit`` points.

    Depth-first over the lowest card left: it is either left over or the lowest card of
    one of its pieces.  Returns (pieces, leftover mask) pairs.
    """
    out: list[tuple[list[int], int]] = []
    chosen: list[int] = []

    def walk(rest: int, leftover: int, spent: int) -> None:
        if spent > limit:
            return
        if not rest:
            out.append((list(chosen), leftover))
            return
        low = rest & -rest
        card = low.bit_length() - 1
        for piece in pieces_by_low[card]:
            if piece & rest == piece:
                chosen.append(piece)
                walk(rest ^ piece, leftover, spent)
                chosen.pop()
        walk(rest ^ low, leftover | low, spent + CARD_POINTS[card])

    walk(mask, 0, 0)
    return out


#: Per lowest card: the sets it starts, then the runs it starts from the shortest up (so
#: together the melds of :data:`MELDS_BY_LOW_CARD`, in its order).
_SETS_FROM: Final = tuple(tuple(filter(_is_same_rank, melds)) for melds in MELDS_BY_LOW_CARD)
_RUNS_FROM: Final = tuple(
    tuple(m for m in melds if not _is_same_rank(m)) for melds in MELDS_BY_LOW_CARD
)


def _meld_pieces(mask: int) -> dict[int, list[int]]:
    """Per card of ``mask``: the melds inside it whose lowest card it is, in the table's order."""
    pieces: dict[int, list[int]] = {}
    for c in cards_of(mask):
        found = [m for m in _SETS_FROM[c] if m & mask == m]
        for run in _RUNS_FROM[c]:
            if run & mask != run:
                break  # a longer run holds this one
            found.append(run)
        pieces[c] = found
    return pieces


def min_arrangements(mask: int) -> list[Arrangement]:
    """Every arrangement of the hand whose deadwood count is the least possible."""
    best = min_deadwood(mask)
    found = []
    for melds, leftover in _covers(mask, _meld_pieces(mask), best):
        found.append(Arrangement(tuple(melds), leftover, points_of(leftover)))
    return [arr for arr in found if arr.points == best]


# --- lay-offs ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LayOff:
    """A card the defender laid off onto one of the knocker's melds."""

    card: int
    onto: int  # the knocker's meld as declared


@dataclass(frozen=True, slots=True)
class Defence:
    """The defender's best answer to a knock: own melds, lay-offs and remaining deadwood."""

    melds: tuple[int, ...]
    layoffs: tuple[LayOff, ...]
    deadwood: int
    points: int


def _layoff_pieces(defender: int, knocker_melds: tuple[int, ...]) -> dict[int, int]:
    """Lay-off pieces the defender can use: piece mask -> the knocker meld it extends.

    A set of three takes its fourth card; a run takes a chain of cards at either end.
    Pieces of one end are nested (7H; 7H 8H; ...), so disjointness picks at most one.
    """
    pieces: dict[int, int] = {}
    for meld in knocker_melds:
        cards = cards_of(meld)
        if _is_same_rank(meld):
            if len(cards) == 3:
                rank = cards[0] % 13
                for s in range(4):
                    card = 13 * s + rank
                    if not meld >> card & 1 and defender >> card & 1:
                        pieces[BIT[card]] = meld
            continue
        suit = cards[0] // 13
        lo, hi = cards[0] % 13, cards[-1] % 13
        chain = 0
        for r in range(lo - 1, -1, -1):
            card = 13 * suit + r
            if not defender >> card & 1:
                break
            chain |= BIT[card]
            pieces[chain] = meld
        chain = 0
        for r in range(hi + 1, 13):
            card = 13 * suit + r
            if not defender >> card & 1:
                break
            chain |= BIT[card]
            pieces[chain] = meld
    return pieces


def _chain_order(piece: int, meld: int) -> list[int]:
    """Cards of a lay-off chain in the order they go down: nearest the meld first."""
    cards = cards_of(piece)
    if not _is_same_rank(meld) and cards[0] < (meld & -meld).bit_length() - 1:
        cards.reverse()
    return cards


def defend(defender: int, knocker_melds: tuple[int, ...]) -> Defence:
    """The defender's melds and chained lay-offs that leave the least deadwood.

    Exact: every placement of the defender's own melds and of lay-off chains onto the
    knocker's melds is considered.  Among equal results, fewer lay-offs are preferred.
    """
    layoffs = _layoff_pieces(defender, knocker_melds)
    pieces = _meld_pieces(defender)
    for piece in layoffs:
        # A chain that is a meld by itself is already a piece: it reads as the defender's
        # own meld, and the deadwood is the same either way.
        if not is_meld(piece):
            pieces[(piece & -piece).bit_length() - 1].append(piece)
    # No arrangement is worse than the defender's own best without lay-offs.
    chosen, leftover, points = _best_cover(defender, pieces, min_deadwood(defender))
    melds = tuple(p for p in chosen if is_meld(p))
    laid_off: list[LayOff] = []
    for p in chosen:
        if not is_meld(p):
            laid_off.extend(LayOff(card, layoffs[p]) for card in _chain_order(p, layoffs[p]))
    return Defence(melds, tuple(laid_off), leftover, points)


def _best_cover(
    mask: int, pieces_by_low: dict[int, list[int]], limit: int
) -> tuple[list[int], int, int]:
    """The placement of disjoint pieces on ``mask`` with the least leftover points, then
    the fewest cards laid off (pieces that are not melds): the first such in the order
    :func:`_covers` lists them, with the leftover mask and its points.

    A branch stops as soon as it cannot beat the best found so far (its leftover points
    and cards laid off only grow), so the answer is the one a search of every placement
    within ``limit`` keeps, found without listing them all.
    """
    best: list[Any] = [limit, 1 << 30, [], 0]  # points, laid, pieces, leftover
    chosen: list[int] = []
    laid_cards = {
        p: 0 if p in _MELD_SET else p.bit_count() for ps in pieces_by_low.values() for p in ps
    }

    def walk(rest: int, leftover: int, spent: int, laid: int) -> None:
        if spent > best[0] or (spent == best[0] and laid >= best[1]):
            return
        if not rest:
            best[:] = [spent, laid, list(chosen), leftover]
            return
        low = rest & -rest
        card = low.bit_length() - 1
        for piece in pieces_by_low[card]:
            if piece & rest == piece:
                chosen.append(piece)
                walk(rest ^ piece, leftover, spent, laid + laid_cards[piece])
                chosen.pop()
        walk(rest ^ low, leftover | low, spent + CARD_POINTS[card], laid)

    walk(mask, 0, 0, 0)
    return best[2], best[3], best[0]


def knocker_arrangement(knocker: int, defender: int) -> tuple[Arrangement, Defence]:
    """The knocker's melds when none are declared, and the defence they leave.

    Among the arrangements of least deadwood, the one that leaves the defender the most
    deadwood after lay-offs (the least to lay off).
    """
    best: tuple[Arrangement, Defence] | None = None
    for arr in min_arrangements(knocker):
        defence = defend(defender, arr.melds)
        if best is None or defence.points > best[1].points:
            best = (arr, defence)
    assert best is not None
    return best


def meld_points_check(melds: tuple[int, ...], hand: int) -> int | None:
    """If ``melds`` are disjoint melds inside ``hand``, the deadwood count left; else None."""
    used = 0
    for meld in melds:
        if not is_meld(meld) or meld & used or meld & ~hand:
            return None
        used |= meld
    return points_of(hand & ~used)


__all__ = [
    "ALL_MELDS",
    "Arrangement",
    "Defence",
    "LayOff",
    "arrange",
    "best_discard",
    "best_discard_points",
    "defend",
    "discard_deadwoods",
    "is_meld",
    "is_set",
    "knocker_arrangement",
    "meld_points_check",
    "min_arrangements",
    "min_deadwood",
]
