"""Reads of play: what one viewer may see of a game, match details, replays from the log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.models import Player
from games import clocks, kept_engines
from games.engine.cards import card_name, cards_of
from games.engine.match import Match as EngineMatch
from games.engine.views import view_for
from games.models import Action, Deal, Game, Match
from games.sheets import sheet_for_match, table_log

PRIVATE_STATUSES = (Match.Status.CHALLENGED, Match.Status.DECLINED)
MATCH_FORFEITS = (
    Match.EndReason.FORFEIT,
    Match.EndReason.RESIGNED,
    Match.EndReason.BOT_FAILURE,
    Match.EndReason.NO_SHOW,
    Match.EndReason.ADMIN,
)


def match_list(*, viewer: Player | None = None) -> QuerySet[Match]:
    """Matches anyone may see, plus the viewer's own challenges (open or declined)."""
    public = ~Q(status__in=PRIVATE_STATUSES) & ~Q(status=Match.Status.CANCELLED, started_at=None)
    if viewer is not None:
        public |= Q(player_a=viewer) | Q(player_b=viewer)
    return Match.objects.filter(public).select_related("player_a", "player_b", "winner")


def match_visible(*, match: Match, viewer: Player | None) -> bool:
    """A challenge is private to its two players (others get a 404, not a 403)."""
    if match.status in PRIVATE_STATUSES or (
        match.status == Match.Status.CANCELLED and match.started_at is None
    ):
        return viewer is not None and match.index_of(viewer.pk) is not None
    return True


