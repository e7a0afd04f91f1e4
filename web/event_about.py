"""What the public event page says about an event above its bracket: when it starts (with a
countdown, read in the reader's own time zone by ``event_clock.js``), the organiser's
description, who organises it, the match rules in one line and how its format plays.

The description is plain text or Markdown; no Markdown library is among the dependencies, so
the page shows it as text: escaped, its line breaks kept, web addresses made links
(``urlize``: http, https and www only, ``rel="nofollow"``). Markdown source shows as typed.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from accounts.models import Player
from common.errors import ServiceError
from games.engine.rules import RuleSet, RuleSetError
from tournaments.models import Entry, Event, Format
from tournaments.services import match_rules
from tournaments.services.start import NO_CHECK_IN
from web.paper import rules_line

#: How each format plays, in a sentence or two for players.
FORMAT_EXPLANATIONS = {
    Format.SINGLE_ELIM: _(
        "Knockout: lose a match and you are out; the winners play on until one is left."
    ),
    Format.DOUBLE_ELIM: _(
        "Knockout with a second chance: a first loss sends you to the losers' bracket, a "
        "second one puts you out; the winners of both brackets meet in the final."
    ),
    Format.ROUND_ROBIN: _(
        "Everyone plays everyone once (twice in a double round robin); the standings "
        "decide, then the tiebreaks."
    ),
    Format.SWISS: _(
        "A set number of rounds; each round pairs players on the same score (or as close as "
        "it can), never the same two twice if it can help it. Nobody is knocked out; the "
        "standings decide."
    ),
    Format.ARENA: _(
        "Play as many matches as you can until the time is up: as soon as you finish you are "
        "paired again with someone free. A win is 2 points, 4 after two wins in a row; going "
        "berserk (halving your own clock) and winning earns one more."
    ),
    Format.TWO_STAGE: _(
        "First groups, every group playing on its own; the best of each group go on to a "
        "knockout playoff."
    ),
}


def organiser_of(event: Event) -> str:
    """Who organises the event, as players know them: the creator's player name."""
    user = event.created_by
    if user is None:
        return ""
    player = getattr(user, "player", None)
    return player.name if player is not None else ""


def rules_of(event: Event) -> str:
    """The match rules in one line (as the score pad and the score sheets print them)."""
    try:
        return rules_line(RuleSet.from_dict(match_rules(event)))
    except (ServiceError, RuleSetError):  # settings the start would refuse: say nothing
        return ""


def event_about(event: Event, me: Player | None = None) -> dict[str, Any]:
    """The page's "about" block; ``me`` (the reader's player) hears whether the start withdrew
    them for not checking in (their socket told them at the time, if they were on the site)."""
    missed = me is not None and (
        event.entries.filter(player=me, status=Entry.Status.WITHDRAWN, note=NO_CHECK_IN).exists()
    )
    return {
        "starts_at": event.starts_at,
        "check_in_opens_at": event.check_in_opens_at,
        "waiting": event.status in (Event.Status.DRAFT, Event.Status.REGISTRATION),
        "description": event.description,
        "organiser": organiser_of(event),
        "rules_line": rules_of(event),
        "format_explanation": FORMAT_EXPLANATIONS.get(event.format, ""),
        "missed_check_in": missed,
    }
