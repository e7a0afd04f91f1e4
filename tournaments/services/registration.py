"""Registration: opening and closing it, entering, checking in, withdrawing, reinstating.

Entering covers a player registering themself, an organiser adding a player or new house
bots, and late entries into a running Swiss; withdrawing covers disqualifying.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from accounts.services import bot_create
from games import services as play
from games.engine import bots as engine_bots
from games.models import IN_PROGRESS, Match
from tournaments.live import event_changed
from tournaments.models import Entry, Event, Format, Pairing, Venue
from tournaments.services.advancing import advance, arena_pair_soon
from tournaments.services.base import (
    Conflict,
    TournamentError,
    User,
    entry_is,
    event_is,
    lock_event,
    lock_live_matches,
    log_action,
)
from tournaments.services.results import pairing_record


def event_open_registration(
    *, event: Event, by: User | None = None, now: datetime | None = None, reason: str = ""
) -> Event:
    """Open registration now (a draft, or an event whose registration was closed); ``reason``
    goes to the audit log (the schedule says it opened it)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event.pk)
        if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
            raise Conflict(event_is(event.status), code="event_started")
        if event.status == Event.Status.DRAFT and event.repeat_rule:
            raise Conflict(
                _(
                    "a recurring event is a template: its occurrences open and start by themselves "
                    "(empty its repeat rule to run it once)"
                ),
                code="event_repeats",
            )
        event.status = Event.Status.REGISTRATION
        if event.registration_opens_at is None or event.registration_opens_at > now:
            event.registration_opens_at = now
        if event.registration_closes_at is not None and event.registration_closes_at <= now:
            event.registration_closes_at = None
        event.save(update_fields=["status", "registration_opens_at", "registration_closes_at"])
        log_action(event, "open_registration", by, reason)
        event_changed(event)
    return event


