"""What the e-mails to an event's entrants say (sent by :mod:`accounts.mail`, which adds the
link that turns them off).

Each mail is written in its recipient's language (their account's, else English:
:func:`accounts.language.mail_language`), its subject and body rendered inside
``translation.override`` of it. Times are in UTC and say so (accounts keep no time zone).
Each mail names the event, its start and the absolute link to its page (``SITE_URL``).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.language import mail_language
from accounts.mail import site_url, when_utc
from accounts.models import Player
from games.models import Match
from tournaments.models import Event, Pairing
from tournaments.round_names import round_label

EVENT_STARTING = "event_starting"
MATCH_READY = "match_ready"


def event_url(event: Event) -> str:
    """The absolute URL of the event's page."""
    return site_url(reverse("web:event", args=[event.pk]))


def _starts(event: Event) -> str:
    if event.started_at is not None:
        return _("It started at %(when)s.") % {"when": when_utc(event.started_at)}
    if event.starts_at is not None:
        return _("It starts at %(when)s.") % {"when": when_utc(event.starts_at)}
    return _("The organiser starts it by hand: no start time is set.")


def event_starting_mail(*, event: Event, player: Player) -> tuple[str, str]:
    """Subject and body of "the event you entered is about to start", in the player's
    language."""
    with translation.override(mail_language(player)):
        lines = [
            _("Hello %(name)s,") % {"name": player.name},
            "",
            _("%(event)s, which you entered, is about to start.") % {"event": event.name},
        ]
        lines.append(_starts(event))
        if event.check_in_opens_at is not None:
            lines.append(
                _(
                    "Check-in is open: check in on the event's page before the start, or you "
                    "will not be paired."
                )
            )
        else:
            lines.append(_("Be on the site at the start: your first match waits for you then."))
        lines += ["", _("The event: %(url)s") % {"url": event_url(event)}]
        subject = _("%(event)s is about to start") % {"event": event.name}
        return subject, "\n".join(lines)


def match_ready_mail(*, pairing: Pairing, match: Match, player: Player) -> tuple[str, str]:
    """Subject and body of "your match is ready to start", in the player's language."""
    event = pairing.event
    opponent = match.player_b if match.player_a_id == player.pk else match.player_a
    with translation.override(mail_language(player)):
        lines = [
            _("Hello %(name)s,") % {"name": player.name},
            "",
            _("Your match against %(opponent)s in %(event)s (%(round)s) is ready to start.")
            % {
                "opponent": opponent.name,
                "event": event.name,
                "round": round_label(pairing.round.name),
            },
        ]
        if match.start_deadline is not None:
            lines.append(
                _(
                    "Show up by %(when)s, or you forfeit it: open the event's page and start "
                    "the match."
                )
                % {"when": when_utc(match.start_deadline)}
            )
        lines += [_starts(event), "", _("The event: %(url)s") % {"url": event_url(event)}]
        subject = _("Your match in %(event)s is ready") % {"event": event.name}
        return subject, "\n".join(lines)
