"""The round control page: every table of the round, its state, and what the organiser may do
about a pairing (move it to a table, confirm or override a result, run a bot match again)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.models import Player
from accounts.selectors import player_for_user
from games import table_api, tables
from games.models import Match
from games.services import PlayError
from tournaments import organiser_api, services
from tournaments.models import Event, Pairing, Round, Venue
from web.organise.base import (
    PAIRINGS,
    TO_TABLE,
    Refusal,
    Refuse,
    allowed,
    done_redirect,
    event_or_404,
    event_page,
    posted_int,
    refusal_page,
    render_event_page,
    valid_data,
)

# --- the round --------------------------------------------------------------------------------


@dataclass
class Table:
    """One pairing of the round as the organiser follows it."""

    pairing: Pairing
    state: str
    label: str
    where: str
    players: list[Player]
    #: Games won so far in the pairing's order, from the match (a table match's hands).
    games: tuple[int, int] | None
    #: A table match its hands decided: who won by them (waiting for confirmation).
    decided_for: Player | None
    may_override: bool
    may_rerun: bool
    may_confirm: bool
    may_to_table: bool


def _state(pairing: Pairing) -> tuple[str, str]:
    """(key, words) of where a pairing stands: waiting to start, in play, waiting for
    confirmation, disputed, finished, no-show, ..."""
    if pairing.status == Pairing.Status.BYE:
        return "bye", _("Bye")
    if pairing.status == Pairing.Status.SKIPPED:
        return "skipped", _("Not needed")
    if pairing.status == Pairing.Status.WAITING:
        return "waiting", _("Waiting for earlier results")
    if pairing.status == Pairing.Status.FINISHED:
        if pairing.result in (Pairing.Result.NO_SHOW, Pairing.Result.DOUBLE_NO_SHOW):
            return "no_show", _("No-show")
        return "finished", _("Finished")
    match = pairing.match
    if match is None:
        return "waiting", _("Waiting to be played")
    confirmation = getattr(match, "confirmation", "")
    if confirmation == "disputed":
        return "disputed", _("Disputed")
    if confirmation == "awaiting":
        return "confirming", _("Waiting for confirmation")
    if match.status == Match.Status.SCHEDULED:
        return "starting", _("Waiting to start")
    if match.status == Match.Status.ACTIVE:
        return "in_play", _("In play")
    if match.status == Match.Status.CANCELLED:
        return "failed", _("Cancelled")
    if match.end_reason == Match.EndReason.BOT_FAILURE:
        return "failed", _("A bot failed")
    return "finished", _("Finished")


def _where(pairing: Pairing) -> str:
    table = getattr(pairing.match, "table", None) if pairing.match else None
    return _("Table %(table)s") % {"table": table} if table else ""


def _tables(event: Event, rounds: list[Round]) -> list[Table]:
    pairings = (
        Pairing.objects.filter(event=event, round__in=rounds)
        .select_related(
            "round",
            "match",
            "match__player_a",
            "match__player_b",
            "match__reported_by",
            "entry_a__player",
            "entry_b__player",
            "winner__player",
        )
        .order_by("round__number", "table")
    )
    running = event.status == Event.Status.RUNNING
    shown = []
    for pairing in pairings:
        state, label = _state(pairing)
        players = [e.player for e in (pairing.entry_a, pairing.entry_b) if e is not None]
        match = pairing.match
        games = decided_for = None
        if match is not None and len(players) == 2:
            flip = match.player_a_id != players[0].pk
            games = (match.games_won_b, match.games_won_a) if flip else match.games_won
            if state in ("confirming", "disputed") and games[0] != games[1]:
                decided_for = players[0] if games[0] > games[1] else players[1]
        bot_match = match is not None and match.is_bot_match
        shown.append(
            Table(
                pairing=pairing,
                state=state,
                label=label,
                where=_where(pairing),
                players=players,
                games=games,
                decided_for=decided_for,
                may_override=running
                and len(players) == 2
                and pairing.status not in (Pairing.Status.BYE, Pairing.Status.SKIPPED),
                may_rerun=running and bot_match and state == "failed",
                may_confirm=running and state in ("confirming", "disputed"),
                may_to_table=running
                and event.venue == Venue.MIXED
                and state == "starting"
                and not bot_match
                and not match.at_table,
            )
        )
    return shown


@event_page
def round_control(request: HttpRequest, pk: int) -> HttpResponse:
    """The round in play: every match with its table or link and its state; overrides with
    a reason and re-runs of failed bot matches (``/pairings/{key}/override``, ``/rerun``)."""
    event = event_or_404(pk)
    refusal = None
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ROUND_ACTIONS:
            raise Http404("No such action.")
        may_act, handler = ROUND_ACTIONS[action]
        if not may_act(request.user):
            return refusal_page(request)
        pairing = get_object_or_404(
            Pairing.objects.select_related("match"),
            event=event,
            key=request.POST.get("pairing", ""),
        )
        try:
            note = handler(request, pairing)
            return done_redirect(request, note, request.get_full_path() + f"#pairing-{pairing.key}")
        except Refuse as refused:
            refusal = refused.refusal
        event = event_or_404(pk)
    rounds = list(event.rounds.order_by("number"))
    chosen = request.GET.get("round", "")
    if chosen.isdigit():
        shown = [r for r in rounds if r.number == int(chosen)]
    else:
        shown = [r for r in rounds if r.status == Round.Status.RUNNING] or rounds[-1:]
    tables = _tables(event, shown)
    context = {
        "rounds": rounds,
        "shown": shown,
        "tables": tables,
        "live": sum(1 for t in tables if t.state in ("starting", "in_play", "confirming")),
        "attention": sum(1 for t in tables if t.state in ("disputed", "failed")),
    }
    return render_event_page(request, "organise/round.html", event, "round", context, refusal)


def _to_table(request: HttpRequest, pairing: Pairing) -> str:
    try:
        pairing = services.pairing_to_table(pairing=pairing, by=request.user)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("to_table", error, pairing.key)) from None
    pairing.match.refresh_from_db()
    return _("%(key)s is played at table %(table)s: its players enter the hands.") % {
        "key": pairing.key,
        "table": pairing.match.table,
    }


def _confirm(request: HttpRequest, pairing: Pairing) -> str:
    """Confirm the result a table match's hands decided (``POST /api/matches/{id}/confirm``,
    as an organiser: with a reason for the audit log)."""
    data = valid_data(
        table_api.TableReasonSerializer,
        {"reason": request.POST.get("reason", "")},
        "confirm",
        pairing.key,
    )
    if pairing.match is None:
        raise Http404("No match to confirm.")
    try:
        match = tables.result_confirm(
            match_id=pairing.match_id,
            player=player_for_user(user=request.user),
            user=request.user,
            reason=data.get("reason", ""),
        )
    except PlayError as error:
        raise Refuse(Refusal.of("confirm", error, pairing.key, field="reason")) from None
    return _("%(key)s: the result is confirmed, %(winner)s wins.") % {
        "key": pairing.key,
        "winner": match.winner.name,
    }


def _override(request: HttpRequest, pairing: Pairing) -> str:
    data = valid_data(
        organiser_api.OverrideSerializer,
        {"winner": posted_int(request, "winner"), "reason": request.POST.get("reason", "")},
        "override",
        pairing.key,
    )
    winner = Player.objects.filter(pk=data["winner"]).first()
    if winner is None:
        raise Refuse(
            Refusal("override", {"winner": [_("No player has this id.")]}, 400, pairing.key)
        )
    try:
        services.pairing_override(
            pairing=pairing, winner=winner, reason=data["reason"], by=request.user
        )
    except services.TournamentError as error:
        raise Refuse(Refusal.of("override", error, pairing.key)) from None
    return _("%(key)s: %(winner)s wins, decided by you.") % {
        "key": pairing.key,
        "winner": winner.name,
    }


def _rerun(request: HttpRequest, pairing: Pairing) -> str:
    try:
        services.pairing_rerun(pairing=pairing, by=request.user)
    except services.TournamentError as error:
        raise Refuse(Refusal.of("rerun", error, pairing.key)) from None
    return _("%(key)s: the bot match is played again.") % {"key": pairing.key}


#: The round control's actions: who may (as the API endpoint doing it says) and the handler.
ROUND_ACTIONS = {
    "override": (lambda user: allowed(user, PAIRINGS), _override),
    "rerun": (lambda user: allowed(user, PAIRINGS), _rerun),
    "to_table": (lambda user: allowed(user, TO_TABLE), _to_table),
    "confirm": (tables.may_organise, _confirm),
}
