"""Matches from creation to their end otherwise than by play: the rules, creating, challenges
and their answers, starting, cancelling, forfeiting.

A table match conceded (resigned, withdrawn, decided by an organiser) is ended by the table
module, :func:`games.tables.table_concede`, which builds on these services and so cannot be
imported by them: it is handed over with :func:`table_concession_register` when the app is
ready (:mod:`games.apps`), as signal receivers are connected.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from common.enqueue import task_on_commit
from games.clocks import TimeControl
from games.engine import bots as engine_bots
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet, RuleSetError
from games.live import challenge_changed, game_changed
from games.models import IN_PROGRESS, Game, Match, seed_commitment
from games.services.base import (
    Conflict,
    NotAPlayer,
    PlayError,
    engine_text,
    lock_players,
    locked,
    status_word,
)
from games.services.playing import forfeit_record, game_begin
from games.services.publishing import Changes, follow_up

#: The longest rule set name: a preset's, or a short label for a client's own options.
RULES_NAME_MAX_LENGTH = 40


#: The most options one rules object may give (the rule book has about twenty).
RULES_MAX_OPTIONS = 30


def rules_build(
    rules: RuleSet | dict[str, Any] | str | None = None,
    *,
    best_of: int | None = None,
    target: int | None = None,
) -> RuleSet:
    """A rule set from a preset name, a dict of options or a RuleSet, with overrides.

    Raises PlayError naming the bad option.
    """
    try:
        if rules is None:
            built = RuleSet()
        elif isinstance(rules, RuleSet):
            built = rules
        elif isinstance(rules, str):
            built = RuleSet.preset(rules)
        else:
            if isinstance(rules, dict) and len(rules) > RULES_MAX_OPTIONS:
                raise RuleSetError(
                    _("give at most %(count)s rule options") % {"count": RULES_MAX_OPTIONS}
                )
            built = RuleSet.from_dict(rules)
        if len(built.name) > RULES_NAME_MAX_LENGTH:
            # The name is stored on every match and served with it: a label, not a document.
            raise RuleSetError(
                _("a rule set name is at most %(count)s characters")
                % {"count": RULES_NAME_MAX_LENGTH}
            )
        changes = {}
        if best_of is not None:
            changes["best_of"] = best_of
        if target is not None:
            changes["target"] = target
        return built.replace(**changes) if changes else built
    except RuleSetError as error:
        refusal = PlayError(engine_text(error), code="invalid_rules")
        refusal.english = str(error)  # what a form reads to find the option (games.forms)
        raise refusal from None


def rules_check_players(rules: RuleSet, *players: Player) -> None:
    """Refuse rules these players may not play with (PlayError ``duplicate_deals_need_bots``).

    Duplicate deals play each seeded deal twice with the seats swapped. Whoever plays the
    second deal of a pair at the same table has seen it from the other seat: both hands and
    the stock order. That is fair only when no one can remember the first half, so until a
    format plays the two halves at different tables the option is for bots only.
    """
    if rules.duplicate_deals and any(not player.is_bot for player in players):
        raise PlayError(
            _(
                "duplicate deals are for matches between house bots only: a person playing the "
                "second deal of a pair would already know both hands and the stock from the first"
            ),
            code="duplicate_deals_need_bots",
        )


def match_create(
    *,
    player_a: Player,
    player_b: Player,
    rules: RuleSet | dict[str, Any] | str | None = None,
    best_of: int | None = None,
    target: int | None = None,
    time_control: TimeControl | None = None,
    source: str = Match.Source.CHALLENGE,
    created_by: Player | None = None,
    status: str = Match.Status.SCHEDULED,
    start: bool = True,
    seed: int | None = None,
) -> Match:
    """Create a match (and start it unless ``start`` is false or it awaits an answer).

    The seed is secret until the match ends; its SHA-256 commitment is public from now on.
    """
    if player_a.pk == player_b.pk:
        raise PlayError(_("a player cannot play against themselves"), code="same_player")
    for player in (player_a, player_b):
        if player.is_bot and player.bot_strategy not in engine_bots.BOTS:
            raise PlayError(
                _("bot %(name)s plays an unknown strategy %(strategy)s")
                % {"name": repr(player.name), "strategy": repr(player.bot_strategy)},
                code="unknown_bot",
            )
    built = rules_build(rules, best_of=best_of, target=target)
    rules_check_players(built, player_a, player_b)
    if seed is None:
        seed = secrets.randbits(63)
    match = Match(
        player_a=player_a,
        player_b=player_b,
        created_by=created_by,
        source=source,
        rules=built.to_dict(),
        best_of=built.best_of,
        target=built.target,
        seed=seed,
        seed_commitment=seed_commitment(seed),
        status=status,
    )
    if time_control is not None:
        match.base_seconds = time_control.base_seconds
        match.increment_seconds = time_control.increment_seconds
        match.turn_limit_seconds = time_control.turn_limit_seconds
        match.timeout_policy = time_control.timeout_policy
        match.pause_seconds = time_control.pause_seconds
        match.lag_compensation = time_control.lag_compensation
    with transaction.atomic():
        match.save()
        if start and status == Match.Status.SCHEDULED:
            match_start(match=match)
    return match


def challenge_create(
    *,
    challenger: Player,
    opponent: Player,
    rules: RuleSet | dict[str, Any] | str | None = None,
    best_of: int | None = None,
    target: int | None = None,
    time_control: TimeControl | None = None,
) -> Match:
    """Challenge a bot (the match starts at once) or a human (who accepts or declines).

    An external bot answers like a person, unless its ``auto_accept`` accepts this
    challenger at once (then as if it accepted now; a conflict leaves the challenge open).

    The challenger is player A. A bot challenge is refused with Conflict ``in_ranked_match``
    while the challenger has a ladder match in progress; any challenge with Conflict
    ``in_tournament_match`` while the challenger's tournament match is ready or in play
    online (:func:`refuse_in_tournament_match`); a guest (no account) cannot be
    challenged: 409 ``opponent_is_guest``; an account marked as assisted plays bots only:
    403 ``assisted_account`` (:func:`refuse_assisted`).
    """
    if challenger.is_bot:
        raise PlayError(_("bots do not issue challenges"), code="bot_challenger")
    if opponent.is_deleted:
        raise PlayError(_("this player deleted their account"), code="player_deleted", status=409)
    if opponent.is_guest:
        # A guest has no account to play online with; they play at a table, in an event.
        raise PlayError(
            _("%(name)s is a guest without an account, who plays only at a table")
            % {"name": opponent.name},
            code="opponent_is_guest",
            status=409,
        )
    refuse_assisted(challenger, opponent, caller=challenger)
    with transaction.atomic():
        if opponent.is_bot:
            # A bot match starts at once: the same guard as an accepted challenge.
            lock_players(challenger, opponent)
            refuse_in_ranked_match(challenger, caller=challenger)
        refuse_in_tournament_match(challenger, caller=challenger)
        match = match_create(
            player_a=challenger,
            player_b=opponent,
            rules=rules,
            best_of=best_of,
            target=target,
            time_control=time_control,
            created_by=challenger,
            status=Match.Status.SCHEDULED if opponent.is_bot else Match.Status.CHALLENGED,
        )
        if not opponent.is_bot:
            if opponent.accepts_at_once(challenger):
                try:
                    return challenge_answer(match=match, player=opponent, accept=True)
                except Conflict:
                    pass  # busy with a ranked match: the challenge waits for an answer
            challenge_changed(match=match, status="challenged", to=[opponent.pk])
        return match


def match_in_progress(player: Player, *, source: str | None = None) -> Match | None:
    """The player's oldest match waiting to start or in play (of ``source``, if given)."""
    matches = Match.objects.filter(status__in=IN_PROGRESS).filter(
        Q(player_a=player) | Q(player_b=player)
    )
    if source is not None:
        matches = matches.filter(source=source)
    return matches.order_by("pk").first()


