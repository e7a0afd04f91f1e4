"""The engine's narrow error classes.

Every refusal names the rule it enforces in ``rule`` (a short stable identifier the API
passes on to clients) and says in its message what was wrong.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    rule: str = "engine_error"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule


class InvalidCardError(EngineError, ValueError):
    """Unknown, malformed or repeated card notation."""

    rule = "invalid_card"


class InvalidActionError(EngineError, ValueError):
    """An action that cannot be parsed or is not well formed (unknown kind, missing card)."""

    rule = "invalid_action"


class IllegalActionError(EngineError):
    """A well-formed action the rules do not allow now; ``rule`` names the rule."""

    rule = "illegal_action"


class NotYourTurnError(IllegalActionError):
    """The acting seat is not the seat to act."""

    rule = "not_your_turn"


class DealOverError(IllegalActionError):
    """An action after the deal has ended."""

    rule = "deal_over"


class InvalidMeldsError(IllegalActionError):
    """Declared melds that are not melds, overlap, or are not in the knocker's hand."""

    rule = "invalid_melds"


class EntryError(EngineError, ValueError):
    """A hand entered from a score pad that the rules refuse; ``rule`` names the rule.

    The codes are listed in :data:`games.engine.table.ENTRY_RULES`.
    """

    rule = "invalid_entry"
