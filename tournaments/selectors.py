"""Reads of tournaments: event lists, the bracket as JSON, standings with tiebreaks and ratings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts.hooks import Busy
from accounts.models import Player, stable_of
from tournaments.formats import arena, double_elim, single_elim, two_stage
from tournaments.formats import bracket as brackets
from tournaments.formats.standings import Entrant, Result, standings
from tournaments.models import Entry, Event, Format, Pairing, Round
from tournaments.rating_hook import ratings_for

#: Columns of the standings besides rank and player, in the order shown (and exported).
STANDINGS_COLUMNS = (
    "match_points",
    "played",
    "wins",
    "losses",
    "byes",
    "buchholz",
    "median_buchholz",
    "sonneborn_berger",
    "direct_encounter",
    "games_won",
    "games_lost",
    "margin",
)
#: The tiebreak columns of a Swiss or a round robin, not shown for an elimination event.
SWISS_COLUMNS = (
    "match_points",
    "buchholz",
    "median_buchholz",
    "sonneborn_berger",
    "direct_encounter",
)
#: Results by forfeit where no game was played: unplayed rounds for FIDE's tiebreaks.
UNPLAYED_RESULTS = (Pairing.Result.NO_SHOW, Pairing.Result.DOUBLE_NO_SHOW, Pairing.Result.WALKOVER)


def event_list() -> QuerySet[Event]:
    """Every event with its number of active entries, newest first."""
    return (
        Event.objects.select_related("champion")
        .annotate(entries_count=Count("entries", filter=Q(entries__status__in=Entry.ACTIVE)))
        .order_by("-id")
    )


#: The site-wide permission to change every event, not only one's own (superusers hold it).
MANAGE_ALL_EVENTS = "tournaments.manage_all_events"


def may_manage(user: Any, event: Event) -> bool:
    """Whether ``user`` may change ``event``: one of its organisers (its creator and the
    co-organisers they named), or someone who may manage every event. The one rule of who
    may change an event; the model permission each action needs is asked besides."""
    if user is None or not user.is_authenticated:
        return False
    if user.has_perm(MANAGE_ALL_EVENTS):
        return True
    if event.created_by_id is not None and event.created_by_id == user.pk:
        return True
    return event.co_organisers.filter(pk=user.pk).exists()


def organisers_of(event: Event) -> list[Any]:
    """The event's organisers: its creator first, then its co-organisers by username."""
    found = [event.created_by] if event.created_by_id is not None else []
    others = event.co_organisers.select_related("player").order_by("username")
    found += [user for user in others if user.pk != event.created_by_id]
    return found


def organised_by(user: Any) -> Q:
    """The events ``user`` organises (created or co-organised), as a filter."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    return Q(created_by=user) | Q(
        pk__in=Event.co_organisers.through.objects.filter(user_id=user.pk).values("event_id")
    )


def entry_of(*, event: Event, player: Player | None) -> Entry | None:
    if player is None:
        return None
    return Entry.objects.filter(event=event, player=player).first()


def player_busy(player: Player) -> Busy | None:
    """The player's entry in an event that has not ended, as the reason their account stays
    (a hook of ``accounts.hooks``: a running bracket would wait on a player nobody can be)."""
    entry = (
        Entry.objects.select_related("event")
        .filter(player=player, status__in=Entry.ACTIVE)
        .exclude(event__status__in=[Event.Status.FINISHED, Event.Status.CANCELLED])
        .first()
    )
    if entry is None:
        return None
    return Busy(
        f"you are entered in the event {entry.event.name!r}: withdraw from it first",
        {"event": entry.event_id},
    )


def _player_json(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def _entry_json(entry: Entry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {
        "entry": entry.pk,
        "seed": entry.seed,
        "status": entry.status,
        "player": _player_json(entry.player),
    }


@lru_cache(maxsize=32)
def _bracket_for(format: str, entrants: int, option: bool, version: int | None) -> brackets.Bracket:
    if format == Format.SINGLE_ELIM:
        return single_elim.build(entrants, third_place=option)
    orders = double_elim.drop_orders(entrants, version=version)
    return double_elim.build(entrants, reset=option, orders=orders)


@lru_cache(maxsize=32)
def _playoff_for(
    groups: int, advance: int, format: str, option: bool, version: int | None
) -> brackets.Bracket:
    return two_stage.build_playoff(
        groups,
        advance,
        playoff_format=format,
        third_place=option,
        bracket_reset=option,
        formats_version=version,
    )


def bracket_of(event: Event) -> brackets.Bracket:
    """The event's bracket (elimination formats, once started), by the rules it started with;
    a two-stage event's playoff."""
    assert event.entrants_count is not None
    if event.format == Format.TWO_STAGE:
        plan = two_stage.plan(
            event.entrants_count,
            group_count=event.group_count,
            group_size=event.group_size,
            advance=event.advance_per_group,
        )
        single = event.playoff_format == Format.SINGLE_ELIM
        option = event.third_place if single else event.bracket_reset
        return _playoff_for(
            plan.group_count, plan.advance, event.playoff_format, option, event.formats_version
        )
    option = event.third_place if event.format == Format.SINGLE_ELIM else event.bracket_reset
    return _bracket_for(event.format, event.entrants_count, option, event.formats_version)


