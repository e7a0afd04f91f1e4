"""A match: best of N games (five by default), each to the target.

A match is its seed, its rules and its actions: game seeds come from the match seed, the
first game's dealer is cut from it, and the first deal of each later game alternates.

>>> match = Match(seed=2024)
>>> match.games_won, match.rules.best_of, match.is_over
([0, 0], 5, False)
"""

from __future__ import annotations

import enum
from typing import Any

from .actions import Action
from .errors import DealOverError, EntryError
from .game import DealRecord, Game, GameResult, cut_for_deal, derive_seed
from .rules import STANDARD, RuleSet
from .table import EnteredHand


class MatchTermination(enum.StrEnum):
    GAMES = "games"  # a player won the majority of games
    FORFEIT = "forfeit"  # a player forfeited the match


class Match:
    """A best-of-N match between players 0 and 1."""

    __slots__ = (
        "_counted",
        "cut_dealer",
        "game",
        "game_index",
        "games",
        "reason",
        "results",
        "rules",
        "seed",
        "termination",
        "winner",
    )

    def __init__(self, seed: int, rules: RuleSet = STANDARD) -> None:
        self.seed = seed
        self.rules = rules
        self.cut_dealer = cut_for_deal(derive_seed(seed, "cut"))
        self.games: list[Game] = []
        self.results: list[GameResult] = []
        self.winner: int | None = None
        self.termination: MatchTermination | None = None
        self.reason = ""
        self._counted = 0
        self.game_index = -1
        self.game = self._start_game()

    def _start_game(self) -> Game:
        self.game_index = index = self.game_index + 1
        first_dealer = self.cut_dealer ^ (index % 2)
        game = Game(derive_seed(self.seed, "game", index), first_dealer, self.rules)
        self.games.append(game)
        self._counted = 0
        return game

    # --- reading -----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def games_won(self) -> list[int]:
        won = [0, 0]
        for result in self.results:
            won[result.winner] += 1
        return won

    @property
    def margins(self) -> list[int]:
        """Per player: the sum over games of own final score minus the opponent's."""
        total = [0, 0]
        for r in self.results:
            total[0] += r.final[0] - r.final[1]
            total[1] += r.final[1] - r.final[0]
        return total

    @property
    def to_act_player(self) -> int | None:
        return None if self.is_over else self.game.to_act_player

    @property
    def next_dealer(self) -> int | None:
        """The player who deals the next hand (the one in play); None once the match is over."""
        return None if self.is_over else self.game.dealer_player

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over else self.game.legal_actions()

    # --- acting ------------------------------------------------------------------------

    def apply(self, action: Action, player: int | None = None) -> DealRecord | None:
        """Apply an action for the player to act; returns the deal's record if it ended."""
        if self.is_over:
            raise DealOverError("the match is over")
        record = self.game.apply(action, player)
        if record is not None:
            self._collect()
        return record

    def enter(self, hand: EnteredHand) -> DealRecord:
        """Score the deal in play as ``hand``, played with real cards (see :meth:`Game.enter`).

        Refused with an :class:`EntryError` (``match_over`` once the match is decided, or
        what the rules refuse), changing nothing.

        >>> from .table import HandKind
        >>> match = Match(seed=2024, rules=RuleSet(target=50, best_of=1))
        >>> dealer = match.next_dealer
        >>> record = match.enter(EnteredHand(HandKind.KNOCK, knocker=0, deadwood=(8, 8)))
        >>> record.outcome.termination.value, record.winner_player, record.outcome.points
        ('undercut', 1, 25)
        >>> match.next_dealer == 1 - dealer
        True
        >>> record = match.enter(EnteredHand(HandKind.BIG_GIN, knocker=1, deadwood=(0, None)))
        >>> match.winner, match.results[0].final, match.next_dealer
        (1, (0, 262), None)
        """
        if self.is_over:
            raise EntryError("the match is over", rule="match_over")
        record = self.game.enter(hand)
        self._collect()
        return record

    def forfeit_game(self, player: int, reason: str = "") -> None:
        """``player`` forfeits the game in play (scored as it stands); the match goes on."""
        if self.is_over:
            raise DealOverError("the match is over")
        self.game.forfeit(player, reason)
        self._collect()

    def forfeit_match(self, player: int, reason: str = "") -> None:
        """``player`` forfeits the match: the game in play is forfeited and the match ends."""
        if self.is_over:
            raise DealOverError("the match is over")
        self.game.forfeit(player, reason)
        self._collect(stop=True)
        self.winner = 1 - player
        self.termination = MatchTermination.FORFEIT
        self.reason = reason

    def _collect(self, stop: bool = False) -> None:
        game = self.game
        need = self.rules.games_to_win
        while self._counted < len(game.results):
            result = game.results[self._counted]
            self._counted += 1
            self.results.append(result)
            if self.games_won[result.winner] >= need:
                self.winner = result.winner
                self.termination = MatchTermination.GAMES
                return
        if game.is_over and not stop:
            self.game = self._start_game()

    @classmethod
    def replay(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match from :meth:`log_json` output by replaying every action.

        A hand played with real cards is entered again from its ``hand``. Only the seed,
        rules, actions, entered hands and forfeits are read; the recorded outcomes and
        results can then be compared with the replay's.
        """
        match = cls(int(data["seed"]), RuleSet.from_dict(data["rules"]))
        games = data["games"]
        for index, game in enumerate(games):
            for deal in game["deals"]:
                if "hand" in deal:
                    match.enter(EnteredHand.from_json(deal["hand"]))
                    continue
                for text in deal["actions"]:
                    match.apply(Action.parse(text))
            forfeit = game.get("forfeit")
            if forfeit is not None:
                last = index == len(games) - 1
                if last and data.get("termination") == MatchTermination.FORFEIT.value:
                    match.forfeit_match(int(forfeit["player"]), str(forfeit["reason"]))
                else:
                    match.forfeit_game(int(forfeit["player"]), str(forfeit["reason"]))
        return match

    # --- snapshots -------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The match now, as JSON-ready data: results so far and the game in play.

        :meth:`from_snapshot` rebuilds it by replaying the deal in play only; the log
        stays the truth and :meth:`replay` of the full log gives the same state.
        """
        return {
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "cut_dealer": self.cut_dealer,
            "game_index": self.game_index,
            "results": [r.to_json() for r in self.results],
            "counted": self._counted,
            "winner": self.winner,
            "termination": None if self.termination is None else self.termination.value,
            "reason": self.reason,
            "game": self.game.snapshot(),
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match from :meth:`snapshot` output."""
        match = cls.__new__(cls)
        match.seed = int(data["seed"])
        match.rules = RuleSet.from_dict(data["rules"])
        match.cut_dealer = int(data["cut_dealer"])
        match.game_index = int(data["game_index"])
        match.results = [GameResult.from_json(r) for r in data["results"]]
        match._counted = int(data["counted"])
        match.winner = None if data["winner"] is None else int(data["winner"])
        termination = data["termination"]
        match.termination = None if termination is None else MatchTermination(termination)
        match.reason = str(data["reason"])
        match.game = Game.from_snapshot(data["game"])
        match.games = [match.game]
        return match

    # --- logs --------------------------------------------------------------------------

    def log_json(self) -> dict[str, Any]:
        """Compact JSON of the whole match: seeds, every deal's actions, every result.

        A hand played with real cards is written with its entered ``hand`` instead of
        actions: a table match is its ordered entered hands.
        """
        return {
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "cut_dealer": self.cut_dealer,
            "games": [
                {
                    "seed": g.seed,
                    "first_dealer": g.first_dealer,
                    "deals": [_deal_json(rec) for rec in g.deals]
                    # The deal in play, if any: none once the match is decided (a
                    # Hollywood game may still have open columns then).
                    + ([] if g.is_over or self.is_over else [_live_deal_json(g)]),
                    "forfeit": None
                    if g.forfeit_by is None
                    else {"player": g.forfeit_by[0], "reason": g.forfeit_by[1]},
                }
                for g in self.games
            ],
            "results": [r.to_json() for r in self.results],
            "winner": self.winner,
            "termination": None if self.termination is None else self.termination.value,
            "games_won": self.games_won,
        }


def _deal_json(rec: DealRecord) -> dict[str, Any]:
    if rec.entered is not None:
        return {
            "seed": rec.seed,
            "dealer": rec.dealer,
            "swap": rec.swap,
            "hand": rec.entered.to_json(),
            "outcome": rec.outcome.to_json() if rec.outcome else None,
        }
    return {
        "seed": rec.seed,
        "dealer": rec.dealer,
        "swap": rec.swap,
        "actions": [str(a) for a in rec.actions],
        "outcome": rec.outcome.to_json() if rec.outcome else None,
    }


def _live_deal_json(game: Game) -> dict[str, Any]:
    d = game.deal
    return {
        "seed": d.seed,
        "dealer": d.dealer,
        "swap": game.deal_swap,
        "actions": [str(a) for a in d.actions],
        "outcome": None,
    }


__all__ = ["Match", "MatchTermination"]