def _names(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


def outcome_by_player(outcome: dict[str, Any] | None, swap: int) -> dict[str, Any] | None:
    """An engine outcome with seats turned into player indices (0 = A, 1 = B)."""
    if outcome is None:
        return None
    out = dict(outcome)
    for key in ("winner", "knocker"):
        if out.get(key) is not None:
            out[key] = out[key] ^ swap
    return out


def _player_json(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "kind": player.kind}


def game_view(
    *, game: Game, viewer: Player | None, now: datetime | None = None, shared: dict | None = None
) -> dict:
    """The viewer's view of a game: for a player their hand, for anyone else no hidden card.

    Player-indexed throughout: index 0 is the match's player A, 1 is player B. Views of the
    same game at the same moment for several viewers may pass one ``shared`` dict: what does
    not depend on the viewer (the decoded match state, the last deal) is then read once. A
    caller holding the engine match that ``match.state`` was saved from may put it in
    ``shared["engine"]`` (it is only read).
    """
    now = now or timezone.now()
    match = game.match
    me = None if viewer is None else match.index_of(viewer.pk)
    shared = {} if shared is None else shared
    if "last_deal" not in shared:
        if "engine" not in shared:
            # The engine the last change kept, if it is this state's (else decoded).
            shared["engine"] = (
                kept_engines.for_reading(match.pk, match.state) if match.state else None
            )
        shared["last_deal"] = _last_deal(game, shared["engine"])
        shared["next_game"] = _next_game(game)
    engine = shared["engine"]
    in_play = (
        engine is not None
        and game.status == Game.Status.ACTIVE
        and engine.game_index == game.number
        and not engine.is_over
    )
    # Between deals of a timed game the next deal is dealt but not shown, and no clock runs.
    paused = in_play and game.pause_deadline is not None
    if paused:
        in_play = False
    data: dict[str, Any] = {
        "id": game.pk,
        "match": match.pk,
        "number": game.number,
        "status": game.status,
        "seq": game.seq,
        "ply": game.ply,
        "players": [_player_json(match.player_a), _player_json(match.player_b)],
        "you": me,
        "to_act": game.to_act if in_play else None,
        "your_turn": in_play and me is not None and game.to_act == me,
        "scores": {
            "hand_points": [game.score_a, game.score_b],
            "games_won": [match.games_won_a, match.games_won_b],
            "best_of": match.best_of,
            "target": match.target,
        },
        "results": game.results,
        "clocks": None,
        "turn_deadline": game.turn_deadline if in_play else None,
        "deal": None,
        "hand": None,
        "melds": None,
        "deadwood": None,
        "deadwood_points": None,
        "opponent": None,
        "legal_actions": [],
        "last_deal": shared["last_deal"],
        "pause": None,
        "next_game": shared["next_game"],
        "venue": match.venue,
        "table": match.table,
        "sheet": None,
    }
    if match.at_table:
        # No deal, no hidden card: everyone sees the score pad (rendered once per change).
        if "sheet" not in shared:
            shared["sheet"] = sheet_for_match(match=match)
        data["sheet"] = shared["sheet"]
    if paused:
        data["pause"] = {
            "deadline": game.pause_deadline,
            "remaining_ms": max(0, clocks.elapsed_ms(now, game.pause_deadline)),
            "continued": [bool(game.continued & 1), bool(game.continued & 2)],
        }
    if match.is_timed:
        data["clocks"] = [
            {
                "remaining_ms": clock_remaining_ms(match, game, i, now),
                "running": in_play and game.to_act == i,
                "turn_remaining_ms": (
                    turn_remaining_ms(match, game, now) if in_play and game.to_act == i else None
                ),
            }
            for i in (0, 1)
        ]
    if game.status != Game.Status.ACTIVE and game.results:
        # The row's scores are the last ones saved while the game ran, before its last deal:
        # a finished game's totals are its result's.
        final = game.results[-1]
        data["scores"]["hand_points"] = list(final["hand_points"])
        data["scores"]["hands_won"] = list(final["hands_won"])
    elif engine is not None and engine.game_index == game.number:
        data["scores"]["hands_won"] = list(engine.game.hands_won)  # also between deals
    if not in_play:
        return data
    assert engine is not None
    g = engine.game
    swap = g.deal_swap
    seat = None if me is None else me ^ swap
    view = view_for(g.deal, seat)
    raw = view.to_json()
    by_player = [0 ^ swap, 1 ^ swap]  # the seat of each player
    data["deal"] = {
        "number": g.deal_number,
        "dealer": view.dealer ^ swap,
        "phase": raw["phase"],
        "upcard": raw["upcard"],
        "knock_limit": view.knock_limit,
        "multiplier": view.multiplier,
        "discard_pile": raw["discard_pile"],
        "stock_size": view.stock_size,
        "hand_sizes": [view.hand_sizes[by_player[0]], view.hand_sizes[by_player[1]]],
        "known": [_names(view.known[by_player[0]]), _names(view.known[by_player[1]])],
        "history": [
            {"player": h["seat"] ^ swap, "type": h["type"], "card": h["card"]}
            for h in raw["history"]
        ],
    }
    if me is not None:
        opponent_seat = 1 - seat
        data.update(
            hand=raw["hand"],
            melds=raw["melds"],
            deadwood=raw["deadwood"],
            deadwood_points=raw["deadwood_points"],
            opponent={
                "card_count": view.hand_sizes[opponent_seat],
                "known_cards": _names(view.known[opponent_seat]),
            },
            legal_actions=raw["legal_actions"],
            forbidden_discard=raw["forbidden_discard"],
        )
    return data


def _next_game(game: Game) -> int | None:
    """The id of the match's game after this one, once this one is over."""
    if game.status == Game.Status.ACTIVE:
        return None
    return (
        Game.objects.filter(match_id=game.match_id, number=game.number + 1)
        .values_list("pk", flat=True)
        .first()
    )


def _last_deal(game: Game, engine: EngineMatch | None = None) -> dict[str, Any] | None:
    """The most recent finished deal of the game, both hands revealed.

    Except while the same cards are dealt again: the first deal of a duplicate pair shows
    how the second began (the same hands, seats swapped, and the same stock), so its hands
    wait until the second deal is over.

    ``engine``, the match's engine as its state was saved, answers without a query when
    the game is the one it plays (its snapshot keeps the last deal scored).
    """
    if engine is not None and engine.game_index == game.number and engine.game.last_deal_known:
        g = engine.game
        last = g.last_deal
        if last is None:
            return None
        dealing = not (g.is_over or engine.is_over)
        hidden = dealing and last["seed"] is not None and g.deal.seed == last["seed"]
        return _deal_json(
            last["number"],
            last["dealer"],
            last["swap"],
            last["outcome"],
            None if hidden else [_names(last["hands"][0]), _names(last["hands"][1])],
        )
    # One query: the newest two deals that are finished or in play. A game has at most one
    # deal in play, always its newest, so the finished one is the first or the second.
    newest = list(
        Deal.objects.filter(game=game, status__in=(Deal.Status.FINISHED, Deal.Status.ACTIVE))
        .order_by("-number")
        .only("number", "status", "seed", "dealer", "swap", "outcome")[:2]
    )
    in_play = newest[0] if newest and newest[0].status == Deal.Status.ACTIVE else None
    deal = next((d for d in newest if d.status == Deal.Status.FINISHED), None)
    if deal is None or deal.outcome is None:
        return None
    hands = deal.outcome.get("hands")
    if in_play is not None and in_play.seed == deal.seed:
        hands = None
    return _deal_json(deal.number, deal.dealer, deal.swap, deal.outcome, hands)


def _deal_json(
    number: int, dealer: int, swap: int, outcome: dict[str, Any], hands: list | None
) -> dict[str, Any]:
    """A finished deal as a view shows it, by player: ``hands`` by seat, or None (hidden)."""
    return {
        "number": number,
        "dealer": dealer ^ swap,
        "outcome": outcome_by_player({k: v for k, v in outcome.items() if k != "hands"}, swap),
        "hands": None if hands is None else [hands[0 ^ swap], hands[1 ^ swap]],
    }


def clock_remaining_ms(match: Match, game: Game, index: int, now: datetime) -> int | None:
    """What player ``index`` has left now (the player to act is running); None untimed."""
    if not match.is_timed:
        return None
    running = game.status == Game.Status.ACTIVE and game.to_act == index and not game.paused
    return clocks.remaining_ms(
        game.clock_ms(index) or 0, running=running, charged_at=game.clock_charged_at, now=now
    )


def turn_remaining_ms(match: Match, game: Game, now: datetime) -> int | None:
    """What is left of the per-turn limit for the player to act, or None without a limit."""
    if match.turn_limit_seconds is None or game.turn_began_at is None:
        return None
    return clocks.turn_remaining_ms(
        match.turn_limit_seconds, turn_began_at=game.turn_began_at, paused=game.paused, now=now
    )


#: Moves after which the turn passes (a draw is followed by the same player's discard).
TURN_ENDING = frozenset({"pass", "discard", "knock", "gin", "big_gin"})


def clocks_from_log(*, game: Game) -> list[int] | None:
    """Both players' clocks (ms) at the end of the game's log, recomputed from the log alone.

    The rules of ``games.services`` and :mod:`games.clocks`: each move charges its mover the
    time since their clock was last charged, less the lag credited with it (``lag_ms``); a
    turn that passes adds the increment; a deal's first turn starts at its ``clock_started_at``
    (after the pause). A timeout (a move the clock's autoplay made, a game lost on time)
    charges up to its deadline: the clock is then at zero, or keeps what it had left when a
    per-turn limit ran out first. None for an untimed match.
    """
    match = game.match
    if not match.is_timed:
        return None
    left = [match.base_ms(0) or 0, match.base_ms(1) or 0]
    increment = match.increment_seconds * 1000
    charged = None
    last_deal = None
    for deal in game.deals.order_by("number"):
        last_deal = deal
        charged = deal.clock_started_at
        for action in deal.actions.order_by("ply"):
            index = match.index_of(action.player_id)
            if action.auto:
                left[index] = clocks.timed_out(
                    left[index], charged_at=charged, at=action.created_at
                )
            else:
                elapsed = clocks.elapsed_ms(charged, action.created_at)
                left[index] = max(0, left[index] - max(0, elapsed) + action.lag_ms)
            charged = action.created_at
            if action.kind in TURN_ENDING:
                left[index] += increment
    if game.forfeit_by is not None and "time" in game.forfeit_reason:
        at = last_deal.finished_at if last_deal is not None else None
        if at is None or charged is None:
            left[game.forfeit_by] = 0
        else:
            left[game.forfeit_by] = clocks.timed_out(
                left[game.forfeit_by], charged_at=charged, at=at
            )
    return left


def moves_made(*, match: Match) -> dict[int, int]:
    """How many moves each player of ``match`` made themself (the clock's autoplay left out),
    by player id; a player who made none is left out."""
    rows = (
        Action.objects.filter(deal__game__match=match, auto=False)
        .values_list("player_id")
        .annotate(moves=Count("pk"))
        .order_by()
    )
    return dict(rows)


def match_log(*, match: Match) -> dict[str, Any]:
    """The match as the engine's log JSON, built from the database rows alone.

    ``Match.replay`` of it re-deals every deal from the seeds and replays every action;
    the engine's CLI (``python -m games.engine replay``) does the same for anyone. A table
    match's deals are its entered hands, entered again by the replay.
    """
    if match.at_table:
        log = table_log(match=match)
        if match.winner_id is not None:  # a match conceded ends otherwise than its hands say
            log["winner"] = match.index_of(match.winner_id)
            log["termination"] = "forfeit" if match.end_reason in MATCH_FORFEITS else "games"
        return log
    games = []
    actions_by_deal: dict[int, list[str]] = {}
    for action in Action.objects.filter(deal__game__match=match).order_by("deal_id", "ply"):
        actions_by_deal.setdefault(action.deal_id, []).append(action.text)
    for game in match.games.order_by("number").prefetch_related("deals"):
        deals = []
        for deal in sorted(game.deals.all(), key=lambda d: d.number):
            outcome = None
            if deal.outcome is not None:
                outcome = {k: v for k, v in deal.outcome.items() if k != "hands"}
            deals.append(
                {
                    "seed": deal.seed,
                    "dealer": deal.dealer,
                    "swap": deal.swap,
                    "actions": actions_by_deal.get(deal.pk, []),
                    "outcome": outcome,
                }
            )
        forfeit = None
        if game.forfeit_by is not None:
            forfeit = {"player": game.forfeit_by, "reason": game.forfeit_reason}
        games.append(
            {
                "seed": game.seed,
                "first_dealer": game.first_dealer,
                "deals": deals,
                "forfeit": forfeit,
            }
        )
    results = [r for game in match.games.order_by("number") for r in game.results]
    # A timeout forfeits a game (the match may go on); these forfeit the whole match.
    forfeited = match.end_reason in MATCH_FORFEITS
    return {
        "seed": match.seed,
        "rules": match.rules,
        "games": games,
        "results": results,
        "winner": None if match.winner_id is None else match.index_of(match.winner_id),
        "termination": "forfeit" if forfeited else ("games" if match.winner_id else None),
        "games_won": [match.games_won_a, match.games_won_b],
    }