def refuse_in_ranked_match(*humans: Player, caller: Player) -> None:
    """Conflict ``in_ranked_match`` if one of these players has a ladder match in progress.

    A ranked match runs on a clock; nobody starts another match on top of one. The message
    speaks to ``caller``.
    """
    for human in humans:
        match = match_in_progress(human, source=Match.Source.LADDER)
        if match is not None:
            who = (
                _("you are playing ranked match %(match)s: finish it first") % {"match": match.pk}
                if human.pk == caller.pk
                else _("%(name)s is playing ranked match %(match)s: try again when it ends")
                % {"name": human.name, "match": match.pk}
            )
            raise Conflict(
                who,
                code="in_ranked_match",
                match=match.pk,
                player=human.pk,
            )


def refuse_assisted(a: Player, b: Player | None, *, caller: Player) -> None:
    """PlayError 403 ``assisted_account`` when one of the two is an account staff marked as
    assisted (fair play) and the other is a person (``b`` None: whoever comes, a person): such
    an account plays bots only. The message speaks to ``caller``."""
    for marked, other in ((a, b), (b, a)):
        if marked is not None and marked.is_assisted and (other is None or not other.is_any_bot):
            message = (
                _(
                    "your account plays against bots only: staff found that it played with "
                    "a program's help"
                )
                if marked.pk == caller.pk
                else _("%(name)s plays against bots only") % {"name": marked.name}
            )
            raise PlayError(message, code="assisted_account", status=403)


