"""Games to the target, and Hollywood sets of three games, as runs of deals.

Players of a game are 0 and 1.  A deal's seats map to players through ``swap``: seat
``s`` is played by player ``s ^ swap``.  Plain deals have ``swap = 0``; with duplicate
deals every seed is dealt twice, the second time with ``swap = 1``, so each player holds
each hand once, from the same seat (dealer or not) as the other player held it.

Seeds: a game's deal seeds come from the game seed by :func:`derive_seed`, so a game is
its seed, its first dealer, its rules and its actions.

>>> from .rules import RuleSet
>>> game = Game.new(seed=1, first_dealer=0, rules=RuleSet(target=100))
>>> game.scores, game.deal.dealer, game.to_act_player
([0, 0], 0, 1)
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .deal import Deal, Outcome, shuffled_deck
from .errors import DealOverError, EntryError, NotYourTurnError
from .rules import STANDARD, NextDealer, RuleSet, ScoringStyle, ShutoutStyle
from .table import EnteredHand


def derive_seed(parent: int, *path: str | int) -> int:
    """A child seed: the first 63 bits of SHA-256 over ``"parent/path/..."``.

    >>> derive_seed(42, "game", 0)
    4084479675647724271
    """
    text = "/".join([str(parent), *(str(p) for p in path)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def cut_for_deal(seed: int) -> int:
    """The player (0 or 1) who deals first: each cuts a card, the lower rank deals.

    Player 0 cuts first; equal ranks cut again.  Aces are low.
    """
    deck = shuffled_deck(seed)
    for i in range(0, 52, 2):
        a, b = deck[i] % 13, deck[i + 1] % 13
        if a != b:
            return 0 if a < b else 1
    return 0  # unreachable: 26 pairs of equal rank cannot all tie


class GameTermination(enum.StrEnum):
    TARGET = "target"  # a player reached the target
    FORFEIT = "forfeit"  # a player forfeited (timeout, no-show, resignation, bot failure)


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A finished deal of a game: enough to replay it, and how it scored.

    A hand played with real cards (:meth:`Game.enter`) has no seed and no actions: its
    record keeps the hand as ``entered``, and the outcome it scored (without cards).
    """

    number: int
    seed: int | None
    dealer: int  # the dealer's seat
    swap: int
    actions: tuple[Action, ...]
    outcome: Outcome | None  # None if the game ended by forfeit during the deal
    seats: tuple[int, ...] = ()  # the seat that made each action
    hands: tuple[int, int] = (0, 0)  # each seat's cards when the deal ended
    entered: EnteredHand | None = None  # a hand played with real cards, as entered

    def player_of_seat(self, seat: int) -> int:
        return seat ^ self.swap

    @property
    def winner_player(self) -> int | None:
        if self.outcome is None or self.outcome.winner is None:
            return None
        return self.outcome.winner ^ self.swap


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game, scored by the book: hand points plus bonuses."""

    winner: int
    termination: GameTermination
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    game_bonus: tuple[int, int]
    line_bonus: tuple[int, int]
    shutout: bool
    final: tuple[int, int]
    reason: str = ""

    @property
    def margin(self) -> int:
        """The winner's final score minus the loser's."""
        return self.final[self.winner] - self.final[1 - self.winner]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        """Inverse of :meth:`to_json`."""

        def pair(key: str) -> tuple[int, int]:
            a, b = data[key]
            return (int(a), int(b))

        return cls(
            winner=int(data["winner"]),
            termination=GameTermination(data["termination"]),
            hand_points=pair("hand_points"),
            hands_won=pair("hands_won"),
            game_bonus=pair("game_bonus"),
            line_bonus=pair("line_bonus"),
            shutout=bool(data["shutout"]),
            final=pair("final"),
            reason=str(data.get("reason", "")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "termination": self.termination.value,
            "hand_points": list(self.hand_points),
            "hands_won": list(self.hands_won),
            "game_bonus": list(self.game_bonus),
            "line_bonus": list(self.line_bonus),
            "shutout": self.shutout,
            "final": list(self.final),
            "margin": self.margin,
            "reason": self.reason,
        }


def score_game(
    rules: RuleSet,
    winner: int,
    hand_points: tuple[int, int],
    hands_won: tuple[int, int],
    termination: GameTermination = GameTermination.TARGET,
    reason: str = "",
) -> GameResult:
    """Apply the end-of-game bonuses: game bonus, line bonus per hand won, shutout."""
    loser = 1 - winner
    shutout = hands_won[loser] == 0 and rules.shutout is not ShutoutStyle.NONE
    points = list(hand_points)
    bonus = [0, 0]
    bonus[winner] = rules.game_bonus
    if shutout and rules.shutout is ShutoutStyle.DOUBLE_HAND_POINTS:
        points[winner] *= 2
    elif shutout and rules.shutout is ShutoutStyle.DOUBLE_GAME_BONUS:
        bonus[winner] *= 2
    line = (hands_won[0] * rules.line_bonus, hands_won[1] * rules.line_bonus)
    final = (points[0] + bonus[0] + line[0], points[1] + bonus[1] + line[1])
    return GameResult(
        winner=winner,
        termination=termination,
        hand_points=(points[0], points[1]),
        hands_won=hands_won,
        game_bonus=(bonus[0], bonus[1]),
        line_bonus=line,
        shutout=shutout,
        final=final,
        reason=reason,
    )


@dataclass(slots=True)
class _Column:
    """One game's running totals: a plain game has one column, Hollywood three."""

    scores: list[int] = field(default_factory=lambda: [0, 0])
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    result: GameResult | None = None


