"""Reads for paper and the projector: the round's pairings by table, score sheets, the
standings and the bracket of an event, as its printed pages and its screen view show them.

Everything comes from the event's selectors (:func:`tournaments.selectors.bracket_for_event`,
:func:`tournaments.selectors.standings_view`), reshaped for a page: nothing is computed again
and nothing hidden is read (no deal, no hand, no match seed; not even the entries' seeding
numbers are printed). Where each match is played (the board of a table match, or online) is
read in one place, :func:`match_places`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine.rules import RuleSet, ScoringStyle
from games.models import Match
from games.sheets import rules_line
from tournaments import selectors as event_selectors
from tournaments.models import Event, Format, Pairing
from tournaments.round_names import round_label

DASH = "\u2013"  # en dash: scores read 3\u20131, an empty cell reads \u2013
TIMES = "\u00d7"

#: Headings of the printed standings' columns (the API names the columns that fit the format).
STANDING_LABELS = {
    "reached": gettext_lazy("Reached"),
    "match_points": gettext_lazy("Points"),
    "buchholz": gettext_lazy("Buchholz"),
    "median_buchholz": gettext_lazy("Median Buchholz"),
    "sonneborn_berger": gettext_lazy("Sonneborn-Berger"),
    "direct_encounter": gettext_lazy("Direct encounter"),
    "played": gettext_lazy("Played"),
    # Wins and losses in one column (an en dash between them, as the scores read).
    "wins": pgettext_lazy("standings column", "W–L"),  # noqa: RUF001
    "byes": gettext_lazy("Byes"),
    "games_won": gettext_lazy("Games"),
    "margin": gettext_lazy("Margin"),
    "rating": gettext_lazy("Rating"),
    "points": gettext_lazy("Points"),
    "sheet": gettext_lazy("Sheet"),
    "streak": gettext_lazy("Streak"),
    "berserk_wins": gettext_lazy("Berserk wins"),
    "group": gettext_lazy("Group"),
    "group_rank": gettext_lazy("Place in group"),
}
#: Shown inside another column: wins with losses, games won with games lost.
PAIRED_COLUMNS = {"losses": "wins", "games_lost": "games_won"}
#: Headings of a group's table (two-stage events).
GROUP_LABELS = {
    **STANDING_LABELS,
    "match_points": pgettext_lazy("standings column: points", "Pts"),
    "wins": pgettext_lazy("standings column: wins", "W"),
    "losses": pgettext_lazy("standings column: losses", "L"),
}
GROUP_LABELS["games_won"] = gettext_lazy("Games won")
GROUP_LABELS["games_lost"] = gettext_lazy("Games lost")
#: How a pairing decided without a played result reads in a list of tables.
RESULT_TEXT = {
    Pairing.Result.FORFEIT: gettext_lazy("forfeit"),
    Pairing.Result.NO_SHOW: gettext_lazy("no show"),
    Pairing.Result.DOUBLE_NO_SHOW: gettext_lazy("neither came"),
    Pairing.Result.OVERRIDE: gettext_lazy("decided"),
    Pairing.Result.WALKOVER: gettext_lazy("walkover"),
    Pairing.Result.BYE: gettext_lazy("bye"),
}
#: How an entrant no longer playing is marked in the standings.
GONE_TEXT = {"withdrawn": gettext_lazy("withdrawn"), "disqualified": gettext_lazy("disqualified")}
#: Lines of a score sheet for hands and games together (one page, A4 or US Letter): a match
#: of more games has fewer lines of hands; at least SHEET_HANDS_MIN, at most SHEET_GAMES_MAX.
SHEET_LINES = 23
SHEET_HANDS_MIN = 10
SHEET_GAMES_MAX = 13


class NoSuchRound(LookupError):
    """``?round=N`` names no round of the event."""


@dataclass
class Table:
    """One pairing of a round as paper shows it: the board, the two players, the result."""

    key: str
    board: int | None  # None: played online, or its match is not made yet
    online: bool
    at_table: bool
    a: str
    b: str
    a_known: bool
    b_known: bool
    match: int | None
    status: str
    result: str
    winner: str  # "a", "b" or ""
    games: tuple[int, int]

    @property
    def decided(self) -> bool:
        return self.status == "finished"

    @property
    def outcome(self) -> str:
        """The result as a pairings list shows it: the games, or how it was decided."""
        if self.status == "finished":
            if self.result == Pairing.Result.PLAYED:
                return f"{self.games[0]}{DASH}{self.games[1]}"
            return str(RESULT_TEXT.get(self.result, ""))
        return _("in play") if self.status == "playing" else ""

    @property
    def board_label(self) -> str:
        if self.board is not None:
            return str(self.board)
        return _("online") if self.online else DASH  # a table still to be numbered, or no match


@dataclass
class RoundTables:
    """A round's pairings by board, then those played online, its byes and what waits."""

    number: int
    name: str
    status: str
    tables: list[Table] = field(default_factory=list)
    byes: list[str] = field(default_factory=list)

    @property
    def playable(self) -> list[Table]:
        """The pairings whose two players are known."""
        return [t for t in self.tables if t.a_known and t.b_known]


