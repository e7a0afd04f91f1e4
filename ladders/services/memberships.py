"""Ladders and rating pools, and their members: create a ladder, check its rules, make sure
a player has a rating row in a pool."""

from __future__ import annotations

from typing import Any

from django.utils.text import slugify
from django.utils.translation import gettext as _

from accounts.models import Player
from games import services as games_services
from ladders.models import Ladder, Rating
from ladders.services.base import LadderError


def ladder_create(*, name: str, slug: str | None = None, **fields: Any) -> Ladder:
    """A ladder (or, with ``kind=Ladder.Kind.POOL``, a rated pool); fields are validated.

    The rule set must be one the engine accepts (LadderError ``invalid_rules`` otherwise).
    """
    ladder = Ladder(name=name, slug=slug or slugify(name), **fields)
    ladder_rules_check(ladder)
    ladder.full_clean()
    ladder.save()
    return ladder


def ladder_rules_check(ladder: Ladder) -> None:
    """Refuse a ladder's rule set unless the engine accepts it (PlayError ``invalid_rules``
    naming the option) and it plays no duplicate deals (LadderError): the check of the
    organiser API and of the admin's form alike."""
    rules = games_services.rules_build(
        ladder.rules or None, best_of=ladder.best_of, target=ladder.target
    )
    if rules.duplicate_deals:
        # A ladder pairs people (see games.services.rules_check_players).
        raise LadderError(
            _("a ladder cannot play duplicate deals: they are for house bots only"),
            code="duplicate_deals_need_bots",
        )


def membership_ensure(*, ladder: Ladder, player: Player) -> Rating:
    """The player's rating row in the pool, created at the initial rating if missing."""
    rating, _created = Rating.objects.get_or_create(
        ladder=ladder,
        player=player,
        defaults={"is_bot": player.is_bot, **ladder.newcomer()},
    )
    return rating