def refuse_in_tournament_match(*humans: Player, caller: Player) -> None:
    """Conflict ``in_tournament_match`` if one of these players has a tournament match
    waiting for them to show up or in play online.

    Its show-up countdown and its clock run whatever else the player does: another game
    started now is how a player loses their tournament match by a no-show. The refusal
    names the match and the page to go to (its table once a game is on, else the match
    page, where the player shows up). A match at a table is played with real cards, with no
    deadline on the site, and does not count. The message speaks to ``caller``.
    """
    for human in humans:
        match = (
            Match.objects.filter(
                status__in=IN_PROGRESS,
                source=Match.Source.TOURNAMENT,
                venue=Match.Venue.ONLINE,
            )
            .filter(Q(player_a=human) | Q(player_b=human))
            .order_by("pk")
            .first()
        )
        if match is None:
            continue
        playing = match.status == Match.Status.ACTIVE
        if human.pk == caller.pk:
            who = (
                _("your tournament match %(match)s is in play: play it first")
                if playing
                else _("your tournament match %(match)s is ready: play it first")
            )
        else:
            who = (
                _("%(name)s's tournament match %(match)s is in play: try again when it ends")
                if playing
                else _("%(name)s's tournament match %(match)s is ready: try again when it ends")
            )
        who = who % {"name": human.name, "match": match.pk}
        game = match.games.filter(status=Game.Status.ACTIVE).values_list("pk", flat=True).first()
        raise Conflict(
            who,
            code="in_tournament_match",
            match=match.pk,
            url=reverse("web:table", args=[game])
            if game is not None
            else reverse("web:match", args=[match.pk]),
            player=human.pk,
        )


def challenge_answer(*, match: Match, player: Player, accept: bool) -> Match:
    """The challenged player accepts (the match starts) or declines.

    Conflict ``not_pending`` if it was answered or withdrawn already; accepting is refused
    with Conflict ``in_ranked_match`` (nothing changes) while either player has a ladder match
    in progress, including one the matchmaker made a moment ago, and ``in_tournament_match``
    while either has a tournament match ready or in play online.
    """
    with transaction.atomic():
        match = locked(match.pk)
        if match.player_b_id != player.pk:
            raise NotAPlayer(_("only the challenged player can answer this challenge"))
        if match.status != Match.Status.CHALLENGED:
            raise Conflict(_challenge_gone(match), code="not_pending")
        if accept:
            lock_players(match.player_a, match.player_b)
            refuse_in_ranked_match(match.player_b, match.player_a, caller=player)
            refuse_in_tournament_match(match.player_b, match.player_a, caller=player)
            match.status = Match.Status.SCHEDULED
            match.save(update_fields=["status"])
            match_start(match=match)
        else:
            match.status = Match.Status.DECLINED
            match.finished_at = timezone.now()
            match.save(update_fields=["status", "finished_at"])
        # The challenger hears the answer (with the table to open) on their own socket.
        status = "accepted" if accept else "declined"
        to = [match.player_a_id]
        if accept and match.player_b.is_external:
            to.append(match.player_b_id)  # the bot's event stream: its game starts
        challenge_changed(match=match, status=status, to=to)
    return match


def _challenge_gone(match: Match) -> str:
    """Why a challenge can no longer be answered or withdrawn, in words."""
    if match.status == Match.Status.DECLINED:
        return _("this challenge was declined already")
    if match.status == Match.Status.CANCELLED:
        return _("this challenge was withdrawn")
    return _("this challenge was accepted already")  # the match is on, or over


