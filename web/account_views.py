"""The account pages: the display name and the preferences (colours, sounds, confirm before
discarding), the e-mail address and the e-mails about one's events (with the
unsubscribe link every such e-mail carries), a change of password, a password reset by
e-mail (Django's own views and tokens), deleting one's account, and taking over a guest with
a new account from an invitation link.

A change or a reset of the password ends every other sign-in of the user: their other web
sessions and all their API tokens (``accounts.services.sign_out_everywhere``); the session
the change was made in stays signed in (``update_session_auth_hash``). Deleting the account
is ``accounts.deletion.account_delete``, which the API's ``DELETE /api/me`` calls too.
"""

from __future__ import annotations

import math

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, login, logout
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from rest_framework.throttling import SimpleRateThrottle

from accounts import deletion, invitations, mail, names, services
from accounts.language import language_for
from accounts.lockout import lockout_message, lockout_response
from accounts.models import NAME_MAX_LENGTH, Player
from accounts.selectors import player_for_user
from web.forms import GuestClaimForm
from web.views import SignUpRateThrottle, signin_required


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("E-mail"),
        required=False,
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=gettext_lazy(
            "Where a password reset is sent; nobody else sees it. Empty: no reset."
        ),
    )
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=gettext_lazy("Asked for each change; the address you had is told of it."),
    )


class EmailEventsForm(forms.Form):
    email_events = forms.BooleanField(
        label=gettext_lazy("E-mail me about my events"),
        required=False,
        help_text=gettext_lazy(
            "When an event you entered is about to start (its check-in opens), and "
            "when your match is ready while you are not on the site. Each e-mail has a link "
            "that turns them off."
        ),
    )


class NameForm(forms.Form):
    """The display name; beyond these two checks (in the API's words), the service's."""

    name = forms.CharField(
        label=gettext_lazy("Display name"),
        max_length=NAME_MAX_LENGTH,
        error_messages={
            "required": names.BLANK_MESSAGE,
            "max_length": names.TOO_LONG_MESSAGE.format(max_length=NAME_MAX_LENGTH),
        },
        help_text=gettext_lazy(
            "What other players see. Checked as at sign-up: not taken, not a look-alike "
            "of another player's name, one script, no bot's “(expert)” at the end."
        ),
    )


class PreferencesForm(forms.Form):
    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        choices=Player._meta.get_field("language").choices,
        required=False,
        help_text=gettext_lazy(
            "The site's language. Left as the browser asks, it follows your browser's settings."
        ),
    )
    theme = forms.ChoiceField(
        label=gettext_lazy("Colours"), choices=Player.Theme.choices, widget=forms.RadioSelect
    )
    sounds = forms.BooleanField(
        label=gettext_lazy("Sounds at the table"),
        required=False,
        help_text=gettext_lazy("Your turn, a move, a deal's end, and low time on your clock."),
    )
    confirm_discard = forms.BooleanField(
        label=gettext_lazy("Confirm before discarding"),
        required=False,
        help_text=gettext_lazy(
            "A tapped card (or Enter) is only chosen; tap it again, or press Enter, to discard it."
        ),
    )


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


@signin_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in person's account: username, e-mail (a form), links to the rest.

    Changing the e-mail address takes the password, checked as a sign-in checks it (wrong
    ones count towards the lockout), and the old address is told (``services.email_update``):
    a session left open, or stolen, cannot quietly move where a password reset goes.
    """
    form = EmailForm(request.POST or None, initial={"email": request.user.email})
    status = 200
    if request.method == "POST" and form.is_valid():
        user = authenticate(
            request, username=request.user.get_username(), password=form.cleaned_data["password"]
        )
        if getattr(request, "axes_locked_out", False):
            return lockout_response(request)
        if user is None or user.pk != request.user.pk:
            form.add_error("password", _("That is not your password."))
        else:
            had = request.user.email
            try:
                services.email_update(user=request.user, email=form.cleaned_data["email"])
            except ValidationError as error:
                for message in error.message_dict.get("email", error.messages):
                    form.add_error("email", message)
            except services.EmailNoticeFailed as error:
                form.add_error(None, str(error))
                status = 503
            else:
                if had and had != request.user.email:
                    saved = _("Your e-mail address is saved. A notice went to %(address)s.") % {
                        "address": had
                    }
                else:
                    saved = _("Your e-mail address is saved.")
                messages.success(request, saved)
                return redirect("web:account")
    if request.method == "POST" and status == 200:
        status = 400
    return _account_page(request, form=form, status=status)


def _account_page(request: HttpRequest, *, status: int = 200, **forms_given) -> HttpResponse:
    """The account page with its forms: those given (bound, with their errors), the others
    filled with what is saved."""
    me = player_for_user(user=request.user)
    context = {
        "form": EmailForm(initial={"email": request.user.email}),
        "me": me,
        "events_form": EmailEventsForm(initial={"email_events": me.email_events}) if me else None,
        "name_form": NameForm(initial={"name": me.name}) if me else None,
        "preferences_form": PreferencesForm(
            initial={name: getattr(me, name) for name in services.PREFERENCES}
        )
        if me
        else None,
        **forms_given,
    }
    return render(request, "web/account.html", context, status=status)


@signin_required
@require_http_methods(["POST"])
def account_name(request: HttpRequest) -> HttpResponse:
    """Change one's display name, with the sign-up's checks (``services.player_update``, as
    ``PATCH /api/me``): a refusal is shown beside the field, in the API's words."""
    me = player_for_user(user=request.user)
    if me is None:
        messages.error(request, _("This account has no player, so it has no display name."))
        return redirect("web:account")
    form = NameForm(request.POST)
    if form.is_valid():
        try:
            services.player_update(player=me, name=form.cleaned_data["name"])
        except ValidationError as error:
            for message in error.message_dict.get("name", error.messages):
                form.add_error("name", message)
        else:
            messages.success(request, _("Your display name is now %(name)s.") % {"name": me.name})
            return redirect("web:account")
    return _account_page(request, name_form=form, status=400)