def event_close_registration(
    *, event: Event, by: User | None = None, now: datetime | None = None
) -> Event:
    """Close registration now; the event can still be started (or reopened)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event.pk)
        if event.status != Event.Status.REGISTRATION:
            raise Conflict(_("registration is not open"), code="registration_closed")
        event.registration_closes_at = now
        event.save(update_fields=["registration_closes_at"])
        log_action(event, "close_registration", by)
        event_changed(event)
    return event


def registration_open(event: Event, now: datetime | None = None) -> bool:
    """Whether players may register now (late registration into a Swiss included)."""
    now = now or timezone.now()
    if event.status == Event.Status.RUNNING:
        return _late_registration_open(event)
    if event.status != Event.Status.REGISTRATION:
        return False
    if event.registration_opens_at is not None and now < event.registration_opens_at:
        return False
    return event.registration_closes_at is None or now < event.registration_closes_at


def _late_registration_open(event: Event) -> bool:
    """A running Swiss takes late entries until half its rounds have started (if it allows
    them); a running arena until its time is up."""
    if event.format == Format.ARENA:
        return event.ends_at is not None and timezone.now() < event.ends_at
    if event.format != Format.SWISS or not event.late_registration:
        return False
    started = event.rounds.count()
    return 2 * started < (event.rounds_planned or 0)


def _active_count(event: Event) -> int:
    return event.entries.filter(status__in=Entry.ACTIVE).count()


def _admissible(event: Event, player: Player) -> None:
    """Refuse a player this event cannot seat (entering and reinstating alike): a house bot
    of an unknown strategy, a person in an event for bots only, anyone but a house bot in an
    event of duplicate deals, a guest in an online event (a guest has no account to play
    online with: 409 ``guests_need_tables``), a guest beside bots or a bot beside guests
    (409 ``guests_and_bots``), an account marked as assisted for fair play, which plays bots
    only (403 ``assisted_account``)."""
    if player.is_guest and event.venue == Venue.ONLINE:
        raise Conflict(
            _(
                "%(name)s is a guest, who cannot play online: a guest plays in an event at "
                "tables (or mixed), or takes over an account from an invitation link first"
            )
            % {"name": player.name},
            code="guests_need_tables",
        )
    if player.is_guest or player.is_any_bot:
        # A bot plays on the site and a guest only at a table: the two could never meet.
        other = (
            Q(player__kind__in=(Player.Kind.BOT, Player.Kind.EXTERNAL))
            if player.is_guest
            else Q(player__kind=Player.Kind.GUEST)
        )
        if event.entries.filter(other, status__in=Entry.ACTIVE).exists():
            if player.is_guest:
                message = _(
                    "%(event)s has bots entered: a guest plays only at a table and a bot only "
                    "on the site, so the two cannot be paired; enter guests or bots, not both"
                )
            else:
                message = _(
                    "%(event)s has guests entered: a guest plays only at a table and a bot only "
                    "on the site, so the two cannot be paired; enter guests or bots, not both"
                )
            raise Conflict(message % {"event": event.name}, code="guests_and_bots")
    if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
        raise TournamentError(
            _("bot %(name)r plays an unknown strategy %(strategy)r")
            % {"name": player.name, "strategy": player.bot_strategy},
            code="unknown_bot",
        )
    if player.is_assisted and not event.bots_only:
        # An event pairs its entrants with each other: people among them.
        raise TournamentError(
            _(
                "%(name)s plays against bots only: staff found that the account played with "
                "a program's help"
            )
            % {"name": player.name},
            code="assisted_account",
            status=403,
        )
    if event.bots_only and not player.is_any_bot:
        raise TournamentError(
            _("%(event)s is for bots only: enter a bot of yours with its token")
            % {"event": event.name},
            code="bots_only",
            status=403,
        )
    if event.duplicate_deals and not player.is_bot:
        # See games.services.rules_check_players: a person would play both halves of a pair.
        raise TournamentError(
            _("this event plays duplicate deals, which are for house bots only"),
            code="duplicate_deals_need_bots",
        )


def _enter(event: Event, player: Player, now: datetime, *, by: User | None, admin: bool) -> Entry:
    """With the event locked: add ``player`` (or take back one who withdrew before the start)."""
    if event.is_over:
        raise Conflict(event_is(event.status), code="event_over")
    _admissible(event, player)
    running = event.status == Event.Status.RUNNING
    if running and not _late_registration_open(event):
        raise Conflict(_("the event has started"), code="registration_closed")
    if not admin and not running and not registration_open(event, now):
        raise Conflict(_("registration is closed"), code="registration_closed")
    entry = Entry.objects.filter(event=event, player=player).first()
    if entry is not None and entry.status == Entry.Status.DISQUALIFIED:
        raise Conflict(
            _("%(name)s is disqualified from this event") % {"name": player.name},
            code="disqualified",
        )
    if entry is not None and (entry.is_active or running):
        raise Conflict(
            _("%(name)s is already registered") % {"name": player.name}, code="already_registered"
        )
    if event.capacity is not None and _active_count(event) >= event.capacity:
        raise Conflict(
            _("the event is full (%(capacity)s players)") % {"capacity": event.capacity},
            code="event_full",
        )
    if entry is None:
        entry = Entry(event=event, player=player)
    entry.status = Entry.Status.REGISTERED
    entry.withdrawn_at = None
    entry.note = ""
    if running:
        # A late Swiss entry: the next pairing number, paired from the next round on.
        entry.late = True
        entry.seed = (event.entries.aggregate(top=Max("seed"))["top"] or 0) + 1
    entry.save()
    log_action(event, "add_entry" if admin else "register", by, entry=entry, player=player.pk)
    event_changed(event)
    if running and event.is_arena:
        arena_pair_soon(event)  # paired as soon as someone else is free
    return entry


def entry_register(*, event: Event, player: Player, now: datetime | None = None) -> Entry:
    """A signed-in player registers themself (while registration is open)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event.pk)
        return _enter(event, player, now, by=player.user, admin=False)


def entry_add(*, event: Event, player: Player, by: User | None = None) -> Entry:
    """An organiser enters a player or a bot (before the start, or late into a Swiss)."""
    with transaction.atomic():
        event = lock_event(event.pk)
        return _enter(event, player, timezone.now(), by=by, admin=True)


