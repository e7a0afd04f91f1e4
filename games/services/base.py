"""What every service of play shares: the refusals, and the locks they take in one order.

Every state change of a match runs in one transaction that first locks the match row
(:func:`locked`); a change that also guards the players against a second match locks their
rows first (:func:`lock_players`, in id order, as the ladder matchmaker does).

The engine's refusals reach people through here too: :func:`engine_text` translates them.
"""

from __future__ import annotations

import re

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext, gettext_noop, pgettext_lazy

from accounts.models import Player
from common.errors import ServiceError
from games.engine.match import Match as EngineMatch
from games.models import Deal, Game, Match


class PlayError(ServiceError):
    """A refused request of play."""

    #: The refusal's English text, when it may name a rule option (``invalid_rules``) and is
    #: written in another language: a form reads it to put the error on that option's field.
    english: str | None = None


class NotAPlayer(PlayError):
    status = 403
    code = "not_a_player"


class Conflict(PlayError):
    """Stale ply, not your turn, game over: the client's picture is out of date."""

    status = 409
    code = "conflict"


class IllegalMove(PlayError):
    status = 400
    code = "illegal_action"


# --- The engine's messages, translated --------------------------------------------------------

#: Every message of the engine that may reach a person (a move refused, an action or an entered
#: hand that does not parse, rules that do not build), as the engine writes it in English, with
#: its variable parts named. The engine is pure Python and knows no translation: it stays
#: English, and its messages are marked here (``gettext_noop``, so ``makemessages`` extracts
#: them) and translated by :func:`engine_text` where they leave the engine.
ENGINE_MESSAGES: tuple[str, ...] = (
    # games.engine.cards
    gettext_noop("unknown card %(card)s: expected rank then suit, e.g. 'TS'"),
    gettext_noop("unknown card %(card)s: expected a string such as 'TS'"),
    gettext_noop("duplicate card %(card)s"),
    gettext_noop("card index %(index)s out of range 0..51"),
    gettext_noop("card mask out of range"),
    # games.engine.actions
    gettext_noop("an action must be text such as 'discard TS'"),
    gettext_noop("unknown action %(kind)s; known: %(known)s"),
    gettext_noop("'%(kind)s' needs a card"),
    gettext_noop("'%(kind)s' takes no card"),
    gettext_noop("only a knock declares melds"),
    gettext_noop("melds must be a list of lists of cards"),
    gettext_noop("an action needs a 'type'"),
    # games.engine.deal, game, match: a move
    gettext_noop("the deal is over"),
    gettext_noop("the game is over"),
    gettext_noop("the match is over"),
    gettext_noop("it is seat %(seat)s's turn, not seat %(other)s's"),
    gettext_noop("it is player %(player)s's turn"),
    gettext_noop("'%(kind)s' is not allowed now: draw from the stock or the discard pile"),
    gettext_noop("'%(kind)s' is not allowed now: discard, knock, gin or big gin"),
    gettext_noop("'%(kind)s' is not allowed now: take the upcard or pass"),
    gettext_noop("'%(kind)s' is not allowed now: draw from the stock (both passed the upcard)"),
    gettext_noop("'%(kind)s' is not allowed now: take the last discard or pass"),
    gettext_noop("'%(kind)s' is not allowed now: knock, go gin or pass"),
    gettext_noop("%(card)s is not in your hand"),
    gettext_noop(
        "%(card)s was just taken from the discard pile and may not be discarded this turn"
    ),
    gettext_noop("the declared melds are not disjoint melds of your hand without %(card)s"),
    gettext_noop("gin needs all ten cards melded; %(points)s points of deadwood are left"),
    gettext_noop("no knocking in straight gin: only gin or big gin ends the hand"),
    gettext_noop("deadwood %(points)s is over the knock limit of %(limit)s"),
    gettext_noop("big gin needs all eleven cards melded"),
    # games.engine.game, table: a hand entered from a score pad
    gettext_noop("duplicate deals need the engine's shuffle: they cannot be played at a table"),
    gettext_noop("the deal in play has moves played online: finish it online"),
    gettext_noop("deadwood is a pair of counts, one per player"),
    gettext_noop("a deadwood count is a number, not %(count)s"),
    gettext_noop("a deadwood count is between 0 and %(max)s, not %(count)s"),
    gettext_noop("the upcard %(card)s is not a card"),
    gettext_noop("a drawn hand has no knocker and no deadwood counts"),
    gettext_noop("a knock needs its knocker: player 0 or 1"),
    gettext_noop("a gin needs its knocker: player 0 or 1"),
    gettext_noop("a big gin needs its knocker: player 0 or 1"),
    gettext_noop("the deadwood count of the defender (player %(player)s) is missing"),
    gettext_noop("the deadwood count of the knocker (player %(player)s) is missing"),
    gettext_noop("gin leaves no deadwood, but the knocker's count is %(count)s"),
    gettext_noop("big gin leaves no deadwood, but the knocker's count is %(count)s"),
    gettext_noop("Oklahoma rules score a hand by its first upcard: give the upcard"),
    gettext_noop(
        "deadwood %(points)s is over the knock limit of %(limit)s set by the upcard %(card)s"
    ),
    gettext_noop("an entered hand is an object"),
    gettext_noop("unknown key %(key)s in an entered hand"),
    gettext_noop("an entered hand needs its kind"),
    gettext_noop("the knocker is player 0 or 1, not %(knocker)s"),
    gettext_noop("the upcard is a card name like 'QS', not %(card)s"),
    gettext_noop("unknown hand kind %(kind)s; known: %(known)s"),
    # games.engine.rules
    gettext_noop("rule option %(option)s=%(value)s is out of range"),
    gettext_noop("rules must be an object of options"),
    gettext_noop("unknown rule option %(option)s"),
    gettext_noop("rule option %(option)s has an invalid value %(value)s"),
    gettext_noop("unknown rule set %(name)s; known: %(known)s"),
    # games.engine.bots
    gettext_noop("unknown bot %(name)s; known bots: %(known)s"),
)


