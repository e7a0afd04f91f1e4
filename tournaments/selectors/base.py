"""What the reads of every format share: a player and an entry as JSON, and a settled
pairing as the standings count it (byes, forfeits, rounds missed)."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from tournaments.formats.standings import Result
from tournaments.models import Entry, Pairing

#: Results by forfeit where no game was played: unplayed rounds for FIDE's tiebreaks.
UNPLAYED_RESULTS = (Pairing.Result.NO_SHOW, Pairing.Result.DOUBLE_NO_SHOW, Pairing.Result.WALKOVER)


def player_json(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def entry_json(entry: Entry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {
        "entry": entry.pk,
        "seed": entry.seed,
        "status": entry.status,
        "player": player_json(entry.player),
    }


def missed_rounds(
    finished: set[int], with_result: dict[int, set[int]], there: dict[int, set[int]]
) -> tuple[dict[int, int], dict[int, int]]:
    """Per entry: the finished rounds played without it, and how many of them came after the
    last round it was there for (played, won by forfeit, or a bye): after withdrawing."""
    missed: dict[int, int] = {}
    withdrawn: dict[int, int] = {}
    for pk, numbers in with_result.items():
        without = finished - numbers
        last = max(there.get(pk, ()), default=0)
        missed[pk] = len(without)
        withdrawn[pk] = sum(1 for number in without if number > last)
    return missed, withdrawn


def pairing_result(p: Pairing) -> Result | None:
    """A settled pairing as the standings read it (None: nothing to count)."""
    if p.entry_a_id is None or p.entry_b_id is None:
        # A bye: in a losers bracket the player may be in either slot.
        alone = p.entry_a_id or p.entry_b_id
        if p.result != Pairing.Result.BYE or alone is None:
            return None
        return Result(alone, None, p.winner_id)
    if p.result not in (*Pairing.RECORDED, Pairing.Result.WALKOVER):
        return None
    unplayed = p.result in UNPLAYED_RESULTS or (
        p.result == Pairing.Result.FORFEIT and p.games_a + p.games_b == 0
    )
    return Result(
        p.entry_a_id,
        p.entry_b_id,
        p.winner_id,
        p.games_a,
        p.games_b,
        p.margin_a,
        unplayed=unplayed,
    )
