"""Writes to players and accounts. Each service runs in one transaction.

Services raise Django's ``ValidationError`` with messages per field; the API turns it into a
400 in the error shape.
"""

import logging
import re
import secrets
import smtplib
from importlib import import_module

from django import forms
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from knox.models import AuthToken

from accounts import names
from accounts.language import mail_language
from accounts.models import Player
from accounts.selectors import player_name_taken, player_names
from common.errors import ServiceError
from common.sockets import credential_id, sockets_credential_end, sockets_sign_out

logger = logging.getLogger(__name__)

NAME_TAKEN = gettext_lazy("A player with this name already exists.")
#: The names of deleted accounts' players (``deleted-<id>``): nobody may take one.
DELETED_NAME = re.compile(r"deleted-\d+", re.IGNORECASE)
DELETED_NAME_MESSAGE = gettext_lazy("Names like “deleted-12” are kept for deleted accounts.")
USERNAME_TAKEN = gettext_lazy("A user with this username already exists.")


def _name_errors(
    name: str, *, exclude_id: int | None = None, bot: bool = False
) -> list[ValidationError]:
    """What is wrong with a display name (given normalised), or nothing.

    Beyond the field's own rules and uniqueness regardless of case, the look-alike rules of
    :mod:`accounts.names`: one script, no skeleton equal to another player's name, and the
    bot suffix form ("Ada (expert)") only for a house bot (``bot``). Each refusal carries the
    code the API answers with.
    """
    field = Player._meta.get_field("name")
    try:
        field.clean(name, None)
    except ValidationError as exc:
        return exc.error_list
    if player_name_taken(name=name, exclude_id=exclude_id):
        return [ValidationError(NAME_TAKEN, code="unique")]
    if names.is_mixed_script(name):
        return [ValidationError(names.MIXED_SCRIPT_MESSAGE, code=names.MIXED_SCRIPT)]
    if not bot and names.wears_bot_suffix(name):
        return [ValidationError(names.RESERVED_MESSAGE, code=names.RESERVED)]
    if DELETED_NAME.fullmatch(name):
        return [ValidationError(DELETED_NAME_MESSAGE, code=names.RESERVED)]
    if names.lookalike(name, player_names(exclude_id=exclude_id)):
        return [ValidationError(names.CONFUSABLE_MESSAGE, code=names.CONFUSABLE)]
    return []


def _email_errors(email: str) -> list[str]:
    try:
        forms.EmailField(max_length=254).clean(email)
    except ValidationError as exc:
        return list(exc.messages)
    return []


class EmailNoticeFailed(Exception):
    """The old address could not be told of a change of address, so nothing changed.

    Only the account page changes an address; it answers 503 with the message.
    """


EMAIL_NOTICE_FAILED = gettext_lazy(
    "The notice of this change to your current address could not be sent, so nothing is "
    "changed. Try again later."
)


def _email_change_notice(*, user: AbstractBaseUser, removed: bool) -> tuple[str, str]:
    """The subject and text that tell an account's old address of a change of address, in
    the person's language (their account's, else English)."""
    now = timezone.now().strftime("%Y-%m-%d %H:%M UTC")
    player = getattr(user, "player", None) if user.pk else None
    with translation.override(mail_language(player)):
        values = {"username": user.get_username(), "now": now}
        if removed:
            changed = _(
                "the e-mail address of your Gin Rummy account was changed at %(now)s: a "
                "password reset now goes to no address any more, not to this one."
            )
        else:
            changed = _(
                "the e-mail address of your Gin Rummy account was changed at %(now)s: a "
                "password reset now goes to another address, not to this one."
            )
        text = (
            _("Hello %(username)s,") % values
            + "\n\n"
            + changed % values
            + "\n\n"
            + _("If you made this change, there is nothing to do.")
            + "\n\n"
            + _(
                "If you did not, someone who knows your password has signed in as you. Sign "
                "in, change your password (that ends every other sign-in), then set your "
                "address again on your account page."
            )
            + "\n"
        )
        return _("Your Gin Rummy e-mail address was changed"), text


