"""Bot work whose task never ran (Redis lost its queue, or was down at the commit) is redone
by the games sweep (services.bot_work_sweep, run by beat with the clock sweep)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import selectors, services, tasks
from games.engine.actions import Action as EngineAction
from games.engine.match import Match as EngineMatch
from games.models import Action, Deal, Game, Match
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lost(monkeypatch):
    """Every bot task published from now on is lost on the way to a worker."""
    for task in (tasks.bot_move, tasks.play_match):
        monkeypatch.setattr(task, "delay_on_commit", lambda *args, **kwargs: None)
    return monkeypatch


def move_until_the_bot_is_to_act(match: Match, alice) -> Game:
    game = Game.objects.get(match=match, status=Game.Status.ACTIVE)
    while game.to_act != 1:
        view = selectors.game_view(game=game, viewer=alice)
        action = EngineAction.from_json(view["legal_actions"][0])
        game = services.action_submit(game_id=game.pk, player=alice, ply=game.ply, action=action)
    return game


def test_a_lost_bot_reply_is_made_by_the_sweep_once_it_is_overdue(lost, alice):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    match = services.challenge_create(challenger=alice, opponent=gus)
    game = move_until_the_bot_is_to_act(match, alice)
    match.refresh_from_db()
    ply = match.ply

    # Not yet overdue: a reply may still be on its way.
    assert services.bot_work_sweep() == 0
    assert Match.objects.get(pk=match.pk).ply == ply

    later = timezone.now() + services.BOT_REPLY_STALE + timedelta(seconds=1)
    assert services.bot_work_sweep(now=later) >= 1
    match.refresh_from_db()
    assert match.ply > ply
    assert Action.objects.filter(deal__game=game, player=gus).exists()
    # The log still replays to the state: the sweep moved through the same service.
    assert EngineMatch.replay(selectors.match_log(match=match)).snapshot() == match.state
    # The task that was lost, arriving late, changes nothing.
    assert services.bot_move(match_id=match.pk, ply=ply) is False


def test_a_reply_is_overdue_counting_from_the_last_move_or_the_start_of_the_deal(lost, alice):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    match = services.challenge_create(challenger=alice, opponent=gus)
    game = move_until_the_bot_is_to_act(match, alice)
    long_ago = timezone.now() - timedelta(hours=1)
    Game.objects.filter(pk=game.pk).update(started_at=long_ago)
    assert services.bot_work_sweep() == 0, "the deal began (and Alice moved) just now"

    Deal.objects.filter(game=game).update(started_at=long_ago)
    Action.objects.filter(deal__game=game).update(created_at=long_ago)
    # A deal begun just now with no move yet (as after a deal's end) is not overdue.
    current = Deal.objects.filter(game=game).order_by("-number").first()
    fresh = Deal.objects.create(game=game, number=current.number + 1, seed=1, dealer=0)
    assert services.bot_work_sweep() == 0
    fresh.delete()
    assert services.bot_work_sweep() == 1, "the last move was an hour ago"


def test_a_lost_bot_match_is_played_by_the_sweep_once_and_only_once(lost):
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")
    match = services.match_create(player_a=gus, player_b=gil, best_of=1, target=50, seed=7)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE  # and never played

    assert services.bot_work_sweep() == 0  # it may still be waiting in a busy queue
    later = timezone.now() + services.BOT_MATCH_STALE + timedelta(seconds=1)
    assert services.bot_work_sweep(now=later) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    rows = Action.objects.filter(deal__game__match=match).count()
    assert rows == match.ply > 0

    assert services.bot_work_sweep(now=later) == 0
    assert services.match_play_bots(match_id=match.pk) is False  # the lost task, late
    assert Action.objects.filter(deal__game__match=match).count() == rows


def test_the_sweep_leaves_human_games_and_finished_matches_alone(alice, bob):
    match = services.challenge_create(challenger=alice, opponent=bob)
    services.challenge_answer(match=match, player=bob, accept=True)
    later = timezone.now() + timedelta(hours=1)

    assert services.bot_work_sweep(now=later) == 0
    assert Match.objects.get(pk=match.pk).ply == 0


def test_the_interactive_clock_sweep_never_plays_a_bot_match_the_batch_sweep_does(lost):
    """A long batch queue (a 256-bot event's round) must not turn into bot matches played
    on the interactive workers: the beat task of the clock sweep makes lost replies only."""
    gus = BotFactory(name="Gus", bot_strategy="greedy")
    gil = BotFactory(name="Gil", bot_strategy="greedy")
    match = services.match_create(player_a=gus, player_b=gil, best_of=1, target=50, seed=7)
    Match.objects.filter(pk=match.pk).update(
        started_at=timezone.now() - services.BOT_MATCH_STALE - timedelta(seconds=1)
    )
    tasks.sweep_clocks()
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    assert tasks.sweep_bot_matches() == 1
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
