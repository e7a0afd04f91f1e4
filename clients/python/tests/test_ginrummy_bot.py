"""The reference client against scripted streams: it answers challenges, moves on its turn
with the ply it saw, continues between deals, reconnects, and follows a match's games."""

from __future__ import annotations

import io
import json
import threading

import pytest
import requests
from ginrummy_bot import ApiClient, ApiError, Bot, FirstLegalBot, Runner


def view(ply: int, *, your_turn: bool = True, status: str = "active", **extra) -> dict:
    return {
        "status": status,
        "ply": ply,
        "you": 1,
        "your_turn": your_turn,
        "legal_actions": [{"type": "pass"}, {"type": "take"}] if your_turn else [],
        "pause": None,
        "next_game": None,
        "scores": {},
        **extra,
    }


def state(v: dict) -> dict:
    return {"type": "game_state", "seq": v["ply"] + 1, "view": v}


class FakeClient:
    """The calls the runner makes, recorded; the streams scripted per game (a list of
    scripts: each connection takes the next)."""

    def __init__(self, events=(), games=None) -> None:
        self.event_script = list(events)
        self.games = {k: list(v) for k, v in (games or {}).items()}
        self.calls: list[tuple] = []
        self.refuse: dict[tuple, ApiError] = {}

    def events(self):
        yield from self.event_script
        raise requests.ConnectionError("done")

    def game(self, game_id):
        script = self.games[game_id].pop(0)
        for line in script:
            if isinstance(line, Exception):
                raise line
            yield line

    def _call(self, *call):
        self.calls.append(call)
        if call in self.refuse:
            raise self.refuse.pop(call)
        return {}

    def accept(self, match):
        return self._call("accept", match)

    def decline(self, match):
        return self._call("decline", match)

    def move(self, game_id, ply, action):
        return self._call("move", game_id, ply, action["type"])

    def continue_(self, game_id):
        return self._call("continue", game_id)

    def queue(self, ladder):
        return self._call("queue", ladder)


def runner(client, bot=None, **options) -> Runner:
    return Runner(client, bot or FirstLegalBot(), backoff=(0.01, 0.02), **options)


def test_it_moves_on_its_turn_with_the_ply_it_saw_and_only_once():
    client = FakeClient(
        games={
            7: [
                [
                    {"type": "game_full", "view": view(0, your_turn=False)},
                    state(view(1)),
                    None,  # a keep-alive
                    state(view(1)),  # the same state again (a resend): no second move
                    state(view(2, your_turn=False)),
                    state(view(3, status="finished")),
                ]
            ]
        }
    )
    r = runner(client)
    r.play_game(7)
    assert client.calls == [("move", 7, 1, "pass")]


def test_it_continues_once_between_deals():
    paused = view(5, your_turn=False, pause={"continued": [True, False], "remaining_ms": 9000})
    done = view(5, your_turn=False, pause={"continued": [True, True], "remaining_ms": 8000})
    client = FakeClient(
        games={3: [[state(paused), state(paused), state(done), state(view(6, status="finished"))]]}
    )
    runner(client).play_game(3)
    assert client.calls == [("continue", 3)]


def test_a_dropped_game_stream_is_opened_again_and_play_goes_on():
    client = FakeClient(
        games={
            4: [
                [state(view(0, your_turn=False)), requests.ConnectionError("dropped")],
                [{"type": "game_full", "view": view(1)}, state(view(2, status="finished"))],
            ]
        }
    )
    over = []

    class Watcher(FirstLegalBot):
        def game_over(self, v):
            over.append(v["ply"])

    runner(client, Watcher()).play_game(4)
    assert client.calls == [("move", 4, 1, "pass")] and over == [2]


def test_it_plays_the_matchs_next_game_after_one_is_over():
    client = FakeClient(
        games={
            1: [[state(view(0)), state(view(1, status="finished", next_game=2))]],
            2: [[state(view(0)), state(view(1, status="finished"))]],
        }
    )
    runner(client).play_game(1)
    assert client.calls == [("move", 1, 0, "pass"), ("move", 2, 0, "pass")]


def test_an_illegal_choice_falls_back_to_the_first_legal_action():
    class Stubborn(Bot):
        def choose(self, v):
            return {"type": "take"}

    client = FakeClient(games={9: [[state(view(0)), state(view(1, status="finished"))]]})
    client.refuse[("move", 9, 0, "take")] = ApiError(400, "not_legal", "no")
    runner(client, Stubborn()).play_game(9)
    assert client.calls == [("move", 9, 0, "take"), ("move", 9, 0, "pass")]


