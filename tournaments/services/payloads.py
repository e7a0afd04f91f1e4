"""The JSON bodies of the events' webhooks: players, entries, pairings and rounds.

Built only when a webhook of the event listens (``webhooks.emit`` takes a callable), so a
result costs no queries when nobody is subscribed.
"""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from tournaments.models import Entry, Pairing, Round


def player_json(player_id: int) -> dict[str, Any]:
    """A player as the webhooks show one: id, name, kind."""
    player = Player.objects.get(pk=player_id)
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def entry_json(entry: Entry | None) -> dict[str, Any] | None:
    """An entry with its seed and player (None for an empty slot)."""
    if entry is None:
        return None
    return {"entry": entry.pk, "seed": entry.seed, "player": player_json(entry.player_id)}


def pairing_json(pairing: Pairing, *, override: bool = False) -> dict[str, Any]:
    """A decided pairing: ``match.finished``."""
    return {
        "round": pairing.round.number,
        "key": pairing.key,
        "table": pairing.table,
        "match": pairing.match_id,
        "match_venue": pairing.match.venue if pairing.match else None,
        "match_table": pairing.match.table if pairing.match else None,
        "a": entry_json(pairing.entry_a),
        "b": entry_json(pairing.entry_b),
        "winner": pairing.winner_id,
        "result": pairing.result,
        "games": [pairing.games_a, pairing.games_b],
        "margin_a": pairing.margin_a,
        "override": override,
    }


def round_json(rnd: Round) -> dict[str, Any]:
    """A round and its tables: ``round.started``."""
    return {
        "round": rnd.number,
        "name": rnd.name,
        "pairings": [
            {
                "key": p.key,
                "table": p.table,
                "match": p.match_id,
                "match_venue": p.match.venue if p.match else None,
                "match_table": p.match.table if p.match else None,
                "a": p.entry_a_id,
                "b": p.entry_b_id,
                "status": p.status,
            }
            for p in Pairing.objects.filter(round=rnd).select_related("match").order_by("table")
        ],
    }
