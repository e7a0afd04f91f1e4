"""Forms of the web pages: sign-up, and sign-up from a guest's invitation (sign-in is Django's
own form)."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.models import NAME_MAX_LENGTH, Player


class SignUpForm(forms.Form):
    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
        help_text=_("Letters, digits and @ . + - _ only; you sign in with it."),
    )
    name = forms.CharField(
        label=_("Display name"),
        max_length=NAME_MAX_LENGTH,
        help_text=_("What other players see. Your username stays private: it is for signing in."),
    )
    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("Optional: where a password reset is sent. Nobody else sees it."),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error("password_again", _("The two passwords differ."))
        return data

    def register(self) -> Player | None:
        """Create the account (the accounts service checks every field); None on errors."""
        data = self.cleaned_data
        try:
            return services.player_register(
                username=data["username"],
                password=data["password"],
                name=data.get("name"),
                email=data.get("email") or "",
            )
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
            return None


class GuestClaimForm(SignUpForm):
    """Sign-up from a guest's invitation link: the same fields and checks as
    :class:`SignUpForm`, the display name starting as the guest's."""

    def __init__(self, *args, guest: Player, **kwargs):
        super().__init__(*args, initial={"name": guest.name}, **kwargs)
        self.guest = guest
        self.fields["name"].help_text = _(
            "What other players see: the name you were entered with, or another. Your "
            "username stays private: it is for signing in."
        )

    def claim(self) -> Player | None:
        """Create the account and make the guest its player (results and ratings kept);
        None on errors. Raises ``services.NotAGuest`` if the guest was claimed meanwhile."""
        data = self.cleaned_data
        try:
            return services.guest_claim(
                guest=self.guest,
                username=data["username"],
                password=data["password"],
                name=data.get("name"),
                email=data.get("email") or "",
            )
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
            return None
