"""Writes to players and accounts. Each service runs in one transaction.

Services raise Django's ``ValidationError`` with messages per field; the API turns it into a
400 in the error shape.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from knox.models import AuthToken

from accounts.models import Player
from accounts.selectors import player_name_taken

NAME_TAKEN = "A player with this name already exists."
USERNAME_TAKEN = "A user with this username already exists."


def _name_errors(name: str, *, exclude_id: int | None = None) -> list[str]:
    field = Player._meta.get_field("name")
    try:
        field.clean(name, None)
    except ValidationError as exc:
        return list(exc.messages)
    if player_name_taken(name=name, exclude_id=exclude_id):
        return [NAME_TAKEN]
    return []


def player_register(*, username: str, password: str, name: str | None = None) -> Player:
    """Create a user and their human player; ``name`` defaults to the username.

    Checks every field before writing and reports all problems at once: the username (valid,
    not taken ignoring case), the password (Django's password validators) and the display name
    (valid, not taken ignoring case). A race with a concurrent registration of the same name
    ends in the unique constraint and is reported the same way.
    """
    User = get_user_model()
    username = User.normalize_username((username or "").strip())
    name = (name or "").strip() or username
    errors: dict[str, list[str]] = {}

    try:
        User._meta.get_field(User.USERNAME_FIELD).clean(username, None)
    except ValidationError as exc:
        errors["username"] = list(exc.messages)
    else:
        if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
            errors["username"] = [USERNAME_TAKEN]
    try:
        validate_password(password, user=User(**{User.USERNAME_FIELD: username}))
    except ValidationError as exc:
        errors["password"] = list(exc.messages)
    if name_errors := _name_errors(name):
        errors["name"] = name_errors
    if errors:
        raise ValidationError(errors)

    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            return Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=name)
    except IntegrityError:
        # Lost a race: someone took the username or the name since the checks above.
        if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
            raise ValidationError({"username": [USERNAME_TAKEN]}) from None
        raise ValidationError({"name": [NAME_TAKEN]}) from None


def player_update(*, player: Player, name: str | None = None) -> Player:
    """Change what a player may change about themselves: for now, the display name."""
    if name is not None:
        name = name.strip()
        if errors := _name_errors(name, exclude_id=player.id):
            raise ValidationError({"name": errors})
        player.name = name
    try:
        with transaction.atomic():
            player.save(update_fields=["name"])
    except IntegrityError:
        raise ValidationError({"name": [NAME_TAKEN]}) from None
    return player


def bot_create(*, name: str, strategy: str) -> Player:
    """Create a bot player that plays with the named strategy. Bots have no user."""
    errors: dict[str, list[str]] = {}
    if name_errors := _name_errors(name):
        errors["name"] = name_errors
    if not strategy.strip():
        errors["bot_strategy"] = ["A bot needs a strategy."]
    if errors:
        raise ValidationError(errors)
    return Player.objects.create(kind=Player.Kind.BOT, name=name, bot_strategy=strategy.strip())


def token_issue(*, user: AbstractBaseUser) -> tuple[AuthToken, str]:
    """A new sign-in token for the user: the stored record and the secret (shown only once).

    The token expires after ``REST_KNOX["TOKEN_TTL"]``; only its hash is stored.
    """
    return AuthToken.objects.create(user=user)