def test_it_accepts_challenges_and_declines_past_its_concurrency():
    challenger = {"id": 1, "name": "Bob"}
    client = FakeClient()
    r = runner(client, concurrency=1)
    r.handle_event({"type": "challenge", "match": 10, "challenger": challenger})
    blocker = threading.Event()
    r.playing[99] = threading.Thread(target=blocker.wait, daemon=True)
    r.playing[99].start()
    r.handle_event({"type": "challenge", "match": 11, "challenger": challenger})
    blocker.set()
    assert client.calls == [("accept", 10), ("decline", 11)]


def test_a_challenge_answered_already_is_not_an_error():
    client = FakeClient()
    client.refuse[("accept", 5)] = ApiError(409, "not_pending", "already active")
    runner(client).handle_event(
        {"type": "challenge", "match": 5, "challenger": {"id": 1, "name": "Bob"}}
    )
    assert client.calls == [("accept", 5)]


def test_the_event_stream_starts_each_game_once_though_reconnects_announce_it_again():
    script = [state(view(0, your_turn=False)), state(view(1, status="finished"))]
    client = FakeClient(events=[{"type": "game_start", "game": 6}], games={6: [script, script]})
    r = runner(client)
    thread = threading.Thread(target=r.run, daemon=True)
    thread.start()
    for _ in range(300):  # the first connection's game, played out
        if len(client.games[6]) == 1 and not r.playing[6].is_alive():
            break
        threading.Event().wait(0.01)
    threading.Event().wait(0.2)  # reconnections of the event stream, each announcing it
    r.stop()
    thread.join(2)
    assert not thread.is_alive()
    assert len(client.games[6]) == 1  # its stream was opened once


def test_on_a_ladder_it_joins_the_queue_when_connected_and_after_each_match():
    finish = {"type": "game_finish", "match": 3, "winner": None, "games_won": [1, 0]}
    client = FakeClient(events=[None, finish])
    client.refuse[("queue", 4)] = ApiError(409, "already_queued", "waiting")
    r = runner(client, ladder=4)
    thread = threading.Thread(target=r._follow_events, daemon=True)
    thread.start()
    thread.join(2)
    # Connected (refused: waiting already, which is no error), then the match is over.
    assert client.calls == [("queue", 4), ("queue", 4)]
    assert runner(FakeClient()).join_queue() is False  # no ladder: nothing to join


# --- the HTTP client ------------------------------------------------------------------------


class Canned(requests.adapters.BaseAdapter):
    """A transport answering every request with one canned response."""

    def __init__(self, status: int, body: bytes, content_type="application/x-ndjson") -> None:
        super().__init__()
        self.status, self.body, self.content_type = status, body, content_type
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request, **kwargs):
        self.requests.append(request)
        response = requests.Response()
        response.status_code = self.status
        response.headers["Content-Type"] = self.content_type
        response.raw = io.BytesIO(self.body)
        response.request, response.url = request, request.url
        return response

    def close(self):
        pass


def client_with(adapter: Canned) -> ApiClient:
    session = requests.Session()
    session.mount("http://", adapter)
    return ApiClient("http://server/", "secret", session=session)


def test_a_stream_yields_each_line_and_none_for_a_keepalive():
    lines = [{"type": "game_full", "view": {"ply": 0}}, None, {"type": "game_state"}]
    body = b"".join(json.dumps(x).encode() + b"\n" if x else b"\n" for x in lines)
    adapter = Canned(200, body)
    assert list(client_with(adapter).game(5)) == lines
    sent = adapter.requests[0]
    assert sent.url == "http://server/api/bot/game/stream/5"
    assert sent.headers["Authorization"] == "Token secret"


def test_a_refusal_raises_with_its_status_and_code():
    adapter = Canned(404, b'{"detail": "Not found.", "code": "not_found"}', "application/json")
    with pytest.raises(ApiError) as refused:
        list(client_with(adapter).game(5))
    assert refused.value.status == 404 and refused.value.code == "not_found"


def test_a_move_sends_the_ply_and_the_action():
    adapter = Canned(200, b'{"ply": 4}', "application/json")
    assert client_with(adapter).move(3, 3, {"type": "discard", "card": "TS"}) == {"ply": 4}
    sent = adapter.requests[0]
    assert sent.url == "http://server/api/games/3/actions"
    assert json.loads(sent.body) == {"ply": 3, "type": "discard", "card": "TS"}
