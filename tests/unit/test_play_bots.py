"""Bot matches: played whole from the seed, written once, replayable by anyone."""

import io
import json
import sys

import pytest

from games import selectors, services, tasks
from games.engine import bots as engine_bots
from games.engine.__main__ import main as engine_cli
from games.engine.match import Match as EngineMatch
from games.models import Action, Deal, Game, Match
from games.signals import match_finished
from tests.factories import BotFactory
from tests.play import active_game, move, view

# Real commits: follow-up tasks (bot moves, whole bot matches) run on commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def gus(db):
    return BotFactory(name="Gus", bot_strategy="greedy")


@pytest.fixture
def eve(db):
    return BotFactory(name="Eve", bot_strategy="expert")


def log_of(match):
    return selectors.match_log(match=match)


def test_a_bot_match_is_played_whole_and_replays_from_its_log(gus, eve):
    match = services.match_create(player_a=gus, player_b=eve, seed=2024)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.end_reason == "games"
    assert max(match.games_won) == 3 and match.winner_id in match.players
    assert Game.objects.filter(match=match).count() == sum(match.games_won)
    replayed = EngineMatch.replay(log_of(match))
    assert replayed.games_won == list(match.games_won)
    assert [r.to_json() for r in replayed.results] == [
        r for g in match.games.order_by("number") for r in g.results
    ]


def test_the_same_seed_and_bots_give_the_same_log(gus, eve):
    first = services.match_create(player_a=gus, player_b=eve, seed=77)
    second = services.match_create(player_a=gus, player_b=eve, seed=77)
    assert log_of(first) == log_of(second)


def test_running_play_match_again_changes_nothing(gus, eve):
    match = services.match_create(player_a=gus, player_b=eve, seed=5)
    counts = (Game.objects.count(), Deal.objects.count(), Action.objects.count())
    assert tasks.play_match.apply(args=(match.pk,)).get() is False
    assert (Game.objects.count(), Deal.objects.count(), Action.objects.count()) == counts


def test_match_finished_is_sent_once_with_the_match(gus, eve):
    received = []

    def listener(sender, match, **kwargs):
        received.append((match.pk, match.status))

    match_finished.connect(listener)
    try:
        match = services.match_create(player_a=gus, player_b=eve, seed=9)
        tasks.play_match.apply(args=(match.pk,))
    finally:
        match_finished.disconnect(listener)
    assert received == [(match.pk, Match.Status.FINISHED)]


class Sulky(engine_bots.Bot):
    """Plays well until the fourth move of the match, then returns nonsense."""

    name = "sulky-test"

    def __init__(self, seed=0):
        super().__init__(seed)
        self.moves = 0

    def choose(self, view):
        self.moves += 1
        if self.moves > 3:
            return "a teapot"
        return view.legal_actions[0]


class Raiser(engine_bots.Bot):
    name = "raiser-test"

    def choose(self, view):
        raise RuntimeError("out of cheese")


@pytest.fixture
def broken_bots(db):
    engine_bots.register(Sulky)
    engine_bots.register(Raiser)
    yield
    del engine_bots.BOTS["sulky-test"], engine_bots.BOTS["raiser-test"]


def test_a_bot_that_fails_forfeits_with_the_reason_recorded(broken_bots, gus):
    sulky = BotFactory(name="Sulky", bot_strategy="sulky-test")
    match = services.match_create(player_a=sulky, player_b=gus, seed=3)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner_id == gus.pk
    assert match.end_reason == "bot_failure" and "a teapot" in match.end_detail
    EngineMatch.replay(log_of(match))  # the log up to the failure is a legal, replayable game


def test_a_bot_that_raises_in_a_human_game_forfeits_and_corrupts_nothing(broken_bots, alice):
    raiser = BotFactory(name="Raiser", bot_strategy="raiser-test")
    match = services.challenge_create(challenger=alice, opponent=raiser, best_of=1)
    game = active_game(match) if Match.objects.get(pk=match.pk).status == "active" else None
    if game is not None and game.to_act == 0:
        services.action_submit(
            game_id=game.pk,
            player=alice,
            ply=0,
            action=services.EngineAction.parse("pass"),
        )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner_id == alice.pk
    assert match.end_reason == "bot_failure" and "out of cheese" in match.end_detail
    EngineMatch.replay(log_of(match))


