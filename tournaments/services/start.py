"""Seeding and the start: the seed order, the bracket's rows and the first matches."""

from __future__ import annotations

import random
import secrets
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import bots as engine_bots
from games.rating_hook import DEFAULT_RATING, ratings_for
from tournaments import webhooks
from tournaments.formats import FORMATS_VERSION, round_robin, seeding, swiss
from tournaments.formats import bracket as brackets
from tournaments.live import entry_withdrawn_tell, event_changed
from tournaments.models import Entry, Event, Format, Seeding
from tournaments.selectors import bracket_of
from tournaments.services import two_stage
from tournaments.services.advancing import advance, create_bracket
from tournaments.services.arena import arena_begin
from tournaments.services.base import (
    Conflict,
    TournamentError,
    User,
    event_is,
    lock_event,
    log_action,
)
from tournaments.services.events import event_update, event_validate
from tournaments.services.payloads import entry_json

#: Why the start withdraws a registered player of an event with a check-in.
NO_CHECK_IN = "did not check in"


def _seed(event: Event, entries: list[Entry], *, at_start: bool) -> list[Entry]:
    """Number ``entries`` 1..N by the event's seeding method (saved); others lose their seed.

    A random seeding is drawn at the start (``at_start``) and its seed recorded then: a seed
    drawn while entries may still come would let anyone who learnt it compute the bracket.
    Before the start it is provisional, from a seed that is thrown away, unless the organiser
    fixed ``seeding_seed`` (a reproducible event).
    """
    if event.seeding == Seeding.RATING:
        ratings = ratings_for(e.player_id for e in entries)
        for e in entries:
            e.rating = ratings.get(e.player_id)
        order = sorted(
            entries,
            key=lambda e: (-(e.rating if e.rating is not None else DEFAULT_RATING), e.pk),
        )
    elif event.seeding == Seeding.RANDOM:
        seed = event.seeding_seed
        if seed is None:
            seed = secrets.randbits(62)
            if at_start:
                event.seeding_seed = seed
                event.save(update_fields=["seeding_seed"])
        order = sorted(entries, key=lambda e: e.pk)
        random.Random(seed).shuffle(order)
    elif event.seeding == Seeding.MANUAL:
        given = [e.seed for e in entries if e.seed is not None]
        twice = sorted({s for s in given if given.count(s) > 1})
        if twice:
            raise TournamentError(
                _("seed %(seed)s is given to two entries") % {"seed": twice[0]},
                code="duplicate_seed",
            )
        # Seeds as given (any numbers, in order), then the unseeded by registration.
        order = sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, e.pk))
    else:
        raise TournamentError(
            _("unknown seeding method %(seeding)r") % {"seeding": event.seeding},
            code="unknown_seeding",
        )
    if event.rated and event.is_elimination:
        order = _keep_stables_apart(event, order)
    for number, e in enumerate(order, start=1):
        e.seed = number
    Entry.objects.filter(event=event).exclude(pk__in=[e.pk for e in order]).update(seed=None)
    Entry.objects.bulk_update(order, ["seed", "rating"])
    return order


def _keep_stables_apart(event: Event, order: list[Entry]) -> list[Entry]:
    """The seed order with no first-round match of a person and their own bot (or two bots
    of one owner) in a rated elimination event; Conflict ``same_stable`` when none exists."""
    places = seeding.keep_apart([e.player.stable_id for e in order])
    if places is None:
        raise Conflict(
            _(
                "no seeding keeps every person and their own bots out of each other's first "
                "match: enter more players, or withdraw one of them"
            ),
            code="same_stable",
        )
    moved = [order[i] for i in places]
    if moved != order:
        log_action(
            event,
            "keep_apart",
            None,
            "players of one stable kept out of each other's first match",
            seeds={e.pk: number for number, e in enumerate(moved, start=1)},
        )
    return moved


def _refuse_one_stable(entries: list[Entry]) -> None:
    """Conflict ``same_stable`` if two entries of a rated round robin, where everyone meets
    everyone, are of one stable: a person and their own bot, or two bots of one owner."""
    seen: dict[int, Entry] = {}
    for entry in entries:
        stable = entry.player.stable_id
        if stable is None:
            continue
        other = seen.setdefault(stable, entry)
        if other is not entry:
            raise Conflict(
                _(
                    "%(name)s and %(other)s are a person and their own bot, or two bots of one "
                    "owner: in a rated round robin they would meet; withdraw one of them"
                )
                % {"name": other.player.name, "other": entry.player.name},
                code="same_stable",
                entries=[other.pk, entry.pk],
            )


