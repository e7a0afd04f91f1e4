"""A player's own socket (``ws/me``): the group of their sockets and how a service tells them.

Every app that has news for one player (a challenge to them, a ladder pairing, a tournament
match waiting for them) renders the message for that player inside its transaction and
calls :func:`player_tell`; the message goes out on commit to that player's sockets only
(the group ``player.<id>``), so nobody ever receives another player's news. The consumer
(``web.consumers``) forwards it as it is, and sends a summary of what is pending on
connect, so a page opened later (or a socket that reconnects) misses nothing.
"""

from __future__ import annotations

from typing import Any

from common.live import dumps, publish_on_commit


def player_group(player_id: int) -> str:
    """The channel-layer group of one player's own sockets."""
    return f"player.{player_id}"


def player_tell(player_id: int, message: dict[str, Any]) -> None:
    """Push ``message`` (rendered now, as the API renders JSON) to the player on commit."""
    publish_on_commit(player_group(player_id), {"type": "send.text", "text": dumps(message)})
