"""Elimination brackets as a graph of matches, and the one function that reads them.

A :class:`Bracket` is fixed by its format and the number of entrants. Each :class:`Node` is a
match with two slots; a slot is fed by a seed, or by the winner or the loser of an earlier
match, and every node names where its winner and its loser go. The bracket holds no results:
:func:`resolve` works out every match from the entrants (in seed order) and the results
recorded so far, in one pass in order of play. A result is the winner's id, or ``None`` when
both players lost (a double no-show).

So the state of a bracket is a pure function of its results, which makes every change safe:
a result overridden by an organiser, a player who withdrew, a bye, all go through the same
pass, and whatever a changed result makes stale downstream (a match with other players now,
a result whose winner is no longer in that match) shows up in the new states.

Byes: a slot fed by a seed above the field (or by the loser of a match that had a bye) holds
:data:`BYE`. A player facing a bye advances without playing (:attr:`Status.WALKOVER`); two
byes pass a bye on (:attr:`Status.EMPTY`), which is how byes propagate through the rounds and
into a losers bracket. A player who left the event (``absent``) counts as a bye in every match
not yet decided.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal


class Empty(enum.Enum):
    """A slot without a player: a bye (nobody will come) or not known yet."""

    BYE = "bye"
    PENDING = "pending"

    def __repr__(self) -> str:
        return self.name


BYE = Empty.BYE
PENDING = Empty.PENDING

#: What a slot holds: a player id, BYE or PENDING.
Slot = int | Empty


@dataclass(frozen=True, slots=True)
class Feed:
    """Where a slot's player comes from: a seed (1 is the top seed), or a match's winner/loser."""

    kind: Literal["seed", "winner", "loser"]
    seed: int = 0
    key: str = ""

    @classmethod
    def of_seed(cls, seed: int) -> Feed:
        return cls("seed", seed=seed)

    @classmethod
    def winner(cls, key: str) -> Feed:
        return cls("winner", key=key)

    @classmethod
    def loser(cls, key: str) -> Feed:
        return cls("loser", key=key)

    def __str__(self) -> str:
        return f"seed {self.seed}" if self.kind == "seed" else f"{self.kind} of {self.key}"


@dataclass(frozen=True, slots=True)
class Node:
    """One match of a bracket.

    ``stage`` grows with the order of play: how far a player who reaches this match has come
    (placements compare it). ``winner_to``/``loser_to`` are ``(key, slot)`` or None (the
    winner is placed, e.g. champion; the loser leaves the event). A ``reset`` node (the grand
    final's bracket reset) takes the grand final's two players and is played only if the
    player from the losers bracket won the grand final: the grand final's ``winner_to`` and
    ``loser_to`` name it, and are followed only then.
    """

    key: str
    round: int
    stage: int
    feeds: tuple[Feed, Feed]
    winner_to: tuple[str, int] | None = None
    loser_to: tuple[str, int] | None = None
    reset: bool = False


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """A round of a bracket as shown: its name and its matches in table order."""

    name: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Bracket:
    """A whole bracket: nodes in order of play (every feed comes before what it feeds)."""

    format: str
    entrants: int
    size: int
    nodes: dict[str, Node]
    rounds: tuple[RoundSpec, ...]
    #: The matches that decide first place, last first (a reset, then the grand final).
    finals: tuple[str, ...]
    options: dict[str, bool] = field(default_factory=dict)


class Status(enum.StrEnum):
    WAITING = "waiting"  # a slot is still pending
    READY = "ready"  # two players and no result: to be played
    DECIDED = "decided"  # a recorded result
    WALKOVER = "walkover"  # a player against a bye advances without playing
    EMPTY = "empty"  # byes on both sides: a bye goes on
    SKIPPED = "skipped"  # a bracket reset that is not needed


#: Statuses after which a node's winner and loser are known for good (until results change).
SETTLED = frozenset({Status.DECIDED, Status.WALKOVER, Status.EMPTY, Status.SKIPPED})


@dataclass(frozen=True, slots=True)
class NodeState:
    """A node worked out from the results: its players, status, winner and loser.

    ``stale`` is true when a result was recorded for this node but its winner is not one of
    the players the node has now (an earlier result changed): the result is ignored.
    """

    key: str
    a: Slot
    b: Slot
    status: Status
    winner: Slot = PENDING
    loser: Slot = PENDING
    stale: bool = False

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(p for p in (self.a, self.b) if isinstance(p, int))


def link(nodes: Iterable[Node]) -> dict[str, Node]:
    """Fill every node's ``winner_to``/``loser_to`` from the feeds that name it."""
    by_key = {node.key: node for node in nodes}
    targets: dict[tuple[str, str], tuple[str, int]] = {}
    for node in by_key.values():
        for slot, feed in enumerate(node.feeds):
            if feed.kind != "seed":
                ref = (feed.kind, feed.key)
                if ref in targets:
                    raise ValueError(f"{feed} feeds two slots")
                if feed.key not in by_key:
                    raise ValueError(f"{node.key} is fed by an unknown match {feed.key}")
                targets[ref] = (node.key, slot)
    return {
        key: replace(
            node,
            winner_to=targets.get(("winner", key)),
            loser_to=targets.get(("loser", key)),
        )
        for key, node in by_key.items()
    }


def resolve(
    bracket: Bracket,
    entrants: Sequence[int],
    results: Mapping[str, int | None],
    absent: Collection[int] = frozenset(),
) -> dict[str, NodeState]:
    """Every node's state from the entrants (by seed) and the results recorded so far.

    ``results`` maps a node's key to its winner, or to None when both players lost.
    ``absent`` players (withdrawn, disqualified) count as byes in every undecided node.
    """
    return _resolve(bracket, entrants, results, absent)


def _resolve(
    bracket: Bracket,
    entrants: Sequence[int],
    results: Mapping[str, int | None],
    absent: Collection[int],
    *,
    play_out: bool = False,
) -> dict[str, NodeState]:
    """:func:`resolve`; with ``play_out``, every match still to play is won by its slot a."""
    if len(entrants) != bracket.entrants:
        raise ValueError(f"the bracket is for {bracket.entrants} entrants, not {len(entrants)}")
    states: dict[str, NodeState] = {}
    if play_out:
        results = dict(results)

    def fed(feed: Feed) -> Slot:
        if feed.kind == "seed":
            return entrants[feed.seed - 1] if feed.seed <= len(entrants) else BYE
        source = states[feed.key]
        return source.winner if feed.kind == "winner" else source.loser

    for key, node in bracket.nodes.items():
        for _ in range(1 + play_out):
            if node.reset:
                state = _reset_state(node, states[node.feeds[0].key], results, absent)
            else:
                state = _state(key, fed(node.feeds[0]), fed(node.feeds[1]), results, absent)
            if state.status != Status.READY or not play_out:
                break
            assert isinstance(results, dict) and isinstance(state.a, int)
            results[key] = state.a  # played out: decide it, and work the node out again
        states[key] = state
    return states


def _state(
    key: str, a: Slot, b: Slot, results: Mapping[str, int | None], absent: Collection[int]
) -> NodeState:
    if a is PENDING or b is PENDING:
        return NodeState(key, a, b, Status.WAITING, stale=key in results)
    stale = False
    if isinstance(a, int) and isinstance(b, int) and key in results:
        winner = results[key]
        if winner is None:  # both lost: nobody goes on, nobody drops
            return NodeState(key, a, b, Status.DECIDED, BYE, BYE)
        if winner in (a, b):
            return NodeState(key, a, b, Status.DECIDED, winner, b if winner == a else a)
    if key in results:
        stale = True
    # Undecided: a player who left counts as a bye from now on.
    if isinstance(a, int) and a in absent:
        a = BYE
    if isinstance(b, int) and b in absent:
        b = BYE
    if isinstance(a, int) and isinstance(b, int):
        return NodeState(key, a, b, Status.READY, stale=stale)
    if isinstance(a, int) or isinstance(b, int):
        player = a if isinstance(a, int) else b
        return NodeState(key, a, b, Status.WALKOVER, player, BYE, stale=stale)
    return NodeState(key, a, b, Status.EMPTY, BYE, BYE, stale=stale)


def _reset_state(
    node: Node, final: NodeState, results: Mapping[str, int | None], absent: Collection[int]
) -> NodeState:
    """The bracket reset: the grand final again, only if slot b (losers bracket) won it."""
    if final.status in (Status.WAITING, Status.READY):
        return NodeState(node.key, PENDING, PENDING, Status.WAITING, stale=node.key in results)
    if final.status != Status.DECIDED or final.winner != final.b:
        return NodeState(
            node.key, BYE, BYE, Status.SKIPPED, final.winner, BYE, stale=node.key in results
        )
    return _state(node.key, final.a, final.b, results, absent)


def champion(bracket: Bracket, states: Mapping[str, NodeState]) -> Slot:
    """The winner of the event: a player, BYE (nobody is left) or PENDING (not over yet)."""
    for key in bracket.finals:
        state = states[key]
        if state.status == Status.SKIPPED:
            continue
        if state.status in (Status.WAITING, Status.READY):
            return PENDING
        return state.winner
    return PENDING


def is_complete(states: Mapping[str, NodeState]) -> bool:
    """True when no match is waiting or to be played."""
    return all(state.status in SETTLED for state in states.values())


def stages(
    bracket: Bracket, states: Mapping[str, NodeState], absent: Collection[int] = frozenset()
) -> dict[int, tuple[int, int]]:
    """How far each player came: ``(stage, won)`` of the deepest match they reached.

    A player placed in a match that waits for its other player has reached it (the winner
    of a semifinal is in the final at once). ``won`` is 1 only for the winner of a match
    that places its winner (the final, the third-place match, the grand final), so the
    champion ranks above the runner-up and the winner of the third-place match above its
    loser. Higher is better; ties are broken by the standings' tiebreaks. ``absent`` players
    (withdrawn) have not reached a match they will not play.
    """
    return {player: mark for player, (mark, _) in _deepest(bracket, states, absent).items()}


def _deepest(
    bracket: Bracket, states: Mapping[str, NodeState], absent: Collection[int]
) -> dict[int, tuple[tuple[int, int], str]]:
    """Each player's deepest match: its ``(stage, won)`` mark and its key."""
    reached: dict[int, tuple[tuple[int, int], str]] = {}
    for key, node in bracket.nodes.items():
        state = states[key]
        if state.status == Status.SKIPPED:
            continue
        for player in state.players:
            if state.status == Status.WAITING and player in absent:
                continue
            won = int(places_winner(bracket, key) and state.winner == player)
            mark = (node.stage, won)
            if player not in reached or mark > reached[player][0]:
                reached[player] = (mark, key)
    return reached


def rounds_count(bracket: Bracket) -> int:
    """The rounds of a bracket as its players live them: the most matches one player can
    play from the first round to the end.

    A single elimination of 8 has 3 (its third-place match is played beside the final); a
    double elimination counts the longest road, through the losers bracket to the grand
    final and its reset (7 for 8 players: 6 without the reset). Not the number of
    :class:`RoundSpec` columns, which counts the third-place match and each section apart.

    Byes count no round: a match that can never have two players (a seed above the field,
    the loser of a walkover) is passed at once, and whoever waits for it plays on as soon
    as the other match that feeds them is played. So a double elimination of 5 has 6
    rounds with the reset, not 7: seeds 2 and 3 meet in the first round, beside seeds 4
    and 5, and the losers bracket's first round has no match at all.
    """
    depth: dict[str, int] = {}
    played: dict[str, bool] = {}  # two players may meet in it
    someone: dict[str, bool] = {}  # a player may come out of it as its winner
    for key, node in bracket.nodes.items():  # in order of play: feeds come first
        present = []
        for feed in node.feeds:
            if feed.kind == "seed":
                present.append(feed.seed <= bracket.entrants)
            elif node.reset:  # the grand final's two players again
                present.append(played[node.feeds[0].key])
            elif feed.kind == "winner":
                present.append(someone[feed.key])
            else:  # a loser: only of a match that was played
                present.append(played[feed.key])
        played[key] = all(present)
        someone[key] = any(present)
        before = [depth[feed.key] for feed in node.feeds if feed.kind != "seed"]
        depth[key] = max(before, default=0) + played[key]
    return max(depth.values(), default=0)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a player stands in a bracket while it is played, and at its end.

    ``rank`` is shared by the players knocked out at the same stage and never changes once a
    player is out: it is 1 + the number of players who finish further, whoever they turn
    out to be. A player still in (``playing``) is ranked by the best place still open to
    them: 1 + the players who finish further than they would by winning every match left
    to them (a semifinal's loser who plays for third place is ranked 3, not 2, though only
    the finalist has gone further yet). ``key`` names the deepest match reached ("" for a
    player who played none, such as one who withdrew before the start).
    """

    rank: int
    mark: tuple[int, int]
    key: str
    playing: bool


def placements(
    bracket: Bracket,
    entrants: Sequence[int],
    results: Mapping[str, int | None],
    absent: Collection[int] = frozenset(),
) -> dict[int, Placement]:
    """Every entrant's :class:`Placement` from the results so far (as :func:`resolve`)."""
    states = resolve(bracket, entrants, results, absent)
    now = _deepest(bracket, states, absent)
    # A player still in: their next match and their slot in it.
    pending: dict[int, tuple[str, int]] = {}
    for key, state in states.items():
        if state.status in (Status.WAITING, Status.READY):
            for slot, player in enumerate((state.a, state.b)):
                if isinstance(player, int) and player not in absent:
                    pending[player] = (key, slot)
    # How many players finish past each mark does not depend on who wins what is left to
    # play: play it out with any winners and count.
    ended = _resolve(bracket, entrants, results, absent, play_out=True)
    final = sorted(mark for mark, _ in _deepest(bracket, ended, absent).values())
    out: dict[int, Placement] = {}
    for player in entrants:
        mark, key = now.get(player, ((-1, 0), ""))
        # A player still in is ranked by the best mark still open to them (winning every
        # match from here): the players who finish past it are as many whoever wins the
        # rest, so those who will pass them are counted too, not only those already past
        # (a semifinal's loser who plays for third place ranks 3, not 2).
        at = _best_mark(bracket, *pending[player]) if player in pending else mark
        ahead = len(final) - bisect_right(final, at)
        out[player] = Placement(1 + ahead, mark, key, player in pending)
    return out


def _best_mark(bracket: Bracket, key: str, slot: int) -> tuple[int, int]:
    """The deepest mark a player still in can reach from their next match (``key``, in
    ``slot``): winning every match from there. A bracket reset is reached only by the
    player who came to the grand final in its slot b.
    """
    while (target := bracket.nodes[key].winner_to) is not None:
        if bracket.nodes[target[0]].reset and slot != 1:
            break
        key, slot = target
    return (bracket.nodes[key].stage, int(places_winner(bracket, key)))


def places_winner(bracket: Bracket, key: str) -> bool:
    """True when the winner of ``key`` may finish there: no next match, or only a reset."""
    target = bracket.nodes[key].winner_to
    return target is None or bracket.nodes[target[0]].reset


def ready(states: Mapping[str, NodeState]) -> list[str]:
    """Keys of the matches to be played now, in order of play."""
    return [key for key, state in states.items() if state.status == Status.READY]


def seed_positions(size: int) -> list[int]:
    """Seeds in bracket order so that the top seeds meet last: 8 -> 1 8 4 5 2 7 3 6.

    Every first-round match pairs seed ``s`` with ``size + 1 - s``.
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for s in order for seed in (s, width + 1 - s)]
    return order


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds ``entrants`` (at least 2)."""
    if entrants < 2:
        raise ValueError("an elimination bracket needs at least two entrants")
    return 1 << (entrants - 1).bit_length()


__all__ = [
    "BYE",
    "PENDING",
    "SETTLED",
    "Bracket",
    "Empty",
    "Feed",
    "Node",
    "NodeState",
    "Placement",
    "RoundSpec",
    "Slot",
    "Status",
    "bracket_size",
    "champion",
    "is_complete",
    "link",
    "placements",
    "places_winner",
    "ready",
    "resolve",
    "rounds_count",
    "seed_positions",
    "stages",
]