@signin_required
@require_http_methods(["POST"])
def account_preferences(request: HttpRequest) -> HttpResponse:
    """Save the colours, the sounds and "confirm before discarding"
    (``services.preferences_update``, as ``PATCH /api/me``)."""
    me = player_for_user(user=request.user)
    if me is None:
        messages.error(request, _("This account has no player, so it keeps no preferences."))
        return redirect("web:account")
    form = PreferencesForm(request.POST)
    if not form.is_valid():
        return _account_page(request, preferences_form=form, status=400)
    services.preferences_update(player=me, **form.cleaned_data)
    messages.success(request, _("Your preferences are saved."))
    return redirect("web:account")


@signin_required
@require_http_methods(["POST"])
def account_email_events(request: HttpRequest) -> HttpResponse:
    """Turn the e-mails about one's events on or off (the account page's checkbox)."""
    me = player_for_user(user=request.user)
    if me is None:
        messages.error(request, _("This account has no player, so it gets no e-mail about events."))
        return redirect("web:account")
    form = EmailEventsForm(request.POST)
    form.is_valid()  # a checkbox: absent is off
    on = bool(form.cleaned_data.get("email_events"))
    mail.email_events_set(player=me, on=on)
    if on and not request.user.email:
        messages.success(request, _("Saved. Give an e-mail address below to receive them."))
    else:
        messages.success(
            request,
            _("You will be e-mailed about your events.") if on else _("E-mails turned off."),
        )
    return redirect("web:account")


@csrf_exempt  # the token is the proof; mail clients post the one-click unsubscribe (RFC 8058)
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every e-mail about events: no sign-in needed. A GET asks (mail scanners
    follow links, and a GET changes nothing); a POST turns the e-mails off, from the page's
    button or a mail client's one-click unsubscribe. A forged, altered or expired link is a
    400 page, and nothing changes."""
    template = "web/unsubscribe.html"
    try:
        player = mail.unsubscribe_player(token=token)
    except mail.UnsubscribeInvalid as error:
        context = {"invalid": str(error), "reason": error.reason}
        return render(request, template, context, status=400)
    if request.method == "POST":
        mail.email_events_set(player=player, on=False)
        return render(request, template, {"player": player, "done": True})
    return render(request, template, {"player": player, "token": token})


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Django's form; the old password is checked as a sign-in checks it, so wrong ones count
    towards the sign-in lockout (django-axes) and a locked-out account cannot change it."""

    def __init__(self, *args, request: HttpRequest, **kwargs):
        self.request = request
        super().__init__(*args, **kwargs)

    def clean_old_password(self):
        password = self.cleaned_data["old_password"]
        user = authenticate(self.request, username=self.user.get_username(), password=password)
        if getattr(self.request, "axes_locked_out", False):
            raise ValidationError(lockout_message(), code="locked_out")
        if user is None or user.pk != self.user.pk:
            raise ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return password


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's change of password; then every other sign-in of the user ends."""

    template_name = "web/password_change.html"
    success_url = reverse_lazy("web:account")
    form_class = PasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form):
        # Django's saves the password and keeps this session signed in
        # (update_session_auth_hash, which gives the session a new key: read it after).
        response = super().form_valid(form)
        ended = services.sign_out_everywhere(
            user=form.user, keep_session=self.request.session.session_key
        )
        if ended:
            changed = ngettext(
                "Your password is changed. Your other sign-ins have ended (%(count)s web "
                "session), and your API tokens are revoked.",
                "Your password is changed. Your other sign-ins have ended (%(count)s web "
                "sessions), and your API tokens are revoked.",
                ended,
            ) % {"count": ended}
        else:
            changed = _(
                "Your password is changed. Your other sign-ins have ended, and your API tokens "
                "are revoked."
            )
        messages.success(self.request, changed)
        return response