def _bracket_inputs(
    event: Event,
) -> tuple[list[int], dict[str, int | None], set[int]] | None:
    """What the event's bracket is worked out from: its entrants by seed, the results
    recorded, the players who left; None before the bracket is known."""
    if event.entrants_count is None:
        return None
    if event.format == Format.TWO_STAGE:
        entries = list(event.entries.filter(playoff_seed__isnull=False).order_by("playoff_seed"))
        if not entries:
            return None  # the groups are still playing
    elif event.is_elimination:
        entries = list(event.entries.filter(seed__isnull=False).order_by("seed"))
    else:
        return None
    results: dict[str, int | None] = {
        p.key: p.winner_id for p in Pairing.objects.filter(event=event, result__in=Pairing.RECORDED)
    }
    absent = {e.pk for e in entries if not e.is_active}
    return [e.pk for e in entries], results, absent


def _bracket_states(event: Event) -> dict[str, brackets.NodeState] | None:
    inputs = _bracket_inputs(event)
    return None if inputs is None else brackets.resolve(bracket_of(event), *inputs)


def _bracket_places(event: Event) -> tuple[dict[int, brackets.Placement], dict[int, str]] | None:
    """Each bracket player's placement, and the round they reached by name ("Champion")."""
    inputs = _bracket_inputs(event)
    if inputs is None:
        return None
    bracket = bracket_of(event)
    placed = brackets.placements(bracket, *inputs)
    reached = {}
    for player, place in placed.items():
        if place.key:
            reached[player] = bracket.rounds[bracket.nodes[place.key].round].name
        if place.rank == 1 and not place.playing:
            reached[player] = "Champion"
    return placed, reached


