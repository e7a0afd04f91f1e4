"""The brackets: an elimination event's (or a two-stage event's playoff) as the format builds
it, resolved from the recorded results, and as ``GET /api/events/{id}/bracket`` shows it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.db.models import Q

from tournaments.formats import bracket as brackets
from tournaments.formats import double_elim, single_elim, two_stage
from tournaments.models import Event, Format, Pairing
from tournaments.selectors.arena import ARENA_RECENT
from tournaments.selectors.base import entry_json, player_json


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


def bracket_places(event: Event) -> tuple[dict[int, brackets.Placement], dict[int, str]] | None:
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
                "a": entry_json(p.entry_a),
                "b": entry_json(p.entry_b),
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
        "champion": player_json(champion) if champion else None,
        "rounds": list(rounds.values()),
    }
    if event.format == Format.TWO_STAGE:
        body["playoff_format"] = event.playoff_format
    return body
