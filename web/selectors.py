"""Reads for the web pages: the lobby's opponents, the home page's summary, the score charts.

Everything here is public or the viewer's own: house bots and people to challenge, matches
anyone may watch, events open to all, leaderboards, and the points of finished deals (the
match page's table shows the same totals). No hand, stock or seed is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import Player
from games import rating_hook
from games import selectors as game_selectors
from games.engine.rules import RuleSet, ScoringStyle
from games.models import IN_PROGRESS, Deal, Game, Match
from ladders import selectors as ladder_selectors
from ladders.models import Ladder, Rating
from tournaments import selectors as event_selectors
from tournaments.models import Entry, Event, Pairing

#: House-bot strategies from the weakest to the strongest, with the lobby's group labels.
BOT_STRENGTHS = [
    ("random", gettext_lazy("Beginner bots: random play")),
    ("greedy", gettext_lazy("Club bots: greedy, knock at once")),
    ("expert", gettext_lazy("Strong bots: expert, track the cards")),
    ("master", gettext_lazy("Master bots: master, search the hidden cards")),
]
OTHER_BOTS = gettext_lazy("Other bots")
#: The same groups in a word, for a short list (the organiser's "add bots" menu).
BOT_GROUPS = {
    "random": gettext_lazy("Beginner bots (random)"),
    "greedy": gettext_lazy("Club bots (greedy)"),
    "expert": gettext_lazy("Strong bots (expert)"),
    "master": gettext_lazy("Master bots (master)"),
}


@dataclass
class OpponentGroup:
    """One ``<optgroup>`` of the lobby's opponent list."""

    label: str
    players: list[Player] = field(default_factory=list)
    people: bool = False


def event_filler_bots() -> QuerySet[Player]:
    """House bots that only ever played in events: the fillers an organiser or a bot event
    created by the dozen ("Greedy bot 17").

    A bot counts as a filler when it has an event entry and no life outside events: no
    ladder rating (a ladder's queue holds members only) and no match other than a
    tournament's. The house bots people play (the demo's, queued in its ladder, or any bot
    challenged once) stay listed.
    """
    me = OuterRef("pk")
    outside_events = Match.objects.filter(Q(player_a=me) | Q(player_b=me)).exclude(
        source=Match.Source.TOURNAMENT
    )
    return (
        Player.objects.filter(kind=Player.Kind.BOT)
        .filter(Exists(Entry.objects.filter(player=me)))
        .exclude(Exists(Rating.objects.filter(player=me)))
        .exclude(Exists(outside_events))
    )


def opponent_groups(
    *, people: list[Player], find: str = "", chosen: Player | None = None
) -> list[OpponentGroup]:
    """The lobby's opponents: house bots by strength (weakest first), then people.

    Without ``find`` the event fillers (:func:`event_filler_bots`) are left out; a search
    lists every house bot whose name contains it, fillers too, and a ``chosen`` bot (a
    link's ``?opponent=``) is always listed.
    """
    bots = Player.objects.filter(kind=Player.Kind.BOT)
    if find:
        bots = bots.filter(name__icontains=find)
    else:
        bots = bots.exclude(pk__in=event_filler_bots().values("pk"))
    bots = list(bots.order_by("name"))
    if chosen is not None and chosen.is_bot and chosen not in bots:
        bots.insert(0, chosen)
    groups = {strategy: OpponentGroup(label) for strategy, label in BOT_STRENGTHS}
    other = OpponentGroup(OTHER_BOTS)
    for bot in bots:
        groups.get(bot.bot_strategy, other).players.append(bot)
    ordered = [*groups.values(), other]
    result = [group for group in ordered if group.players]
    if people:
        result.append(OpponentGroup(_("Players (they accept or decline)"), list(people), True))
    return result


#: The lobby's one-tap levels against the computer, from the easiest: (key, name).
COMPUTER_LEVELS = [
    ("easy", gettext_lazy("Easy")),
    ("medium", gettext_lazy("Medium")),
    ("hard", gettext_lazy("Hard")),
]


@dataclass(frozen=True)
class ComputerLevel:
    """A one-tap button of the lobby: a level's key and name, and the house bot it plays."""

    key: str
    label: str
    bot: Player


def computer_levels() -> list[ComputerLevel]:
    """The lobby's "Play the computer" levels: Hard is the strongest house-bot strategy there
    is, Medium the next weaker one, Easy the one below (greedy, expert and master with a
    master bot; random, greedy and expert without one); fewer levels when fewer strategies
    have a bot. Each level plays the first of its strategy's bots by name, leaving out the
    event fillers (:func:`event_filler_bots`) and bots of strategies the lobby does not rank.
    """
    bots = Player.objects.filter(kind=Player.Kind.BOT).exclude(
        pk__in=event_filler_bots().values("pk")
    )
    found = [bots.filter(bot_strategy=s).order_by("name", "pk").first() for s, _ in BOT_STRENGTHS]
    strongest = [bot for bot in found if bot is not None][-len(COMPUTER_LEVELS) :]
    return [
        ComputerLevel(key, label, bot)
        for (key, label), bot in zip(COMPUTER_LEVELS, strongest, strict=False)
    ]


