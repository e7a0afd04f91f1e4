"""The Bot API over HTTP: the two NDJSON streams and the few calls a bot makes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import requests


class ApiError(Exception):
    """A refusal from the service: its HTTP ``status`` and the stable ``code``."""

    def __init__(self, status: int, code: str, detail: str, body: dict | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail, self.body = status, code, detail, body or {}


class ApiClient:
    """One bot's connection to the service: ``ApiClient("https://host", token)``.

    ``read_timeout`` bounds the wait for a stream's next line; the server sends a keep-alive
    line every few seconds, so a longer silence means the connection is gone.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        session: requests.Session | None = None,
        read_timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.read_timeout = read_timeout

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _json(self, response: requests.Response) -> Any:
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {}
            raise ApiError(
                response.status_code,
                body.get("code", "error"),
                body.get("detail", response.text[:200]),
                body,
            )
        return response.json() if response.content else None

    # --- streams --------------------------------------------------------------------------

    def stream(self, path: str) -> Iterator[dict | None]:
        """The lines of a stream: each a dict, or None for a keep-alive. Ends when the
        server ends it; raises ``requests`` errors when the connection drops."""
        with self.session.get(
            self._url(path), stream=True, timeout=(10, self.read_timeout)
        ) as response:
            if response.status_code >= 400:
                self._json(response)
            for raw in response.iter_lines():
                yield json.loads(raw) if raw.strip() else None

    def events(self) -> Iterator[dict | None]:
        """``GET /api/bot/stream/event``: challenge, challenge_canceled, game_start, …"""
        return self.stream("/api/bot/stream/event")

    def game(self, game_id: int) -> Iterator[dict | None]:
        """``GET /api/bot/game/stream/{id}``: game_full, then game_state per change."""
        return self.stream(f"/api/bot/game/stream/{game_id}")

    # --- calls ----------------------------------------------------------------------------

    def account(self) -> dict:
        return self._json(self.session.get(self._url("/api/bot/account"), timeout=10))

    def view(self, game_id: int) -> dict:
        return self._json(self.session.get(self._url(f"/api/games/{game_id}"), timeout=10))

    def move(self, game_id: int, ply: int, action: dict) -> dict:
        """Make a move (the ``ply`` the bot saw); answers with the bot's view after it."""
        body = {"ply": ply, **action}
        response = self.session.post(
            self._url(f"/api/games/{game_id}/actions"), json=body, timeout=10
        )
        return self._json(response)

    def continue_(self, game_id: int) -> dict:
        """Ready for the next deal (timed games pause between deals)."""
        response = self.session.post(self._url(f"/api/games/{game_id}/continue"), timeout=10)
        return self._json(response)

    def accept(self, match_id: int) -> dict:
        return self._json(
            self.session.post(self._url(f"/api/matches/{match_id}/accept"), timeout=10)
        )

    def decline(self, match_id: int) -> dict:
        return self._json(
            self.session.post(self._url(f"/api/matches/{match_id}/decline"), timeout=10)
        )

    def challenge(self, opponent: int, **options: Any) -> dict:
        """Challenge a player (``best_of``, ``target``, ``time_control``, ``rules``)."""
        body = {"opponent": opponent, **options}
        return self._json(self.session.post(self._url("/api/matches"), json=body, timeout=10))

    def queue(self, ladder_id: int) -> dict:
        """Join a ladder's queue (``POST /api/ladders/{id}/queue``): paired, a ``game_start``
        comes on the event stream."""
        return self._json(
            self.session.post(self._url(f"/api/ladders/{ladder_id}/queue"), timeout=10)
        )
