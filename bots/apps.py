from django.apps import AppConfig


class BotsConfig(AppConfig):
    """The Bot API: external bots' accounts and tokens, their event and game streams."""

    name = "bots"

    def ready(self) -> None:
        from bots import receivers  # noqa: F401  (connects the signal receivers)
