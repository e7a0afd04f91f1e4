"""Rule sets: every number and choice of the rule book as a named option.

A :class:`RuleSet` is a frozen value; variants are presets of it (``standard``,
``oklahoma``, ``straight``, ``hollywood``) and the few places where a variant changes
the play ask the rule set (:meth:`RuleSet.knock_limit_for`, :meth:`RuleSet.multiplier_for`)
instead of testing a variant name.

>>> RuleSet.preset("oklahoma").knock_limit_for(card_index("7S")), RuleSet.preset("oklahoma").target
(7, 150)
>>> RuleSet.from_dict({"preset": "standard", "target": 100}).target
100
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from .cards import RANK_POINTS, card_index  # noqa: F401 (the doctest uses card_index)
from .errors import EngineError


class ShutoutStyle(enum.StrEnum):
    """What a shutout (the loser won no hand) gives the winner."""

    DOUBLE_HAND_POINTS = "double_hand_points"  # hand points doubled before line bonus
    DOUBLE_GAME_BONUS = "double_game_bonus"  # game bonus doubled
    NONE = "none"


class NextDealer(enum.StrEnum):
    """Who deals the next hand of a game (after a drawn hand the same dealer deals again)."""

    ALTERNATE = "alternate"
    LOSER = "loser"


class ScoringStyle(enum.StrEnum):
    """Plain games, or Hollywood: three games scored at once from one run of hands."""

    STANDARD = "standard"
    HOLLYWOOD = "hollywood"


class RuleSetError(EngineError, ValueError):
    """An unknown preset or option, or an option value out of range."""

    rule = "invalid_rules"


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of the rule book, with the book's defaults."""

    name: str = "standard"
    # The hand
    knock_limit: int = 10
    oklahoma: bool = False  # the first upcard sets the knock limit; a spade doubles
    oklahoma_spade_multiplier: int = 2
    straight: bool = False  # no knocking: only gin or big gin ends a hand
    allow_discard_of_drawn_upcard: bool = False
    fiftieth_card: bool = False
    # Scoring a hand
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    # A game
    target: int = 250
    game_bonus: int = 100
    line_bonus: int = 25
    shutout: ShutoutStyle = ShutoutStyle.DOUBLE_HAND_POINTS
    next_dealer: NextDealer = NextDealer.ALTERNATE
    scoring: ScoringStyle = ScoringStyle.STANDARD
    # A match
    best_of: int = 5
    duplicate_deals: bool = False

    def __post_init__(self) -> None:
        checks = {
            "knock_limit": 0 <= self.knock_limit <= 100,
            "oklahoma_spade_multiplier": 1 <= self.oklahoma_spade_multiplier <= 10,
            "gin_bonus": 0 <= self.gin_bonus <= 1000,
            "big_gin_bonus": 0 <= self.big_gin_bonus <= 1000,
            "undercut_bonus": 0 <= self.undercut_bonus <= 1000,
            "target": 1 <= self.target <= 10_000,
            "game_bonus": 0 <= self.game_bonus <= 10_000,
            "line_bonus": 0 <= self.line_bonus <= 1000,
            "best_of": 1 <= self.best_of <= 99 and self.best_of % 2 == 1,
        }
        for option, ok in checks.items():
            if not ok:
                raise RuleSetError(
                    f"rule option {option}={getattr(self, option)!r} is out of range",
                    rule="invalid_rules",
                )

    # --- hooks the play asks -----------------------------------------------------------

    def knock_limit_for(self, upcard: int) -> int:
        """The knock limit of a hand whose first upcard is ``upcard``.

        Oklahoma: ten and court cards 10, number cards their value, an ace gin only (0).
        """
        if not self.oklahoma:
            return self.knock_limit
        rank = upcard % 13
        return 0 if rank == 0 else RANK_POINTS[rank]

    def multiplier_for(self, upcard: int) -> int:
        """Factor on the hand's score: Oklahoma doubles a hand whose first upcard is a spade."""
        if self.oklahoma and upcard // 13 == 3:
            return self.oklahoma_spade_multiplier
        return 1

    @property
    def may_knock(self) -> bool:
        """False in straight gin, where only gin and big gin end a hand."""
        return not self.straight

    @property
    def games_to_win(self) -> int:
        return self.best_of // 2 + 1

    # --- (de)serialisation -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every option."""
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            out[field.name] = value.value if isinstance(value, enum.Enum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Build from a dict; ``preset`` (optional) names the base, other keys override it.

        ``RuleSet.from_dict(rules.to_dict()) == rules`` for every rule set.

        Unknown keys and bad values raise RuleSetError naming the option.
        """
        if not isinstance(data, dict):
            raise RuleSetError("rules must be an object of options")
        data = dict(data)
        preset = data.pop("preset", None)
        if preset is not None:
            base = cls.preset(str(preset))
        else:
            # A full dict (as to_dict writes it) needs no base; a partial one named after
            # a preset starts from that preset.
            base = PRESETS.get(str(data.get("name")), STANDARD)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key not in fields:
                raise RuleSetError(f"unknown rule option {key!r}")
            current = getattr(base, key)
            try:
                if isinstance(current, enum.Enum):
                    value = type(current)(value)
                elif isinstance(current, bool):
                    if not isinstance(value, bool):
                        raise TypeError
                elif isinstance(current, int):
                    if isinstance(value, bool) or not isinstance(value, int):
                        raise TypeError
                elif isinstance(current, str) and not isinstance(value, str):
                    raise TypeError
            except (TypeError, ValueError):
                raise RuleSetError(f"rule option {key!r} has an invalid value {value!r}") from None
            changes[key] = value
        return dataclasses.replace(base, **changes)

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """A named preset: ``standard``, ``oklahoma``, ``straight`` or ``hollywood``."""
        try:
            return PRESETS[name]
        except KeyError:
            known = ", ".join(sorted(PRESETS))
            raise RuleSetError(f"unknown rule set {name!r}; known: {known}") from None

    def replace(self, **changes: Any) -> RuleSet:
        return dataclasses.replace(self, **changes)


STANDARD = RuleSet()
OKLAHOMA = RuleSet(name="oklahoma", oklahoma=True, target=150)
STRAIGHT = RuleSet(name="straight", straight=True)
HOLLYWOOD = RuleSet(name="hollywood", scoring=ScoringStyle.HOLLYWOOD)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (STANDARD, OKLAHOMA, STRAIGHT, HOLLYWOOD)}

__all__ = [
    "HOLLYWOOD",
    "OKLAHOMA",
    "PRESETS",
    "STANDARD",
    "STRAIGHT",
    "NextDealer",
    "RuleSet",
    "RuleSetError",
    "ScoringStyle",
    "ShutoutStyle",
]
