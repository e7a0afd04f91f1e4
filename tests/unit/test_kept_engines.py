"""Views render from the engine the last change kept (games.kept_engines) only when it is the
row's: every view so rendered equals the view decoded from the row, a row changed elsewhere
is never shown from an older engine, and no writer changes a kept engine."""

import random

import pytest

from games import kept_engines, selectors, services
from games.engine.actions import Action as EngineAction
from games.models import Game, Match
from tests.play import pick

pytestmark = pytest.mark.django_db(transaction=True)


def views_of(game: Game) -> list[dict]:
    match = game.match
    return [
        selectors.game_view(game=game, viewer=viewer, now=game.turn_began_at)
        for viewer in (match.player_a, match.player_b, None)
    ]


def fresh(game_id: int) -> Game:
    return Game.objects.select_related("match", "match__player_a", "match__player_b").get(
        pk=game_id
    )


def play_one(match: Match, rng: random.Random) -> Game | None:
    """One move by the player to act; the game row after it (None once the match is over)."""
    match.refresh_from_db()
    if match.status != Match.Status.ACTIVE:
        return None
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    player = match.player_a if game.to_act == 0 else match.player_b
    game.match = match
    seen = selectors.game_view(game=game, viewer=player)
    action = pick(seen["legal_actions"], rng, seen["hand"])
    services.action_submit(
        game_id=game.pk, player=player, ply=seen["ply"], action=EngineAction.from_json(action)
    )
    return fresh(game.pk)


@pytest.mark.parametrize("seed", [1, 2])
def test_every_view_from_a_kept_engine_is_the_decoded_one(alice, bob, seed):
    match = services.match_create(player_a=alice, player_b=bob, seed=seed, best_of=1, target=50)
    rng = random.Random(seed)
    hits = 0
    for _ in range(120):
        game = play_one(match, rng)
        if game is None:
            break
        kept = kept_engines._kept.get(match.pk)
        hits += kept is not None and kept[0] == game.match.state
        from_kept = views_of(game)
        kept_engines._kept.clear()  # decoded from the row
        assert views_of(fresh(game.pk)) == from_kept
    assert hits > 20  # the views above were rendered from kept engines


def test_a_row_changed_elsewhere_is_never_shown_from_an_older_engine(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, seed=3, best_of=1, target=50)
    rng = random.Random(3)
    game = play_one(match, rng)
    older = kept_engines._kept[match.pk][1]
    # Another process moves: its engine is not kept here.
    game = play_one(match, rng)
    kept_engines._kept[match.pk] = (older.snapshot(), older)
    engine = kept_engines.for_reading(match.pk, game.match.state)
    assert engine is not older and engine.snapshot() == game.match.state
    assert views_of(game)[0]["ply"] == game.ply


def test_no_writer_changes_a_kept_engine(alice, bob):
    match = services.match_create(player_a=alice, player_b=bob, seed=4, best_of=1, target=50)
    rng = random.Random(4)
    play_one(match, rng)
    kept_state, kept = kept_engines._kept[match.pk]
    before = kept.snapshot()
    for _ in range(6):
        play_one(match, rng)
    assert kept.snapshot() == before == kept_state
    assert kept_engines._kept[match.pk][1] is not kept  # each change keeps its own
