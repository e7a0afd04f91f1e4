"""The "How to play" page: the game, its presets and scoring words, worked examples and a FAQ.

The examples' numbers are the engine's (:mod:`web.rules_examples`); the FAQ's are the
settings the site runs with (the pause between deals, the lag credit, the ladders'
provisional ratings), read from where they are defined, so the page says what the site
does today.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import conditional_escape, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.models import Match
from games.services import AUTOPLAY_LIMIT, LAG_BANK_MS, LAG_QUOTA_MS
from ladders.models import Ladder
from web.rules_examples import Examples, examples
from web.templatetags.cards import card, cards


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


def _melds(melds: list[list[str]]) -> SafeString:
    """Melds as the examples show them: each a span of cards, separated by commas."""
    return format_html_join(", ", '<span class="meld">{}</span>', ((cards(m),) for m in melds))


def _and(items: list[SafeString]) -> SafeString:
    """Cards said one after another: "7♥ and 8♥" (a sentence's list, translated)."""
    out = mark_safe("")
    for index, item in enumerate(items):
        out = (
            item
            if index == 0
            else mark_safe(
                _("%(cards)s and %(card)s")
                % {"cards": conditional_escape(out), "card": conditional_escape(item)}
            )
        )
    return out


def _shown(ex: Examples) -> dict:
    """The examples' lists of melds and cards, rendered for the page's translated sentences
    (a translated sentence holds them as placeholders, not as loops)."""
    return {
        "arranged_melds": _melds(ex.arranged_melds),
        "deals": {
            key: {
                "knocker_melds": _melds(d.knocker_melds),
                "defender_melds": _melds(d.defender_melds),
                "layoffs": _and([card(code) for code, _onto in d.layoffs]),
            }
            for key, d in ex.deals.items()
        },
    }


def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules with worked examples computed by the engine, and what the site does."""
    ex = examples()
    context = {
        "ex": ex,
        "shown": _shown(ex),
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
