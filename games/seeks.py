"""Open games in the lobby (seeks): post one, cancel it, join one; the list everyone sees.

A player posts an open game with the settings of a challenge (rules, best of, target, time
control) and, optionally, the range of ratings they will play. Everyone in the lobby sees the
list live (``ws/lobby``); the first to join plays it: the match starts for both at once, the
poster as player A. A seek ends when it is taken, cancelled, when its poster leaves the lobby
(their lobby socket closes: :func:`seeks_poster_left`), or :data:`SEEK_TTL` after it was
posted (an expired seek is not offered and cannot be joined; :func:`seeks_expire` marks
them).

The settings are checked by the code that checks a challenge's (``rules_build``,
``rules_check_players``, and the API's time-control serializer), and a match is refused to a
player whose tournament match is ready or in play, or who plays a ranked match, as accepting a
challenge is. The match is a casual one (source ``challenge``, created by the poster): no pool
rates a challenge, so a seek cannot be rated yet and ``rated`` must be false.

Every change publishes the list to the lobby on commit (rendered once, after the commit);
the poster of a taken seek hears which table to open on their own lobby group.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player
from common.live import dumps, publish
from games import rating_hook
from games.clocks import TimeControl
from games.models import Game, Seek
from games.services.base import Conflict, NotAPlayer, PlayError, lock_players
from games.services.matches import (
    match_create,
    refuse_assisted,
    refuse_in_ranked_match,
    refuse_in_tournament_match,
    rules_build,
    rules_check_players,
)

#: How long a seek stays open without being taken.
SEEK_TTL = timedelta(minutes=10)
#: The most open seeks one player may have at once.
SEEKS_PER_PLAYER = 3
#: The channel-layer group of every lobby socket.
LOBBY_GROUP = "lobby"


def lobby_player_group(player_id: int) -> str:
    """The channel-layer group of one player's lobby sockets."""
    return f"lobby.{player_id}"


# --- reads --------------------------------------------------------------------------------


def _open(now: datetime):
    return Seek.objects.filter(status=Seek.Status.OPEN, expires_at__gt=now)


def seek_payload(seek: Seek, ratings: dict[int, int] | None = None) -> dict[str, Any]:
    """A seek as the API and the lobby socket show it."""
    if ratings is None:
        ratings = rating_hook.ratings_of([seek.poster_id])
    poster = seek.poster
    game = None
    if seek.match_id is not None:
        game = (
            Game.objects.filter(match_id=seek.match_id)
            .order_by("number")
            .values_list("pk", flat=True)
            .first()
        )
    return {
        "id": seek.pk,
        "status": seek.status,
        "poster": {
            "id": poster.pk,
            "name": poster.name,
            "kind": poster.kind,
            "rating": ratings.get(poster.pk),
        },
        "rules": seek.rules,
        "best_of": seek.best_of,
        "target": seek.target,
        "time_control": seek.time_control,
        "rated": seek.rated,
        "rating_min": seek.rating_min,
        "rating_max": seek.rating_max,
        "match": seek.match_id,
        "game": game,
        "created_at": seek.created_at,
        "expires_at": seek.expires_at,
    }


def seeks_open(*, now: datetime | None = None) -> list[dict[str, Any]]:
    """The open seeks, oldest first (expired ones left out), with their posters' ratings."""
    seeks = list(_open(now or timezone.now()).select_related("poster").order_by("pk"))
    ratings = rating_hook.ratings_of(sorted({s.poster_id for s in seeks}))
    return [seek_payload(seek, ratings) for seek in seeks]


def seeks_message(*, now: datetime | None = None) -> dict[str, Any]:
    """The lobby socket's message of the open seeks."""
    return {"type": "seeks", "seeks": seeks_open(now=now)}


def _lobby_changed() -> None:
    """Send the lobby the list on commit, rendered once after the commit."""

    def send() -> None:
        publish(LOBBY_GROUP, {"type": "send.text", "text": dumps(seeks_message())})

    transaction.on_commit(send)


# --- writes -------------------------------------------------------------------------------


def seek_create(
    *,
    poster: Player,
    rules: dict[str, Any] | str | None = None,
    best_of: int | None = None,
    target: int | None = None,
    time_control: TimeControl | None = None,
    rated: bool = False,
    rating_min: int | None = None,
    rating_max: int | None = None,
    now: datetime | None = None,
) -> Seek:
    """Post an open game. Refused as a challenge with the same settings would be
    (``invalid_rules``, ``duplicate_deals_need_bots``, 409 ``in_tournament_match``), and with
    ``rated_unavailable`` (no pool rates a casual game), ``bot_challenger`` (bots post
    nothing), 403 ``assisted_account`` (an account marked as assisted plays bots only) and
    409 ``too_many_seeks`` (at most :data:`SEEKS_PER_PLAYER` open at once)."""
    if poster.is_bot:
        raise PlayError(_("bots do not post open games"), code="bot_challenger")
    refuse_assisted(poster, None, caller=poster)  # whoever joins an open game is a person
    if rated:
        raise PlayError(
            _(
                "an open game is casual: no rating pool rates a game between two players "
                "outside a ladder or a rated event (use Ranked for a rated match)"
            ),
            code="rated_unavailable",
        )
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise PlayError(_("the lowest rating is above the highest"), code="invalid_rating_range")
    built = rules_build(rules, best_of=best_of, target=target)
    rules_check_players(built, poster)
    now = now or timezone.now()
    with transaction.atomic():
        lock_players(poster)  # two posts at once count each other
        refuse_in_tournament_match(poster, caller=poster)
        if _open(now).filter(poster=poster).count() >= SEEKS_PER_PLAYER:
            raise Conflict(
                _("you have %(count)s open games already: cancel one first")
                % {"count": SEEKS_PER_PLAYER},
                code="too_many_seeks",
            )
        seek = Seek.objects.create(
            poster=poster,
            rules=built.to_dict(),
            best_of=built.best_of,
            target=built.target,
            time_control=None if time_control is None else time_control.as_dict(),
            rated=False,
            rating_min=rating_min,
            rating_max=rating_max,
            expires_at=now + SEEK_TTL,
        )
        _lobby_changed()
    return seek


