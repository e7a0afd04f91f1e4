"""Who plays whom: the matchmaker's pairing as a pure function (no Django, no I/O).

Every waiting player has a window around their rating that widens while they wait
(by default +/-50, growing 25 every 10 seconds, up to 1000). Two players may be paired when
the gap between their ratings is within the window of whichever has waited longer: a newcomer
accepts whoever has been waiting for a wider match. Among the allowed pairs the closest
ratings go first (ties: the longest wait first), and a player is not paired with their last
opponent while anyone else is available to either of them; a player who asked for a new
opponent (:attr:`Seeker.avoid`) is never paired with the one they avoid. An uncertain
rating (a Glicko-2 deviation above the provisional threshold) widens its player's window
further. Two players of one stable (a person and the bots they own, see
:attr:`Seeker.stable`) are never paired.

The ladders' services load the queue, drop players already playing, call :func:`pair` and
write the matches; an arena event pairs its free players with it too. This module only
decides, so both use it without depending on each other.

>>> policy = WindowPolicy()
>>> policy.width(0), policy.width(25), policy.width(3600)
(50.0, 100.0, 1000.0)
>>> queue = [Seeker(1, 10, 1500, 0), Seeker(2, 20, 1530, 0), Seeker(3, 30, 1700, 0)]
>>> [(a.player, b.player) for a, b in pair(queue, policy)]
[(10, 20)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Seeker", "WindowPolicy", "allowed", "pair"]

#: Allowed partners looked at per player in one round (the closest first).
LOOKAHEAD = 3
#: Queue positions scanned per player at most, allowed or not (bounds the work per round).
SCAN_LIMIT = 64


@dataclass(frozen=True)
class WindowPolicy:
    """How far apart two ratings may be, by how long a player has waited."""

    initial: float = 50.0
    step: float = 25.0
    step_seconds: float = 10.0
    maximum: float | None = 1000.0
    #: Whether two bots may be paired with each other.
    bot_pairs: bool = True

    def width(self, waited_seconds: float, spread: float = 0.0) -> float:
        """The half-width of the window after waiting ``waited_seconds``.

        ``spread`` widens it for an uncertain rating (see :attr:`Seeker.spread`); the
        maximum still holds.
        """
        steps = int(max(0.0, waited_seconds) // self.step_seconds) if self.step_seconds else 0
        width = self.initial + self.step * steps + max(0.0, spread)
        return width if self.maximum is None else min(width, max(self.maximum, self.initial))


@dataclass(frozen=True)
class Seeker:
    """A waiting queue entry: its key, the player, their rating, seconds waited so far."""

    key: int
    player: int
    rating: float
    waited: float
    last_opponent: int | None = None
    is_bot: bool = False
    #: Rating points the window is wider by because the rating is uncertain (Glicko-2).
    spread: float = 0.0
    #: Who stands behind the player (a person and the bots they own share one); two
    #: seekers of one stable are never paired. None: nobody's (a house bot).
    stable: int | None = None
    #: A player this seeker is never paired with, even when nobody else is in reach (who
    #: asked for a new opponent after a match: that match's opponent). None: nobody.
    avoid: int | None = None
    #: Paired with bots only: an account marked as assisted (fair play).
    bots_only: bool = False


def allowed(a: Seeker, b: Seeker, policy: WindowPolicy) -> bool:
    """Whether ``a`` and ``b`` may be paired (rematches aside)."""
    if a.player == b.player or (a.is_bot and b.is_bot and not policy.bot_pairs):
        return False
    if a.stable is not None and a.stable == b.stable:
        return False
    if (a.bots_only and not b.is_bot) or (b.bots_only and not a.is_bot):
        return False
    if _avoided(a, b):
        return False
    gap = abs(a.rating - b.rating)
    return gap <= max(policy.width(a.waited, a.spread), policy.width(b.waited, b.spread))


def _avoided(a: Seeker, b: Seeker) -> bool:
    return (a.avoid is not None and a.avoid == b.player) or (
        b.avoid is not None and b.avoid == a.player
    )


def _is_rematch(a: Seeker, b: Seeker) -> bool:
    return a.last_opponent == b.player or b.last_opponent == a.player


def pair(seekers: Iterable[Seeker], policy: WindowPolicy) -> list[tuple[Seeker, Seeker]]:
    """Pairs for one matchmaking pass; each seeker appears in at most one pair.

    Greedy on the rating gap over near neighbours in rating order, in rounds until nothing
    changes: first without rematches, then one last round that allows them, so a rematch
    happens only when neither player has anyone else in reach. O(n log n) for a queue of n.
    """
    queue = sorted(seekers, key=lambda s: (s.rating, -s.waited, s.key))
    table = _Table(queue, policy)
    order = list(range(len(queue)))
    found_by_phase: list[list[tuple[Seeker, Seeker]]] = []
    for rematches in (False, True):
        pairs: list[tuple[Seeker, Seeker]] = []
        while len(order) >= 2:
            found = _round(table, order, rematches=rematches)
            if not found:
                break
            pairs.extend((queue[i], queue[j]) for i, j in found)
            taken = {i for p in found for i in p}
            order = [i for i in order if i not in taken]
        found_by_phase.append(pairs)
    fresh, rematches_left = found_by_phase
    return _swap_out_rematches(fresh, rematches_left, policy)


class _Table:
    """The queue by rating as plain lists, built once a pass (the rounds only index them)."""

    def __init__(self, queue: Sequence[Seeker], policy: WindowPolicy) -> None:
        self.ratings = [s.rating for s in queue]
        self.widths = [policy.width(s.waited, s.spread) for s in queue]
        self.players = [s.player for s in queue]
        self.last = [s.last_opponent for s in queue]
        self.avoid = [s.avoid for s in queue]
        no_bots = not policy.bot_pairs
        self.bots = [no_bots and s.is_bot for s in queue]
        # A player of no stable gets a key of their own that no other seeker has.
        self.stables = [s.stable if s.stable is not None else -1 - i for i, s in enumerate(queue)]
        # Who plays bots only (an account marked as assisted), and who is a person.
        self.bots_only = [s.bots_only for s in queue]
        self.people = [not s.is_bot for s in queue]
        self.any_bots_only = any(self.bots_only)


def _swap_out_rematches(
    pairs: list[tuple[Seeker, Seeker]],
    rematches: list[tuple[Seeker, Seeker]],
    policy: WindowPolicy,
) -> list[tuple[Seeker, Seeker]]:
    """Undo what greed did: a rematch A-B next to a fresh pair C-D becomes A-C and B-D.

    The closest-first rounds can take C and D together although A could have played C.
    For each rematch left, the swap with the smallest total gap that keeps both new pairs
    allowed and fresh is made. Rematches are rare, so a scan of the pairs is cheap.
    """
    result = list(pairs)

    def fresh(p: Seeker, q: Seeker) -> bool:
        return allowed(p, q, policy) and not _is_rematch(p, q)

    for a, b in rematches:
        best: tuple[float, int, Seeker, Seeker] | None = None
        for index, (c, d) in enumerate(result):
            for x, y in ((c, d), (d, c)):
                if fresh(a, x) and fresh(b, y):
                    cost = abs(a.rating - x.rating) + abs(b.rating - y.rating)
                    if best is None or cost < best[0]:
                        best = (cost, index, x, y)
        if best is None:
            result.append((a, b))
        else:
            _, index, x, y = best
            result[index] = (a, x)
            result.append((b, y))
    return result


def _round(table: _Table, order: Sequence[int], *, rematches: bool) -> list[tuple[int, int]]:
    """One greedy round over the seekers still free (``order``: their indices, by rating)."""
    # The hot loop of a pass over thousands of players: plain lists, no calls per candidate.
    n = len(order)
    if n == len(table.ratings):  # the first round: everyone is free
        ratings, widths, players = table.ratings, table.widths, table.players
        last, bots, stables, avoid = table.last, table.bots, table.stables, table.avoid
        only, people = table.bots_only, table.people
    else:
        ratings = [table.ratings[k] for k in order]
        widths = [table.widths[k] for k in order]
        players = [table.players[k] for k in order]
        last = [table.last[k] for k in order]
        bots = [table.bots[k] for k in order]
        stables = [table.stables[k] for k in order]
        avoid = [table.avoid[k] for k in order]
        only = [table.bots_only[k] for k in order]
        people = [table.people[k] for k in order]
    marked = table.any_bots_only
    # The widest window of the queue bounds how far up the list a partner can be.
    reach = max(widths)
    edges: list[tuple[float, float, int, int]] = []
    add = edges.append
    for i in range(n):
        found = 0
        r_i, w_i, p_i, l_i, b_i, s_i, v_i = (
            ratings[i],
            widths[i],
            players[i],
            last[i],
            bots[i],
            stables[i],
            avoid[i],
        )
        for j in range(i + 1, min(n, i + 1 + SCAN_LIMIT)):
            gap = ratings[j] - r_i
            if gap > reach:
                break
            # Within the wider of the two windows (the longer wait, or the less sure rating).
            w = widths[j]
            if w_i >= w:
                w = w_i
            if gap > w:
                continue
            if (b_i and bots[j]) or p_i == players[j] or s_i == stables[j]:
                continue
            if v_i == players[j] or avoid[j] == p_i:  # a new opponent was asked for
                continue
            if marked and ((only[i] and people[j]) or (only[j] and people[i])):
                continue  # an account marked as assisted plays bots only
            if not rematches and (l_i == players[j] or last[j] == p_i):
                continue
            # Closest first; for equal gaps the wider window (the longer wait) first.
            add((gap, -w, i, j))
            found += 1
            if found == LOOKAHEAD:
                break
    edges.sort()
    free = [True] * n
    chosen: list[tuple[int, int]] = []
    for _, _, i, j in edges:
        if free[i] and free[j]:
            free[i] = free[j] = False
            chosen.append((order[i], order[j]))
    return chosen
