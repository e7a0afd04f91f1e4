"""The web pages: server-rendered shells over the same REST API that other clients use.

Pages render what is settled from the selectors (who plays whom, finished results, the
cards of a replayed deal). The live parts (the table, both clocks, the ladder queue) are
small JavaScript modules in ``web/static/web/js`` that call ``/api/`` with the session
cookie and the CSRF token, so the rules are enforced in one place: the API.
"""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.db.models import F, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import NAME_MAX_LENGTH, Player
from accounts.selectors import player_for_user
from games import selectors as game_selectors
from games import tables as table_matches
from games.engine.rules import RuleSet, ScoringStyle
from games.models import Game, Match, MatchAnalysis
from games.services import analysis as analysis_service
from games.services.base import PlayError
from games.sheets import sheet_for_match
from ladders import selectors as ladder_selectors
from ladders.models import Rating
from tournaments import selectors as event_selectors
from tournaments.models import Event, Pairing
from web import selectors as web_selectors
from web.event_about import event_about
from web.forms import SignUpForm
from web.paper import rules_line
from web.replay import deal_frames, deal_index, next_deal

#: Sign-in pages send the visitor back to where they were (``?next=``).
signin_required = login_required(login_url="web:login")


def _clock_label(minutes: int, seconds: int) -> str:
    return _("%(minutes)s min + %(seconds)s s") % {"minutes": minutes, "seconds": seconds}


#: A clock's label in the reader's language, made when the page is rendered.
clock_label = lazy(_clock_label, str)

#: The lobby's time controls: (key, label, base seconds, increment seconds).
TIME_CONTROLS = [
    ("untimed", gettext_lazy("Untimed"), None, 0),
    ("1+2", clock_label(1, 2), 60, 2),
    ("3+2", clock_label(3, 2), 180, 2),
    ("5+5", clock_label(5, 5), 300, 5),
    ("10+5", clock_label(10, 5), 600, 5),
]
#: The game the lobby's one tap plays against the computer (the body of ``POST
#: /api/matches`` but the opponent): one game to 100 under the standard rules, on a clock, so
#: a game left behind ends by itself instead of keeping the player "in a match".
QUICK_GAME = {
    "rules": "standard",
    "best_of": 1,
    "target": 100,
    "time_control": {"base_seconds": 600, "increment_seconds": 5, "timeout_policy": "forfeit"},
}
#: People listed in the lobby's challenge form, the most recently signed-in first.
PEOPLE_IN_LOBBY = 100
RULE_PRESETS = [
    ("standard", gettext_lazy("Standard (knock at 10)")),
    ("oklahoma", gettext_lazy("Oklahoma (the upcard sets the knock limit)")),
    ("straight", gettext_lazy("Straight gin (no knocking)")),
]


def _me(request: HttpRequest) -> Player | None:
    return player_for_user(user=request.user)


def _safe_next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


# --- signing in and out ------------------------------------------------------------------


class SignInView(LoginView):
    """Django's session sign-in; back to ``?next=`` (e.g. the table whose session expired)."""

    template_name = "web/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return reverse("web:lobby")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["expired"] = self.request.GET.get("expired") == "1"
        return context


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    logout(request)
    messages.info(request, _("You are signed out."))
    return redirect("web:home")


class SignUpRateThrottle(SimpleRateThrottle):
    """The API's registration throttle (scope ``register``), counted per client address.

    Its cache key is the one ``ScopedRateThrottle`` gives an anonymous ``POST
    /api/auth/register``, so the page and the API draw on one allowance per address.
    """

    scope = "register"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def sign_up(request: HttpRequest) -> HttpResponse:
    """Create an account and its player through the accounts service, then sign in.

    Each submission counts against the registration throttle (:class:`SignUpRateThrottle`);
    past it the form is shown again with a 429 and the wait.
    """
    next_url = _safe_next(request, reverse("web:lobby"))
    if request.user.is_authenticated:
        return redirect(next_url)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and not (throttle := SignUpRateThrottle()).allow_request(
        request, None
    ):
        wait = math.ceil(throttle.wait() or 1)
        form.is_valid()  # the fields keep what was typed
        form.errors.clear()
        form.add_error(
            None,
            _("Too many sign-ups from your address; try again in %(seconds)s s.")
            % {"seconds": wait},
        )
        response = render(request, "web/signup.html", {"form": form, "next": next_url}, status=429)
        response["Retry-After"] = str(wait)
        return response
    if request.method == "POST" and form.is_valid():
        player = form.register()
        if player is not None:
            login(request, player.user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                _("Welcome, %(name)s! Challenge a bot to start.") % {"name": player.name},
            )
            return redirect(next_url)
    return render(request, "web/signup.html", {"form": form, "next": next_url})


