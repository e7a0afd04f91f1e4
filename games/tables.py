"""Writes of table matches: matches played with real cards, their hands entered from a score pad.

A table match has no deals, no clocks and no show-up deadline. Either player (from their
phone) or an organiser enters each hand as the pad records it; the engine scores it
(:meth:`games.engine.match.Match.enter`), with the code that scores online deals. The log
is the :class:`games.models.TableHand` rows: every write rebuilds the engine's match from
them (:func:`games.sheets.table_engine`), so there is no second copy of any score to drift.

Each write locks the match row, validates with the engine, writes, brings the match's
usual fields (games won, margin, the Game rows' scores and results) in line with the
engine's as an online match keeps them, and pushes the games it changed to the table
sockets on commit. When the hands decide the match it waits for the opponent of whoever
entered the deciding hand to confirm (or dispute) it, or for an organiser; only then is it
finished, by the one finishing path of every match (:func:`games.services.match_finish`):
``match_finished``, the bracket, standings, ratings and webhooks follow as for an online
match. A match whose ``confirm_result`` is off finishes as soon as its hands decide it.

An organiser is a staff user holding :data:`ORGANISER_PERMISSION`; they may enter and take
back hands and confirm, always with a reason, and each such change is told to the match's
listeners (:data:`games.signals.table_match_changed`), which keep the audit log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import Player
from games import services
from games.engine.cards import card_name
from games.engine.errors import EntryError
from games.engine.match import Match as EngineMatch
from games.engine.rules import RuleSet
from games.engine.table import EnteredHand
from games.live import game_changed
from games.models import Game, Match, TableHand
from games.services import Conflict, NotAPlayer, PlayError, engine_text
from games.services.base import status_word
from games.sheets import entered_hand, table_engine, table_hands
from games.signals import table_match_changed

#: The permission that makes a staff user an organiser of table matches.
ORGANISER_PERMISSION = "games.change_match"

#: Entry refusals that say the match moved on (409), not that the hand is wrong (400).
_STATE_RULES = frozenset({"match_over", "game_over", "deal_in_progress"})


def may_organise(user: Any) -> bool:
    """Whether ``user`` may enter, take back and confirm the hands of any table match."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_staff
        and user.has_perm(ORGANISER_PERMISSION)
    )


@dataclass(frozen=True)
class Actor:
    """Who makes a change: a player of the match (``index`` 0 or 1), or an organiser."""

    user: Any
    player: Player | None
    index: int | None
    reason: str = ""

    @property
    def organiser(self) -> bool:
        return self.index is None


def _actor(match: Match, player: Player | None, user: Any, reason: str) -> Actor:
    """A player of the match acts as that player; anyone else must be an organiser (with a
    reason for the audit log). NotAPlayer (403) for anyone else."""
    index = None if player is None else match.index_of(player.pk)
    if index is not None:
        return Actor(user, player, index, reason.strip())
    if not may_organise(user):
        raise NotAPlayer(_("you are not a player of this match"))
    if not reason.strip():
        raise PlayError(
            _("an organiser's change to a match needs a reason for the audit log"),
            code="reason_required",
        )
    return Actor(user, None, None, reason.strip())


def _locked(match_id: int) -> Match:
    # OF self: only the match row (see games.services.base.locked).
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .get(pk=match_id)
    )


def _check_open(match: Match) -> None:
    if not match.at_table:
        raise Conflict(_("this match is played online: its moves are its log"), code="not_at_table")
    if match.status != Match.Status.ACTIVE:
        raise Conflict(
            _("the match is %(status)s") % {"status": status_word(match.status)},
            code="match_over",
            hand=match.ply,
        )


def _refusal(error: EntryError, hand: int) -> PlayError:
    """The engine's refusal of an entered hand, as the API answers it (naming the rule)."""
    if error.rule in _STATE_RULES:
        return Conflict(engine_text(error), code=error.rule, hand=hand)
    return PlayError(engine_text(error), code=error.rule)


# --- creating ---------------------------------------------------------------------------------