def standings_for_event(*, event: Event, with_ratings: bool = True) -> list[dict[str, Any]]:
    """The standings: rank, player, and the columns that fit the event's format, rating.

    A Swiss or a round robin ranks by match points, then the event's tiebreaks (unplayed
    rounds counted as ``event.tiebreak_unplayed`` says); every rank is distinct. An
    elimination event ranks by how far each player came (``reached`` names the round): the
    players knocked out in the same round share a rank (5-8, 9-16, ...), listed by seed, and
    its rows carry no Swiss tiebreaks. Byes count in every format. Before the start: the
    registered players in seed (or registration) order. A two-stage event ranks across
    both stages (see :func:`group_tables`).
    """
    if event.format == Format.TWO_STAGE:
        return _two_stage_standings(event, with_ratings)
    if event.is_arena:  # by its points: the sheet, the streak (tournaments.formats.arena)
        return _arena_standings(event, with_ratings)
    entries = list(event.entries.select_related("player").order_by("seed", "pk"))
    started = event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION)
    if started:
        entries = [e for e in entries if e.seed is not None]
    else:
        entries = [e for e in entries if e.is_active]
    seeds = {e.pk: e.seed if e.seed is not None else 10**6 + i for i, e in enumerate(entries)}
    swiss = event.format == Format.SWISS
    results = []
    rounds_with_result: dict[int, set[int]] = {pk: set() for pk in seeds}
    rounds_there: dict[int, set[int]] = {pk: set() for pk in seeds}
    pairings = Pairing.objects.filter(event=event, status__in=Pairing.SETTLED).select_related(
        "round"
    )
    for p in pairings:
        if p.entry_a_id is None or p.entry_b_id is None:
            # A bye: in a losers bracket the player may be in either slot.
            alone = p.entry_a_id or p.entry_b_id
            if p.result == Pairing.Result.BYE and alone in seeds:
                results.append(Result(alone, None, p.winner_id))
                rounds_with_result[alone].add(p.round.number)
                rounds_there[alone].add(p.round.number)
            continue
        if p.entry_a_id not in seeds:
            continue
        if p.result in (*Pairing.RECORDED, Pairing.Result.WALKOVER):
            unplayed = p.result in UNPLAYED_RESULTS or (
                p.result == Pairing.Result.FORFEIT and p.games_a + p.games_b == 0
            )
            results.append(
                Result(
                    p.entry_a_id,
                    p.entry_b_id,
                    p.winner_id,
                    p.games_a,
                    p.games_b,
                    p.margin_a,
                    unplayed=unplayed,
                )
            )
            for pk in (p.entry_a_id, p.entry_b_id):
                if pk in rounds_with_result:
                    rounds_with_result[pk].add(p.round.number)
                    if not unplayed or p.winner_id == pk:
                        rounds_there[pk].add(p.round.number)
    stages = None
    reached: dict[int, str] = {}
    places = _bracket_places(event) if started else None
    if places is not None:
        placed, reached = places
        stages = {player: place.mark for player, place in placed.items()}
    missed: dict[int, int] = {}
    withdrawn: dict[int, int] = {}
    if not event.is_elimination:
        finished = set(
            event.rounds.filter(status=Round.Status.FINISHED).values_list("number", flat=True)
        )
        missed, withdrawn = _missed_rounds(finished, rounds_with_result, rounds_there)
    rows = standings(
        [Entrant(e.pk, seeds[e.pk]) for e in entries],
        results,
        tiebreaks=[] if event.is_elimination else event.tiebreaks or [],
        bye_points=1.0 if swiss else 0.0,
        stages=stages,
        unplayed=event.tiebreak_unplayed,
        missed=missed,
        withdrawn=withdrawn,
    )
    by_id = {e.pk: e for e in entries}
    ratings = ratings_for(e.player_id for e in entries) if with_ratings else {}
    out = []
    if places is not None:
        # Knocked out in the same round: the same rank, below everyone who finishes further;
        # a player still in, the best rank still open to them.
        rows.sort(key=lambda row: placed[row.player].rank)
    for row in rows:
        entry = by_id[row.player]
        rank = placed[row.player].rank if places is not None else row.rank
        line: dict[str, Any] = {
            "rank": rank,
            "entry": entry.pk,
            "seed": entry.seed,
            "status": entry.status,
            "player": _player_json(entry.player),
            "rating": ratings.get(entry.player_id),
        }
        if event.is_elimination:
            line["reached"] = reached.get(entry.pk, "")
        for column in STANDINGS_COLUMNS:
            if not (event.is_elimination and column in SWISS_COLUMNS):
                line[column] = getattr(row, column)
        out.append(line)
    return out