@dataclass
class ScoreSheet:
    """One score sheet: a table's match, its players, its rules and an empty grid."""

    event: str
    round: str
    table: Table
    rules: RuleSet
    rules_line: str
    hollywood: bool
    oklahoma: bool
    hands: list[int]
    games: list[int]


def event_bracket(event: Event) -> dict[str, Any]:
    """The event's rounds and pairings, as the event page and its socket read them."""
    return event_selectors.bracket_for_event(event=event)


def current_rounds(rounds: list[dict[str, Any]], number: int | None = None) -> list[dict]:
    """The rounds to print or project: round ``number`` if given, else the ones in play,
    else the next one already paired, else the last one played (an event over, or between
    rounds). Several at once only when they are in play together (a double elimination's
    winners and losers rounds). Raises :class:`NoSuchRound` for a number it does not have.
    """
    if number is not None:
        chosen = [r for r in rounds if r["number"] == number]
        if not chosen:
            raise NoSuchRound(number)
        return chosen
    running = [r for r in rounds if r["status"] == "running"]
    if running:
        return running
    paired = [
        r
        for r in rounds
        if r["status"] == "pending" and any(p["a"] and p["b"] for p in r["pairings"])
    ]
    if paired:
        return paired[:1]
    played = [
        r
        for r in rounds
        if r["status"] == "finished" and any(p["status"] != "skipped" for p in r["pairings"])
    ]
    return played[-1:]


#: Where an empty slot's player comes from, as the slot reads.
FEED_TEXT = {"winner": gettext_lazy("winner of %(key)s"), "loser": gettext_lazy("loser of %(key)s")}


def _feeds(rounds: list[dict[str, Any]]) -> dict[str, str]:
    """Where each empty slot's player comes from: ``{"W2.1:a": "winner of W1.1"}``."""
    feeds = {}
    for rnd in rounds:
        for p in rnd["pairings"]:
            for kind, to in (("winner", p["winner_to"]), ("loser", p["loser_to"])):
                found = re.match(r"^([^:\s]+):([ab])", to or "")
                if found:
                    feeds[f"{found[1]}:{found[2]}"] = FEED_TEXT[kind] % {"key": p["key"]}
    return feeds


@dataclass(frozen=True)
class Place:
    """Where a pairing's match is played: at a table (its board, if numbered) or online."""

    at_table: bool
    board: int | None
    rules: dict[str, Any]


def match_places(match_ids: list[int]) -> dict[int, Place]:
    """Where each match is played, by match id (one query).

    The one place that reads a match's venue and board (``Match.venue``, ``Match.table``),
    which the event's pairing payloads do not carry.
    """
    rows = Match.objects.filter(pk__in=match_ids).values_list("pk", "venue", "table", "rules")
    return {
        pk: Place(at_table=venue == Match.Venue.TABLE, board=table, rules=rules)
        for pk, venue, table, rules in rows
    }