def tournament_match_of(*, player: Player) -> Pairing | None:
    """The player's tournament match waiting for them to show up or in play online, as its
    pairing (with ``event``, ``round`` and ``match``; ``match.current_game`` is the game in
    play or None): the match the games service keeps them from starting another game beside
    (409 ``in_tournament_match``). A match at a table does not count. None if there is none.
    """
    pairing = (
        Pairing.objects.filter(
            match__status__in=IN_PROGRESS,
            match__source=Match.Source.TOURNAMENT,
            match__venue=Match.Venue.ONLINE,
        )
        .filter(Q(match__player_a=player) | Q(match__player_b=player))
        .select_related("event", "round", "match__player_a", "match__player_b")
        .order_by("match_id")
        .first()
    )
    if pairing is not None:
        pairing.match.current_game = (
            Game.objects.filter(match=pairing.match, status=Game.Status.ACTIVE)
            .values_list("pk", flat=True)
            .first()
        )
    return pairing


def owns_a_bot(*, player: Player) -> bool:
    """Whether the player runs a bot of their own (an external bot): ladders for bots only
    are shown to them, and to nobody else, in the lobby."""
    return Player.objects.filter(owner=player, kind=Player.Kind.EXTERNAL).exists()


# --- the home page -------------------------------------------------------------------------

#: How many of each the home page lists (it stays a light page).
HOME_LIVE_GAMES = 8
HOME_EVENTS = 5
HOME_LADDERS = 2
HOME_LEADERS = 5


def lobby_rating(*, player: Player) -> int:
    """The rating the lobby's open games show beside the player's name and check a range
    against: theirs in the pool of rated events (the initial rating before any)."""
    return rating_hook.ratings_of([player.pk])[player.pk]


def live_games(*, limit: int = HOME_LIVE_GAMES) -> list[Match]:
    """Matches in play that anyone may watch, newest first, people's before bots' games.

    Each has ``current_game`` (the game in play, whose table a spectator sees without any
    hidden card) and ``event`` (None unless a tournament match).
    """
    humans = Q(player_a__kind=Player.Kind.HUMAN) | Q(player_b__kind=Player.Kind.HUMAN)
    in_play = Game.objects.filter(match=OuterRef("pk"), status=Game.Status.ACTIVE)
    found: list[Match] = []
    for only in (humans, ~humans):
        if len(found) >= limit:
            break
        found += list(
            game_selectors.match_list(viewer=None)
            .filter(only, status=Match.Status.ACTIVE)
            .filter(Exists(in_play))
            .order_by("-started_at", "-pk")[: limit - len(found)]
        )
    current = dict(
        Game.objects.filter(match__in=[m.pk for m in found], status=Game.Status.ACTIVE).values_list(
            "match_id", "pk"
        )
    )
    events = {
        p.match_id: p.event
        for p in Pairing.objects.filter(match__in=[m.pk for m in found]).select_related("event")
    }
    for match in found:
        match.current_game = current.get(match.pk)
        match.event = events.get(match.pk)
    return found


def home_events(*, limit: int = HOME_EVENTS) -> dict[str, list[Event]]:
    """Events open for registration and in play, the newest first."""
    listed = event_selectors.event_list()
    return {
        "open": list(listed.filter(status=Event.Status.REGISTRATION)[:limit]),
        "running": list(listed.filter(status=Event.Status.RUNNING)[:limit]),
    }


def home_leaders(
    *, ladders: int = HOME_LADDERS, leaders: int = HOME_LEADERS
) -> list[dict[str, Any]]:
    """The top of the leaderboards of the open ladders (not the rated pools of events):
    ``[{"ladder", "rows"}]``, the oldest ladders first."""
    boards = []
    open_ladders = Ladder.objects.filter(kind=Ladder.Kind.LADDER, is_open=True).order_by("id")
    for ladder in open_ladders[:ladders]:
        page = ladder_selectors.leaderboard_page(ladder=ladder, page=1, page_size=leaders)
        boards.append({"ladder": ladder, "rows": page.rows})
    return boards


# --- the match page's score charts -----------------------------------------------------------

CHART_WIDTH = 320
CHART_HEIGHT = 140
CHART_PAD = 26


def _running_scores(game: Game, deals: list[Deal], hollywood: bool) -> tuple[list, str]:
    """Each player's hand points after each finished deal, and a note for the chart."""
    totals = [0, 0]
    points = []
    for deal in deals:
        if deal.winner_index is not None:
            totals[deal.winner_index] += deal.points
        points.append(tuple(totals))
    note = ""
    result = game.results[-1] if game.status == Game.Status.FINISHED and game.results else None
    if result and result.get("shutout") and points and not hollywood:
        # The game's total is its result's: a shutout may double the winner's hand points.
        final = tuple(result["hand_points"])
        if final != points[-1]:
            points[-1] = final
            note = _("A shutout: the winner's hand points doubled.")
    return points, note


