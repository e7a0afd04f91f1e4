"""Helpers for ladder tests: ladders, finished ladder matches, rating rows in bulk."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import Player
from games import services as games_services
from games.models import Game, Match
from ladders import services
from ladders.models import Ladder, Rating
from tests.factories import BotFactory, PlayerFactory

_names = itertools.count()


def make_ladder(**fields) -> Ladder:
    """A single-game, untimed ladder (quick to play out in tests) unless told otherwise."""
    n = next(_names)
    fields = {"best_of": 1, "base_seconds": None, **fields}
    return services.ladder_create(name=fields.pop("name", f"Test ladder {n}"), **fields)


def play_ladder_match(ladder: Ladder, winner: Player, loser: Player) -> Match:
    """A ladder match between the two, won by ``winner`` (the loser forfeits at once)."""
    match = services.ladder_match_create(ladder=ladder, player_a=winner, player_b=loser)
    return finish(match, winner)


def finish(match: Match, winner: Player) -> Match:
    """End a match waiting to start or in play: the other player forfeits it.

    A forfeit, not a resignation: a match resigned before both players have moved is not
    rated (``RATING_MIN_MOVES``), and these helpers stand for a result that counts.
    """
    loser_id = match.player_b_id if winner.pk == match.player_a_id else match.player_a_id
    games_services.match_forfeit(
        match=match,
        loser=Player.objects.get(pk=loser_id),
        reason="forfeited",
        end_reason=Match.EndReason.FORFEIT,
    )
    match.refresh_from_db()
    return match


def play_moves(match: Match, each: int) -> Match:
    """Make moves that end nothing (no knock, no gin) in a match in play until each player has
    made ``each`` of their own; a house bot replies by itself."""
    from games.engine.actions import Action as EngineAction
    from games.selectors import game_view, moves_made

    rng = random.Random(match.pk)
    for _ in range(20 * each + 20):
        match.refresh_from_db()
        if min(moves_made(match=match).get(p, 0) for p in match.players) >= each:
            return match
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        player = Player.objects.get(pk=match.players[game.to_act])
        legal = game_view(game=game, viewer=player)["legal_actions"]
        quiet = [a for a in legal if a["type"] not in ("knock", "gin", "big_gin")]
        action = EngineAction.from_json(rng.choice(quiet))
        games_services.action_submit(game_id=game.pk, player=player, ply=game.ply, action=action)
    raise AssertionError(f"the players did not make {each} moves each")


def humans(count: int, prefix: str = "p") -> list[Player]:
    n = next(_names)
    return [PlayerFactory(user__username=f"{prefix}{n}x{i}") for i in range(count)]


def bots(strategies: list[str]) -> list[Player]:
    n = next(_names)
    return [
        BotFactory(name=f"{s.title()} {n}-{i}", bot_strategy=s) for i, s in enumerate(strategies)
    ]


def seed_ratings(
    ladder: Ladder,
    players: list[Player],
    ratings: list[float],
    *,
    matches: int = 20,
    last_active: datetime | None = None,
) -> list[Rating]:
    """Rating rows as if the players had played ``matches`` rated matches (no history)."""
    when = last_active or timezone.now() - timedelta(days=1)
    return Rating.objects.bulk_create(
        [
            Rating(
                ladder=ladder,
                player=p,
                is_bot=p.is_bot,
                rating=r,
                peak=r,
                matches_played=matches,
                wins=matches // 2,
                losses=matches - matches // 2,
                provisional=matches < ladder.provisional_matches,
                last_active=when,
            )
            for p, r in zip(players, ratings, strict=True)
        ]
    )
