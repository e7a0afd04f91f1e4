"""The clock of a timed game: its time control and its arithmetic, over plain values.

A pure library (no Django, nothing of ours): the models, the selectors, the services and the
ladders import it. A clock is a number of milliseconds left and the moment it was last
charged; the player to act runs from that moment. The services keep these numbers on the
Game row and apply the functions here to them (:mod:`games.services.timing`); the selectors
read the time left with them (:func:`games.selectors.clock_remaining_ms`).

- :class:`TimeControl`: base time, Fischer increment, an optional per-turn limit, the policy
  on a timeout, the pause between deals, lag compensation.
- :func:`remaining_ms`, :func:`turn_remaining_ms`: what is left now.
- :func:`deadline`: when the player to act runs out (their clock, or the turn's limit).
- :func:`charge`: a move charged to its mover, their lag credited from their lag bank.
- :func:`timed_out`: a clock charged up to a timeout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

#: The timeout policies (the values of ``games.models.TimeoutPolicy``): the game is forfeited,
#: or a bot moves for the player (three times in a row forfeit it).
FORFEIT = "forfeit"
AUTOPLAY = "autoplay"

#: Lag compensation: each move of a player in a timed game adds this much to their bank of
#: lag the server credits back to their clock (their network's, and the server's own delay
#: in handing them the view and in taking their move)...
LAG_QUOTA_MS = 500
#: ...which holds at most this much (a few quotas), so a slow link is covered and a client
#: claiming lag it does not have gains little.
LAG_BANK_MS = 1500


@dataclass(frozen=True)
class TimeControl:
    """Base time and Fischer increment per player per game; an optional per-turn limit."""

    base_seconds: int
    increment_seconds: int = 0
    turn_limit_seconds: int | None = None
    timeout_policy: str = FORFEIT
    #: No clock runs for this long after a deal (both players continue sooner); 0: none.
    pause_seconds: int = 15
    #: Credit the mover's measured lag (network, and the server's own) back to their clock.
    lag_compensation: bool = True

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (what an open game stores); see :meth:`from_dict`."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        """The time control :meth:`as_dict` gave."""
        return cls(**data)


def elapsed_ms(since: datetime, now: datetime) -> int:
    """Whole milliseconds from ``since`` to ``now`` (negative if ``now`` is earlier), counted
    exactly: in whole microseconds, not through a float (4.039 s * 1000 is 4038.999...)."""
    delta = now - since
    micro = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return micro // 1000 if micro >= 0 else -(-micro // 1000)


def remaining_ms(
    clock_ms: int, *, running: bool, charged_at: datetime | None, now: datetime
) -> int:
    """What a clock holding ``clock_ms`` at ``charged_at`` has left ``now`` (if ``running``)."""
    if running and charged_at:
        clock_ms -= elapsed_ms(charged_at, now)
    return max(0, clock_ms)


def turn_remaining_ms(
    turn_limit_seconds: int, *, turn_began_at: datetime, paused: bool, now: datetime
) -> int:
    """What is left of a per-turn limit for a turn that began at ``turn_began_at``."""
    if paused:
        return turn_limit_seconds * 1000
    limit = turn_began_at + timedelta(seconds=turn_limit_seconds)
    return max(0, elapsed_ms(now, limit))


def deadline(
    clock_ms: int,
    *,
    charged_at: datetime,
    turn_limit_seconds: int | None,
    turn_began_at: datetime | None,
) -> datetime:
    """When a running clock runs out: its own time, or the per-turn limit if sooner."""
    at = charged_at + timedelta(milliseconds=clock_ms)
    if turn_limit_seconds is not None and turn_began_at is not None:
        at = min(at, turn_began_at + timedelta(seconds=turn_limit_seconds))
    return at


class Charge(NamedTuple):
    """A clock and a lag bank after a charge, and the lag credited back with it."""

    clock_ms: int
    lag_bank_ms: int
    credit_ms: int


def charge(
    clock_ms: int,
    *,
    lag_bank_ms: int,
    charged_at: datetime,
    now: datetime,
    lag_ms: int = 0,
    lag_compensation: bool = True,
) -> Charge:
    """Charge a clock for the time from ``charged_at`` to ``now``.

    ``lag_ms`` is the mover's lag (their network's, and the server's own delay on the move):
    with lag compensation it is credited back, up to what their bank holds once topped up by
    :data:`LAG_QUOTA_MS` (at most :data:`LAG_BANK_MS`), and never more than the time charged.
    Without a lag to credit the bank is left as it is.
    """
    elapsed = max(0, elapsed_ms(charged_at, now))
    credit = 0
    if lag_ms > 0 and lag_compensation:
        bank = min(LAG_BANK_MS, lag_bank_ms + LAG_QUOTA_MS)
        credit = min(lag_ms, bank, elapsed)
        lag_bank_ms = bank - credit
    return Charge(max(0, clock_ms - elapsed + credit), lag_bank_ms, credit)


def timed_out(clock_ms: int, *, charged_at: datetime, at: datetime) -> int:
    """A clock charged from ``charged_at`` up to a timeout at ``at``: zero exactly when the
    clock itself ran out, else what it kept (a per-turn limit ran out first)."""
    if charged_at + timedelta(milliseconds=clock_ms) <= at:
        return 0
    return max(0, clock_ms - elapsed_ms(charged_at, at))