def score_charts(*, match: Match, games: list[Game]) -> list[dict[str, Any]]:
    """A small SVG chart per game: each player's running score by deal, and the target.

    Returns one chart per game, in order, with the points as SVG coordinates (``x``,
    ``ya``, ``yb``) and values (``a``, ``b``, one per finished deal), the two ``polyline``
    strings and the target line. A finished game's last point is its total (the game
    view's ``scores.hand_points``).
    """
    hollywood = RuleSet.from_dict(match.rules).scoring is ScoringStyle.HOLLYWOOD
    by_game: dict[int, list[Deal]] = {g.pk: [] for g in games}
    finished = Deal.objects.filter(game__in=by_game, status=Deal.Status.FINISHED)
    for deal in finished.order_by("game_id", "number").only(
        "game_id", "number", "winner_index", "points"
    ):
        by_game[deal.game_id].append(deal)
    charts = []
    for game in games:
        scores, note = _running_scores(game, by_game[game.pk], hollywood)
        top = max([match.target, *(max(s) for s in scores)]) or 1
        inner_w = CHART_WIDTH - 2 * CHART_PAD
        inner_h = CHART_HEIGHT - 2 * CHART_PAD
        step = inner_w / max(1, len(scores))

        def y(value: int, top: int = top, inner_h: int = inner_h) -> float:
            return round(CHART_HEIGHT - CHART_PAD - value * inner_h / top, 1)

        points = [
            {
                "deal": i + 1,
                "x": round(CHART_PAD + (i + 1) * step, 1),
                "a": a,
                "b": b,
                "ya": y(a),
                "yb": y(b),
            }
            for i, (a, b) in enumerate(scores)
        ]
        start = f"{CHART_PAD},{y(0)}"
        # Each line ends with its total, the two labels kept apart when the scores are close.
        labels = None
        if points:
            last = points[-1]
            la, lb = last["ya"] + 3.5, last["yb"] + 3.5
            if abs(la - lb) < 10:
                la, lb = (la - 5, lb + 5) if last["a"] >= last["b"] else (la + 5, lb - 5)
            labels = {"x": last["x"] + 4, "a": round(la, 1), "b": round(lb, 1)}
        charts.append(
            {
                "game_id": game.pk,
                "number": game.number + 1,
                "width": CHART_WIDTH,
                "height": CHART_HEIGHT,
                "pad": CHART_PAD,
                "right": CHART_WIDTH - CHART_PAD,
                "base": y(0),
                "target_y": y(match.target),
                "target": match.target,
                "points": points,
                "line_a": " ".join([start, *(f"{p['x']},{p['ya']}" for p in points)]),
                "line_b": " ".join([start, *(f"{p['x']},{p['yb']}" for p in points)]),
                "labels": labels,
                "note": note,
            }
        )
    return charts


def match_rating_rows(*, match: Match, viewer: Player | None) -> dict[str, Any] | None:
    """The match page's rating change: the pool, and once rated a row a player (the viewer's
    own first, as "You"; the seats in order for anyone else) with before, after and the
    signed change as shown ("+20", or a minus sign before it), and what "provisional" means
    there. None for an unrated match; ``rows`` None until the pool has rated it.
    """
    rated = ladder_selectors.match_rating(match_id=match.pk)
    if rated is None:
        return None
    pool = rated["pool"]
    if pool["system"] == "glicko2":
        meaning = _(
            "a new rating moves fast until it is sure enough: while its uncertainty is above "
            "±%(deviation)s"
        ) % {"deviation": round(pool["provisional_deviation"])}
    else:
        meaning = ngettext(
            "a new rating moves fast for the first %(count)s rated match",
            "a new rating moves fast for the first %(count)s rated matches",
            pool["provisional_matches"],
        ) % {"count": pool["provisional_matches"]}
    result: dict[str, Any] = {"pool": pool, "rows": None, "provisional": meaning}
    if rated["ratings"] is None:
        return result
    names = {match.player_a_id: match.player_a.name, match.player_b_id: match.player_b.name}
    rows = []
    for r in rated["ratings"]:
        change = r["change"]
        amount = f"{abs(change):.1f}".removesuffix(".0")
        rows.append(
            {
                **r,
                "name": _("You")
                if viewer is not None and viewer.pk == r["player"]
                else names[r["player"]],
                "mine": viewer is not None and viewer.pk == r["player"],
                "shown_before": round(r["before"]),
                "shown_after": round(r["after"]),
                "delta": f"+{amount}" if change > 0 else f"\u2212{amount}" if change < 0 else "±0",
                "direction": "up" if change > 0 else "down" if change < 0 else "same",
            }
        )
    rows.sort(key=lambda row: not row["mine"])  # stable: the seats in order otherwise
    result["rows"] = rows
    result["counted"] = all(r["counted"] for r in rows)
    return result