def table_match_create(
    *,
    player_a: Player,
    player_b: Player,
    rules: RuleSet | dict[str, Any] | str | None,
    table: int | None,
    confirm_result: bool = True,
    source: str = Match.Source.TOURNAMENT,
    created_by: Player | None = None,
) -> Match:
    """A match between two people at table ``table``, in play at once (nobody has to show
    up on the site: the first hand entered is the proof they sat down).

    Refused: ``bots_play_online`` with a bot, and what :func:`games.services.match_create`
    refuses (duplicate deals between people, the same player twice).
    """
    if player_a.is_bot or player_b.is_bot:
        raise PlayError(_("a bot plays online, never at a table"), code="bots_play_online")
    with transaction.atomic():
        match = services.match_create(
            player_a=player_a,
            player_b=player_b,
            rules=rules,
            source=source,
            created_by=created_by,
            start=False,
        )
        match.venue, match.table, match.confirm_result = Match.Venue.TABLE, table, confirm_result
        _table_start(match, timezone.now())
    return match


def match_move_to_table(*, match_id: int, table: int, confirm_result: bool = True) -> Match:
    """Play a match not yet started online at table ``table`` instead (an organiser's choice
    in a mixed event): its show-up deadline and clocks go, and it is in play at once.

    409 ``already_at_table``, ``match_started`` once it started online (or ended),
    ``bots_play_online`` for a match with a bot.
    """
    with transaction.atomic():
        match = _locked(match_id)
        if match.at_table:
            raise Conflict(
                _("this match is at table %(table)s already") % {"table": match.table},
                code="already_at_table",
            )
        if match.status != Match.Status.SCHEDULED:
            raise Conflict(
                _("the match is %(status)s online") % {"status": status_word(match.status)},
                code="match_started",
            )
        if match.player_a.is_bot or match.player_b.is_bot:
            raise Conflict(_("a bot plays online, never at a table"), code="bots_play_online")
        match.venue, match.table, match.confirm_result = Match.Venue.TABLE, table, confirm_result
        _table_start(match, timezone.now())
        _changed(match, "moved_to_table", None, table=table)
    return match


def _table_start(match: Match, now: datetime) -> None:
    """In play at once, no clock, no deadline; the first game's row (nothing is dealt)."""
    match.status = Match.Status.ACTIVE
    match.started_at = now
    match.start_deadline = None
    match.base_seconds = match.turn_limit_seconds = None
    match.increment_seconds = 0
    match.state = None
    match.save()
    engine = EngineMatch(match.seed, RuleSet.from_dict(match.rules))
    _publish(match, _games_save(match, engine, now))


# --- hands ------------------------------------------------------------------------------------


def hand_enter(
    *,
    match_id: int,
    player: Player | None,
    user: Any,
    kind: str,
    knocker: int | None = None,
    deadwood: dict[int, int] | None = None,
    upcard: str | None = None,
    number: int | None = None,
    reason: str = "",
) -> TableHand:
    """Enter the next hand of a table match, as the score pad records it.

    ``knocker`` is a player id (none for a drawn hand); ``deadwood`` each player's count by
    player id (after lay-offs; gin and big gin need only the defender's); ``upcard`` the
    deal's first upcard (Oklahoma). ``number`` is the hand number the client saw: when two
    phones enter the same hand, one is written and the other is refused.

    Refusals (nothing is written): NotAPlayer (403); 400 ``reason_required`` (an organiser
    without a reason), ``not_in_match`` (a knocker or count of someone else), or the
    engine's rule (``knock_limit``, ``straight_gin_no_knock``, ``gin_with_deadwood``,
    ``deadwood_range``, ``deadwood_missing``, ``upcard_required``, ``knocker_required``,
    ``invalid_card``, ...); 409 ``stale_hand`` (with the current ``hand``),
    ``match_over`` (decided, confirmed or ended), ``not_at_table``.
    """
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match_id)
        actor = _actor(match, player, user, reason)
        _check_open(match)
        hands = table_hands(match=match)
        if number is not None and number != len(hands):
            raise Conflict(
                ngettext(
                    "hand %(number)s is not the next: the sheet has %(count)s hands",
                    "hand %(number)s is not the next: the sheet has %(count)s hands",
                    len(hands),
                )
                % {"number": number, "count": len(hands)},
                code="stale_hand",
                hand=len(hands),
            )
        hand = _entered(match, kind, knocker, deadwood or {}, upcard)
        engine = table_engine(match=match, hands=hands)
        try:
            engine.enter(hand)
        except EntryError as error:
            raise _refusal(error, len(hands)) from None
        try:
            with transaction.atomic():
                row = TableHand.objects.create(
                    match=match,
                    number=len(hands),
                    kind=hand.kind.value,
                    knocker=hand.knocker,
                    deadwood_a=hand.deadwood[0],
                    deadwood_b=hand.deadwood[1],
                    upcard="" if hand.upcard is None else card_name(hand.upcard),
                    entered_by=actor.player,
                    entered_by_user=actor.user if actor.organiser else None,
                )
        except IntegrityError:
            # Another request wrote this hand between our read and our write (a database
            # whose row lock is the whole file's write lock): the same answer as a stale one.
            raise Conflict(
                _("another entry of this hand came first"),
                code="stale_hand",
                hand=len(hands) + 1,
            ) from None
        touched = _after_change(match, engine, len(hands) + 1, now, reporter=actor)
        _changed(match, "hand_entered", actor, hand=row.number, entered=hand.to_json())
        if engine.is_over and not match.confirm_result:
            touched += _finish(match, engine, now, touched)
        _publish(match, touched)
    return row


