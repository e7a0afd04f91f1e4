"""A ladder pairing, on the paired players' own sockets (``ws/me``, see accounts.live)."""

from __future__ import annotations

from typing import Any

from accounts.live import player_tell
from games.models import Game, Match
from ladders.models import Ladder


def pairing_message(*, match: Match, ladder: Ladder, player_id: int) -> dict[str, Any]:
    """``pairing``: the matchmaker paired this player; the match and the table to open."""
    opponent = match.player_b if match.player_a_id == player_id else match.player_a
    game = (
        Game.objects.filter(match=match, status=Game.Status.ACTIVE)
        .values_list("pk", flat=True)
        .first()
    )
    return {
        "type": "pairing",
        "match": match.pk,
        "game": game,
        "status": match.status,
        "ladder": {"id": ladder.pk, "name": ladder.name},
        "opponent": {"id": opponent.pk, "name": opponent.name, "kind": opponent.kind},
    }


def pairing_tell(*, match: Match, ladder: Ladder) -> None:
    """Tell the human players of a ladder match that has just started (on commit)."""
    for player in (match.player_a, match.player_b):
        if not player.is_bot:
            player_tell(player.pk, pairing_message(match=match, ladder=ladder, player_id=player.pk))