def _close(seeks, status: str, now: datetime) -> int:
    return seeks.filter(status=Seek.Status.OPEN).update(status=status, closed_at=now)


def seek_cancel(*, seek: Seek, player: Player, now: datetime | None = None) -> Seek:
    """The poster takes their open game back. 403 ``not_a_player`` for anyone else, 409
    ``seek_taken`` once taken, ``seek_closed`` once cancelled or expired."""
    now = now or timezone.now()
    with transaction.atomic():
        seek = Seek.objects.select_for_update().get(pk=seek.pk)
        if seek.poster_id != player.pk:
            raise NotAPlayer(_("only its poster can cancel an open game"))
        _refuse_closed(seek, now)
        _close(Seek.objects.filter(pk=seek.pk), Seek.Status.CANCELLED, now)
        seek.refresh_from_db()
        _lobby_changed()
    return seek


def seeks_poster_left(*, player_id: int, now: datetime | None = None) -> int:
    """The poster left the lobby (their lobby socket closed): their open games go."""
    now = now or timezone.now()
    with transaction.atomic():
        closed = _close(Seek.objects.filter(poster_id=player_id), Seek.Status.CANCELLED, now)
        if closed:
            _lobby_changed()
    return closed


def seeks_expire(*, now: datetime | None = None) -> int:
    """Mark the open seeks past their time expired (they are already not offered)."""
    now = now or timezone.now()
    with transaction.atomic():
        closed = _close(Seek.objects.filter(expires_at__lte=now), Seek.Status.EXPIRED, now)
        if closed:
            _lobby_changed()
    return closed


def _refuse_closed(seek: Seek, now: datetime) -> None:
    if seek.status == Seek.Status.TAKEN:
        raise Conflict(_("this open game was taken by someone else"), code="seek_taken")
    if seek.status != Seek.Status.OPEN or seek.expires_at <= now:
        detail = (
            _("this open game was cancelled")
            if seek.status == Seek.Status.CANCELLED
            else _("this open game was expired")  # expired, or open past its time
        )
        raise Conflict(detail, code="seek_closed")


def seek_join(*, seek: Seek, player: Player, now: datetime | None = None) -> Seek:
    """Take an open game: its match starts for both players now (the poster is player A).

    409 ``own_seek`` for its poster, ``seek_taken`` once someone took it, ``seek_closed``
    once cancelled or expired, ``outside_rating_range`` for a player whose rating is outside
    the poster's range, 403 ``assisted_account`` when one of the two plays bots only (marked
    as assisted), and the refusals of an accepted challenge (``in_ranked_match``,
    ``in_tournament_match``) for either player; nothing changes then.

    Two joins at once: the row is locked, then claimed by a conditional update from
    ``open``, so one of them starts the match and the other is refused ``seek_taken``
    (the lock is a no-op on SQLite; the claim is what counts there).
    """
    now = now or timezone.now()
    with transaction.atomic():
        seek = Seek.objects.select_for_update().select_related("poster").get(pk=seek.pk)
        if seek.poster_id == player.pk:
            raise Conflict(
                _("this is your own open game: wait for someone to join"), code="own_seek"
            )
        _refuse_closed(seek, now)
        refuse_assisted(seek.poster, player, caller=player)
        if seek.rating_min is not None or seek.rating_max is not None:
            rating = rating_hook.ratings_of([player.pk])[player.pk]
            low, high = seek.rating_min, seek.rating_max
            if (low is not None and rating < low) or (high is not None and rating > high):
                span = f"{low if low is not None else ''}-{high if high is not None else ''}"
                raise Conflict(
                    _("%(name)s plays ratings %(range)s; yours is %(rating)s")
                    % {"name": seek.poster.name, "range": span, "rating": rating},
                    code="outside_rating_range",
                    rating=rating,
                )
        claimed = Seek.objects.filter(pk=seek.pk, status=Seek.Status.OPEN).update(
            status=Seek.Status.TAKEN, taken_by=player, closed_at=now
        )
        if not claimed:
            raise Conflict(_("this open game was taken by someone else"), code="seek_taken")
        poster = seek.poster
        lock_players(poster, player)
        refuse_in_ranked_match(player, poster, caller=player)
        refuse_in_tournament_match(player, poster, caller=player)
        time_control = (
            None if seek.time_control is None else TimeControl.from_dict(seek.time_control)
        )
        match = match_create(
            player_a=poster,
            player_b=player,
            rules=seek.rules,
            time_control=time_control,
            created_by=poster,
        )
        Seek.objects.filter(pk=seek.pk).update(match=match)
        # Both now play: their other open games go.
        _close(
            Seek.objects.filter(Q(poster=poster) | Q(poster=player)).exclude(pk=seek.pk),
            Seek.Status.CANCELLED,
            now,
        )
        seek.refresh_from_db()
        game = match.games.order_by("number").values_list("pk", flat=True).first()
        told = {
            "type": "seek_taken",
            "seek": seek.pk,
            "match": match.pk,
            "game": game,
            "url": reverse("web:table", args=[game]) if game is not None else None,
            "opponent": {"id": player.pk, "name": player.name, "kind": player.kind},
        }
        group = lobby_player_group(poster.pk)
        transaction.on_commit(lambda: publish(group, {"type": "send.text", "text": dumps(told)}))
        _lobby_changed()
    return seek