def email_update(*, user: AbstractBaseUser, email: str) -> AbstractBaseUser:
    """Set (or, empty, remove) the e-mail address a password reset is sent to.

    The caller checks the person's password first: whoever holds a session alone must not
    choose where a reset goes. When an address was set, it is told of the change before the
    change is saved; if that e-mail cannot be sent, nothing changes (:class:`EmailNoticeFailed`),
    as a change the old address never heard of is what a stolen session needs. An
    invalid address is a ``ValidationError`` on ``email``.
    """
    email = get_user_model().objects.normalize_email((email or "").strip())
    if email and (errors := _email_errors(email)):
        raise ValidationError({"email": errors})
    if email == user.email:
        return user
    if user.email:
        subject, text = _email_change_notice(user=user, removed=not email)
        try:
            send_mail(subject, text, None, [user.email])
        except (OSError, smtplib.SMTPException):
            logger.warning("No notice of a changed e-mail address could be sent", exc_info=True)
            raise EmailNoticeFailed(str(EMAIL_NOTICE_FAILED)) from None
    user.email = email
    user.save(update_fields=["email"])
    return user


#: How many random names :func:`_new_player_name` tries before giving up.
NEW_NAME_TRIES = 10


def _new_player_name() -> str:
    """A free display name, "Player 123456", for a person who chose none.

    Never the username: that is half of what signing in takes, and a display name is public.
    """
    for _attempt in range(NEW_NAME_TRIES):
        name = f"Player {secrets.randbelow(1_000_000):06d}"
        if not _name_errors(name):
            return name
    raise ValidationError({"name": [names.BLANK_MESSAGE]})


def _account_errors(*, username: str, password: str, email: str) -> dict[str, list]:
    """What is wrong with a new account's username, password and e-mail (given normalised).

    The username must be valid and not taken ignoring case; the password must pass Django's
    password validators; the e-mail, optional, must be an address.
    """
    User = get_user_model()
    errors: dict[str, list] = {}
    if email and (email_errors := _email_errors(email)):
        errors["email"] = email_errors
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
    return errors


def player_register(
    *, username: str, password: str, name: str | None = None, email: str = ""
) -> Player:
    """Create a user and their human player; without a ``name``, a "Player 123456" of its own.

    The display name never defaults to the username, which stays private.

    Checks every field before writing and reports all problems at once: the username (valid,
    not taken ignoring case), the password (Django's password validators) and the display name
    (normalised; valid, not taken ignoring case, not a look-alike: :func:`_name_errors`).
    A race with a concurrent registration of the same name ends in the unique constraint and
    is reported the same way. ``email`` (optional) is where a password reset is sent.
    """
    User = get_user_model()
    username = User.normalize_username((username or "").strip())
    name = names.normalize(name) or _new_player_name()
    email = User.objects.normalize_email((email or "").strip())
    errors = _account_errors(username=username, password=password, email=email)
    if name_errors := _name_errors(name):
        errors["name"] = name_errors
    if errors:
        raise ValidationError(errors)

    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
            return Player.objects.create(kind=Player.Kind.HUMAN, user=user, name=name)
    except IntegrityError:
        # Lost a race: someone took the username or the name since the checks above.
        if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
            raise ValidationError({"username": [USERNAME_TAKEN]}) from None
        raise ValidationError({"name": [NAME_TAKEN]}) from None


# --- Guests ---------------------------------------------------------------------------------


class NotAGuest(ServiceError):
    """The player is not (or no longer) a guest: nothing to invite to, nothing to claim."""

    status = 409
    code = "not_a_guest"


def guest_create(*, name: str) -> Player:
    """Create a guest: a person entered by name alone (no user, no password).

    The name is normalised and checked as a person's at registration (:func:`_name_errors`:
    valid, not taken ignoring case, not a look-alike, no bot suffix); a refusal is a
    ``ValidationError`` on ``name``. A guest cannot sign in; :func:`guest_claim` turns it into
    a person with an account.
    """
    name = names.normalize(name)
    if name_errors := _name_errors(name):
        raise ValidationError({"name": name_errors})
    try:
        with transaction.atomic():
            return Player.objects.create(kind=Player.Kind.GUEST, name=name)
    except IntegrityError:  # the same name, created since the check
        raise ValidationError({"name": [ValidationError(NAME_TAKEN, code="unique")]}) from None


