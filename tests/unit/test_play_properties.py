"""Property: whatever mix of valid and invalid calls players make, the log stays the truth."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import selectors
from games.engine.match import Match as EngineMatch
from games.models import Action, Game, Match
from tests.factories import PlayerFactory

_names = itertools.count()

GARBAGE = [
    {"type": "discard", "card": "ZZ"},
    {"type": "discard", "card": "1S"},
    {"type": "discard"},
    {"type": "knock", "card": "AS", "melds": [["AS", "2S", "3S"]]},
    {"type": "gin", "card": "KH"},
    {"type": "big_gin"},
    {"type": "take_upcard"},
    {"type": "draw_discard"},
    {"type": "fly"},
    {"type": "pass", "card": "AS"},
]

steps = st.lists(
    st.tuples(
        st.sampled_from(["legal", "legal", "legal", "garbage", "stale", "other_player"]),
        st.integers(0, 1000),
    ),
    min_size=5,
    max_size=40,
)


@pytest.mark.django_db
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps)
def test_random_valid_and_invalid_calls_never_break_the_replay_invariant(steps):
    n = next(_names)
    players = [PlayerFactory(user__username=f"p{n}a"), PlayerFactory(user__username=f"p{n}b")]
    clients = []
    for p in players:
        c = APIClient()
        c.force_authenticate(p.user)  # sign-in itself is throttled and tested elsewhere
        clients.append(c)
    created = (
        clients[0]
        .post(
            "/api/matches", {"opponent": players[1].pk, "best_of": 1, "target": 25}, format="json"
        )
        .json()
    )
    clients[1].post(f"/api/matches/{created['id']}/accept")
    match = Match.objects.get(pk=created["id"])
    game = Game.objects.get(match=match)
    for kind, number in steps:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        mover = game.to_act
        data = clients[mover].get(f"/api/games/{game.pk}").json()
        logged = Action.objects.count()
        if kind == "legal":
            body = data["legal_actions"][number % len(data["legal_actions"])]
            response = clients[mover].post(
                f"/api/games/{game.pk}/actions", {"ply": data["ply"], **body}, format="json"
            )
            assert response.status_code == 200, response.content
            assert Action.objects.count() == logged + 1
            continue
        if kind == "garbage":
            body = GARBAGE[number % len(GARBAGE)]
            if body in data["legal_actions"]:
                continue
            response = clients[mover].post(
                f"/api/games/{game.pk}/actions", {"ply": data["ply"], **body}, format="json"
            )
            assert response.status_code == 400
        elif kind == "stale":
            response = clients[mover].post(
                f"/api/games/{game.pk}/actions",
                {"ply": data["ply"] + 1 + number % 3, **data["legal_actions"][0]},
                format="json",
            )
            assert response.status_code == 409 and response.json()["ply"] == data["ply"]
        else:
            response = clients[1 - mover].post(
                f"/api/games/{game.pk}/actions", {"ply": data["ply"], "type": "pass"}, format="json"
            )
            assert response.status_code == 409
        assert Action.objects.count() == logged, "a refusal writes nothing"
    match.refresh_from_db()
    from_log = EngineMatch.replay(selectors.match_log(match=match))
    assert from_log.snapshot() == EngineMatch.from_snapshot(match.state).snapshot()