#: First names of new house bots, each followed by its strategy: "Nora (expert)". Once a
#: strategy has used them all, they come round again numbered ("Nora 2 (expert)").
BOT_FIRST_NAMES = (
    "Ada", "Alma", "Amos", "Anya", "Basil", "Bea", "Bruno", "Cleo", "Cora", "Cyrus",
    "Dara", "Dora", "Edgar", "Effie", "Elio", "Enzo", "Faye", "Felix", "Flora", "Gideon",
    "Greta", "Gus", "Hazel", "Hugo", "Ida", "Igor", "Iris", "Ivo", "Jasper", "Jonas",
    "June", "Kai", "Kit", "Lena", "Leon", "Lotte", "Mabel", "Milo", "Mira", "Nell",
    "Nico", "Nora", "Odile", "Olaf", "Opal", "Orla", "Otto", "Pearl", "Piet", "Quinn",
    "Rafa", "Rosa", "Rufus", "Sami", "Sibyl", "Sven", "Tess", "Theo", "Tove", "Ulla",
    "Uma", "Vera", "Vito", "Wanda", "Wim", "Xenia", "Yara", "Yves", "Zelda", "Zeno",
)  # fmt: skip


def _bot_names(strategy: str) -> Iterator[str]:
    """Names for new house bots of ``strategy``, skipping those taken (ignoring case)."""
    suffix = f" ({strategy})"
    taken = {
        name.casefold()
        for name in Player.objects.filter(name__iendswith=suffix).values_list("name", flat=True)
    }
    for lap in itertools.count(1):
        for first in BOT_FIRST_NAMES:
            name = f"{first}{suffix}" if lap == 1 else f"{first} {lap}{suffix}"
            if name.casefold() not in taken:
                yield name


def bots_add(*, event: Event, count: int, strategy: str, by: User | None = None) -> list[Entry]:
    """Create ``count`` new house bots of ``strategy`` and enter them, all or none.

    Each gets a first name and its strategy, as the house bots people play are named ("Nora
    (expert)"): a name no player has, nor one that looks like another's (the names are
    checked as any bot's, by :func:`accounts.services.bot_create`).
    """
    if strategy not in engine_bots.BOTS:
        raise TournamentError(
            _("unknown bot strategy %(strategy)r; known: %(known)s")
            % {"strategy": strategy, "known": ", ".join(sorted(engine_bots.BOTS))},
            code="unknown_bot",
        )
    if not 1 <= count <= 1024:
        raise TournamentError(_("add between 1 and 1024 bots at a time"), code="invalid_count")
    with transaction.atomic():
        event = lock_event(event.pk)
        entries = []
        names = _bot_names(strategy)
        for _number in range(count):
            for name in names:  # endless: numbered laps follow the plain names
                try:
                    with transaction.atomic():  # a refused name (a look-alike) writes nothing
                        bot = bot_create(name=name, strategy=strategy)
                except ValidationError:
                    continue
                break
            entries.append(_enter(event, bot, timezone.now(), by=by, admin=True))
        return entries


