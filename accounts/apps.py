from django.apps import AppConfig

from common import lanes


class AccountsConfig(AppConfig):
    """Users, players (human or bot), sign-in tokens."""

    name = "accounts"

    def ready(self) -> None:
        # "Your match is ready": its deadline runs. (The event's "about to start" mails,
        # accounts.mail_send, go out in bulk: batch, so they never hold up a move.)
        lanes.play_tasks("accounts.mail_if_away")
        # A token deleted (signed out, revoked, expired, its account gone) or a session
        # signed out or deleted closes the sockets opened with it (common.sockets).
        from django.contrib.auth.signals import user_logged_out
        from django.contrib.sessions.models import Session
        from django.db.models.signals import post_delete
        from knox.models import AuthToken

        from accounts import services

        post_delete.connect(
            services.token_deleted, sender=AuthToken, dispatch_uid="accounts.token_deleted"
        )
        user_logged_out.connect(
            services.session_signed_out, dispatch_uid="accounts.session_signed_out"
        )
        post_delete.connect(
            services.session_deleted, sender=Session, dispatch_uid="accounts.session_deleted"
        )
