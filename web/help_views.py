"""The "How to play" page: the game, its presets and scoring words, worked examples and a FAQ.

The examples' numbers are the engine's (:mod:`web.rules_examples`); the FAQ's are the
settings the site runs with (the pause between deals, the lag credit, the ladders'
provisional ratings), read from where they are defined, so the page says what the site
does today.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Match
from games.services import AUTOPLAY_LIMIT, LAG_BANK_MS, LAG_QUOTA_MS
from ladders.models import Ladder
from web.rules_examples import examples


def _default(model, field: str):
    return model._meta.get_field(field).default


def _ladders() -> list[dict]:
    """The open ladders with what makes a rating provisional and a player ranked there."""
    out = []
    for ladder in Ladder.objects.filter(kind=Ladder.Kind.LADDER, is_open=True).order_by("name"):
        out.append(
            {
                "name": ladder.name,
                "glicko": ladder.is_glicko,
                "provisional_matches": ladder.provisional_matches,
                "provisional_deviation": ladder.provisional_deviation,
                "min_matches": ladder.leaderboard_min_matches,
                "active_days": ladder.leaderboard_active_days,
            }
        )
    return out


def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules with worked examples computed by the engine, and what the site does."""
    context = {
        "ex": examples(),
        "pause_seconds": _default(Match, "pause_seconds"),
        "lag_quota": LAG_QUOTA_MS / 1000,
        "lag_bank": LAG_BANK_MS / 1000,
        "autoplay_limit": AUTOPLAY_LIMIT,
        "ladder_defaults": {
            "initial_rating": _default(Ladder, "initial_rating"),
            "provisional_matches": _default(Ladder, "provisional_matches"),
            "provisional_deviation": _default(Ladder, "provisional_deviation"),
            "min_matches": _default(Ladder, "leaderboard_min_matches"),
            "active_days": _default(Ladder, "leaderboard_active_days"),
        },
        "ladders": _ladders(),
    }
    return render(request, "web/how_to_play.html", context)