def test_an_unknown_bot_strategy_is_refused_before_anything_is_written(alice):
    ghost = BotFactory(name="Ghost", bot_strategy="ghost")
    with pytest.raises(services.PlayError) as refused:
        services.challenge_create(challenger=alice, opponent=ghost)
    assert refused.value.code == "unknown_bot" and not Match.objects.exists()


def test_the_bot_answers_a_humans_move(alice_client, alice, gus):
    created = alice_client.post(
        "/api/matches", {"opponent": gus.pk, "best_of": 1, "target": 25}, format="json"
    ).json()
    game = Game.objects.get(match_id=created["id"])
    data = view(alice_client, game)
    assert data["your_turn"], "a bot that acts first has moved before the human looks"
    legal = data["legal_actions"]
    passing = [a for a in legal if a["type"] in ("pass", "discard")]
    if not passing:  # alice must draw first: draw, then discard
        data = move(alice_client, game, data["ply"], legal[0]).json()
        passing = [a for a in data["legal_actions"] if a["type"] == "discard"]
    ply = data["ply"]
    answer = move(alice_client, game, ply, passing[0]).json()
    # The answer is alice's view just after her move (the bot replies on its own time);
    # here the bot's task ran on commit, so the next look shows its reply.
    assert answer["ply"] == ply + 1 and not answer["your_turn"]
    after = view(alice_client, game)
    bot_moves = [h for h in (after["deal"] or {}).get("history", []) if h["player"] == 1]
    assert after["ply"] >= ply + 2, "the bot has not replied"
    assert after["your_turn"] or after["status"] == "finished" or bot_moves


def test_anyone_can_verify_a_finished_match_with_the_engine_cli(
    gus, eve, client, monkeypatch, capsys
):
    match = services.match_create(player_a=gus, player_b=eve, seed=31337)
    match.refresh_from_db()
    replay = client.get(f"/api/matches/{match.pk}/replay").json()
    assert int(replay["seed"]) == 31337 and replay["seed_commitment"] == match.seed_commitment
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(replay)))
    assert engine_cli(["replay"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["verified"] is True and lines[-1]["games_won"] == list(match.games_won)
    assert all(line["matches_record"] for line in lines[:-1])


def test_the_replay_of_an_unfinished_match_is_not_published(alice_client, gus):
    created = alice_client.post("/api/matches", {"opponent": gus.pk}, format="json").json()
    response = alice_client.get(f"/api/matches/{created['id']}/replay")
    assert response.status_code == 409 and response.json()["code"] == "not_finished"


def test_staff_start_and_play_a_bot_match_from_the_admin(admin_client, gus, eve):
    from games.engine.rules import RuleSet

    response = admin_client.post(
        "/admin/games/match/add/",
        {
            "player_a": gus.pk,
            "player_b": eve.pk,
            "source": "admin",
            "rules": json.dumps(RuleSet().to_dict()),
            "best_of": 3,
            "target": 100,
            "increment_seconds": 0,
            "timeout_policy": "forfeit",
            "games-TOTAL_FORMS": 0,
            "games-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content[:2000]
    match = Match.objects.get()
    assert match.status == Match.Status.FINISHED and match.source == "admin"
    assert match.best_of == 3 and max(match.games_won) == 2


def test_a_failing_listener_never_undoes_the_result(gus, eve):
    def broken_listener(sender, match, **kwargs):
        Match.objects.filter(pk=match.pk).update(end_detail="half-written")
        raise RuntimeError("listener bug")

    match_finished.connect(broken_listener)
    try:
        match = services.match_create(player_a=gus, player_b=eve, seed=12)
    finally:
        match_finished.disconnect(broken_listener)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_detail != "half-written", "the listener's writes rolled back alone"