# --- pages -------------------------------------------------------------------------------


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico`` for clients that ask the root (the pages link the SVG icon)."""
    return redirect(static("web/favicon.svg"))


def home(request: HttpRequest) -> HttpResponse:
    """What is on: live games to watch, events to enter or follow, the top of the ladders."""
    context = {
        "me": _me(request),
        "live": web_selectors.live_games(),
        "events": web_selectors.home_events(),
        "boards": web_selectors.home_leaders(),
    }
    return render(request, "web/home.html", context)


def _with_current_games(matches: list[Match]) -> list[Match]:
    """Attach each active match's game in play (``match.current_game``)."""
    active = Game.objects.filter(
        match__in=[m.pk for m in matches], status=Game.Status.ACTIVE
    ).values_list("match_id", "pk")
    current = dict(active)
    for match in matches:
        match.current_game = current.get(match.pk)
    return matches


def _with_events(matches: list[Match]) -> list[Match]:
    """Attach each tournament match's event (``match.event``, None for others)."""
    pairings = Pairing.objects.filter(match__in=[m.pk for m in matches]).select_related("event")
    events = {p.match_id: p.event for p in pairings}
    for match in matches:
        match.event = events.get(match.pk)
    return matches


@signin_required
def lobby(request: HttpRequest) -> HttpResponse:
    """Play in one tap: the computer at three levels (:data:`QUICK_GAME`), a ranked ladder's
    queue, a person found by name; the full challenge form behind "Custom game" (open when a
    link or a search picked someone); the open games (seeks), live on ``ws/lobby``, with a
    short form to post one. Then challenges to answer and my matches.

    While the player's tournament match is ready or in play, the first screen is its notice
    with the way there instead (the API would refuse another game: 409
    ``in_tournament_match``).
    """
    me = _me(request)
    if me is None:  # e.g. a staff account made with createsuperuser has no player
        return render(request, "web/no_player.html", status=403)
    mine = game_selectors.match_list(viewer=me).filter(Q(player_a=me) | Q(player_b=me))
    find = request.GET.get("find", "").strip()[:NAME_MAX_LENGTH]
    people = (
        Player.objects.filter(kind=Player.Kind.HUMAN, user__is_active=True)
        .exclude(pk=me.pk)
        .select_related("user")
    )
    if find:
        people = people.filter(name__icontains=find).order_by("name")
    else:  # the most recently signed-in first: a club's members come back
        people = people.order_by(F("user__last_login").desc(nulls_last=True), "name")
    people = list(people[:PEOPLE_IN_LOBBY])
    # ?opponent=ID (the "Challenge" link of a player's page) picks them in the form.
    chosen = _challengeable(request.GET.get("opponent", ""), me)
    if chosen is not None and not chosen.is_bot and chosen not in people:
        people.insert(0, chosen)
    context = {
        "me": me,
        "tournament": web_selectors.tournament_match_of(player=me),
        "computer": web_selectors.computer_levels(),
        "quick_game": QUICK_GAME,
        "bot_owner": web_selectors.owns_a_bot(player=me),
        "groups": web_selectors.opponent_groups(people=people, find=find, chosen=chosen),
        "people": people,
        "find": find,
        "chosen": chosen.pk if chosen is not None else None,
        "time_controls": TIME_CONTROLS,
        "rule_presets": RULE_PRESETS,
        "my_rating": web_selectors.lobby_rating(player=me),
        "current": _with_events(
            _with_current_games(
                list(mine.filter(status__in=[Match.Status.ACTIVE, Match.Status.SCHEDULED]))
            )
        ),
        "incoming": list(mine.filter(status=Match.Status.CHALLENGED, player_b=me)),
        "outgoing": list(mine.filter(status=Match.Status.CHALLENGED, player_a=me)),
        "recent": _with_events(
            list(mine.filter(status=Match.Status.FINISHED).order_by("-finished_at")[:10])
        ),
    }
    return render(request, "web/lobby.html", context)