def guest_claim(
    *, guest: Player, username: str, password: str, name: str | None = None, email: str = ""
) -> Player:
    """A person takes over a guest with an account of their own: the guest's row becomes a
    human player with a new user, so every result, entry and rating of the guest stays theirs.

    The account is checked as at registration (:func:`player_register`: username, password,
    e-mail, all problems at once); ``name`` (left out: the guest's) may differ from the
    guest's name, checked like any new name but against others only. Raises
    :class:`NotAGuest` (409 ``not_a_guest``, nothing written) when the player is not a guest
    any more: two claims of one guest at once make one account, not two.
    """
    User = get_user_model()
    username = User.normalize_username((username or "").strip())
    email = User.objects.normalize_email((email or "").strip())
    errors = _account_errors(username=username, password=password, email=email)
    if name is not None:
        name = names.normalize(name)
        if name_errors := _name_errors(name, exclude_id=guest.pk):
            errors["name"] = name_errors
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            # Locked: a second claim waits here, then finds a human and is refused.
            player = Player.objects.select_for_update().filter(pk=guest.pk).first()
            if player is None or not player.is_guest:
                raise NotAGuest(_("this guest has been claimed already, or no longer exists"))
            user = User.objects.create_user(username=username, email=email, password=password)
            player.kind = Player.Kind.HUMAN
            player.user = user
            if name is not None:
                player.name = name
            player.save(update_fields=["kind", "user", "name"])
            return player
    except IntegrityError:
        if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
            raise ValidationError({"username": [USERNAME_TAKEN]}) from None
        raise ValidationError({"name": [NAME_TAKEN]}) from None


def player_update(*, player: Player, name: str | None = None) -> Player:
    """Change what a player may change about themselves: for now, the display name.

    The new name is normalised and checked as at registration (:func:`_name_errors`).
    """
    if name is not None:
        name = names.normalize(name)
        if errors := _name_errors(name, exclude_id=player.id):
            raise ValidationError({"name": errors})
        player.name = name
    try:
        with transaction.atomic():
            player.save(update_fields=["name"])
    except IntegrityError:
        raise ValidationError({"name": [NAME_TAKEN]}) from None
    return player


#: The preferences a person sets for themselves (``/account``, ``PATCH /api/me``).
PREFERENCES = ("language", "theme", "sounds", "confirm_discard")


def preferences_update(*, player: Player, **changes: object) -> Player:
    """Set some of the player's :data:`PREFERENCES` (the others are left as they are).

    A theme that is not one of :class:`Player.Theme` is a ``ValidationError`` on ``theme``;
    a language the site does not speak (``settings.LANGUAGES``; ``""``: the browser's) one on
    ``language``.
    """
    unknown = set(changes) - set(PREFERENCES)
    if unknown:
        raise TypeError(f"not a preference: {', '.join(sorted(unknown))}")
    if "theme" in changes and changes["theme"] not in Player.Theme.values:
        raise ValidationError({"theme": [_("Choose system, light or dark.")]})
    if "language" in changes and changes["language"] not in ("", *dict(settings.LANGUAGES)):
        codes = ", ".join(dict(settings.LANGUAGES))
        message = _("Choose one of %(codes)s, or empty for the browser's.") % {"codes": codes}
        raise ValidationError({"language": [message]})
    for field, value in changes.items():
        setattr(player, field, value)
    if changes:
        Player.objects.filter(pk=player.pk).update(**changes)
    return player


def bot_create(*, name: str, strategy: str) -> Player:
    """Create a bot player that plays with the named strategy. Bots have no user."""
    name = names.normalize(name)
    errors: dict[str, list] = {}
    if name_errors := _name_errors(name, bot=True):
        errors["name"] = name_errors
    if not strategy.strip():
        errors["bot_strategy"] = [_("A bot needs a strategy.")]
    if errors:
        raise ValidationError(errors)
    return Player.objects.create(kind=Player.Kind.BOT, name=name, bot_strategy=strategy.strip())


def sign_out_everywhere(*, user: AbstractBaseUser, keep_session: str | None = None) -> int:
    """End every sign-in of the user: revoke all their tokens and end all their web sessions
    but ``keep_session`` (a key: after a change of password, the session it was made in,
    which ``update_session_auth_hash`` keeps signed in).

    Returns how many web sessions were ended. The session store (the database, as
    ``SESSION_ENGINE`` is Django's default) has no index by user, so every unexpired
    session is decoded to find the user's. Once this commits, every socket of the user is
    closed (4401).
    """
    AuthToken.objects.filter(user=user).delete()
    Session = import_module(settings.SESSION_ENGINE).SessionStore.get_model_class()
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.pk != keep_session and session.get_decoded().get(SESSION_KEY) == str(user.pk)
    ]
    Session.objects.filter(pk__in=ended).delete()
    sockets_sign_out(user.pk)
    return len(ended)