def _entered(
    match: Match,
    kind: str,
    knocker: int | None,
    deadwood: dict[int, int],
    upcard: str | None,
) -> EnteredHand:
    """The engine's hand from the API's terms (player ids), refused as the engine refuses."""
    index = None
    if knocker is not None:
        index = match.index_of(knocker)
        if index is None:
            raise PlayError(
                _("player %(player)s is not in this match") % {"player": knocker},
                code="not_in_match",
            )
    counts: list[int | None] = [None, None]
    for player_id, count in deadwood.items():
        side = match.index_of(player_id)
        if side is None:
            raise PlayError(
                _("player %(player)s is not in this match") % {"player": player_id},
                code="not_in_match",
            )
        counts[side] = count
    try:
        return EnteredHand.from_json(
            {"kind": kind, "knocker": index, "deadwood": counts, "upcard": upcard or None}
        )
    except EntryError as error:
        raise PlayError(engine_text(error), code=error.rule) from None


def hand_take_back(
    *, match_id: int, player: Player | None, user: Any, number: int | None = None, reason: str = ""
) -> int:
    """Take back the last hand entered (until the result is confirmed); returns its number.

    ``number``: the hand the client means to take back; another is refused (409
    ``stale_hand``), so two phones taking back at once remove one hand. 409 ``no_hands``
    when nothing is entered, ``match_over`` once confirmed; 403 as for entering.
    """
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match_id)
        actor = _actor(match, player, user, reason)
        _check_open(match)
        hands = table_hands(match=match)
        if not hands:
            raise Conflict(_("no hand is entered yet"), code="no_hands", hand=0)
        last = hands[-1]
        if number is not None and number != last.number:
            raise Conflict(
                _("hand %(number)s is not the last: the last is hand %(last)s")
                % {"number": number, "last": last.number},
                code="stale_hand",
                hand=len(hands),
            )
        entry = _stored_json(last)
        last.delete()
        engine = table_engine(match=match, hands=hands[:-1])
        touched = _after_change(match, engine, len(hands) - 1, now, reporter=None)
        _changed(match, "hand_taken_back", actor, hand=last.number, entered=entry)
        _publish(match, touched)
    return last.number


def hand_correct(
    *,
    match_id: int,
    user: Any,
    number: int,
    kind: str,
    knocker: int | None = None,
    deadwood: dict[int, int] | None = None,
    upcard: str | None = None,
    reason: str = "",
) -> TableHand:
    """An organiser corrects hand ``number`` of a table match (until its result is
    confirmed): the hand is replaced, and every later hand is scored again after it.

    Only an organiser (with a reason) corrects an earlier hand; a player takes back the last
    one. Refusals write nothing: 403 ``not_a_player`` for anyone else, 400 as for entering
    (the corrected hand breaks a rule), 409 ``no_such_hand`` (not entered yet),
    ``later_hand_refused`` (a later hand no longer fits, e.g. the correction ends the game
    or the match before it: take the later hands back first), ``match_over``.
    """
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match_id)
        actor = _actor(match, None, user, reason)
        _check_open(match)
        hands = table_hands(match=match)
        if not 0 <= number < len(hands):
            raise Conflict(
                _("there is no hand %(number)s: the sheet has hands 0 to %(last)s")
                % {"number": number, "last": len(hands) - 1}
                if hands
                else _("no hand is entered yet"),
                code="no_such_hand",
                hand=len(hands),
            )
        hand = _entered(match, kind, knocker, deadwood or {}, upcard)
        engine = table_engine(match=match, hands=hands[:number])
        try:
            engine.enter(hand)
        except EntryError as error:
            raise _refusal(error, number) from None
        for later in hands[number + 1 :]:
            try:
                engine.enter(entered_hand(later))
            except EntryError as error:
                raise Conflict(
                    _(
                        "with hand %(number)s corrected, hand %(later)s no longer fits "
                        "(%(reason)s): take the later hands back first"
                    )
                    % {"number": number, "later": later.number, "reason": engine_text(error)},
                    code="later_hand_refused",
                    hand=later.number,
                ) from None
        row = hands[number]
        before = _stored_json(row)
        row.kind = hand.kind.value
        row.knocker = hand.knocker
        row.deadwood_a, row.deadwood_b = hand.deadwood
        row.upcard = "" if hand.upcard is None else card_name(hand.upcard)
        row.entered_by = None
        row.entered_by_user = actor.user
        row.save()
        touched = _after_change(match, engine, len(hands), now, reporter=actor)
        _changed(match, "hand_corrected", actor, hand=number, was=before, entered=hand.to_json())
        if engine.is_over and not match.confirm_result:
            touched += _finish(match, engine, now, touched)
        _publish(match, touched)
    return row