def _challengeable(raw: str, me: Player) -> Player | None:
    """The player named by a lobby link's ``opponent`` id, if one may be challenged."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) == me.pk:
        return None  # not an id (or too long for one), or yourself
    return (
        Player.objects.filter(pk=int(raw))
        .filter(Q(kind=Player.Kind.BOT) | Q(user__is_active=True))
        .first()
    )


def _visible_match(request: HttpRequest, pk: int) -> Match:
    match = get_object_or_404(Match.objects.select_related("player_a", "player_b", "winner"), pk=pk)
    if not game_selectors.match_visible(match=match, viewer=_me(request)):
        raise Http404("No such match.")
    return match


def table(request: HttpRequest, pk: int) -> HttpResponse:
    """The live table: the page is a shell, ``table.js`` polls the game view and plays.

    A rated match's ratings (its pool, each seat's rating) go to the page for ``table.js``.

    A match played with real cards has no cards to show: its table is its score pad.
    """
    game = get_object_or_404(Game.objects.select_related("match"), pk=pk)
    match = _visible_match(request, game.match_id)
    if match.at_table:
        return redirect("web:pad", pk=match.pk)
    me = _me(request)
    pairing = Pairing.objects.select_related("event").filter(match=match).first()
    context = {
        "game": game,
        "match": match,
        "me": me,
        "you": None if me is None else match.index_of(me.pk),
        "event": None if pairing is None else pairing.event,
        # A rated match: each seat shows its rating; table.js shows the change at the end.
        "ratings": ladder_selectors.ratings_at_table(match=match),
    }
    return render(request, "web/table.html", context)


def pad(request: HttpRequest, pk: int) -> HttpResponse:
    """The score pad of a match played at a table (``pad.js``): its players and organisers
    enter each hand, take back the last, confirm or dispute the result, through the table
    matches API; anyone else who may see the match reads the sheet, live. 404 for a match
    played online (its table is ``/games/<id>``) and for one the visitor may not see.
    """
    match = _visible_match(request, pk)
    if not match.at_table:
        raise Http404("This match is played online: it has a table, not a score pad.")
    me = _me(request)
    you = None if me is None else match.index_of(me.pk)
    organiser = you is None and table_matches.may_organise(request.user)
    rules = RuleSet.from_dict(match.rules)
    pairing = Pairing.objects.select_related("event", "round").filter(match=match).first()
    context = {
        "match": match,
        "me": me,
        "you": you,
        "may_enter": you is not None or organiser,
        "organiser": organiser,
        "pairing": pairing,
        "event": None if pairing is None else pairing.event,
        "rules_line": rules_line(rules),
        "oklahoma": rules.oklahoma,
        "hollywood": rules.scoring is ScoringStyle.HOLLYWOOD,
        "sheet": sheet_for_match(match=match),
        # The tables of its games, whose sockets say when the sheet changed (pad.js).
        "games": list(match.games.order_by("number").values_list("pk", flat=True)),
        "ranks": ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"],
    }
    return render(request, "web/pad.html", context)


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A match: players, games and scores, the result, links to the table or the replay, and
    for a rated match each player's rating before and after it.

    A tournament match waiting for its players offers them the "I am here" button.
    """
    match = _visible_match(request, pk)
    games = list(match.games.order_by("number"))
    current = next((g for g in games if g.status == Game.Status.ACTIVE), None)
    me = _me(request)
    pairing = Pairing.objects.select_related("event", "round").filter(match=match).first()
    context = {
        "match": match,
        "games": games,
        "charts": web_selectors.score_charts(match=match, games=games),
        "current": current,
        "pairing": pairing,
        "rating": web_selectors.match_rating_rows(match=match, viewer=me),
        "playing": me is not None and match.index_of(me.pk) is not None,
        "can_show_up": (
            pairing is not None
            and match.status == Match.Status.SCHEDULED
            and me is not None
            and match.index_of(me.pk) is not None
        ),
    }
    return render(request, "web/match.html", context)


