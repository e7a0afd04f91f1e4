"""Bot work whose task was lost (Redis restarted and dropped its queue, or was down when the
change committed), found and done by periodic sweeps: replies in human-vs-bot games, whole
bot-vs-bot matches."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import Player
from games.models import Action, Deal, Game, Match
from games.services.bots import bot_move, match_play_bots

logger = logging.getLogger(__name__)


#: A bot's reply still not made this long after the human's move: its task was lost (Redis
#: restarted and dropped its queue, or was down when the move committed). Replies normally
#: come within a second; the sweep then makes the move itself.
BOT_REPLY_STALE = timedelta(seconds=10)


#: A bot-vs-bot match started this long ago and still unplayed: the sweep plays it itself
#: (a queued task that arrives later finds it finished). Longer than a reply: under a burst
#: (a 256-bot event's round) matches wait their turn in the queue for a while.
BOT_MATCH_STALE = timedelta(seconds=60)


def bot_work_sweep(*, now: datetime | None = None, limit: int = 20, matches: int = 2) -> int:
    """Do the bot work whose task was lost: replies in human-vs-bot games, whole bot matches.

    The embedded sweeper runs it once a second. With Celery the two halves run apart, each
    on the queue of its own kind of work: :func:`bot_reply_sweep` with the clock sweep
    (interactive), :func:`bot_match_sweep` on the batch queue. Returns how many replies and
    matches it did.
    """
    done = bot_reply_sweep(now=now, limit=limit)
    return done + bot_match_sweep(now=now, limit=max(0, limit - done), matches=matches)


def bot_reply_sweep(*, now: datetime | None = None, limit: int = 20) -> int:
    """Make the bot replies (human-vs-bot games) whose task was lost; returns how many.

    Idempotent like the task it stands in for: a reply is made only if the match is still
    at the ply it was found at.
    """
    now = now or timezone.now()
    done = 0
    bot, human = Player.Kind.BOT, Player.Kind.HUMAN
    # The game's current deal, then its last action: two probes of the (game, number) and
    # (deal, ply) indexes whatever the planner thinks of the table sizes (a join of all the
    # game's actions was planned as a scan of every action ever written).
    current_deal = Deal.objects.filter(game=OuterRef("pk")).order_by("-number")
    deal_of_game = Deal.objects.filter(game=OuterRef(OuterRef("pk"))).order_by("-number")
    last_move = Action.objects.filter(deal=Subquery(deal_of_game.values("pk")[:1])).order_by("-ply")
    waiting = (
        Game.objects.filter(status=Game.Status.ACTIVE, match__status=Match.Status.ACTIVE)
        .filter(
            Q(to_act=0, match__player_a__kind=bot, match__player_b__kind=human)
            | Q(to_act=1, match__player_b__kind=bot, match__player_a__kind=human)
        )
        .annotate(
            idle_since=Coalesce(
                Subquery(last_move.values("created_at")[:1]),  # a move in this deal
                Subquery(current_deal.values("started_at")[:1]),  # or the deal's start
                F("started_at"),
            )
        )
        .filter(idle_since__lte=now - BOT_REPLY_STALE)
        .values_list("match_id", "match__ply")[:limit]
    )
    for row in list(waiting):
        match_id, ply = row
        logger.warning("match %s: the bot's reply at ply %s was lost; the sweep makes it", *row)
        done += bot_move(match_id=match_id, ply=ply)
    return done


def bot_match_sweep(*, now: datetime | None = None, limit: int = 20, matches: int = 20) -> int:
    """Play the bot-vs-bot matches whose ``play_match`` task was lost; returns how many.

    A match counts as lost once it has waited :data:`BOT_MATCH_STALE` unplayed. With Celery
    this runs on the batch queue, behind the ``play_match`` tasks queued before it: a match
    that only waits its turn in a long queue (a 256-bot event's round) is played by its own
    task first, and none is ever played on the interactive workers, whose time is the
    people's. Idempotent: a match is played only while it has not been, under its row lock;
    a row locked by a worker playing it right now is skipped.
    """
    now = now or timezone.now()
    done = 0
    unplayed = list(
        Match.objects.filter(
            status=Match.Status.ACTIVE,
            player_a__kind=Player.Kind.BOT,
            player_b__kind=Player.Kind.BOT,
            started_at__lte=now - BOT_MATCH_STALE,
            games__isnull=True,
        ).values_list("pk", flat=True)[:limit]
    )
    for match_id in unplayed:
        if done >= limit or matches <= 0:
            break
        with transaction.atomic():
            # A worker playing it holds the row: leave it to that worker.
            free = Match.objects.select_for_update(skip_locked=True).filter(pk=match_id)
            if not list(free.values_list("pk", flat=True)):
                continue
            logger.warning("match %s: its play_match task was lost; the sweep plays it", match_id)
            played = match_play_bots(match_id=match_id)
        done += played
        matches -= played
    return done