class Game:
    """A run of deals scored into one game (standard) or three (Hollywood).

    ``deal`` is the deal in play; when it ends the next one starts at once, unless the
    game is over.  ``deals`` holds the finished ones.  ``results`` lists the finished
    games in the order they ended (one for standard scoring, up to three for Hollywood).
    """

    __slots__ = (
        "_last",
        "_pair",
        "_pair_dealer",
        "_tiebreaks",
        "columns",
        "deal",
        "deal_number",
        "deal_swap",
        "deals",
        "first_dealer",
        "forfeit_by",
        "last_deal_known",
        "results",
        "rules",
        "seed",
        "wins_count",
    )

    def __init__(self, seed: int, first_dealer: int, rules: RuleSet = STANDARD) -> None:
        if first_dealer not in (0, 1):
            raise ValueError("first_dealer must be player 0 or 1")
        self.seed = seed
        self.rules = rules
        self.first_dealer = first_dealer
        hollywood = rules.scoring is ScoringStyle.HOLLYWOOD
        self.columns = [_Column() for _ in range(3 if hollywood else 1)]
        self.wins_count = [0, 0]  # winning hands per player, for Hollywood's columns
        self.deals: list[DealRecord] = []  # the finished deals (since a restore, if any)
        # The newest deal that was scored: its record, or as :meth:`snapshot` keeps it.
        self._last: DealRecord | dict[str, Any] | None = None
        self.last_deal_known = True
        self.deal_number = 0  # the number of the deal in play
        self.results: list[GameResult] = []
        self.forfeit_by: tuple[int, str] | None = None
        self._pair_dealer = first_dealer
        self._pair = 0  # duplicate deals: the pair in play
        self._tiebreaks = 0  # duplicate deals: sudden-death deals dealt after a tie
        self.deal_swap = 0
        self.deal = self._make_deal(0, first_dealer, 0)

    @classmethod
    def new(cls, seed: int, first_dealer: int, rules: RuleSet = STANDARD) -> Game:
        return cls(seed, first_dealer, rules)

    # --- reading -----------------------------------------------------------------------

    @property
    def last_deal(self) -> dict[str, Any] | None:
        """The newest deal scored, as the snapshot keeps it: its number, seed, dealer's
        seat, swap, outcome (JSON) and each seat's cards at the end as a mask; None before
        the first. Only meaningful when :attr:`last_deal_known` (a game restored from a
        snapshot written without it does not know)."""
        last = self._last
        if isinstance(last, DealRecord):
            assert last.outcome is not None
            last = self._last = {
                "number": last.number,
                "seed": last.seed,
                "dealer": last.dealer,
                "swap": last.swap,
                "outcome": last.outcome.to_json(),
                "hands": [last.hands[0], last.hands[1]],
            }
        return last

    @property
    def is_over(self) -> bool:
        columns = self.columns
        if len(columns) == 1:  # a plain game, asked at every move
            return columns[0].result is not None
        return all(col.result is not None for col in columns)

    @property
    def scores(self) -> list[int]:
        """Running hand points of the first (or only) game."""
        return list(self.columns[0].scores)

    @property
    def hands_won(self) -> list[int]:
        return list(self.columns[0].hands_won)

    @property
    def dealer_player(self) -> int:
        """The player who deals the deal in play."""
        return self.deal.dealer ^ self.deal_swap

    def player_of_seat(self, seat: int) -> int:
        return seat ^ self.deal_swap

    def seat_of_player(self, player: int) -> int:
        return player ^ self.deal_swap

    @property
    def to_act_player(self) -> int | None:
        if self.is_over:
            return None
        return self.deal.to_act ^ self.deal_swap

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over else self.deal.legal_actions()

    # --- acting ------------------------------------------------------------------------

    def apply(self, action: Action, player: int | None = None) -> DealRecord | None:
        """Apply an action for the player to act; returns the deal's record if it ended."""
        if self.is_over:
            raise DealOverError("the game is over")
        d = self.deal
        seat = None if player is None else player ^ self.deal_swap
        if seat is not None and seat != d.to_act:
            raise NotYourTurnError(f"it is player {d.to_act ^ self.deal_swap}'s turn")
        d.apply(action, seat)
        if d.outcome is None:
            return None
        return self._close_deal(
            DealRecord(
                self.deal_number,
                d.seed,
                d.dealer,
                self.deal_swap,
                d.actions,
                d.outcome,
                _seats(d),
                (d.hands[0], d.hands[1]),
            )
        )

    def enter(self, hand: EnteredHand) -> DealRecord:
        """Score the deal in play as ``hand``, played with real cards; returns its record.

        The hand's dealer is the deal in play's (:attr:`dealer_player`). It is scored by
        the rules' scoring of a hand (:meth:`EnteredHand.score`) and closed like a deal
        played online: columns, targets, the next dealer (the same one after a drawn
        hand). Refused with an :class:`EntryError`, changing nothing, if the rules or the
        state do not allow it.

        >>> from .table import HandKind
        >>> game = Game.new(seed=1, first_dealer=0, rules=RuleSet(target=100))
        >>> record = game.enter(EnteredHand(HandKind.GIN, knocker=1, deadwood=(40, None)))
        >>> record.outcome.points, game.scores, game.dealer_player
        (65, [0, 65], 1)
        """
        if self.is_over:
            raise EntryError("the game is over", rule="game_over")
        if self.rules.duplicate_deals:
            raise EntryError(
                "duplicate deals need the engine's shuffle: they cannot be played at a table",
                rule="duplicate_deals_at_table",
            )
        d = self.deal
        if d.ply:
            raise EntryError(
                "the deal in play has moves played online: finish it online",
                rule="deal_in_progress",
            )
        outcome = hand.score(self.rules)
        # Without duplicate deals no deal swaps seats: the hand's players are its seats.
        assert self.deal_swap == 0
        record = DealRecord(
            self.deal_number, None, d.dealer, self.deal_swap, (), outcome, entered=hand
        )
        return self._close_deal(record)

    def forfeit(self, player: int, reason: str = "") -> None:
        """``player`` forfeits: every open game is won by the opponent, scored as it stands."""
        if self.is_over:
            raise DealOverError("the game is over")
        d = self.deal
        self.deals.append(
            DealRecord(
                self.deal_number,
                d.seed,
                d.dealer,
                self.deal_swap,
                d.actions,
                None,
                _seats(d),
                (d.hands[0], d.hands[1]),
            )
        )
        self.forfeit_by = (player, reason)
        for col in self.columns:
            if col.result is None:
                col.result = score_game(
                    self.rules,
                    1 - player,
                    (col.scores[0], col.scores[1]),
                    (col.hands_won[0], col.hands_won[1]),
                    GameTermination.FORFEIT,
                    reason,
                )
                self.results.append(col.result)

    # --- snapshots ---------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything that defines the game now, without its finished deals.

        Of those it keeps only a summary of the newest one scored (``last_deal``: its
        number, seed, dealer's seat, swap, outcome and each seat's cards at the end as a
        mask), so a reader can show the last result without the log. With
        :meth:`from_snapshot` this rebuilds the game by replaying only the deal in play:
        what a server keeps beside the action log, as a cache of it.
        """
        d = self.deal
        return {
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "rules": self.rules.to_dict(),
            "columns": [
                {
                    "scores": list(col.scores),
                    "hands_won": list(col.hands_won),
                    "result": None if col.result is None else col.result.to_json(),
                }
                for col in self.columns
            ],
            "result_order": [
                next(i for i, col in enumerate(self.columns) if col.result is r)
                for r in self.results
            ],
            "wins_count": list(self.wins_count),
            "pair_dealer": self._pair_dealer,
            "pair": self._pair,
            "tiebreaks": self._tiebreaks,
            "forfeit_by": None if self.forfeit_by is None else list(self.forfeit_by),
            **({"last_deal": self.last_deal} if self.last_deal_known else {}),
            "deal": {
                "number": self.deal_number,
                "seed": d.seed,
                "dealer": d.dealer,
                "swap": self.deal_swap,
                "actions": [str(a) for a in d.actions],
            },
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot` output (replays the deal in play only)."""
        game = cls.__new__(cls)
        game.seed = int(data["seed"])
        game.rules = RuleSet.from_dict(data["rules"])
        game.first_dealer = int(data["first_dealer"])
        game.columns = []
        for col in data["columns"]:
            result = None if col["result"] is None else GameResult.from_json(col["result"])
            game.columns.append(_Column(list(col["scores"]), list(col["hands_won"]), result))
        game.results = []
        for index in data["result_order"]:
            result = game.columns[index].result
            assert result is not None
            game.results.append(result)
        game.wins_count = list(data["wins_count"])
        game._pair_dealer = int(data["pair_dealer"])
        game._pair = int(data.get("pair", int(data["deal"]["number"]) // 2))
        game._tiebreaks = int(data.get("tiebreaks", 0))
        forfeit = data["forfeit_by"]
        game.forfeit_by = None if forfeit is None else (int(forfeit[0]), str(forfeit[1]))
        game.deals = []
        # A snapshot written before the last deal was kept does not know it.
        game.last_deal_known = "last_deal" in data
        game._last = data.get("last_deal")
        deal = data["deal"]
        game.deal_number = int(deal["number"])
        game.deal_swap = int(deal["swap"])
        game.deal = Deal.new(int(deal["seed"]), int(deal["dealer"]), game.rules)
        for text in deal["actions"]:
            game.deal.apply(Action.parse(text))
        return game

    # --- deal sequencing ---------------------------------------------------------------

    def _make_deal(
        self, number: int, dealer_player: int, swap: int, seed: int | None = None
    ) -> Deal:
        if seed is None:
            seed = derive_seed(self.seed, "deal", number)
        self.deal_swap = swap
        return Deal.new(seed, dealer_player ^ swap, self.rules)

    def _close_deal(self, record: DealRecord) -> DealRecord:
        """Score the deal in play, ended as ``record`` says, and start the next one.

        One path for a deal played online and a hand entered from a score pad.
        """
        d = self.deal
        assert record.outcome is not None
        self.deals.append(record)
        self._last = record
        self.last_deal_known = True
        winner = record.winner_player
        if winner is not None:
            self._score(winner, record.outcome.points)
        if self.rules.duplicate_deals:
            return self._next_duplicate_deal(record)
        self._check_targets()
        if self.is_over:
            return record
        self.deal_number = number = record.number + 1
        dealer_player = d.dealer ^ self.deal_swap
        if winner is None:
            next_dealer = dealer_player  # a drawn hand: the same dealer deals again
        elif self.rules.next_dealer is NextDealer.LOSER:
            next_dealer = 1 - winner
        else:
            next_dealer = 1 - dealer_player
        self.deal = self._make_deal(number, next_dealer, 0)
        return record

    def _next_duplicate_deal(self, record: DealRecord) -> DealRecord:
        """Duplicate deals: the pair's second deal, the next pair, or a sudden-death deal.

        The target is checked only once both deals of a pair are played. Players who end a
        pair tied at or past the target (two copies of one deterministic bot always do)
        play single sudden-death deals, dealer alternating, until one wins a hand.
        """
        d = self.deal
        first_of_pair = self._tiebreaks == 0 and self.deal_swap == 0
        if not first_of_pair:
            self._check_targets()
            if self.is_over:
                return record
        self.deal_number = number = record.number + 1
        if first_of_pair:
            # The same seed and dealer seat, the players swapped.
            self.deal = self._make_deal(number, self._pair_dealer ^ 1, 1, seed=d.seed)
        elif self._tied_at_target():
            self._tiebreaks += 1
            seed = derive_seed(self.seed, "tiebreak", self._tiebreaks)
            self.deal = self._make_deal(number, 1 - (d.dealer ^ self.deal_swap), 0, seed=seed)
        else:
            self._pair += 1
            self._pair_dealer ^= 1
            seed = derive_seed(self.seed, "deal", self._pair)
            self.deal = self._make_deal(number, self._pair_dealer, 0, seed=seed)
        return record

    def _tied_at_target(self) -> bool:
        target = self.rules.target
        return any(
            col.result is None and col.scores[0] == col.scores[1] >= target for col in self.columns
        )

    def _score(self, winner: int, points: int) -> None:
        self.wins_count[winner] += 1
        reach = min(self.wins_count[winner], len(self.columns))
        for col in self.columns[:reach]:
            if col.result is None:
                col.scores[winner] += points
                col.hands_won[winner] += 1

    def _check_targets(self) -> None:
        target = self.rules.target
        for col in self.columns:
            if col.result is not None:
                continue
            a, b = col.scores
            if max(a, b) < target or a == b:
                continue
            winner = 0 if a > b else 1
            col.result = score_game(
                self.rules, winner, (a, b), (col.hands_won[0], col.hands_won[1])
            )
            self.results.append(col.result)


def _seats(deal: Deal) -> tuple[int, ...]:
    return tuple(deal.seat_of_ply(i) for i in range(deal.ply))


__all__ = [
    "DealRecord",
    "Game",
    "GameResult",
    "GameTermination",
    "cut_for_deal",
    "derive_seed",
    "score_game",
]