def replay(request: HttpRequest, pk: int) -> HttpResponse:
    """Step through a finished deal: ``?game=G&deal=D`` (from 0) pick it."""
    match = _visible_match(request, pk)
    if match.status != Match.Status.FINISHED:
        return render(request, "web/replay_pending.html", {"match": match}, status=409)
    log = game_selectors.match_log(match=match)
    index = deal_index(log)
    try:
        game_no = int(request.GET.get("game", 0))
        deal_no = int(request.GET.get("deal", 0))
        if game_no < 0 or deal_no < 0:
            raise IndexError  # counted from the end: not a deal's number
        deal = log["games"][game_no]["deals"][deal_no]
    except (ValueError, IndexError):
        raise Http404("No such deal in this match.") from None
    replayed = deal_frames(rules=log["rules"], deal=deal)
    analysis = MatchAnalysis.objects.filter(match=match).first()
    done = analysis is not None and analysis.status == MatchAnalysis.Status.DONE
    deal_analysis = None
    if done:
        found = analysis.result["games"][game_no]["deals"][deal_no]
        deal_analysis = {"decisions": found["decisions"], "marks": analysis.result["marks"]}
    context = {
        "match": match,
        "games": index,
        "game_no": game_no,
        "deal_no": deal_no,
        "analysis": analysis,
        "analysis_players": (
            list(zip([match.player_a, match.player_b], analysis.result["players"], strict=True))
            if done
            else None
        ),
        "may_analyse": analysis_service.may_request(match=match, user=request.user)
        and not match.at_table,
        "replay": {
            "players": [match.player_a.name, match.player_b.name],
            "match": match.pk,
            "game": game_no,
            "deal": deal_no,
            "next": next_deal(index, game_no, deal_no),
            "analysis": deal_analysis,
            "analysis_status": analysis.status if analysis else None,
            **replayed,
        },
    }
    return render(request, "web/replay.html", context)


@require_POST
@login_required
def analyse(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for a finished match's analysis (its players and staff), then back to the replay."""
    match = _visible_match(request, pk)
    try:
        queued = analysis_service.analysis_request(match=match, user=request.user)[1]
    except PlayError as error:
        messages.error(request, str(error))
    else:
        if queued:
            messages.success(request, _("The analysis is under way: this page shows it when done."))
    target = reverse("web:replay", args=[match.pk])
    game_no, deal_no = request.POST.get("game", ""), request.POST.get("deal", "")
    if game_no.isdigit() and deal_no.isdigit():
        target += f"?game={game_no}&deal={deal_no}"
    return redirect(target)


# --- events, leaderboards, players ----------------------------------------------------------


def events(request: HttpRequest) -> HttpResponse:
    """Events in play, open for registration, and finished (drafts are for staff)."""
    listed = event_selectors.event_list()
    if not request.user.is_staff:
        listed = listed.exclude(status=Event.Status.DRAFT)
    groups = [
        (_("Running now"), list(listed.filter(status=Event.Status.RUNNING))),
        (_("Open for registration"), list(listed.filter(status=Event.Status.REGISTRATION))),
        (_("Finished"), list(listed.filter(status=Event.Status.FINISHED)[:50])),
    ]
    if request.user.is_staff:
        groups.append((_("Drafts"), list(listed.filter(status=Event.Status.DRAFT))))
    return render(request, "web/events.html", {"groups": groups})


def event_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """An event: ``event.js`` draws the bracket or the rounds and the standings, live."""
    event = get_object_or_404(Event, pk=pk)
    if event.status == Event.Status.DRAFT and not request.user.is_staff:
        raise Http404("No such event.")
    me = _me(request)
    return render(
        request, "web/event.html", {"event": event, "me": me, "about": event_about(event, me)}
    )


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Ladder leaderboards (``leaderboard.js`` pages through the API), with the reader's own
    rank or progress toward one in the ladders they have a rating in."""
    me = _me(request)
    mine = (
        [] if me is None else Rating.objects.filter(player=me).values_list("ladder_id", flat=True)
    )
    context = {"me": me, "my_ladders": " ".join(str(pk) for pk in sorted(mine))}
    return render(request, "web/leaderboard.html", context)


def _may_invite(request: HttpRequest) -> bool:
    """Whether the visitor may ask for a guest's invitation link (as the API allows it)."""
    user = request.user
    return bool(
        user.is_authenticated
        and user.is_staff
        and (user.has_perm("tournaments.change_event") or user.has_perm("accounts.change_player"))
    )


def player_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A player: ratings with their history as a chart (``player.js``), seasons, recent matches."""
    player = get_object_or_404(Player, pk=pk)
    recent = (
        game_selectors.match_list(viewer=None)
        .filter(Q(player_a=player) | Q(player_b=player), status=Match.Status.FINISHED)
        .order_by("-finished_at")[:20]
    )
    seasons = ladder_selectors.seasons_of_player(player=player)
    # The ladders to ask for a rating: asking every ladder would answer 404 for the others.
    rated = Rating.objects.filter(player=player).values_list("ladder_id", flat=True)
    return render(
        request,
        "web/player.html",
        {
            "player": player,
            "recent": _with_events(list(recent)),
            "seasons": seasons,
            "rated_ladders": " ".join(str(pk) for pk in sorted(rated)),
            "me": _me(request),
            "may_invite": player.is_guest and _may_invite(request),
        },
    )
