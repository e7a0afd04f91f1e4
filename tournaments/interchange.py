"""What tournament directors move between programs: entrants in, a FIDE TRF-16 report out.

:func:`entries_import` reads a CSV of entrants (a player's ``name`` or ``player_id``, and an
optional ``seed``) and enters them all or none: every line is checked before anything is
written, and a refusal names its line. :func:`trf16` writes a Swiss or round robin as a FIDE
Tournament Report File (TRF-16: fixed columns, one ``001`` line per player with a 10-column
block per round), which FIDE's pairing checkers and other pairing programs read.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import Player
from tournaments import selectors, services
from tournaments.models import Entry, Event, EventLog, Format, Pairing, Round

#: The most lines one import takes (the largest event's capacity).
MAX_IMPORT_LINES = 4096

IMPORT_COLUMNS = ("name", "player_id", "seed")


@dataclass(frozen=True)
class ImportLine:
    """One entrant of a CSV: the line it is on (the header is line 1), its player and seed."""

    line: int
    player: Player
    seed: int | None


def _refuse(line: int, message: str, *, code: str, status: int = 400) -> services.TournamentError:
    return services.TournamentError(
        _("line %(line)s: %(problem)s") % {"line": line, "problem": message},
        code=code,
        status=status,
        line=line,
    )


def entries_parse(text: str) -> list[ImportLine]:
    """The entrants of a CSV, each player found; TournamentError naming the first bad line.

    The header names the columns: ``name`` or ``player_id`` (one is needed; with both, the id
    decides), and optionally ``seed``. Refused: an unknown column, a line naming no known
    player (``unknown_player``: every such line is named, in ``detail`` and ``lines``), a
    player on two lines (``duplicate_entry``), a seed that is not a positive whole number or
    given twice (``invalid_seed``, ``duplicate_seed``).
    """
    reader = csv.reader(io.StringIO(text))
    header = [name.strip().lower() for name in next(reader, [])]
    if not header or not ({"name", "player_id"} & set(header)):
        raise _refuse(
            1, _("the header must name a 'name' or 'player_id' column"), code="invalid_csv"
        )
    unknown = [name for name in header if name not in IMPORT_COLUMNS]
    if unknown:
        raise _refuse(
            1,
            _("unknown column(s) %(columns)s; known: %(known)s")
            % {"columns": ", ".join(map(repr, unknown)), "known": ", ".join(IMPORT_COLUMNS)},
            code="invalid_csv",
        )
    lines: list[ImportLine] = []
    players_seen: dict[int, int] = {}
    seeds_seen: dict[int, int] = {}
    nobody: list[services.TournamentError] = []  # every line naming nobody, told at once
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line, e.g. the last one
        try:
            item = _line_of(number, row, header, lines, players_seen, seeds_seen)
        except services.TournamentError as error:
            if error.code == "unknown_player":
                nobody.append(error)
                continue
            if nobody:
                break  # a later line's problem: the lines naming nobody come first
            raise
        lines.append(item)
    if nobody:
        raise services.TournamentError(
            "; ".join(str(error) for error in nobody),
            code="unknown_player",
            line=nobody[0].extra["line"],
            lines=[error.extra["line"] for error in nobody],
        )
    if not lines:
        raise _refuse(2, _("the file names no entrant"), code="invalid_csv")
    return lines


def _line_of(
    number: int,
    row: list[str],
    header: list[str],
    lines: list[ImportLine],
    players_seen: dict[int, int],
    seeds_seen: dict[int, int],
) -> ImportLine:
    """Line ``number`` of the file, its player found; TournamentError naming what is wrong."""
    if len(lines) >= MAX_IMPORT_LINES:
        raise _refuse(
            number,
            _("an import takes at most %(max)s lines") % {"max": MAX_IMPORT_LINES},
            code="too_many",
        )
    if len(row) > len(header):
        raise _refuse(
            number,
            _("%(fields)s fields for %(columns)s columns")
            % {"fields": len(row), "columns": len(header)},
            code="invalid_csv",
        )
    cells = dict(zip(header, (cell.strip() for cell in row), strict=False))
    player = _player_of(number, cells)
    if player.pk in players_seen:
        raise _refuse(
            number,
            _("%(name)s is already on line %(line)s")
            % {"name": player.name, "line": players_seen[player.pk]},
            code="duplicate_entry",
        )
    seed = _seed_of(number, cells.get("seed", ""))
    if seed is not None:
        if seed in seeds_seen:
            raise _refuse(
                number,
                _("seed %(seed)s is already given on line %(line)s")
                % {"seed": seed, "line": seeds_seen[seed]},
                code="duplicate_seed",
            )
        seeds_seen[seed] = number
    players_seen[player.pk] = number
    return ImportLine(number, player, seed)


def _player_of(line: int, cells: dict[str, str]) -> Player:
    raw_id, name = cells.get("player_id", ""), cells.get("name", "")
    if raw_id:
        if not raw_id.isdigit():
            raise _refuse(
                line,
                _("player_id %(value)r is not a number") % {"value": raw_id},
                code="unknown_player",
            )
        player = Player.objects.filter(pk=int(raw_id)).first()
        if player is None:
            raise _refuse(
                line, _("no player has id %(id)s") % {"id": raw_id}, code="unknown_player"
            )
        return player
    if not name:
        raise _refuse(line, _("neither a name nor a player_id"), code="unknown_player")
    player = Player.objects.filter(name__iexact=name).first()
    if player is None:
        raise _refuse(
            line, _("no player is named %(name)r") % {"name": name}, code="unknown_player"
        )
    return player


def _seed_of(line: int, raw: str) -> int | None:
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 9999:
        raise _refuse(
            line,
            _("seed %(value)r is not a whole number from 1 to 9999") % {"value": raw},
            code="invalid_seed",
        )
    return int(raw)


def entries_import(*, event: Event, text: str, by: AbstractBaseUser | None = None) -> list[Entry]:
    """Enter every player of a CSV (see :func:`entries_parse`) by :func:`services.entry_add`.

    All or nothing: a line refused by the file's checks or by the event (full, closed, a
    disqualified player, one already entered) rolls every entry back, and the refusal names
    the line. Seeds given are set as the admin's entries inline sets them (before the start).
    """
    lines = entries_parse(text)
    if any(item.seed is not None for item in lines) and event.status not in (
        Event.Status.DRAFT,
        Event.Status.REGISTRATION,
    ):
        first = next(item.line for item in lines if item.seed is not None)
        raise _refuse(
            first,
            _("seeds cannot change once the event started"),
            code="event_started",
            status=409,
        )
    entries = []
    with transaction.atomic():
        for item in lines:
            try:
                entry = services.entry_add(event=event, player=item.player, by=by)
            except services.TournamentError as error:
                raise services.TournamentError(
                    _("line %(line)s: %(problem)s") % {"line": item.line, "problem": error},
                    code=error.code,
                    status=error.status,
                    line=item.line,
                ) from None
            if item.seed is not None:
                Entry.objects.filter(pk=entry.pk).update(seed=item.seed)
                entry.seed = item.seed
            entries.append(entry)
        EventLog.objects.create(
            event=event,
            action="import_entries",
            actor=by if by is not None and by.is_authenticated else None,
            detail={"entries": len(entries)},
        )
    return entries


# --- TRF-16 ---------------------------------------------------------------------------------

#: Formats a TRF describes: everyone plays every round (Swiss, round robin).
TRF_FORMATS = (Format.SWISS, Format.ROUND_ROBIN)

_TYPES = {Format.SWISS: "Swiss System", Format.ROUND_ROBIN: "Round Robin"}


def _put(line: list[str], column: int, text: str) -> None:
    """Write ``text`` into ``line`` from 1-based ``column`` (TRF's column numbers)."""
    end = column - 1 + len(text)
    if len(line) < end:
        line.extend(" " * (end - len(line)))
    line[column - 1 : end] = text


def _date(at: datetime | None, *, short: bool = False) -> str:
    if at is None:
        return ""
    return at.strftime("%y/%m/%d" if short else "%Y/%m/%d")


def _round_block(
    pairing: Pairing | None, entry: Entry, seeds: dict[int, int], *, swiss: bool
) -> str:
    """The 10 columns of a round for ``entry``: opponent, colour, result (``oooo c r``)."""
    if pairing is None:
        return "0000 - Z"  # not paired this round: a known absence, no point
    if pairing.entry_b_id is None:  # a bye: a point in a Swiss, nothing in a round robin
        return "0000 - U" if swiss else "0000 - Z"
    first = pairing.entry_a_id == entry.pk
    opponent = pairing.entry_b_id if first else pairing.entry_a_id
    if pairing.status not in Pairing.SETTLED:  # in play: paired, no result yet
        return f"{seeds.get(opponent, 0):4d} {'w' if first else 'b'}  "
    won = pairing.winner_id == entry.pk
    # Unplayed as the standings count it (their tiebreaks see the same).
    unplayed = pairing.result in selectors.UNPLAYED_RESULTS or (
        pairing.result == Pairing.Result.FORFEIT and pairing.games_a + pairing.games_b == 0
    )
    result = ("+" if won else "-") if unplayed else ("1" if won else "0")
    return f"{seeds.get(opponent, 0):4d} {'w' if first else 'b'} {result}"


def trf16(*, event: Event) -> str:
    """The event as a FIDE TRF-16 file (lines ending in CR LF).

    Tournament lines (``012`` name, ``042``/``052`` dates, ``062`` players, ``092`` type,
    ``122`` time control, ``132`` round dates), then one ``001`` line per entrant by starting
    rank: rank 5-8, name 15-47, rating 49-52, points 81-84 (``11.5``), rank 86-89, then per
    started round from column 92 (10 columns each) the opponent's starting rank, the colour
    (``w`` for the pairing's first player, who deals the first game) and the result (``1``/
    ``0``, ``+``/``-`` for a result without a game played, ``U`` a bye with its point, ``Z``
    a round not played, blank while the match is in play). Rounds not started are left out.

    Refused: an elimination event (``trf_format``, 400), one not started (``not_started``, 409).
    """
    if event.format not in TRF_FORMATS:
        raise services.TournamentError(
            _("a TRF describes a Swiss or a round robin, not a %(format)s")
            % {"format": event.get_format_display()},
            code="trf_format",
        )
    if event.started_at is None:
        raise services.Conflict(
            _("the event has not started: nobody has a rank yet"), code="not_started"
        )
    rows = selectors.standings_for_event(event=event, with_ratings=False)
    entries = {e.pk: e for e in event.entries.select_related("player").filter(seed__isnull=False)}
    seeds = {pk: e.seed for pk, e in entries.items()}
    rounds = list(event.rounds.order_by("number"))
    decided = [r.number for r in rounds if r.status != Round.Status.PENDING]
    by_round: dict[tuple[int, int], Pairing] = {}
    for p in event.pairings.filter(round__number__in=decided).select_related("round"):
        for pk in (p.entry_a_id, p.entry_b_id):
            if pk is not None:
                by_round[p.round.number, pk] = p

    out = [f"012 {event.name}", f"042 {_date(event.started_at)}"]
    if event.finished_at is not None:
        out.append(f"052 {_date(event.finished_at)}")
    out += [f"062 {len(entries)}", "072 0", f"092 {_TYPES[event.format]}"]
    if event.base_seconds is not None:
        out.append(f"122 {event.base_seconds}+{event.increment_seconds}")
    dates = list("132")
    for number in decided:
        started = next(r.started_at for r in rounds if r.number == number)
        _put(dates, 92 + 10 * (number - 1), _date(started, short=True))
    if len(dates) > 1:
        out.append("".join(dates).rstrip())
    if event.rounds_planned:
        out.append(f"142 {event.rounds_planned}")
    for row in sorted(rows, key=lambda r: seeds.get(r["entry"], 0)):
        entry = entries.get(row["entry"])
        if entry is None:
            continue
        line = list("001")
        _put(line, 5, f"{entry.seed:4d}")
        _put(line, 15, f"{entry.player.name[:33]:<33}")
        if entry.rating is not None and 0 < entry.rating < 10000:
            _put(line, 49, f"{entry.rating:4d}")
        _put(line, 81, f"{float(row.get('match_points') or 0):4.1f}")
        _put(line, 86, f"{row['rank']:4d}")
        for number in decided:
            block = _round_block(
                by_round.get((number, entry.pk)), entry, seeds, swiss=event.format == Format.SWISS
            )
            _put(line, 92 + 10 * (number - 1), block)
        out.append("".join(line).rstrip())
    return "".join(f"{line}\r\n" for line in out)