def entry_check_in(*, entry: Entry, now: datetime | None = None, by: User | None = None) -> Entry:
    """Confirm a registered player will play (during the check-in window before the start)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(entry.event_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if event.status != Event.Status.REGISTRATION:
            raise Conflict(_("check-in is only before the start"), code="check_in_closed")
        if event.check_in_opens_at is None:
            raise Conflict(_("this event has no check-in"), code="no_check_in")
        if now < event.check_in_opens_at:
            raise Conflict(_("check-in has not opened yet"), code="check_in_closed")
        if entry.status == Entry.Status.CHECKED_IN:
            return entry
        if not entry.is_active:
            raise Conflict(entry_is(entry.status), code="not_registered")
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = now
        entry.save(update_fields=["status", "checked_in_at"])
        log_action(event, "check_in", by, entry=entry)
        event_changed(event)
    return entry


def entry_check_in_undo(*, entry: Entry, by: User | None = None) -> Entry:
    """Take a check-in back (a name tapped by mistake at the desk): registered again, so the
    start withdraws them unless they check in after all. Only before the start."""
    with transaction.atomic():
        event = lock_event(entry.event_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if event.status != Event.Status.REGISTRATION:
            raise Conflict(_("check-in is only before the start"), code="check_in_closed")
        if entry.status != Entry.Status.CHECKED_IN:
            return entry
        entry.status = Entry.Status.REGISTERED
        entry.checked_in_at = None
        entry.save(update_fields=["status", "checked_in_at"])
        log_action(event, "undo_check_in", by, entry=entry)
        event_changed(event)
    return entry


def entry_withdraw(
    *,
    entry: Entry,
    by: User | None = None,
    reason: str = "",
    disqualify: bool = False,
    now: datetime | None = None,
) -> Entry:
    """Withdraw (or disqualify) an entry. In a running event its unfinished match is forfeited,
    and it is paired no more (in a bracket it counts as a bye from now on)."""
    now = now or timezone.now()
    with transaction.atomic():
        lock_live_matches(entry.event_id, entry=entry)
        event = lock_event(entry.event_id)
        entry = (
            Entry.objects.select_for_update(of=("self",)).select_related("player").get(pk=entry.pk)
        )
        if event.is_over:
            raise Conflict(event_is(event.status), code="event_over")
        if entry.status == Entry.Status.DISQUALIFIED or (
            entry.status == Entry.Status.WITHDRAWN and not disqualify
        ):
            raise Conflict(entry_is(entry.status, already=True), code="already_withdrawn")
        entry.status = Entry.Status.DISQUALIFIED if disqualify else Entry.Status.WITHDRAWN
        entry.withdrawn_at = now
        entry.note = reason[:300]
        if event.status != Event.Status.RUNNING:
            entry.seed = None
        entry.save(update_fields=["status", "withdrawn_at", "note", "seed"])
        log_action(event, "disqualify" if disqualify else "withdraw", by, reason, entry=entry)
        if event.status == Event.Status.RUNNING:
            live = Pairing.objects.filter(
                Q(entry_a=entry) | Q(entry_b=entry), event=event, match__status__in=IN_PROGRESS
            ).select_related("match")
            why = "disqualified" if disqualify else "withdrew"
            for pairing in live:
                assert pairing.match is not None
                match = play.match_forfeit(
                    match=pairing.match,
                    loser=entry.player,
                    reason=f"{why}: {reason}"[:300] if reason else why,
                    end_reason=Match.EndReason.FORFEIT,
                )
                pairing_record(match=match)  # in case a receiver failed; idempotent
            advance(event, now)
        event_changed(event)
    return entry


def entry_reinstate(*, entry: Entry, by: User | None = None) -> Entry:
    """Take back a withdrawn player: before the start, or into later rounds of a Swiss.

    The player must still be one the event can seat, as when entering (the event may have
    changed since they withdrew, e.g. to duplicate deals).
    """
    with transaction.atomic():
        event = lock_event(entry.event_id)
        entry = (
            Entry.objects.select_for_update(of=("self",)).select_related("player").get(pk=entry.pk)
        )
        if entry.status != Entry.Status.WITHDRAWN:
            raise Conflict(entry_is(entry.status), code="not_withdrawn")
        if event.is_over:
            raise Conflict(event_is(event.status), code="event_over")
        if event.status == Event.Status.RUNNING and event.format != Format.SWISS:
            raise Conflict(
                _("only a Swiss takes a withdrawn player back once it has started"),
                code="cannot_reinstate",
            )
        _admissible(event, entry.player)
        # Full is full, running or not: a late entry may have taken the place they left.
        if event.capacity is not None and _active_count(event) >= event.capacity:
            raise Conflict(
                _("the event is full (%(capacity)s players)") % {"capacity": event.capacity},
                code="event_full",
            )
        entry.status = Entry.Status.REGISTERED
        entry.withdrawn_at = None
        entry.save(update_fields=["status", "withdrawn_at"])
        log_action(event, "reinstate", by, entry=entry)
        event_changed(event)
    return entry
