"""What the e-mails to an event's entrants say (sent by :mod:`accounts.mail`, which adds the
link that turns them off).

Times are in UTC and say so (accounts keep no time zone). Each mail names the event, its
start and the absolute link to its page (``SITE_URL``).
"""

from __future__ import annotations

from django.urls import reverse

from accounts.mail import site_url, when_utc
from accounts.models import Player
from games.models import Match
from tournaments.models import Event, Pairing

EVENT_STARTING = "event_starting"
MATCH_READY = "match_ready"


def event_url(event: Event) -> str:
    """The absolute URL of the event's page."""
    return site_url(reverse("web:event", args=[event.pk]))


def _starts(event: Event) -> str:
    if event.started_at is not None:
        return f"It started at {when_utc(event.started_at)}."
    if event.starts_at is not None:
        return f"It starts at {when_utc(event.starts_at)}."
    return "The organiser starts it by hand: no start time is set."


def event_starting_mail(*, event: Event, player: Player) -> tuple[str, str]:
    """Subject and body of "the event you entered is about to start"."""
    lines = [f"Hello {player.name},", "", f"{event.name}, which you entered, is about to start."]
    lines.append(_starts(event))
    if event.check_in_opens_at is not None:
        lines.append(
            "Check-in is open: check in on the event's page before the start, or you will not "
            "be paired."
        )
    else:
        lines.append("Be on the site at the start: your first match waits for you then.")
    lines += ["", f"The event: {event_url(event)}"]
    return f"{event.name} is about to start", "\n".join(lines)


def match_ready_mail(*, pairing: Pairing, match: Match, player: Player) -> tuple[str, str]:
    """Subject and body of "your match is ready to start"."""
    event = pairing.event
    opponent = match.player_b if match.player_a_id == player.pk else match.player_a
    lines = [
        f"Hello {player.name},",
        "",
        f"Your match against {opponent.name} in {event.name} ({pairing.round.name}) is ready "
        "to start.",
    ]
    if match.start_deadline is not None:
        lines.append(
            f"Show up by {when_utc(match.start_deadline)}, or you forfeit it: open the event's "
            "page and start the match."
        )
    lines += [_starts(event), "", f"The event: {event_url(event)}"]
    return f"Your match in {event.name} is ready", "\n".join(lines)