def standings_columns(*, event: Event, rows: list[dict[str, Any]]) -> list[str]:
    """The columns to show, in order, for the event's format; a column empty in every row
    (an unrated event's rating, a direct encounter that never applied) is left out.

    Elimination: the round reached, played, wins, losses, byes, games and margin. Swiss and
    round robin: match points, the event's tiebreaks in its order, then the rest. An arena:
    points, the sheet, played, wins, losses, the streak, berserk wins.
    """
    if event.is_arena:
        columns = [*ARENA_COLUMNS, "rating"]
        return [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]
    if event.format == Format.TWO_STAGE:
        columns = list(TWO_STAGE_COLUMNS)
    elif event.is_elimination:
        columns = ["reached", "played", "wins", "losses", "byes", "games_won", "games_lost"]
        columns += ["margin", "rating"]
    else:
        tiebreaks = list(event.tiebreaks or [])
        columns = ["match_points", *tiebreaks, "played", "wins", "losses", "byes"]
        columns += [c for c in ("games_won", "games_lost", "margin") if c not in tiebreaks]
        columns.append("rating")
    return [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]


def _tiebreaks(event: Event) -> list[str]:
    if event.is_arena:
        return ["points", "wins"]
    return [] if event.is_elimination else ["match_points", *(event.tiebreaks or [])]


def standings_view(*, event: Event) -> dict[str, Any]:
    """What ``GET /api/events/{id}/standings`` answers: the columns to show and the rows."""
    rows = standings_for_event(event=event)
    body = {
        "event": event.pk,
        "status": event.status,
        "format": event.format,
        "tiebreaks": _tiebreaks(event),
        "tiebreak_unplayed": event.tiebreak_unplayed,
        "columns": standings_columns(event=event, rows=rows),
        "rows": rows,
    }
    if event.format == Format.TWO_STAGE:
        body["groups"] = group_tables(event=event)
        body["group_columns"] = group_columns(event=event)
    return body


def bracket_for_event(*, event: Event) -> dict[str, Any]:
    """Rounds and their pairings: players, match, result, where the winner and loser go."""
    # Pairings first, then rounds: a round commits with (or before) its pairings, so every
    # pairing read here finds its round in the second query, even if the event started (or a
    # round was added) between the two (found under load: a KeyError when rounds came first).
    shown = Pairing.objects.filter(event=event)
    if event.is_arena:
        # Thousands of matches in an hour: those in play and the latest finished only.
        recent = Pairing.objects.filter(event=event).exclude(status=Pairing.Status.PLAYING)
        latest = list(recent.order_by("-pk").values_list("pk", flat=True)[:ARENA_RECENT])
        shown = shown.filter(Q(status=Pairing.Status.PLAYING) | Q(pk__in=latest))
    pairings = list(
        shown.select_related(
            "round", "match", "entry_a__player", "entry_b__player", "winner__player"
        ).order_by("round__number", "-pk" if event.is_arena else "table")
    )
    rounds: dict[int, dict[str, Any]] = {}
    for rnd in event.rounds.order_by("number"):
        rounds[rnd.pk] = {
            "number": rnd.number,
            "name": rnd.name,
            "status": rnd.status,
            "started_at": rnd.started_at,
            "finished_at": rnd.finished_at,
            "pairings": [],
        }
    for p in pairings:
        rounds[p.round_id]["pairings"].append(
            {
                "key": p.key,
                "table": p.table,
                "status": p.status,
                "a": _entry_json(p.entry_a),
                "b": _entry_json(p.entry_b),
                "match": p.match_id,
                "match_status": p.match.status if p.match else None,
                # A match at a table: its number on the floor, and whether its result
                # waits for a confirmation ("awaiting") or an organiser ("disputed").
                "match_venue": p.match.venue if p.match else None,
                "match_table": p.match.table if p.match else None,
                "match_confirmation": p.match.confirmation if p.match else None,
                "start_deadline": p.match.start_deadline if p.match else None,
                "result": p.result,
                "winner": p.winner_id,
                "games": [p.games_a, p.games_b],
                "margin_a": p.margin_a,
                "winner_to": p.winner_to or None,
                "loser_to": p.loser_to or ("out" if event.is_elimination else None),
            }
        )
    if event.format == Format.TWO_STAGE:
        # Which stage each round belongs to; a group match names its group, a playoff match
        # sends its loser out as an elimination bracket does.
        for rnd in rounds.values():
            groups = [two_stage.group_of_key(p["key"]) for p in rnd["pairings"]]
            rnd["stage"] = "playoff" if None in groups else "groups"
            for pairing, group in zip(rnd["pairings"], groups, strict=True):
                pairing["group"] = group
                if group is None and pairing["loser_to"] is None:
                    pairing["loser_to"] = "out"
    champion = event.champion
    body = {
        "event": event.pk,
        "format": event.format,
        "status": event.status,
        "rounds_planned": event.rounds_planned,
        "champion": _player_json(champion) if champion else None,
        "rounds": list(rounds.values()),
    }
    if event.format == Format.TWO_STAGE:
        body["playoff_format"] = event.playoff_format
    return body