class PasswordResetRateThrottle(SimpleRateThrottle):
    """Reset requests per client address (scope ``password-reset``): each sends an e-mail."""

    scope = "password-reset"

    def get_rate(self) -> str:
        return self.THROTTLE_RATES.get(self.scope) or "5/hour"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's form; the e-mail is written in its recipient's language (their account's,
    else the site's default), not in the language of whoever asked for it."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        with translation.override(language_for(user=context.get("user"))):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by e-mail; the answer is the same whether or not an account has
    that address (nobody learns who has an account here)."""

    template_name = "web/password_reset.html"
    email_template_name = "web/password_reset_email.txt"
    subject_template_name = "web/password_reset_subject.txt"
    form_class = PasswordResetForm
    success_url = reverse_lazy("web:password_reset_sent")

    def post(self, request, *args, **kwargs):
        throttle = PasswordResetRateThrottle()
        if not throttle.allow_request(request, None):
            wait = math.ceil(throttle.wait() or 1)
            form = self.get_form()
            form.is_valid()
            form.errors.clear()
            form.add_error(
                None,
                _("Too many reset requests from your address; try again in %(seconds)s s.")
                % {"seconds": wait},
            )
            response = self.render_to_response(self.get_context_data(form=form))
            response.status_code = 429
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)


class PasswordResetSentView(auth_views.PasswordResetDoneView):
    template_name = "web/password_reset_sent.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["timeout_hours"] = settings.PASSWORD_RESET_TIMEOUT // 3600
        return context


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link of the e-mail: a new password; then every sign-in of the user ends (whoever
    knew the old password is signed out). The link works once, and not after
    ``PASSWORD_RESET_TIMEOUT``."""

    template_name = "web/password_reset_confirm.html"
    success_url = reverse_lazy("web:password_reset_done")
    post_reset_login = False

    def form_valid(self, form):
        response = super().form_valid(form)
        services.sign_out_everywhere(user=form.user)
        return response


class PasswordResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "web/password_reset_done.html"


@signin_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    """Delete one's account after typing the password (it counts towards the sign-in
    lockout, as a sign-in does); refused, with the reason, while playing or entered."""
    if request.user.is_staff:
        context = {"refused": _("Staff accounts are removed by an administrator.")}
        return render(request, "web/account_delete.html", context, status=403)
    form = DeleteAccountForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        user = authenticate(
            request, username=request.user.get_username(), password=form.cleaned_data["password"]
        )
        if getattr(request, "axes_locked_out", False):
            return lockout_response(request)
        if user is None or user.pk != request.user.pk:
            form.add_error("password", _("That is not your password."))
            status = 400
        else:
            try:
                deletion.account_delete(user=request.user)
            except deletion.AccountBusy as error:
                form.add_error(
                    None, _("Your account cannot be deleted yet: %(reason)s.") % {"reason": error}
                )
                status = 409
            else:
                logout(request)
                messages.info(request, _("Your account is deleted. Thank you for playing."))
                return redirect("web:home")
    elif request.method == "POST":
        status = 400
    context = {"form": form, "me": player_for_user(user=request.user)}
    return render(request, "web/account_delete.html", context, status=status)


#: The status of an invitation page that cannot be used, by why.
INVITATION_STATUS = {"forged": 404, "expired": 410, "used": 410}


@require_http_methods(["GET", "POST"])
def guest_claim(request: HttpRequest, token: str) -> HttpResponse:
    """The page of a guest's invitation link: sign up, and the guest becomes your player.

    The form is the sign-up's, with its checks and its throttle (:class:`SignUpRateThrottle`,
    one allowance per address with the sign-up page and the API); the account takes over the
    guest's row (``accounts.services.guest_claim``), so the guest's results and ratings are
    the new account's. A link that is forged, expired or used says so; a signed-in visitor is
    asked to sign out first (an account never absorbs a second player).
    """
    template = "web/guest_claim.html"
    try:
        guest = invitations.invitation_guest(token=token)
    except invitations.InvitationInvalid as error:
        context = {"invalid": str(error), "reason": error.reason}
        return render(request, template, context, status=INVITATION_STATUS[error.reason])
    if request.user.is_authenticated:
        context = {"guest": guest, "signed_in": True}
        return render(request, template, context, status=409 if request.method == "POST" else 200)
    form = GuestClaimForm(request.POST or None, guest=guest)
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
        response = render(request, template, {"form": form, "guest": guest}, status=429)
        response["Retry-After"] = str(wait)
        return response
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                player = form.claim()
            except services.NotAGuest:
                context = {"invalid": _("This invitation has been used already."), "reason": "used"}
                return render(request, template, context, status=410)
            if player is not None:
                login(request, player.user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(
                    request,
                    _("Welcome, %(name)s! Your results as a guest are yours now.")
                    % {"name": player.name},
                )
                return redirect("web:player", player.pk)
    return render(request, template, {"form": form, "guest": guest}, status=status)