def round_tables(
    rnd: dict[str, Any],
    *,
    places: dict[int, Place],
    feeds: dict[str, str] | None = None,
    byes_in_place: bool = False,
) -> RoundTables:
    """A round of the event's bracket (:func:`event_bracket`) by board: the matches played
    at tables by their board numbers, then those played online and those whose match is
    not made yet, in pairing order. A bye sits at no board: listed apart (or in its place
    in the round with ``byes_in_place``). ``places``: :func:`match_places` of its matches.
    """
    feeds = feeds or {}
    shown = RoundTables(number=rnd["number"], name=rnd["name"], status=rnd["status"])
    for p in rnd["pairings"]:
        a, b = p["a"], p["b"]
        if p["status"] == "skipped":
            continue
        bye = (a is None) != (b is None) and p["status"] in ("bye", "finished")
        if bye and not byes_in_place:
            shown.byes.append((a or b)["player"]["name"])
            continue
        if bye:
            a, b = a or b, None  # in a losers bracket the player may be in either slot
        place = places.get(p["match"]) if p["match"] is not None else None
        winner = ""
        if p["winner"] is not None and a is not None and p["winner"] == a["entry"]:
            winner = "a"
        elif p["winner"] is not None and b is not None and p["winner"] == b["entry"]:
            winner = "b"
        names = []
        for side, slot in ((a, "a"), (b, "b")):
            if side is not None:
                names.append(side["player"]["name"])
            elif bye:
                names.append(_("bye"))
            else:
                names.append(feeds.get(f"{p['key']}:{slot}") or _("to be decided"))
        shown.tables.append(
            Table(
                key=p["key"],
                board=place.board if place is not None and place.at_table else None,
                online=place is not None and not place.at_table,
                at_table=place is not None and place.at_table,
                a=names[0],
                b=names[1],
                a_known=a is not None,
                b_known=b is not None,
                match=p["match"],
                status=p["status"],
                result=p["result"],
                winner=winner,
                games=(p["games"][0], p["games"][1]),
            )
        )
    # Numbered boards first, then the rest in pairing order (a stable sort).
    shown.tables.sort(key=lambda t: (t.board is None, t.board or 0))
    return shown


def _places_of(rounds: list[dict[str, Any]]) -> dict[int, Place]:
    return match_places([p["match"] for r in rounds for p in r["pairings"] if p["match"]])


def pairings_by_table(
    *, event: Event, number: int | None = None, bracket: dict[str, Any] | None = None
) -> list[RoundTables]:
    """The current round's pairings by table (``number``: that round's instead)."""
    if event.is_arena:
        return []  # an arena pairs players as they come free: no round to print
    bracket = bracket or event_bracket(event)
    feeds = _feeds(bracket["rounds"])
    rounds = current_rounds(bracket["rounds"], number)
    places = _places_of(rounds)
    return [round_tables(r, places=places, feeds=feeds) for r in rounds]


# --- score sheets --------------------------------------------------------------------------


def score_sheets(*, event: Event, number: int | None = None) -> list[ScoreSheet]:
    """One sheet per match of the round played at a table (in board order), each with the
    rules of its own match."""
    if event.is_arena:
        return []
    bracket = event_bracket(event)
    feeds = _feeds(bracket["rounds"])
    rounds = current_rounds(bracket["rounds"], number)
    places = _places_of(rounds)
    sheets = []
    for rnd in rounds:
        for table in round_tables(rnd, places=places, feeds=feeds).playable:
            if not table.at_table:
                continue
            rules = RuleSet.from_dict(places[table.match].rules)
            sheets.append(
                ScoreSheet(
                    event=event.name,
                    round=rnd["name"],
                    table=table,
                    rules=rules,
                    rules_line=rules_line(rules),
                    hollywood=rules.scoring is ScoringStyle.HOLLYWOOD,
                    oklahoma=rules.oklahoma,
                    hands=list(range(1, max(SHEET_HANDS_MIN, SHEET_LINES - rules.best_of) + 1)),
                    games=list(range(1, min(rules.best_of, SHEET_GAMES_MAX) + 1)),
                )
            )
    return sheets


# --- standings and the bracket ---------------------------------------------------------------


