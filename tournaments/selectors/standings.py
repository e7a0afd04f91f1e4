"""The standings of every format (their rows, the columns to show, the API's view) and the
results export."""

from __future__ import annotations

from typing import Any

from games.rating_hook import ratings_for
from tournaments.formats.standings import Entrant, Result, standings
from tournaments.models import Event, Format, Pairing, Round
from tournaments.selectors.arena import ARENA_COLUMNS, arena_standings
from tournaments.selectors.base import UNPLAYED_RESULTS, missed_rounds, player_json
from tournaments.selectors.brackets import bracket_places
from tournaments.selectors.two_stage import (
    TWO_STAGE_COLUMNS,
    group_columns,
    group_tables,
    two_stage_standings,
)

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
        return two_stage_standings(event, with_ratings)
    if event.is_arena:  # by its points: the sheet, the streak (tournaments.formats.arena)
        return arena_standings(event, with_ratings)
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
    places = bracket_places(event) if started else None
    if places is not None:
        placed, reached = places
        stages = {player: place.mark for player, place in placed.items()}
    missed: dict[int, int] = {}
    withdrawn: dict[int, int] = {}
    if not event.is_elimination:
        finished = set(
            event.rounds.filter(status=Round.Status.FINISHED).values_list("number", flat=True)
        )
        missed, withdrawn = missed_rounds(finished, rounds_with_result, rounds_there)
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
            "player": player_json(entry.player),
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
