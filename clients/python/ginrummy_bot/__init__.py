"""A reference client for the Gin Rummy service's Bot API.

Subclass :class:`Bot`, return one of ``view["legal_actions"]`` from :meth:`Bot.choose`, and
hand it to :class:`Runner` (or run ``ginrummy-bot --token …``)::

    from ginrummy_bot import Bot, Runner, ApiClient

    class FirstLegal(Bot):
        def choose(self, view):
            return view["legal_actions"][0]

    Runner(ApiClient("http://localhost:8000", token), FirstLegal()).run()
"""

from ginrummy_bot.bot import Bot, FirstLegalBot, RandomBot
from ginrummy_bot.client import ApiClient, ApiError
from ginrummy_bot.runner import Runner

__all__ = ["ApiClient", "ApiError", "Bot", "FirstLegalBot", "RandomBot", "Runner"]