# --- groups, then playoffs ------------------------------------------------------------------

#: The columns of a group's table besides rank and player, in the order shown.
GROUP_COLUMNS = (
    "match_points",
    "played",
    "wins",
    "losses",
    "byes",
    "games_won",
    "games_lost",
    "margin",
)


def _missed_rounds(
    finished: set[int], with_result: dict[int, set[int]], there: dict[int, set[int]]
) -> tuple[dict[int, int], dict[int, int]]:
    """Per entry: the finished rounds played without it, and how many of them came after the
    last round it was there for (played, won by forfeit, or a bye): after withdrawing."""
    missed: dict[int, int] = {}
    withdrawn: dict[int, int] = {}
    for pk, numbers in with_result.items():
        without = finished - numbers
        last = max(there.get(pk, ()), default=0)
        missed[pk] = len(without)
        withdrawn[pk] = sum(1 for number in without if number > last)
    return missed, withdrawn


def _pairing_result(p: Pairing) -> Result | None:
    """A settled pairing as the standings read it (None: nothing to count)."""
    if p.entry_a_id is None or p.entry_b_id is None:
        # A bye: in a losers bracket the player may be in either slot.
        alone = p.entry_a_id or p.entry_b_id
        if p.result != Pairing.Result.BYE or alone is None:
            return None
        return Result(alone, None, p.winner_id)
    if p.result not in (*Pairing.RECORDED, Pairing.Result.WALKOVER):
        return None
    unplayed = p.result in UNPLAYED_RESULTS or (
        p.result == Pairing.Result.FORFEIT and p.games_a + p.games_b == 0
    )
    return Result(
        p.entry_a_id,
        p.entry_b_id,
        p.winner_id,
        p.games_a,
        p.games_b,
        p.margin_a,
        unplayed=unplayed,
    )