def _stored_json(row: TableHand) -> dict[str, Any]:
    return {
        "kind": row.kind,
        "knocker": row.knocker,
        "deadwood": [row.deadwood_a, row.deadwood_b],
        "upcard": row.upcard or None,
    }


# --- the result -------------------------------------------------------------------------------


def result_confirm(*, match_id: int, player: Player | None, user: Any, reason: str = "") -> Match:
    """Confirm the result the hands decided: the opponent of whoever entered the deciding
    hand, or an organiser (with a reason). The match is then finished as any match is.

    409 ``not_decided`` (the hands do not decide it yet), ``own_report`` (you entered the
    deciding hand: your opponent confirms), ``match_over``; 403 as for entering.
    """
    now = timezone.now()
    with transaction.atomic():
        match = _locked(match_id)
        actor = _actor(match, player, user, reason)
        _check_open(match)
        _check_decided(match, actor)
        engine = table_engine(match=match)
        assert engine.is_over
        touched = _finish(match, engine, now)
        _changed(match, "result_confirmed", actor, winner=match.winner_id)
        _publish(match, touched)
    return match


def result_dispute(*, match_id: int, player: Player | None, user: Any, reason: str) -> Match:
    """The opponent of whoever entered the deciding hand disputes the result, saying why: the
    match waits for an organiser (who corrects the hands and confirms, or decides).

    400 ``reason_required``; 409 ``not_decided``, ``own_report``, ``match_over``; 403 for
    anyone but a player of the match (an organiser corrects or decides instead).
    """
    reason = (reason or "").strip()
    with transaction.atomic():
        match = _locked(match_id)
        if player is None or match.index_of(player.pk) is None:
            raise NotAPlayer(_("only a player of this match disputes its result"))
        actor = _actor(match, player, user, reason)
        _check_open(match)
        if not reason:
            raise PlayError(_("say what is wrong with the result"), code="reason_required")
        _check_decided(match, actor)
        match.confirmation = Match.Confirmation.DISPUTED
        match.dispute_reason = reason[:300]
        match.save(update_fields=["confirmation", "dispute_reason"])
        _changed(match, "result_disputed", actor)
        _publish(match, _last_game_touched(match))
    return match


def _check_decided(match: Match, actor: Actor) -> None:
    if match.confirmation not in (Match.Confirmation.AWAITING, Match.Confirmation.DISPUTED):
        raise Conflict(_("the hands entered do not decide the match yet"), code="not_decided")
    if actor.player is not None and match.reported_by_id == actor.player.pk:
        raise Conflict(
            _("you entered the deciding hand: your opponent confirms or disputes it"),
            code="own_report",
        )