def token_deleted(sender, instance: AuthToken, **kwargs) -> None:
    """Receiver of a token's deletion (signed out, revoked, expired, its account gone): the
    sockets opened with it close (4401) once the deletion commits."""
    sockets_credential_end(instance.user_id, credential_id(instance.digest))


def session_signed_out(sender, request, user, **kwargs) -> None:
    """Receiver of ``user_logged_out``: the sockets opened with the session signed out close
    (4401) once it commits (a request signed in by a token has no session to end)."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and key:
        sockets_credential_end(user.pk, credential_id(key))


def session_deleted(sender, instance, **kwargs) -> None:
    """Receiver of a web session's deletion (signed out everywhere, expired and cleared, or
    removed by hand): the sockets opened with it close (4401) once the deletion commits."""
    user_id = instance.get_decoded().get(SESSION_KEY)  # {} for data the store cannot read
    if user_id is not None and str(user_id).isdigit():
        sockets_credential_end(int(user_id), credential_id(instance.session_key))


def token_issue(*, user: AbstractBaseUser) -> tuple[AuthToken, str]:
    """A new sign-in token for the user: the stored record and the secret (shown only once).

    The token expires after ``REST_KNOX["TOKEN_TTL"]``; only its hash is stored. The user's
    tokens that have expired are deleted (a request checks only the token it carries).
    """
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
    return AuthToken.objects.create(user=user)


# --- External bots --------------------------------------------------------------------------

#: External bots one person may own.
BOTS_PER_OWNER_MAX = 20


class BotRefused(ServiceError):
    """A bot request refused for who asked, not for what they sent."""

    status = 403
    code = "not_a_person"


def bot_register(*, owner: Player, name: str, description: str = "") -> Player:
    """Create an external bot owned by ``owner`` (a person), with a user of its own.

    The user exists only to hold the bot's API tokens: its username starts with ``~``, which
    no registration can choose, and it has no usable password, so nobody signs in to the web
    pages as the bot. Refused with 403 ``not_a_person`` for an owner who is a bot, and 409
    ``too_many_bots`` past :data:`BOTS_PER_OWNER_MAX`.
    """
    if owner.kind != Player.Kind.HUMAN:
        raise BotRefused(_("only a person can own bots"))
    name = names.normalize(name or "")
    description = (description or "").strip()
    if name_errors := _name_errors(name):  # a house bot's "Name (strategy)" form is refused
        raise ValidationError({"name": name_errors})
    User = get_user_model()
    try:
        with transaction.atomic():
            # The owner's row, locked: two creations at once cannot both pass the cap.
            Player.objects.select_for_update(no_key=True).filter(pk=owner.pk).first()
            if Player.objects.filter(owner=owner).count() >= BOTS_PER_OWNER_MAX:
                raise BotRefused(
                    _("you own %(count)s bots already") % {"count": BOTS_PER_OWNER_MAX},
                    code="too_many_bots",
                    status=409,
                )
            user = User(**{User.USERNAME_FIELD: f"~bot-{secrets.token_hex(8)}"})
            user.set_unusable_password()
            user.save()
            return Player.objects.create(
                kind=Player.Kind.EXTERNAL,
                user=user,
                owner=owner,
                name=name,
                description=description,
            )
    except IntegrityError:
        raise ValidationError({"name": [NAME_TAKEN]}) from None


def bot_update(
    *, bot: Player, description: str | None = None, auto_accept: str | None = None
) -> Player:
    """Change an external bot's description or which challenges it accepts at once."""
    fields = []
    if description is not None:
        bot.description = description.strip()
        fields.append("description")
    if auto_accept is not None:
        bot.auto_accept = auto_accept
        fields.append("auto_accept")
    if fields:
        bot.save(update_fields=fields)
    return bot


def bot_token_issue(*, bot: Player) -> tuple[AuthToken, str]:
    """A new API token for an external bot: the stored record and the secret (shown once).

    A bot's token does not expire (a program runs for weeks); its owner revokes it.
    """
    return AuthToken.objects.create(user=bot.user, expiry=None)


def bot_token_revoke(*, bot: Player, token_key: str) -> bool:
    """Revoke the bot's token whose key (its first characters) is ``token_key``.

    Returns whether a token was revoked; streams open with it end at their next keep-alive.
    """
    deleted, _kinds = AuthToken.objects.filter(user=bot.user, token_key=token_key).delete()
    return deleted > 0
