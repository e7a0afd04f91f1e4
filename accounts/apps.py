from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Users, players (human or bot), sign-in tokens."""

    name = "accounts"
