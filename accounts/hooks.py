"""What the apps above accounts tell it about a player's deletion: accounts imports no app.

Deleting an account (``accounts.deletion``) touches what other apps keep about the player:
their matches, their entries in events, their places in ladder queues. Each app registers
two kinds of hook from its ``AppConfig.ready()``:

- a **busy check** (:func:`busy_check_register`): a player's account may not go while the
  check answers a :class:`Busy` (a match in play, an entry in an event that has not ended);
  the deletion refuses with the first one's reason (409 ``account_busy``);
- a **deletion hook** (:func:`deletion_hook_register`): what the app ends when the account
  goes (open challenges withdrawn, queue places left), run inside the deletion's
  transaction with the player's row locked, before the player is anonymised.

Both run in the order they were registered, which is the order of ``INSTALLED_APPS`` (each
app's ``ready()`` runs in that order): games, then tournaments, then ladders. A hook sees
the player still named and owned by their user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the models are not loaded when apps import this module
    from accounts.models import Player


@dataclass(frozen=True)
class Busy:
    """Why the account cannot go yet: the refusal's message and its details (``match=``...)."""

    reason: str
    details: Mapping[str, Any] = field(default_factory=dict)


#: Answers why the player's account cannot go yet, or None when nothing of the app holds it.
BusyCheck = Callable[["Player"], Busy | None]
#: Ends what the app keeps going for the player, inside the deletion's transaction.
DeletionHook = Callable[["Player"], None]

_busy_checks: list[BusyCheck] = []
_deletion_hooks: list[DeletionHook] = []


def busy_check_register(check: BusyCheck) -> None:
    """Add a busy check (once: registering the same function again changes nothing)."""
    if check not in _busy_checks:
        _busy_checks.append(check)


def deletion_hook_register(hook: DeletionHook) -> None:
    """Add a deletion hook (once: registering the same function again changes nothing)."""
    if hook not in _deletion_hooks:
        _deletion_hooks.append(hook)


def busy(player: Player) -> Busy | None:
    """The first registered check's reason the player's account cannot go, or None."""
    for check in _busy_checks:
        reason = check(player)
        if reason is not None:
            return reason
    return None


def deletion_hooks_run(player: Player) -> None:
    """Run every deletion hook for the player, in the order they were registered."""
    for hook in _deletion_hooks:
        hook(player)