def group_tables(*, event: Event, with_ratings: bool = True) -> list[dict[str, Any]]:
    """Each group of a two-stage event ranked by the event's tiebreaks (match points first).

    ``[{"group": "A", "rows": [{"rank", "entry", "seed", "status", "player", "qualified",
    match points, tiebreaks, ...}]}]``; ``qualified`` is true for the players who went on to
    the playoff (None while the groups play). Rounds a group did not play (a smaller group
    has fewer) are not counted against its players.
    """
    if not event.is_two_stage:
        return []
    entries = list(
        event.entries.filter(group__isnull=False).select_related("player").order_by("seed")
    )
    if not entries:
        return []
    by_group: dict[int, list[Entry]] = {}
    for e in entries:
        by_group.setdefault(e.group, []).append(e)
    group_of = {e.pk: e.group for e in entries}
    results: dict[int, list[Result]] = {g: [] for g in by_group}
    rounds_of_group: dict[int, set[int]] = {g: set() for g in by_group}
    rounds_of_entry: dict[int, set[int]] = {e.pk: set() for e in entries}
    rounds_there: dict[int, set[int]] = {e.pk: set() for e in entries}
    pairings = Pairing.objects.filter(event=event, key__startswith="G").select_related("round")
    for p in pairings:
        if not two_stage.is_group_key(p.key) or p.entry_a_id not in group_of:
            continue
        group = group_of[p.entry_a_id]
        rounds_of_group[group].add(p.round.number)
        if p.status not in Pairing.SETTLED:
            continue
        result = _pairing_result(p)
        if result is None:
            continue
        results[group].append(result)
        for pk in (p.entry_a_id, p.entry_b_id):
            if pk in rounds_of_entry:
                rounds_of_entry[pk].add(p.round.number)
                if not result.unplayed or result.winner == pk:
                    rounds_there[pk].add(p.round.number)
    finished = set(
        event.rounds.filter(status=Round.Status.FINISHED).values_list("number", flat=True)
    )
    started_playoff = any(e.playoff_seed is not None for e in entries)
    ratings = ratings_for(e.player_id for e in entries) if with_ratings else {}
    tables = []
    for group in sorted(by_group):
        members = by_group[group]
        played_rounds = rounds_of_group[group] & finished
        missed, withdrawn = _missed_rounds(
            played_rounds, {e.pk: rounds_of_entry[e.pk] for e in members}, rounds_there
        )
        rows = standings(
            [Entrant(e.pk, e.seed or 0) for e in members],
            results[group],
            tiebreaks=event.tiebreaks or [],
            bye_points=1.0 if event.group_format == Format.SWISS else 0.0,
            unplayed=event.tiebreak_unplayed,
            missed=missed,
            withdrawn=withdrawn,
        )
        by_id = {e.pk: e for e in members}
        lines = []
        for row in rows:
            entry = by_id[row.player]
            line: dict[str, Any] = {
                "rank": row.rank,
                "entry": entry.pk,
                "seed": entry.seed,
                "status": entry.status,
                "player": _player_json(entry.player),
                "rating": ratings.get(entry.player_id),
                "qualified": entry.playoff_seed is not None if started_playoff else None,
                "playoff_seed": entry.playoff_seed,
            }
            for column in (*GROUP_COLUMNS, *(event.tiebreaks or [])):
                line[column] = getattr(row, column)
            lines.append(line)
        tables.append({"group": two_stage.group_name(group - 1), "rows": lines})
    return tables


def group_columns(*, event: Event) -> list[str]:
    """The columns of a group table, in order: match points, the event's tiebreaks, the rest."""
    tiebreaks = list(event.tiebreaks or [])
    return ["match_points", *tiebreaks, *(c for c in GROUP_COLUMNS[1:] if c not in tiebreaks)]


def _two_stage_standings(event: Event, with_ratings: bool) -> list[dict[str, Any]]:
    """The final ranking across both stages: the playoff's players by how far they came
    (those knocked out in the same round share a rank, as in an elimination event), then
    everyone else by their place in their group, then match points, then seed."""
    tables = group_tables(event=event, with_ratings=with_ratings)
    if not tables:  # before the start: the field in seed (or registration) order
        entries = [e for e in event.entries.select_related("player") if e.is_active]
        entries.sort(key=lambda e: (e.seed is None, e.seed or 0, e.pk))
        ratings = ratings_for(e.player_id for e in entries) if with_ratings else {}
        return [
            {
                "rank": rank,
                "entry": e.pk,
                "seed": e.seed,
                "status": e.status,
                "player": _player_json(e.player),
                "rating": ratings.get(e.player_id),
                "group": None,
                "group_rank": None,
                "reached": "",
            }
            for rank, e in enumerate(entries, start=1)
        ]
    line_of: dict[int, dict[str, Any]] = {}
    for table in tables:
        for row in table["rows"]:
            line = {k: row[k] for k in ("entry", "seed", "status", "player", "rating")}
            line.update(
                group=table["group"],
                group_rank=row["rank"],
                reached=f"Group {table['group']}",
                **{c: row[c] for c in GROUP_COLUMNS},
            )
            line_of[row["entry"]] = line
    # The playoff's matches add to the totals; its stages rank its players.
    placed: dict[int, brackets.Placement] = {}
    places = _bracket_places(event)
    if places is not None:
        placed, reached = places
        for player, name in reached.items():
            if player in line_of:
                line_of[player]["reached"] = name
        playoff = Pairing.objects.filter(event=event, status__in=Pairing.SETTLED).exclude(
            key__startswith="G"
        )
        for p in playoff:
            result = _pairing_result(p)
            if result is None or result.b is None:
                if result is not None and result.a in line_of:
                    line_of[result.a]["byes"] += 1
                continue
            for pk, won_games, lost_games, margin in (
                (p.entry_a_id, p.games_a, p.games_b, p.margin_a),
                (p.entry_b_id, p.games_b, p.games_a, -p.margin_a),
            ):
                line = line_of.get(pk)
                if line is None:
                    continue
                line["played"] += 1
                line["wins" if p.winner_id == pk else "losses"] += 1
                line["games_won"] += won_games
                line["games_lost"] += lost_games
                line["margin"] += margin
    lines = sorted(
        line_of.values(),
        key=lambda r: (
            placed[r["entry"]].rank if r["entry"] in placed else len(placed) + 1,
            [-k for k in placed[r["entry"]].mark] if r["entry"] in placed else [1, 0],
            r["group_rank"],
            -r["match_points"],
            r["seed"] or 0,
            r["entry"],
        ),
    )
    out = []
    for place, line in enumerate(lines, start=1):
        # Knocked out in the same round of the playoff: the same rank.
        rank = placed[line["entry"]].rank if line["entry"] in placed else place
        out.append({"rank": rank, **line})
    return out


