"""An arena's reads: the table of its entrants (score, streak, who is free to pair) and its
standings by points (:mod:`tournaments.formats.arena`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts.models import Player, stable_of
from games.rating_hook import ratings_for
from tournaments.formats import arena
from tournaments.models import Entry, Event, Pairing
from tournaments.selectors.base import player_json

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


def arena_standings(event: Event, with_ratings: bool) -> list[dict[str, Any]]:
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
                    "player": player_json(entry.player),
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
                "player": player_json(entry.player),
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