def table_concede(*, match: Match, index: int, reason: str, end_reason: str) -> None:
    """With the match row locked: player ``index`` loses the table match otherwise than by
    its hands (resigned, withdrawn, decided by an organiser), as its hands stand.

    Nothing is made up: no game in play is scored, the games and margin are those the
    entered hands finished. If the hands already decided the match for the other player,
    their result is the one confirmed. Called by :func:`games.services.match_forfeit`.
    """
    now = timezone.now()
    engine = table_engine(match=match)
    touched = _games_save(match, engine, now)
    if engine.is_over and engine.winner == 1 - index:
        touched += _finish(match, engine, now, touched)
    else:
        match.confirmation = Match.Confirmation.NONE
        match.end_reason = end_reason
        match.end_detail = reason[:300]
        services.match_finish(match=match, engine=engine, now=now, winner=1 - index)
        touched += _last_game_touched(match, touched)  # read again: finishing closed it
    _publish(match, touched)


def _finish(
    match: Match, engine: EngineMatch, now: datetime, touched: Sequence[Game] = ()
) -> list[Game]:
    """The confirmed result: finished by the finishing path of every match."""
    match.confirmation = Match.Confirmation.CONFIRMED
    services.match_finish(match=match, engine=engine, now=now)
    return _last_game_touched(match, touched)


# --- keeping the match's fields -----------------------------------------------------------------


def _after_change(
    match: Match, engine: EngineMatch, hands: int, now: datetime, reporter: Actor | None
) -> list[Game]:
    """After the hands changed: the Game rows and the match's fields as the engine says;
    decided, the match waits for confirmation (``reporter`` entered the deciding hand)."""
    touched = _games_save(match, engine, now)
    match.ply = hands
    match.games_won_a, match.games_won_b = engine.games_won
    match.margin_a = engine.margins[0]
    if engine.is_over:
        match.confirmation = Match.Confirmation.AWAITING
        match.reported_by = reporter.player if reporter is not None else None
    else:
        match.confirmation = Match.Confirmation.NONE
        match.reported_by = None
    match.dispute_reason = ""
    match.save()
    return touched


def _games_save(match: Match, engine: EngineMatch, now: datetime) -> list[Game]:
    """The Game rows as the engine's games stand (one per game, as an online match has them:
    hand points, results, the winner); a row whose game a take-back undid goes. Returns the
    rows that changed, their change number raised."""
    rows = {game.number: game for game in Game.objects.filter(match=match)}
    touched = []
    for index, g in enumerate(engine.games):
        row = rows.pop(index, None)
        if row is None:
            row = Game(match=match, number=index, seed=g.seed, first_dealer=g.first_dealer)
        over = g.is_over or engine.is_over
        state = (
            Game.Status.FINISHED if over else Game.Status.ACTIVE,
            g.scores[0],
            g.scores[1],
            [result.to_json() for result in g.results],
            g.results[0].winner if g.results else None,
            len(g.deals),
        )
        now_is = (row.status, row.score_a, row.score_b, row.results, row.winner_index, row.ply)
        if row.pk is not None and now_is == state:
            continue
        (row.status, row.score_a, row.score_b, row.results, row.winner_index, row.ply) = state
        row.to_act = None
        row.finished_at = (row.finished_at or now) if over else None
        row.seq = (row.seq or 0) + 1
        row.save()
        touched.append(row)
    for gone in rows.values():
        gone.delete()
    return touched


def _last_game_touched(match: Match, touched: Sequence[Game] = ()) -> list[Game]:
    """The match's last game read again, its change number raised unless this change
    counted it already (it is in ``touched``): a change to the match (a confirmation, a
    dispute, its end) is pushed to that game's sockets."""
    game = Game.objects.filter(match=match).order_by("-number").first()
    if game is None:
        return []
    if all(other.pk != game.pk for other in touched):
        game.seq = (game.seq or 0) + 1
        Game.objects.filter(pk=game.pk).update(seq=game.seq)
    return [game]


def _publish(match: Match, games: list[Game]) -> None:
    """Push each changed game to its table sockets on commit (each viewer's view, rendered
    now under the lock by the selector the REST API answers with)."""
    latest: dict[int, Game] = {}
    for game in games:  # a game changed twice in one change is pushed once, as it is last
        if game.pk not in latest or game.seq >= latest[game.pk].seq:
            latest[game.pk] = game
    for game in latest.values():
        game_changed(match=match, game=game, counted=True)


def _changed(match: Match, action: str, actor: Actor | None, **detail: Any) -> None:
    """Tell the match's listeners (the event's audit log and sockets) what changed."""
    table_match_changed.send(
        sender=Match,
        match=match,
        action=action,
        by=None if actor is None else actor.user,
        organiser=actor is not None and actor.organiser,
        reason="" if actor is None else actor.reason,
        detail=detail,
    )
