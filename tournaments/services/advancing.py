"""Advancing a running event: brackets and rounds from the recorded results, and the finish.

One module, though long: every format advances by the same pass, under the same event lock,
and its parts (brackets, rounds, arenas, two stages, the finish) call each other.

Advancing is idempotent: a result is recorded once per pairing and match, and :func:`advance`
derives what to do from the recorded results alone (for brackets through the pure
:func:`tournaments.formats.bracket.resolve`), so running it twice changes nothing and an
overridden result repairs everything downstream by the same pass. Every function here runs
with the event row locked (see :mod:`tournaments.services.base`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Max

from accounts.models import Player
from common.enqueue import shortcut_on_commit
from games import services as play
from games import tables
from games.models import IN_PROGRESS, Action, Match
from tournaments import webhooks
from tournaments.formats import bracket as brackets
from tournaments.formats import round_robin, swiss, two_stage
from tournaments.live import match_players_tell
from tournaments.models import Entry, Event, Format, Pairing, Round, Venue
from tournaments.selectors import bracket_of, group_tables, standings_for_event
from tournaments.services.base import log_action
from tournaments.services.events import match_rules, time_control
from tournaments.services.payloads import player_json, round_json
from tournaments.services.two_stage import playoff_started, stage_rounds


def advance(event: Event, now: datetime) -> None:
    """With the event locked: do whatever the recorded results call for (idempotent)."""
    if event.status != Event.Status.RUNNING:
        return
    if event.is_arena:
        _advance_arena(event, now)
    elif event.is_elimination:
        _advance_bracket(event, now)
    elif event.format == Format.TWO_STAGE:
        _advance_two_stage(event, now)
    else:
        _advance_rounds(event, now)


@dataclass(slots=True)
class _Row:
    """A pairing as the bracket pass reads it (plain values: this runs after every match)."""

    pk: int
    key: str
    round_id: int
    entry_a_id: int | None
    entry_b_id: int | None
    status: str
    result: str
    winner_id: int | None
    match_id: int | None

    @property
    def entries(self) -> tuple[int | None, int | None]:
        return (self.entry_a_id, self.entry_b_id)


_ROW_FIELDS = [f.name for f in dataclasses.fields(_Row)]


def _advance_bracket(event: Event, now: datetime) -> None:
    """The bracket worked out from its results, its rows brought in line (the playoff of a
    two-stage event: its entrants are the qualifiers by playoff seed, its rows the bracket's)."""
    bracket = bracket_of(event)
    seed = "playoff_seed" if event.format == Format.TWO_STAGE else "seed"
    entries = list(
        event.entries.filter(**{f"{seed}__isnull": False})
        .order_by(seed)
        .values_list("pk", "status", "player_id")
    )
    entrants = [pk for pk, _, _ in entries]
    absent = {pk for pk, status, _ in entries if status not in Entry.ACTIVE}
    players = {pk: player for pk, _, player in entries}
    rows = {
        row.key: row
        for row in (
            _Row(*values)
            for values in Pairing.objects.filter(
                event=event, key__in=list(bracket.nodes)
            ).values_list(*_ROW_FIELDS)
        )
    }
    results = {k: r.winner_id for k, r in rows.items() if r.result in Pairing.RECORDED}
    while True:
        states = brackets.resolve(bracket, entrants, results, absent)
        # A result stands only between the players it was played by: a changed result
        # upstream (an override, a re-run) voids every result downstream that it moved.
        moved = [
            key
            for key in results
            if rows[key].entries != (_slot(states[key].a), _slot(states[key].b))
        ]
        if not moved:
            break
        for key in moved:
            pairing = Pairing.objects.get(pk=rows[key].pk)
            void_result(pairing, "an earlier result changed", now)
            pairing.save()
            rows[key].result, rows[key].winner_id = pairing.result, None
            del results[key]
    playing = [r.match_id for r in rows.values() if r.match_id is not None]
    live = set(
        Match.objects.filter(pk__in=playing, status__in=IN_PROGRESS).values_list("pk", flat=True)
    )
    for key, state in states.items():
        row = rows[key]
        if _in_sync(row, state, live):
            continue
        pairing = Pairing.objects.get(pk=row.pk)
        _sync_node(event, pairing, state, players, live, now)
        row.status, row.match_id = pairing.status, pairing.match_id
    _update_rounds(event, rows.values(), now)
    if brackets.is_complete(states):
        winner = brackets.champion(bracket, states)
        _finish(event, now, champion=players[winner] if isinstance(winner, int) else None)


def _in_sync(row: _Row, state: brackets.NodeState, live: set[int]) -> bool:
    """Whether a pairing row already says what the bracket says (nothing to write)."""
    if row.entries != (_slot(state.a), _slot(state.b)):
        return False
    Status = brackets.Status
    derived = row.result in (Pairing.Result.BYE, Pairing.Result.WALKOVER)
    if state.status == Status.WAITING:
        return row.status == Pairing.Status.WAITING and row.winner_id is None and not derived
    if state.status == Status.READY:
        return (
            row.status == Pairing.Status.PLAYING
            and row.match_id in live
            and row.winner_id is None
            and not derived
        )
    if state.status == Status.DECIDED:
        return row.status == Pairing.Status.FINISHED
    if state.status in (Status.WALKOVER, Status.EMPTY):
        return (
            row.status == Pairing.Status.BYE
            and row.result == Pairing.Result.BYE
            and row.winner_id == _slot(state.winner)
        )
    return row.status == Pairing.Status.SKIPPED and row.winner_id is None


def _slot(value: brackets.Slot) -> int | None:
    return value if isinstance(value, int) else None


def _sync_node(
    event: Event,
    pairing: Pairing,
    state: brackets.NodeState,
    players: dict[int, int],
    live: set[int],
    now: datetime,
) -> None:
    """Make a pairing row say what the bracket says, repairing what a changed result broke.

    ``live`` holds the ids of the event's matches that are scheduled or in play.
    """
    before = _row(pairing)
    a, b = _slot(state.a), _slot(state.b)
    moved = (pairing.entry_a_id, pairing.entry_b_id) != (a, b)
    if pairing.result in Pairing.RECORDED and (moved or state.stale):
        void_result(pairing, "an earlier result changed", now)
    if moved and pairing.match_id is not None:
        drop_match(pairing, "the players of this match changed", now)
    pairing.entry_a_id, pairing.entry_b_id = a, b
    Status = brackets.Status
    if state.status in (Status.WAITING, Status.READY):
        if pairing.result in (Pairing.Result.BYE, Pairing.Result.WALKOVER):
            pairing.result = Pairing.Result.NONE
        pairing.winner_id = None
        pairing.status = Pairing.Status.WAITING
        if state.status == Status.READY:
            if pairing.match_id not in live:
                if pairing.match_id is not None:
                    drop_match(pairing, "replaced", now)
                _pairing_start(event, pairing, players, now)
            pairing.status = Pairing.Status.PLAYING
    elif state.status == Status.DECIDED:
        pairing.status = Pairing.Status.FINISHED
    elif state.status in (Status.WALKOVER, Status.EMPTY):
        pairing.status = Pairing.Status.BYE
        pairing.result = Pairing.Result.BYE
        pairing.winner_id = _slot(state.winner)
        pairing.decided_at = pairing.decided_at or now
    elif state.status == Status.SKIPPED:
        pairing.status = Pairing.Status.SKIPPED
        pairing.winner_id = None
    if _row(pairing) != before:
        pairing.save()


def _row(pairing: Pairing) -> tuple[Any, ...]:
    return (
        pairing.entry_a_id,
        pairing.entry_b_id,
        pairing.status,
        pairing.result,
        pairing.winner_id,
        pairing.match_id,
        len(pairing.history),
    )


def void_result(pairing: Pairing, why: str, now: datetime) -> None:
    """Forget a pairing's recorded result (kept in its history)."""
    pairing.history = [
        *pairing.history,
        {
            "at": now.isoformat(),
            "voided": pairing.result,
            "winner": pairing.winner_id,
            "match": pairing.match_id,
            "why": why,
        },
    ]
    pairing.result = Pairing.Result.NONE
    pairing.winner_id = None
    pairing.games_a = pairing.games_b = pairing.margin_a = 0
    pairing.decided_at = None


def drop_match(pairing: Pairing, why: str, now: datetime) -> None:
    """Detach the pairing's match, cancelling it if it has not finished."""
    match = pairing.match
    assert match is not None
    if match.status in IN_PROGRESS:
        play.match_cancel(match=match, reason=f"tournament: {why}"[:300])
    pairing.history = [
        *pairing.history,
        {"at": now.isoformat(), "dropped_match": match.pk, "why": why},
    ]
    pairing.match = None
    pairing.ready_a_at = pairing.ready_b_at = None


def _pairing_start(
    event: Event, pairing: Pairing, players: dict[int, int] | None, now: datetime
) -> None:
    """Create the pairing's match: bots play at once, humans get a grace period to show up.

    ``players`` maps entry ids to player ids (None: read them from the pairing's entries).
    """
    if players is not None:
        ids = (players[pairing.entry_a_id], players[pairing.entry_b_id])
    else:
        ids = (pairing.entry_a.player_id, pairing.entry_b.player_id)
    found = Player.objects.in_bulk(list(ids))
    player_a, player_b = found[ids[0]], found[ids[1]]
    bots = player_a.is_bot and player_b.is_bot
    people = not player_a.is_bot and not player_b.is_bot
    guest = player_a.is_guest or player_b.is_guest
    if people and (event.venue == Venue.TABLES or (event.venue == Venue.MIXED and guest)):
        # At a numbered table: in play at once, no clock, nobody has to show up on the site.
        # A guest, who has no account to play online with, is always seated at a table.
        pairing.match = tables.table_match_create(
            player_a=player_a,
            player_b=player_b,
            rules=match_rules(event),
            table=table_number(pairing),
            confirm_result=not event.accept_entered_results,
        )
        pairing.ready_a_at = pairing.ready_b_at = None
        pairing.status = Pairing.Status.PLAYING
        match_players_tell(pairing=pairing, match=pairing.match)
        return
    match = play.match_create(
        player_a=player_a,
        player_b=player_b,
        rules=match_rules(event),
        time_control=time_control(event),
        source=Match.Source.TOURNAMENT,
        start=bots,
    )
    if not bots:
        match.start_deadline = now + event.grace
        match.save(update_fields=["start_deadline"])
    pairing.match = match
    pairing.ready_a_at = pairing.ready_b_at = None
    pairing.status = Pairing.Status.PLAYING
    if not bots:
        match_players_tell(pairing=pairing, match=match)  # their match is waiting for them


def table_number(pairing: Pairing) -> int:
    """The table a pairing's match is played at: the next free number of its round (so a
    round's tables are numbered from 1 in pairing order), or the table of the match it
    replaces (a table stays the same for the round)."""
    dropped = [h["dropped_match"] for h in pairing.history if "dropped_match" in h]
    if dropped:
        before = (
            Match.objects.filter(pk__in=dropped, table__isnull=False)
            .order_by("-pk")
            .values_list("table", flat=True)
            .first()
        )
        if before is not None:
            return before
    others = Pairing.objects.filter(round_id=pairing.round_id, match__isnull=False).exclude(
        pk=pairing.pk
    )
    used = Match.objects.filter(pk__in=others.values("match_id"), table__isnull=False)
    return (used.aggregate(last=Max("table"))["last"] or 0) + 1


def _update_rounds(event: Event, pairings: Iterable[Any], now: datetime) -> None:
    """Round statuses from their pairings; ``round.started`` when a round's first match starts.

    ``pairings`` are Pairing rows or anything with their ``round_id``, ``status``, ``match_id``.
    """
    by_round: dict[int, list[Any]] = {}
    for p in pairings:
        by_round.setdefault(p.round_id, []).append(p)
    for rnd in Round.objects.filter(event=event, pk__in=list(by_round)):
        rows = by_round[rnd.pk]
        settled = all(p.status in Pairing.SETTLED for p in rows)
        played = any(p.match_id is not None for p in rows)
        status = rnd.status
        if settled:
            status = Round.Status.FINISHED
        elif played:
            status = Round.Status.RUNNING
        if status == rnd.status:
            continue
        if rnd.started_at is None and (played or status == Round.Status.RUNNING):
            rnd.started_at = now
            webhooks.emit(event, "round.started", lambda rnd=rnd: round_json(rnd))
        rnd.status = status
        if status == Round.Status.FINISHED:
            rnd.finished_at = now
        rnd.save(update_fields=["status", "started_at", "finished_at"])


def _advance_rounds(event: Event, now: datetime) -> None:
    """Swiss and round robin: pair the next round when the current one is complete."""
    _restart_waiting(event, now)
    # Only the rounds not finished yet can change (a Swiss of 1,024 has 5,120 pairings).
    open_rounds = list(
        Pairing.objects.filter(event=event).exclude(round__status=Round.Status.FINISHED)
    )
    _update_rounds(event, open_rounds, now)
    if Pairing.objects.filter(event=event).exclude(status__in=Pairing.SETTLED).exists():
        return
    while True:
        number = event.rounds.count() + 1
        assert event.rounds_planned is not None
        if number > event.rounds_planned:
            _finish(event, now)
            return
        created = _pair_round(event, number, now)
        if any(p.status not in Pairing.SETTLED for p in created):
            return


def _restart_waiting(event: Event, now: datetime) -> None:
    """A round's pairing without its match (a re-run) gets a new one."""
    restart = Pairing.objects.filter(
        event=event,
        status=Pairing.Status.WAITING,
        entry_a__isnull=False,
        entry_b__isnull=False,
    ).select_related("entry_a", "entry_b")
    for p in restart:
        _pairing_start(event, p, None, now)
        p.save()


def _stables(event: Event, entries: Iterable[Entry]) -> dict[int, int | None]:
    """Each entry's stable (a person and the bots they own) in a rated event, where they never
    meet; in an unrated one nobody is kept apart."""
    if not event.rated:
        return {}
    return {e.pk: e.player.stable_id for e in entries}


def _swiss_players(event: Event) -> list[swiss.SwissPlayer]:
    """Active entries with their match points, opponents, byes so far and stables."""
    entries = list(
        event.entries.filter(status__in=Entry.ACTIVE, seed__isnull=False).select_related("player")
    )
    stables = _stables(event, entries)
    score: dict[int, float] = {e.pk: 0.0 for e in entries}
    opponents: dict[int, set[int]] = {e.pk: set() for e in entries}
    byes: set[int] = set()
    settled = Pairing.objects.filter(event=event, status__in=Pairing.SETTLED).values_list(
        "entry_a_id", "entry_b_id", "winner_id"
    )
    for a, b, winner in settled:
        if winner in score:
            score[winner] += 1
        if b is None and a is not None:
            byes.add(a)
        elif a and b:
            if a in opponents:
                opponents[a].add(b)
            if b in opponents:
                opponents[b].add(a)
    return [
        swiss.SwissPlayer(
            e.pk,
            score[e.pk],
            e.seed or 0,
            frozenset(opponents[e.pk]),
            e.pk in byes,
            stables.get(e.pk),
        )
        for e in entries
    ]


def _pair_round(event: Event, number: int, now: datetime) -> list[Pairing]:
    """Create round ``number`` of a Swiss or round robin and start its matches."""
    rnd = Round.objects.create(event=event, number=number, name=f"Round {number}")
    tables: list[tuple[int | None, int | None]] = []
    prefix = "S" if event.format == Format.SWISS else "R"
    if event.format == Format.SWISS:
        result = swiss.pair(_swiss_players(event))
        tables = list(result.pairs)
        if result.bye is not None:
            tables.append((result.bye, None))
        _sit_out(event, rnd, result.unpaired)
    else:
        by_seed = {e.seed: e.pk for e in event.entries.filter(seed__isnull=False, late=False)}
        assert event.entrants_count is not None
        schedule = round_robin.berger(
            event.entrants_count,
            double=event.double_round_robin,
            swap_last_rounds=event.formats_version is not None,
        )
        tables = [
            (by_seed.get(a) if a else None, by_seed.get(b) if b else None)
            for a, b in schedule[number - 1]
        ]
    entries = {e.pk: e for e in event.entries.all()}
    players = {pk: e.player_id for pk, e in entries.items()}
    created = []
    for table, (a, b) in enumerate(tables, start=1):
        pairing = Pairing(event=event, round=rnd, key=f"{prefix}{number}.{table}", table=table)
        present = [x for x in (a, b) if x is not None and entries[x].is_active]
        pairing.entry_a_id, pairing.entry_b_id = a, b
        if a is None or b is None:
            # A bye: a point in a Swiss, nothing in a round robin (everyone has one).
            pairing.entry_a_id, pairing.entry_b_id = (a or b), None
            pairing.status = Pairing.Status.BYE
            pairing.result = Pairing.Result.BYE
            pairing.winner_id = (a or b) if event.format == Format.SWISS else None
            pairing.decided_at = now
        elif len(present) < 2:
            # A round robin keeps a withdrawn player's tables: the opponent wins by walkover.
            pairing.status = Pairing.Status.FINISHED
            pairing.result = Pairing.Result.WALKOVER
            pairing.winner_id = present[0] if present else None
            pairing.decided_at = now
        else:
            _pairing_start(event, pairing, players, now)
        pairing.save()
        created.append(pairing)
    _update_rounds(event, created, now)
    return created


def _sit_out(event: Event, rnd: Round, unpaired: Iterable[int]) -> None:
    """Log the players a Swiss round leaves unpaired: only players of their own stable were
    left for them. They play no match and score nothing this round."""
    for entry in Entry.objects.filter(pk__in=list(unpaired)):
        log_action(
            event,
            "sit_out",
            None,
            "only their own stable was left to pair",
            entry=entry,
            round=rnd.number,
        )


def _advance_arena(event: Event, now: datetime) -> None:
    """An arena: finish once its time is up and none of its matches is in play; else pair
    the players a result freed (a pass queued on commit, see tournaments.services.arena)."""
    _arena_away(event, now)
    if event.ends_at is not None and now >= event.ends_at:
        if not Pairing.objects.filter(event=event, status=Pairing.Status.PLAYING).exists():
            _finish(event, now)
        return
    arena_pair_soon(event)


def _arena_away(event: Event, now: datetime) -> None:
    """Pause whoever just lost an arena match on time without a move: they are away (lichess
    does the same), so the arena stops pairing them until they rejoin.

    The results recorded by this transaction are the pairings decided at ``now`` (the
    recording service passes the time it decided them at).
    """
    timed_out = Pairing.objects.filter(
        event=event, decided_at=now, match__end_reason=Match.EndReason.TIMEOUT
    ).select_related("entry_a__player", "entry_b__player")
    for pairing in timed_out:
        loser = pairing.entry_b if pairing.winner_id == pairing.entry_a_id else pairing.entry_a
        if loser is None or loser.player.is_bot or loser.paused_at is not None:
            continue
        moved = Action.objects.filter(
            deal__game__match_id=pairing.match_id, player_id=loser.player_id, auto=False
        ).exists()
        if not moved:
            loser.paused_at = now
            loser.save(update_fields=["paused_at"])
            log_action(event, "arena_away", None, pairing=pairing, entry=loser)


def arena_pair_soon(event: Event) -> None:
    """Queue an arena pass on commit: someone is free (a result, a rejoin, a late entry).

    Interactive when people play (someone waits for their next opponent), batch for bots.
    A shortcut: the arena's sweep pairs them anyway, and does so instead where tasks run
    inline (a pass run inside the commit of the match it follows would nest every next match
    in the one before).
    """
    people = event.entries.filter(status__in=Entry.ACTIVE).exclude(player__kind=Player.Kind.BOT)
    name = "tournaments.arena_pair" if people.exists() else "tournaments.arena_pair_bots"
    shortcut_on_commit(name, (event.pk,))


def _finish(event: Event, now: datetime, *, champion: int | None = None) -> None:
    """Final standings, the champion, ``event.finished``."""
    rows = standings_for_event(event=event, with_ratings=False)
    ranks = {row["entry"]: row["rank"] for row in rows}
    entries = list(event.entries.filter(pk__in=list(ranks)))
    for entry in entries:
        entry.final_rank = ranks[entry.pk]
    Entry.objects.bulk_update(entries, ["final_rank"])
    Round.objects.filter(event=event).exclude(status=Round.Status.FINISHED).update(
        status=Round.Status.FINISHED, finished_at=now
    )
    if champion is None and rows and not event.is_elimination:
        champion = rows[0]["player"]["id"]
    event.status = Event.Status.FINISHED
    event.finished_at = now
    event.champion_id = champion
    event.save(update_fields=["status", "finished_at", "champion"])
    log_action(event, "finish", None, champion=champion)
    webhooks.emit(
        event,
        "event.finished",
        {"champion": champion and player_json(champion), "standings": rows[:16]},
    )


def create_bracket(event: Event, *, first_round: int = 1) -> None:
    """Every round and every match of the bracket, players filled in as results come.

    The bracket's rounds are numbered from ``first_round`` (a playoff after group rounds).
    """
    bracket = bracket_of(event)
    rounds = Round.objects.bulk_create(
        [
            Round(event=event, number=i, name=spec.name)
            for i, spec in enumerate(bracket.rounds, start=first_round)
        ]
    )
    pairings = []
    for number, spec in enumerate(bracket.rounds):
        for table, key in enumerate(spec.keys, start=1):
            node = bracket.nodes[key]
            pairings.append(
                Pairing(
                    event=event,
                    round=rounds[number],
                    key=key,
                    table=table,
                    winner_to=_target(bracket, node.winner_to),
                    loser_to=_target(bracket, node.loser_to),
                )
            )
    Pairing.objects.bulk_create(pairings)


def _target(bracket: brackets.Bracket, target: tuple[str, int] | None) -> str:
    """Where a winner or loser goes, as shown: ``W2.1:a``; ``GF2:b if b wins`` for the reset."""
    if target is None:
        return ""
    shown = f"{target[0]}:{'ab'[target[1]]}"
    return f"{shown} if b wins" if bracket.nodes[target[0]].reset else shown


# --- groups, then playoffs --------------------------------------------------------------------


def _advance_two_stage(event: Event, now: datetime) -> None:
    """The next round of the groups, the playoff once they are over, then the playoff's
    matches (as a bracket whose entrants are the qualifiers by playoff seed)."""
    if playoff_started(event):
        _advance_bracket(event, now)
        return
    _restart_waiting(event, now)
    open_rounds = list(
        Pairing.objects.filter(event=event).exclude(round__status=Round.Status.FINISHED)
    )
    _update_rounds(event, open_rounds, now)
    if Pairing.objects.filter(event=event).exclude(status__in=Pairing.SETTLED).exists():
        return
    last = stage_rounds(event)
    while True:
        number = event.rounds.count() + 1
        if number > last:
            _playoff_create(event)
            _advance_bracket(event, now)
            return
        created = _pair_group_round(event, number, now)
        if any(p.status not in Pairing.SETTLED for p in created):
            return


def _group_swiss_players(event: Event, members: list[Entry]) -> list[swiss.SwissPlayer]:
    """A Swiss group's active players: match points, opponents, byes so far and stables."""
    ids = {e.pk for e in members}
    stables = _stables(event, members)
    score: dict[int, float] = dict.fromkeys(ids, 0.0)
    opponents: dict[int, set[int]] = {pk: set() for pk in ids}
    byes: set[int] = set()
    settled = Pairing.objects.filter(
        event=event, status__in=Pairing.SETTLED, entry_a_id__in=ids
    ).values_list("entry_a_id", "entry_b_id", "winner_id")
    for a, b, winner in settled:
        if winner in score:
            score[winner] += 1
        if b is None:
            byes.add(a)
        elif b in opponents:
            opponents[a].add(b)
            opponents[b].add(a)
    return [
        swiss.SwissPlayer(
            e.pk,
            score[e.pk],
            e.seed or 0,
            frozenset(opponents[e.pk]),
            e.pk in byes,
            stables.get(e.pk),
        )
        for e in members
        if e.is_active
    ]


def _pair_group_round(event: Event, number: int, now: datetime) -> list[Pairing]:
    """Create round ``number`` of every group that plays one, and start its matches."""
    rnd = Round.objects.create(event=event, number=number, name=f"Groups, round {number}")
    entries = list(
        event.entries.filter(group__isnull=False).select_related("player").order_by("seed")
    )
    groups: dict[int, list[Entry]] = {}
    for e in entries:
        groups.setdefault(e.group, []).append(e)
    by_pk = {e.pk: e for e in entries}
    players = {e.pk: e.player_id for e in entries}
    swiss_groups = event.group_format == Format.SWISS
    created: list[Pairing] = []
    table = 0
    for group in sorted(groups):
        members = groups[group]
        if number > two_stage.group_rounds(len(members), event.group_format, event.swiss_rounds):
            continue  # a smaller group has played all its rounds
        tables: list[tuple[int | None, int | None]]
        if swiss_groups:
            paired = swiss.pair(_group_swiss_players(event, members))
            tables = list(paired.pairs)
            if paired.bye is not None:
                tables.append((paired.bye, None))
            _sit_out(event, rnd, paired.unpaired)
        else:
            tables = [
                (members[a - 1].pk if a else None, members[b - 1].pk if b else None)
                for a, b in round_robin.berger(len(members))[number - 1]
            ]
        for local, (a, b) in enumerate(tables, start=1):
            table += 1
            key = two_stage.group_key(group - 1, number, local)
            pairing = Pairing(event=event, round=rnd, key=key, table=table)
            present = [x for x in (a, b) if x is not None and by_pk[x].is_active]
            pairing.entry_a_id, pairing.entry_b_id = a, b
            if a is None or b is None:
                # A bye: a point in a Swiss group, nothing in a round robin (everyone has one).
                pairing.entry_a_id, pairing.entry_b_id = (a or b), None
                pairing.status = Pairing.Status.BYE
                pairing.result = Pairing.Result.BYE
                pairing.winner_id = (a or b) if swiss_groups else None
                pairing.decided_at = now
            elif len(present) < 2:
                # A withdrawn player's tables stay: the opponent wins by walkover.
                pairing.status = Pairing.Status.FINISHED
                pairing.result = Pairing.Result.WALKOVER
                pairing.winner_id = present[0] if present else None
                pairing.decided_at = now
            else:
                _pairing_start(event, pairing, players, now)
            pairing.save()
            created.append(pairing)
    _update_rounds(event, created, now)
    return created


def _playoff_create(event: Event) -> None:
    """The top of each group take their playoff seeds, then the playoff's rounds and matches.

    Players still in the event go first: a group short of them sends a withdrawn player,
    who is a bye in the bracket.
    """
    tables = group_tables(event=event, with_ratings=False)
    count = event.advance_per_group
    places = []
    for table in tables:
        rows = table["rows"]
        active = [r["entry"] for r in rows if r["status"] in Entry.ACTIVE]
        gone = [r["entry"] for r in rows if r["status"] not in Entry.ACTIVE]
        places.append((active + gone)[:count])
    order = two_stage.playoff_order(len(tables), count)
    seeds = {places[group][place - 1]: seed for seed, (group, place) in enumerate(order, 1)}
    entries = list(event.entries.filter(pk__in=list(seeds)))
    for entry in entries:
        entry.playoff_seed = seeds[entry.pk]
    Entry.objects.bulk_update(entries, ["playoff_seed"])
    create_bracket(event, first_round=event.rounds.count() + 1)
