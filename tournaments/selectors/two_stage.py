"""A two-stage event's reads: each group's table, then the ranking across groups and playoff."""

from __future__ import annotations

from typing import Any

from games.rating_hook import ratings_for
from tournaments.formats import bracket as brackets
from tournaments.formats import two_stage
from tournaments.formats.standings import Entrant, Result, standings
from tournaments.models import Entry, Event, Format, Pairing, Round
from tournaments.selectors.base import missed_rounds, pairing_result, player_json
from tournaments.selectors.brackets import bracket_places

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
        result = pairing_result(p)
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
        missed, withdrawn = missed_rounds(
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
                "player": player_json(entry.player),
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


def two_stage_standings(event: Event, with_ratings: bool) -> list[dict[str, Any]]:
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
                "player": player_json(e.player),
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
    places = bracket_places(event)
    if places is not None:
        placed, reached = places
        for player, name in reached.items():
            if player in line_of:
                line_of[player]["reached"] = name
        playoff = Pairing.objects.filter(event=event, status__in=Pairing.SETTLED).exclude(
            key__startswith="G"
        )
        for p in playoff:
            result = pairing_result(p)
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