TWO_STAGE_COLUMNS = (
    "reached",
    "group",
    "group_rank",
    "match_points",
    "played",
    "wins",
    "losses",
    "byes",
    "games_won",
    "games_lost",
    "margin",
    "rating",
)


RESULT_COLUMNS = (
    "round",
    "table",
    "key",
    "player_a",
    "player_b",
    "winner",
    "result",
    "games_a",
    "games_b",
    "margin_a",
    "match",
)


def results_rows(*, event: Event) -> list[dict[str, Any]]:
    """Every decided pairing, one line each (the CSV export)."""
    pairings = (
        Pairing.objects.filter(event=event, status__in=Pairing.SETTLED)
        .exclude(status=Pairing.Status.SKIPPED)
        .select_related("round", "entry_a__player", "entry_b__player", "winner__player")
        .order_by("round__number", "table")
    )
    return [
        {
            "round": p.round.number,
            "table": p.table,
            "key": p.key,
            "player_a": p.entry_a.player.name if p.entry_a else "",
            "player_b": p.entry_b.player.name if p.entry_b else "",
            "winner": p.winner.player.name if p.winner else "",
            "result": p.result,
            "games_a": p.games_a,
            "games_b": p.games_b,
            "margin_a": p.margin_a,
            "match": p.match_id or "",
        }
        for p in pairings
    ]


# --- arena ------------------------------------------------------------------------------------

#: The finished matches of an arena its bracket shows (beside those in play).
ARENA_RECENT = 40
#: The columns of an arena's standings, in the order shown.
ARENA_COLUMNS = ("points", "sheet", "played", "wins", "losses", "streak", "berserk_wins")


@dataclass(frozen=True)
class ArenaLine:
    """An arena entrant as the standings and the pairing pass read them."""

    entry: int
    player_id: int
    is_bot: bool
    seed: int
    status: str
    rank: int
    score: arena.ArenaScore
    paused: bool
    playing: bool
    free_since: datetime | None
    last_opponent: int | None
    #: The player's stable (:attr:`accounts.models.Player.stable_id`).
    stable: int | None = None

    @property
    def free(self) -> bool:
        """Active, not paused, no match of the arena in play: the next pass pairs them."""
        return self.status in Entry.ACTIVE and not self.paused and not self.playing


