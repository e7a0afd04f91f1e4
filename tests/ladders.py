"""Helpers for ladder tests: ladders, finished ladder matches, rating rows in bulk."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import Player
from games import services as games_services
from games.models import Match
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
    """A ladder match between the two, won by ``winner`` (the loser resigns at once)."""
    match = services.ladder_match_create(ladder=ladder, player_a=winner, player_b=loser)
    return finish(match, winner)


def finish(match: Match, winner: Player) -> Match:
    """End a match waiting to start or in play: the other player resigns."""
    loser_id = match.player_b_id if winner.pk == match.player_a_id else match.player_a_id
    games_services.match_forfeit(
        match=match,
        loser=Player.objects.get(pk=loser_id),
        reason="resigned",
        end_reason=Match.EndReason.RESIGNED,
    )
    match.refresh_from_db()
    return match


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
