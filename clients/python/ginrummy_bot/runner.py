"""Plays a :class:`~ginrummy_bot.bot.Bot` on the service: answers challenges, plays every
game it is in at once (one thread per game), continues between deals, reconnects after a
dropped connection, and logs each game."""

from __future__ import annotations

import logging
import threading
from typing import Any

import requests

from ginrummy_bot.bot import Bot
from ginrummy_bot.client import ApiClient, ApiError

logger = logging.getLogger("ginrummy_bot")


class Runner:
    """Connect ``bot`` through ``client`` and play until :meth:`stop`.

    ``concurrency`` caps the games played at once (a challenge past it is declined);
    ``backoff`` is the first and the longest wait before reconnecting, in seconds;
    ``ladder`` is a ladder whose queue the bot joins when it connects and again after each
    match (a refusal because it is waiting or playing already is not an error).
    """

    def __init__(
        self,
        client: ApiClient,
        bot: Bot,
        *,
        concurrency: int = 8,
        backoff: tuple[float, float] = (1.0, 30.0),
        ladder: int | None = None,
    ) -> None:
        self.client, self.bot = client, bot
        self.ladder = ladder
        self.concurrency = concurrency
        self.backoff = backoff
        self.stopped = threading.Event()
        self.playing: dict[int, threading.Thread] = {}
        self.finished: list[dict[str, Any]] = []  # game_finish lines, as they came
        self._lock = threading.Lock()
        self._queue_lock = threading.Lock()

    # --- the event stream -----------------------------------------------------------------

    def run(self) -> None:
        """Follow the event stream until stopped, reconnecting with backoff."""
        self._reconnecting("event stream", self._follow_events)

    def stop(self) -> None:
        self.stopped.set()

    def _follow_events(self) -> None:
        events = self.client.events()
        first = True
        for event in events:
            if first:  # connected: a match the queue pairs now reaches this stream
                first = False
                self.join_queue_soon()
            if self.stopped.is_set():
                return
            if event is not None:
                self.handle_event(event)
        # The server ended it (a restart, or another connection of this bot took over).
        raise requests.ConnectionError("the event stream ended")

    def handle_event(self, event: dict[str, Any]) -> None:
        """One line of the event stream."""
        kind = event.get("type")
        if kind == "challenge":
            self._answer(event)
        elif kind == "game_start":
            self.start_game(event["game"])
        elif kind == "game_finish":
            winner = (event.get("winner") or {}).get("name")
            logger.info(
                "match %s over: %s won (%s) %s",
                event["match"],
                winner,
                event.get("end_reason"),
                event.get("games_won"),
            )
            self.finished.append(event)
            self.join_queue_soon()
        elif kind == "challenge_canceled":
            logger.info("challenge %s %s", event["match"], event.get("status"))

    def join_queue_soon(self) -> None:
        """Join :attr:`ladder`'s queue on a thread of its own, trying again after a dropped
        connection: the event stream goes on being read meanwhile (a slow answer must not
        hold its lines back, nor a timed-out one drop it)."""
        if self.ladder is None:
            return
        threading.Thread(target=self._join_queue_retrying, name="queue", daemon=True).start()

    def _join_queue_retrying(self) -> None:
        with self._queue_lock:  # one join at a time
            wait, longest = self.backoff
            while not self.stopped.is_set():
                try:
                    self.join_queue()
                    return
                except (requests.RequestException, OSError) as error:
                    logger.warning("joining ladder %s dropped (%s); again in %.0f s",
                                   self.ladder, error, wait)  # fmt: skip
                if self.stopped.wait(wait):
                    return
                wait = min(longest, wait * 2)

    def join_queue(self) -> bool:
        """Join :attr:`ladder`'s queue, if any; False when refused (waiting, playing)."""
        if self.ladder is None:
            return False
        try:
            self.client.queue(self.ladder)
        except ApiError as error:
            if error.status != 409:  # 409: waiting already, or a match in progress
                logger.warning("joining ladder %s: %s", self.ladder, error)
            return False
        logger.info("waiting in the queue of ladder %s", self.ladder)
        return True

    def _answer(self, challenge: dict[str, Any]) -> None:
        match = challenge["match"]
        busy = self.active_games() >= self.concurrency
        try:
            if not busy and self.bot.accept(challenge):
                logger.info("accepting match %s from %s", match, challenge["challenger"]["name"])
                self.client.accept(match)
            else:
                logger.info("declining match %s", match)
                self.client.decline(match)
        except ApiError as error:
            if error.status != 409:  # 409: answered already (a resent pending challenge)
                logger.warning("answering match %s: %s", match, error)

    # --- games ----------------------------------------------------------------------------

    def active_games(self) -> int:
        with self._lock:
            return sum(thread.is_alive() for thread in self.playing.values())

    def start_game(self, game_id: int) -> None:
        """Play ``game_id`` on a thread of its own, unless it was started already (a
        reconnected event stream announces the games in play again)."""
        with self._lock:
            if game_id in self.playing:
                return
            thread = threading.Thread(
                target=self.play_game, args=(game_id,), name=f"game-{game_id}", daemon=True
            )
            self.playing[game_id] = thread
        thread.start()

    def play_game(self, game_id: int) -> None:
        """Follow a game's stream and move when it is the bot's turn, then the match's next
        game; a dropped stream is opened again (it starts with the whole state)."""
        while game_id is not None and not self.stopped.is_set():
            last = self._reconnecting(f"game {game_id}", lambda g=game_id: self._follow_game(g))
            if last is None:
                return
            self.bot.game_over(last)
            logger.info("game %s over: scores %s", game_id, last.get("scores"))
            game_id = last.get("next_game")
            if game_id is not None:
                with self._lock:
                    self.playing[game_id] = threading.current_thread()

    def _follow_game(self, game_id: int) -> dict[str, Any] | None:
        """The game's last view once it is over (None if the stream ended before)."""
        acted: tuple[int, str] | None = None  # (ply, what) the bot last did, not to repeat
        view = None
        for line in self.client.game(game_id):
            if self.stopped.is_set():
                return None
            if line is None:
                continue
            if line["type"] == "game_full":
                self.bot.game_begin(line)
            view = line["view"]
            if view["status"] != "active":
                return view
            acted = self.on_view(game_id, view, acted)
        if view is not None and view["status"] != "active":
            return view
        raise requests.ConnectionError(f"the stream of game {game_id} ended early")

    def on_view(
        self, game_id: int, view: dict[str, Any], acted: tuple[int, str] | None
    ) -> tuple[int, str] | None:
        """Act on one view: continue after a deal, or move on the bot's turn."""
        pause = view.get("pause")
        you = view["you"]
        try:
            if pause:
                if not pause["continued"][you] and acted != (view["ply"], "continue"):
                    self.client.continue_(game_id)
                    return (view["ply"], "continue")
                return acted
            if view["your_turn"] and view["legal_actions"] and acted != (view["ply"], "move"):
                action = self.bot.choose(view)
                try:
                    self.client.move(game_id, view["ply"], action)
                except ApiError as error:
                    if error.status != 400:
                        raise
                    # The bot chose an illegal action: the first legal one instead of losing
                    # on time, and the reason in the log.
                    logger.error("game %s: %s refused (%s)", game_id, action, error)
                    self.client.move(game_id, view["ply"], view["legal_actions"][0])
                return (view["ply"], "move")
        except ApiError as error:
            if error.status != 409:  # 409: the game moved on; the next line says how
                logger.warning("game %s: %s", game_id, error)
        return acted

    # --- reconnecting ---------------------------------------------------------------------

    def _reconnecting(self, what: str, follow):
        """Call ``follow`` until it returns, waiting longer after each dropped connection."""
        wait, longest = self.backoff
        while not self.stopped.is_set():
            try:
                return follow()
            except ApiError as error:
                if error.status in (401, 403, 404):
                    logger.error("%s: %s (giving up)", what, error)
                    return None
                logger.warning("%s: %s; again in %.0f s", what, error, wait)
            except (requests.RequestException, OSError) as error:
                logger.warning("%s dropped (%s); again in %.0f s", what, error, wait)
            if self.stopped.wait(wait):
                return None
            wait = min(longest, wait * 2)
        return None
