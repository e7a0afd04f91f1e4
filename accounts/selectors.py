"""Reads of players and accounts."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from accounts.models import Player


def player_list() -> QuerySet[Player]:
    """Every player, public data, oldest first (filters apply on top in the API)."""
    return Player.objects.all()


def player_for_user(*, user: AbstractBaseUser | AnonymousUser) -> Player | None:
    """The player of a signed-in user, or None (anonymous, or a staff user with no player)."""
    if not user.is_authenticated:
        return None
    if get_user_model().player.is_cached(user):  # read with the user (the token's sign-in)
        try:
            return user.player
        except Player.DoesNotExist:
            return None
    return Player.objects.filter(user=user).first()


def player_name_taken(*, name: str, exclude_id: int | None = None) -> bool:
    """Whether a display name is in use, ignoring case."""
    players = Player.objects.filter(name__iexact=name)
    if exclude_id is not None:
        players = players.exclude(id=exclude_id)
    return players.exists()


def player_names(*, exclude_id: int | None = None) -> list[str]:
    """Every player's display name (but one), to compare a new name's look with."""
    players = Player.objects.all()
    if exclude_id is not None:
        players = players.exclude(id=exclude_id)
    return list(players.values_list("name", flat=True))
