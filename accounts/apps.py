from django.apps import AppConfig

from common import lanes


class AccountsConfig(AppConfig):
    """Users, players (human or bot), sign-in tokens."""

    name = "accounts"

    def ready(self) -> None:
        # "Your match is ready": its deadline runs. (The event's "about to start" mails,
        # accounts.mail_send, go out in bulk: batch, so they never hold up a move.)
        lanes.play_tasks("accounts.mail_if_away")