def _message_pattern(template: str) -> re.Pattern[str]:
    """A template's English text as a pattern, each ``%(name)s`` a group of that name."""
    parts = re.split(r"%\((\w+)\)s", template)
    pattern = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(pattern, re.DOTALL)


#: The templates' patterns, the longest first: "deadwood 9 is over the knock limit of 4 set by
#: the upcard 4S" is the upcard's message, not the plain limit's with a limit "4 set by ...".
_ENGINE_PATTERNS = sorted(
    ((_message_pattern(template), template) for template in ENGINE_MESSAGES),
    key=lambda pair: -len(pair[1]),
)


def engine_text(error: Exception) -> str:
    """The engine's refusal ``error`` in the active language, for a person to read.

    The boundary between the engine and the people: every service or interface that passes an
    engine error on (a move refused, an action or an entered hand that does not parse, rules
    that do not build) writes its ``detail`` with this, never ``str(error)``. The English
    message is matched against :data:`ENGINE_MESSAGES` and its translation filled with the
    same parts (a card, a count: data, never translated); a message no template knows is
    passed on in English as the engine wrote it. In English the text is the engine's own.
    """
    text = str(error)
    for pattern, template in _ENGINE_PATTERNS:
        if found := pattern.fullmatch(text):
            return gettext(template) % found.groupdict()
    return text


#: A match's status as a word in a sentence ("the match is finished"); the status itself is
#: a code (``Match.Status``) and its label a heading, neither fits a sentence.
_STATUS_WORDS = {
    Match.Status.CHALLENGED: pgettext_lazy("match status", "challenged"),
    Match.Status.SCHEDULED: pgettext_lazy("match status", "scheduled"),
    Match.Status.ACTIVE: pgettext_lazy("match status", "active"),
    Match.Status.FINISHED: pgettext_lazy("match status", "finished"),
    Match.Status.DECLINED: pgettext_lazy("match status", "declined"),
    Match.Status.CANCELLED: pgettext_lazy("match status", "cancelled"),
}


def status_word(status: str) -> str:
    """A match's ``status`` as a word of the active language, for a refusal's sentence."""
    return str(_STATUS_WORDS.get(status, status))


def locked(match_id: int) -> Match:
    """The match, its row locked until the transaction ends (its players read with it)."""
    # OF self: only the match row. A plain FOR UPDATE with the players joined would lock their
    # rows too, in the match's order (A, then B): two matches of the same pair, A v B and B v A,
    # finishing at once then deadlocked (found by tests/integration/test_faults_tasks.py).
    return (
        Match.objects.select_for_update(of=("self",))
        .select_related("player_a", "player_b")
        .get(pk=match_id)
    )


def lock_players(*players: Player) -> None:
    """Lock the players' rows (FOR NO KEY UPDATE, in id order) until the transaction ends.

    The ladder matchmaker takes the same locks before it pairs queued players and then looks
    again for a match in progress, so a challenge starting here and a ranked pairing of the
    same player cannot both miss each other: whichever commits second sees the first.
    """
    ids = sorted({player.pk for player in players})
    list(
        Player.objects.select_for_update(no_key=True)
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def engine_of(match: Match) -> EngineMatch:
    """The engine's match as the match row's snapshot keeps it (a started online match)."""
    assert match.state is not None
    return EngineMatch.from_snapshot(match.state)


def active_game(match: Match) -> Game:
    """The match's game in play (there is one while an online match is active), with the
    deal in play (:func:`with_deal_in_play`)."""
    return with_deal_in_play(Game.objects.filter(match=match, status=Game.Status.ACTIVE)).get()


def with_deal_in_play(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` with the id and number of each one's newest deal (``deal_in_play``,
    ``deal_in_play_number``), read in the same query: a move appends its action to that
    deal without looking it up."""
    newest = Deal.objects.filter(game=OuterRef("pk")).order_by("-number")
    return games.annotate(
        deal_in_play=Subquery(newest.values("pk")[:1]),
        deal_in_play_number=Subquery(newest.values("number")[:1]),
    )