def _cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if column == "wins":
        return f"{row['wins']}{DASH}{row['losses']}"
    if column == "games_won":
        return f"{row['games_won']}{DASH}{row['games_lost']}"
    if column == "reached":
        return f"★ {round_label(value)}" if value == "Champion" else round_label(value or "")
    if column == "rating":
        return DASH if value is None else str(round(value))
    if column == "sheet":
        return " ".join(str(v) for v in value or [])
    if value is None or value == "":
        return DASH
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def standings_table(*, event: Event) -> dict[str, Any]:
    """The standings as printed: column headings, and per row rank, name and cells.

    Two-stage events add each group's table. Seeding numbers are left out.
    """
    view = event_selectors.standings_view(event=event)
    columns = [
        c
        for c in view["columns"]
        if c in STANDING_LABELS and PAIRED_COLUMNS.get(c) not in view["columns"]
    ]
    rows = [
        {
            "rank": row["rank"],
            "name": row["player"]["name"],
            "status": str(GONE_TEXT.get(row["status"], "")),
            "cells": [_cell(row, c) for c in columns],
        }
        for row in view["rows"]
    ]
    groups = []
    group_columns = view.get("group_columns", [])
    for table in view.get("groups", []):
        groups.append(
            {
                "group": table["group"],
                "rows": [
                    {
                        "rank": row["rank"],
                        "name": row["player"]["name"],
                        "qualified": row["qualified"],
                        "cells": [_plain(row.get(c)) for c in group_columns],
                    }
                    for row in table["rows"]
                ],
            }
        )
    return {
        "labels": [str(STANDING_LABELS[c]) for c in columns],
        "columns": columns,
        "rows": rows,
        "groups": groups,
        "group_labels": [str(GROUP_LABELS.get(c, c)) for c in group_columns],
        "started": event.status not in (Event.Status.DRAFT, Event.Status.REGISTRATION),
    }


def _plain(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


def has_bracket(event: Event) -> bool:
    """Whether the event plays a bracket: an elimination, or a two-stage event's playoff."""
    return event.is_elimination or event.format == Format.TWO_STAGE


#: The parts of a bracket, by key, as their headings read.
SECTION_TITLES = {
    "losers": gettext_lazy("Losers bracket"),
    "finals": gettext_lazy("Finals"),
    "winners": gettext_lazy("Winners bracket"),
    "bracket": gettext_lazy("Bracket"),
}


def section_key(name: str, format: str) -> str:
    """The part of a bracket a round belongs to (as the event page draws it), by key."""
    if re.match(r"^Losers", name, re.IGNORECASE):
        return "losers"
    if re.match(r"^Grand final", name, re.IGNORECASE) or re.search(r"third", name, re.I):
        return "finals"
    return "winners" if format == Format.DOUBLE_ELIM else "bracket"


def bracket_parts(*, event: Event, bracket: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The bracket in parts (winners, losers, finals), each a list of rounds of tables.

    Empty for an event without a bracket (:func:`has_bracket`), or a two-stage event
    still playing its groups.
    """
    if not has_bracket(event):
        return []
    bracket = bracket or event_bracket(event)
    rounds = bracket["rounds"]
    format = event.format
    if event.format == Format.TWO_STAGE:
        rounds = [r for r in rounds if r.get("stage") == "playoff"]
        format = bracket.get("playoff_format", Format.SINGLE_ELIM)
    feeds = _feeds(rounds)
    places = _places_of(rounds)
    parts: dict[str, list[RoundTables]] = {}
    for rnd in rounds:
        if not rnd["pairings"] or all(p["status"] == "skipped" for p in rnd["pairings"]):
            continue  # a bracket reset that was not needed
        tables = round_tables(rnd, places=places, feeds=feeds, byes_in_place=True)
        # A bracket keeps its order (the tables that feed a later match side by side).
        order = {p["key"]: i for i, p in enumerate(rnd["pairings"])}
        tables.tables.sort(key=lambda t: order[t.key])
        parts.setdefault(section_key(rnd["name"], format), []).append(tables)
    return [
        {"key": key, "name": str(SECTION_TITLES[key]), "rounds": rounds}
        for key, rounds in parts.items()
    ]
