"""What the Bot API hears from the games app: a finished match is news for its bots."""

from __future__ import annotations

from django.dispatch import receiver

from bots.events import match_finished_tell
from games.signals import match_finished


@receiver(match_finished, dispatch_uid="bots.match_finished")
def _tell_bots_the_match_finished(sender, match, **kwargs) -> None:
    match_finished_tell(match=match)