def arena_table(*, event: Event) -> list[ArenaLine]:
    """Every seeded entrant of an arena: rank and score (:mod:`tournaments.formats.arena`),
    paused or playing, free since when, last opponent. One query for entries, one for the
    pairings; the outcomes count in the order the matches finished."""
    entries = list(
        event.entries.filter(seed__isnull=False).values_list(
            "pk", "player_id", "player__kind", "seed", "status", "paused_at", "player__owner_id"
        )
    )
    player_of = {pk: player for pk, player, *_ in entries}
    rows = (
        Pairing.objects.filter(event=event)
        .order_by("pk")
        .values_list(
            "pk",
            "entry_a_id",
            "entry_b_id",
            "status",
            "winner_id",
            "decided_at",
            "match__player_a_id",
            "match__berserk_a",
            "match__berserk_b",
        )
    )
    finished: list[tuple[datetime, int, int, int, int | None, bool, bool]] = []
    playing: set[int] = set()
    last: dict[int, int] = {}
    free_since: dict[int, datetime] = {}
    for pk, a, b, status, winner, decided, player_a, berserk_a, berserk_b in rows:
        if a is None or b is None:
            continue
        last[a], last[b] = b, a
        if status == Pairing.Status.PLAYING:
            playing.update((a, b))
        elif status == Pairing.Status.FINISHED and decided is not None:
            # The match's sides are its players: map berserk to the pairing's entries.
            a_first = player_a is None or player_of.get(a) == player_a
            side_a, side_b = (berserk_a, berserk_b) if a_first else (berserk_b, berserk_a)
            finished.append((decided, pk, a, b, winner, side_a, side_b))
            for entry in (a, b):
                free_since[entry] = max(decided, free_since.get(entry, decided))
    finished.sort()
    outcomes: dict[int, list[arena.Outcome]] = {}
    for _decided, _pk, a, b, winner, berserk_a, berserk_b in finished:
        outcomes.setdefault(a, []).append(arena.Outcome(winner == a, berserk_a))
        outcomes.setdefault(b, []).append(arena.Outcome(winner == b, berserk_b))
    ranked = arena.standings([(pk, seed) for pk, _p, _k, seed, *_ in entries], outcomes)
    by_entry = {pk: row for pk, *row in entries}
    out = []
    for line in ranked:
        player, kind, seed, status, paused_at, owner = by_entry[line.player]
        out.append(
            ArenaLine(
                entry=line.player,
                player_id=player,
                is_bot=kind == Player.Kind.BOT,
                seed=seed,
                status=status,
                rank=line.rank,
                score=line.score,
                paused=paused_at is not None,
                playing=line.player in playing,
                free_since=free_since.get(line.player, event.started_at),
                last_opponent=last.get(line.player),
                stable=stable_of(player, kind, owner),
            )
        )
    return out


def _arena_standings(event: Event, with_ratings: bool) -> list[dict[str, Any]]:
    """The standings of an arena: rank by points (then wins, then seed), the score sheet."""
    started = event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION)
    entries = {e.pk: e for e in event.entries.select_related("player")}
    ratings = ratings_for(e.player_id for e in entries.values()) if with_ratings else {}
    if not started:
        lines = []
        for rank, entry in enumerate(
            sorted((e for e in entries.values() if e.is_active), key=lambda e: (e.seed or 0, e.pk)),
            start=1,
        ):
            lines.append(
                {
                    "rank": rank,
                    "entry": entry.pk,
                    "seed": entry.seed,
                    "status": entry.status,
                    "player": _player_json(entry.player),
                    "rating": ratings.get(entry.player_id),
                }
            )
        return lines
    out = []
    for line in arena_table(event=event):
        entry = entries[line.entry]
        out.append(
            {
                "rank": line.rank,
                "entry": line.entry,
                "seed": line.seed,
                "status": line.status,
                "player": _player_json(entry.player),
                "rating": ratings.get(entry.player_id),
                "points": line.score.points,
                "sheet": list(line.score.sheet),
                "played": line.score.played,
                "wins": line.score.wins,
                "losses": line.score.losses,
                "streak": line.score.streak,
                "on_fire": line.score.on_fire,
                "berserk_wins": line.score.berserk_wins,
                "paused": line.paused,
                "playing": line.playing,
            }
        )
    return out