def match_cancel(*, match: Match, player: Player | None = None, reason: str = "") -> Match:
    """Withdraw a challenge not yet answered (its challenger), or cancel (staff: player None)."""
    with transaction.atomic():
        match = locked(match.pk)
        if player is not None and match.created_by_id != player.pk:
            raise NotAPlayer(_("only the challenger can withdraw this challenge"))
        allowed = {Match.Status.CHALLENGED}
        if player is None:
            allowed |= set(IN_PROGRESS)
        if match.status not in allowed:
            detail = (
                _("%(reason)s: there is nothing to withdraw") % {"reason": _challenge_gone(match)}
                if player is not None
                else _("a match that is %(status)s cannot be cancelled")
                % {"status": status_word(match.status)}
            )
            raise Conflict(detail, code="too_late")
        if match.status == Match.Status.CHALLENGED:
            # Withdrawn: the challenged player's offer goes; cancelled by staff: both hear.
            to = (
                [match.player_b_id]
                if player is not None
                else [match.player_a_id, match.player_b_id]
            )
            challenge_changed(
                match=match, status="withdrawn" if player is not None else "cancelled", to=to
            )
        match.status = Match.Status.CANCELLED
        match.end_detail = reason[:300]
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "end_detail", "finished_at"])
        for game in Game.objects.filter(match=match, status=Game.Status.ACTIVE):
            game.status, game.finished_at = Game.Status.FINISHED, match.finished_at
            game.turn_deadline = game.pause_deadline = None
            game.save(update_fields=["status", "finished_at", "turn_deadline", "pause_deadline"])
            game_changed(match=match, game=game)
    return match


def match_start(*, match: Match, now: datetime | None = None) -> None:
    """Deal the first game. Bot-vs-bot matches go to a worker to be played whole.

    Runs inside the caller's transaction (with the match row locked or just created).
    """
    if match.status != Match.Status.SCHEDULED:
        raise Conflict(
            _("a match that is %(status)s cannot start") % {"status": status_word(match.status)},
            code="not_scheduled",
        )
    now = now or timezone.now()
    match.status = Match.Status.ACTIVE
    match.started_at = now
    if match.is_bot_match:
        # Played in memory by one task and written in one transaction.
        match.save(update_fields=["status", "started_at"])
        task_on_commit("games.play_match", match.pk)
        return
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    match.state = engine.snapshot()
    match.save(update_fields=["status", "started_at", "state"])
    game_begin(match, engine, now)
    follow_up(match, Changes())


def match_forfeit(
    *, match: Match, loser: Player, reason: str, end_reason: str = Match.EndReason.FORFEIT
) -> Match:
    """``loser`` forfeits the whole match (resignation, no-show, withdrawal)."""
    now = timezone.now()
    with transaction.atomic():
        match = locked(match.pk)
        index = match.index_of(loser.pk)
        if index is None:
            raise NotAPlayer(_("that player is not in this match"))
        if match.at_table and match.status == Match.Status.ACTIVE:
            # No deal in play: the match ends as its entered hands stand.
            _table_concession()(match=match, index=index, reason=reason, end_reason=end_reason)
            return match
        if match.status == Match.Status.SCHEDULED:
            match_start(match=match, now=now)
            if match.is_bot_match:
                # A bot match not yet played: decide it without playing.
                engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
                match.state = engine.snapshot()
                match.save(update_fields=["state"])
                game_begin(match, engine, now)
        if match.status != Match.Status.ACTIVE:
            raise Conflict(
                _("a match that is %(status)s cannot be forfeited")
                % {"status": status_word(match.status)},
                code="too_late",
            )
        forfeit_record(match, index, reason, end_reason, now, Changes())
    return match


class TableConcession(Protocol):
    """Ends a table match (its row locked) as lost by player ``index``, as its hands stand."""

    def __call__(self, *, match: Match, index: int, reason: str, end_reason: str) -> None: ...


#: How a table match is conceded: :func:`games.tables.table_concede`, registered when the
#: app is ready (the table module builds on these services: they cannot import it).
_table_concessions: list[TableConcession] = []


def table_concession_register(concede: TableConcession) -> None:
    """Hand :func:`match_forfeit` the concession of a table match (registering again
    replaces it)."""
    _table_concessions[:] = [concede]


def _table_concession() -> TableConcession:
    if not _table_concessions:
        raise RuntimeError("no table concession registered: games.apps registers it when ready")
    return _table_concessions[0]