def event_seed(
    *,
    event: Event,
    by: User | None = None,
    seeding: str | None = None,
    seed: int | None = None,
    order: list[int] | None = None,
) -> list[Entry]:
    """Seed the active entries now (the start seeds again; a random seeding draws anew).

    ``seeding`` changes the method first (saved on the event, so the start seeds the same
    way); ``seed`` is a random seeding's seed to record; ``order`` a manual seeding's entry
    ids, first seed first, every active entry once. All in one transaction: a refused order
    leaves the event as it was (400 ``invalid_seed``, ``duplicate_seed``, ``unknown_entry``,
    ``incomplete_order``; 409 ``event_started``).
    """
    with transaction.atomic():
        event = lock_event(event.pk)
        if event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION):
            raise Conflict(event_is(event.status), code="event_started")
        method = event.seeding if seeding is None else seeding
        if seed is not None and method != Seeding.RANDOM:
            raise TournamentError(_("a seed is for a random seeding"), code="invalid_seed")
        if order is not None and method != Seeding.MANUAL:
            raise TournamentError(_("an order is for a manual seeding"), code="invalid_seed")
        fields: dict[str, object] = {"seeding": method}
        if seed is not None:
            fields["seeding_seed"] = seed
        event = event_update(event=event, by=by, **fields)
        if order is not None:
            _order_set(event, order)
        entries = list(event.entries.filter(status__in=Entry.ACTIVE).select_related("player"))
        seeded = _seed(event, entries, at_start=False)
        log_action(event, "seed", by, method=event.seeding, seeding_seed=event.seeding_seed)
        event_changed(event)
    return seeded


def _order_set(event: Event, order: list[int]) -> None:
    """Number the entries of a manual ``order`` (entry ids, first seed first)."""
    active = set(event.entries.filter(status__in=Entry.ACTIVE).values_list("pk", flat=True))
    twice = sorted({pk for pk in order if order.count(pk) > 1})
    if twice:
        raise TournamentError(
            _("entry %(entry)s is given twice") % {"entry": twice[0]}, code="duplicate_seed"
        )
    strangers = [pk for pk in order if pk not in active]
    if strangers:
        raise TournamentError(
            _("entry %(entry)s is not an active entry of this event") % {"entry": strangers[0]},
            code="unknown_entry",
        )
    missing = sorted(active - set(order))
    if missing:
        raise TournamentError(
            _("the order leaves out entry %(entry)s") % {"entry": missing[0]},
            code="incomplete_order",
        )
    for number, entry_pk in enumerate(order, start=1):
        Entry.objects.filter(pk=entry_pk).update(seed=number)


def event_start(
    *, event: Event, by: User | None = None, now: datetime | None = None, reason: str = ""
) -> Event:
    """Start: remove those who did not check in, seed, create the first round, start matches.

    With a check-in (``check_in_opens_at``), house bots check in by themselves and every
    registered player who did not check in is withdrawn and told so (their own socket, and the
    entry's note). Bot-vs-bot matches go to the workers at once (on commit); human matches wait
    for their players until the grace period ends. ``reason`` goes to the audit log's ``start``
    line (the schedule says it started the event).
    """
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
        event_validate(event)
        if event.check_in_opens_at is not None:
            registered = event.entries.filter(status=Entry.Status.REGISTERED).select_related(
                "player"
            )
            for entry in registered:
                if entry.player.is_bot:  # a house bot is always there: it checks in itself
                    entry.status = Entry.Status.CHECKED_IN
                    entry.checked_in_at = now
                    entry.save(update_fields=["status", "checked_in_at"])
                    log_action(event, "check_in", None, "a house bot checks in itself", entry=entry)
                    continue
                entry.status = Entry.Status.WITHDRAWN
                entry.withdrawn_at = now
                entry.note = NO_CHECK_IN
                entry.save(update_fields=["status", "withdrawn_at", "note"])
                log_action(event, "no_check_in", by, NO_CHECK_IN, entry=entry)
                entry_withdrawn_tell(entry=entry, event=event, reason=NO_CHECK_IN)
        entries = list(event.entries.filter(status__in=Entry.ACTIVE).select_related("player"))
        if len(entries) < 2:
            raise TournamentError(
                _("an event needs at least two entries to start; it has %(count)s")
                % {"count": len(entries)},
                code="not_enough_entries",
            )
        for entry in entries:
            if entry.player.is_bot and entry.player.bot_strategy not in engine_bots.BOTS:
                raise TournamentError(
                    _("bot %(name)r plays an unknown strategy") % {"name": entry.player.name},
                    code="unknown_bot",
                )
        if event.rated and event.format == Format.ROUND_ROBIN:
            _refuse_one_stable(entries)
        order = _seed(event, entries, at_start=True)
        n = len(order)
        event.status = Event.Status.RUNNING
        event.started_at = now
        event.entrants_count = n
        event.formats_version = FORMATS_VERSION
        if event.format == Format.SWISS:
            event.rounds_planned = event.swiss_rounds or swiss.default_rounds(n)
        elif event.format == Format.ROUND_ROBIN:
            event.rounds_planned = round_robin.rounds_count(n, double=event.double_round_robin)
        elif event.format == Format.ARENA:
            event.rounds_planned = None  # played against the clock, not in rounds
        elif event.format == Format.TWO_STAGE:
            event.rounds_planned = two_stage.rounds_planned(event)  # refuses impossible groups
        else:
            event.rounds_planned = brackets.rounds_count(bracket_of(event))
        event.save()
        log_action(event, "start", by, reason, entrants=n, seeding_seed=event.seeding_seed)
        webhooks.emit(
            event,
            "event.started",
            {
                "entrants": [entry_json(e) for e in order],
                "rounds_planned": event.rounds_planned,
            },
        )
        if event.is_elimination:
            create_bracket(event)
        elif event.format == Format.TWO_STAGE:
            two_stage.groups_deal(event, order)
        if event.is_arena:
            arena_begin(event, now)  # its clock, and everyone paired at once
        else:
            advance(event, now)
        event_changed(event)
    return event
