"""What every service of play shares: the refusals, and the locks they take in one order.

Every state change of a match runs in one transaction that first locks the match row
(:func:`locked`); a change that also guards the players against a second match locks their
rows first (:func:`lock_players`, in id order, as the ladder matchmaker does).
"""

from __future__ import annotations

from accounts.models import Player
from common.errors import ServiceError
from games.engine.match import Match as EngineMatch
from games.models import Game, Match


class PlayError(ServiceError):
    """A refused request of play."""


class NotAPlayer(PlayError):
    status = 403
    code = "not_a_player"


class Conflict(PlayError):
    """Stale ply, not your turn, game over: the client's picture is out of date."""

    status = 409
    code = "conflict"


class IllegalMove(PlayError):
    status = 400
    code = "illegal_action"


def locked(match_id: int) -> Match:
    """The match, its row locked until the transaction ends (its players read with it)."""
    # OF self: only the match row. A plain FOR UPDATE with the players joined would lock their
    # rows too, in the match's order (A, then B): two matches of the same pair, A v B and B v A,
    # finishing at once then deadlocked (found by tests/integration/test_faults_tasks.py).
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .get(pk=match_id)
    )


def lock_players(*players: Player) -> None:
    """Lock the players' rows (FOR NO KEY UPDATE, in id order) until the transaction ends.

    The ladder matchmaker takes the same locks before it pairs queued players and then looks
    again for a match in progress, so a challenge starting here and a ranked pairing of the
    same player cannot both miss each other: whichever commits second sees the first.
    """
    ids = sorted({player.pk for player in players})
    list(
        Player.objects.select_for_update(no_key=True)
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def engine_of(match: Match) -> EngineMatch:
    """The engine's match as the match row's snapshot keeps it (a started online match)."""
    assert match.state is not None
    return EngineMatch.from_snapshot(match.state)


def active_game(match: Match) -> Game:
    """The match's game in play (there is one while an online match is active)."""
    return Game.objects.get(match=match, status=Game.Status.ACTIVE)
