"""The last deal a view shows, read from the engine's snapshot, equals the one read from the log.

A move's views and a game's GET show the newest deal scored (its outcome and both hands, or
the hands hidden while a duplicate pair's second deal replays the same cards). The match's
engine snapshot keeps that deal, so the views read it without a query; the deals in the
database are the truth it must match at every ply, in every rule set, for every game of the
match (a game the engine has left behind is read from the database).
"""

from __future__ import annotations

import pytest

from games import services
from games.engine import HOLLYWOOD, OKLAHOMA, STANDARD
from games.engine.bots import make_bot
from games.engine.match import Match as EngineMatch
from games.engine.views import view_for
from games.models import Game, Match
from games.selectors import _last_deal

pytestmark = pytest.mark.django_db

RULE_SETS = {
    "standard": STANDARD.replace(best_of=3, target=40),
    "duplicate": STANDARD.replace(best_of=3, target=40, duplicate_deals=True),
    "hollywood": HOLLYWOOD.replace(best_of=3, target=25),
    "oklahoma": OKLAHOMA.replace(best_of=3, target=40),
}


def play_and_compare(alice, bob, rules, seed) -> dict[str, int]:
    """Play a greedy match move by move through the services; after each move compare both
    readings for every game of the match. Returns what was seen (shown, hidden, none)."""
    if rules.duplicate_deals:
        # Duplicate deals are for house bots only (a policy of match_create); the views of
        # the moves are what is compared, so people play them here.
        match = services.match_create(player_a=alice, player_b=bob, seed=seed, start=False)
        match.rules = rules.to_dict()
        match.save(update_fields=["rules"])
        services.match_start(match=match)
    else:
        match = services.match_create(player_a=alice, player_b=bob, rules=rules, seed=seed)
    players = (alice, bob)
    bots = (make_bot("greedy", seed=seed), make_bot("greedy", seed=seed + 1))
    seen = {"shown": 0, "hidden": 0, "none": 0, "from_engine": 0}
    while True:
        match.refresh_from_db()
        engine = EngineMatch.from_snapshot(match.state)
        for game in Game.objects.filter(match=match):
            from_log = _last_deal(game)
            assert _last_deal(game, engine) == from_log, (seed, game.number, match.ply)
            if engine.game_index == game.number:
                seen["from_engine"] += 1
            if from_log is None:
                seen["none"] += 1
            elif from_log["hands"] is None:
                seen["hidden"] += 1
            else:
                seen["shown"] += 1
        if match.status != Match.Status.ACTIVE:
            return seen
        g = engine.game
        index = g.to_act_player
        action = bots[index].choose(view_for(g.deal, g.seat_of_player(index)))
        game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
        services.action_submit(game_id=game.pk, player=players[index], ply=game.ply, action=action)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_last_deal_from_the_snapshot_is_the_last_deal_in_the_log(alice, bob, name):
    seen = play_and_compare(alice, bob, RULE_SETS[name], seed=11)

    assert seen["from_engine"] > 50 and seen["shown"] > 10 and seen["none"] > 0
    if name == "duplicate":  # the second deal of each pair hides the first one's hands
        assert seen["hidden"] > 5


def test_a_snapshot_without_the_last_deal_is_read_from_the_log(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, rules=RULE_SETS["standard"])
    engine = EngineMatch.from_snapshot(match.state)
    assert engine.game.last_deal_known
    older = dict(match.state)
    older["game"] = {k: v for k, v in older["game"].items() if k != "last_deal"}

    restored = EngineMatch.from_snapshot(older)

    assert not restored.game.last_deal_known
    assert "last_deal" not in restored.snapshot()["game"]
