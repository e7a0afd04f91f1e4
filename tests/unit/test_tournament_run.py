"""Bot events run from the start to the champion by themselves, in every format."""

import io
import json

import pytest
from django.core.management import call_command

from games.models import Deal, Match
from games.signals import rated_match_finished
from tests.tournaments import bots, event_with, played
from tournaments import services
from tournaments.models import Entry, Event, Pairing, Round

# Real commits: each finished match advances the event and its next matches run on commit.
pytestmark = pytest.mark.django_db(transaction=True)


def finished(event: Event) -> Event:
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED, event.status
    assert set(Round.objects.filter(event=event).values_list("status", flat=True)) == {"finished"}
    assert not Pairing.objects.filter(event=event, status="playing").exists()
    ranks = sorted(Entry.objects.filter(event=event).values_list("final_rank", flat=True))
    if event.is_elimination:
        # Knocked out in the same round, the same rank: a rank is 1 + those above it.
        assert all(rank == 1 + ranks.index(rank) for rank in ranks) and ranks.count(1) == 1
    else:
        assert ranks == list(range(1, event.entrants_count + 1))
    assert Entry.objects.get(event=event, final_rank=1).player == event.champion
    return event


def test_an_eight_bot_single_elimination_runs_to_its_champion():
    event = event_with(bots(8), "single_elim")
    services.event_start(event=event)
    finished(event)
    assert len(played(event)) == 7
    final = Pairing.objects.get(event=event, key="R3.1")
    assert event.champion_id == final.winner.player_id
    assert Match.objects.filter(source=Match.Source.TOURNAMENT).count() == 7


def test_a_six_bot_single_elimination_with_byes_and_a_third_place_match():
    event = event_with(bots(6), "single_elim", third_place=True)
    services.event_start(event=event)
    finished(event)
    assert len(played(event)) == 6  # five eliminations and the third-place match
    assert Pairing.objects.filter(event=event, status="bye").count() == 2


def test_a_seven_bot_double_elimination_runs_to_its_champion():
    event = event_with(bots(7), "double_elim")
    services.event_start(event=event)
    finished(event)
    losses = {}
    for p in played(event):
        loser = p.entry_b_id if p.winner_id == p.entry_a_id else p.entry_a_id
        losses[loser] = losses.get(loser, 0) + 1
    champion = Entry.objects.get(event=event, final_rank=1)
    assert all(count == 2 for entry, count in losses.items() if entry != champion.pk)
    assert len(losses) == 7 - (champion.pk not in losses)


def test_a_five_bot_round_robin_plays_everyone_once():
    event = event_with(bots(5), "round_robin")
    services.event_start(event=event)
    finished(event)
    assert event.rounds_planned == 5 and len(played(event)) == 10
    assert Pairing.objects.filter(event=event, result="bye").count() == 5


def test_a_double_round_robin_plays_everyone_twice():
    event = event_with(bots(3), "round_robin", double_round_robin=True)
    services.event_start(event=event)
    finished(event)
    assert len(played(event)) == 6


def test_a_nine_bot_swiss_plays_its_rounds_without_rematches():
    event = event_with(bots(9), "swiss")
    services.event_start(event=event)
    finished(event)
    assert event.rounds_planned == 4
    pairs = [frozenset(p.entries) for p in played(event)]
    assert len(pairs) == len(set(pairs)) == 16
    byes = list(Pairing.objects.filter(event=event, result="bye").values_list("entry_a", flat=True))
    assert len(byes) == len(set(byes)) == 4


def test_duplicate_deals_play_every_deal_twice_with_the_seats_swapped():
    # Two different strategies: two copies of one deterministic bot tie every pair of deals.
    field = bots(1, "greedy") + bots(1, "expert", prefix="Expert")
    event = event_with(field, "single_elim", duplicate_deals=True)
    services.event_start(event=event)
    finished(event)
    match = played(event)[0].match
    deals = list(Deal.objects.filter(game__match=match).order_by("game__number", "number"))
    assert len(deals) >= 2
    for first, second in zip(deals[::2], deals[1::2], strict=False):
        assert first.seed == second.seed and (first.swap, second.swap) == (0, 1)


def test_a_rated_event_calls_the_rating_hook_once_per_match():
    received = []

    def hook(sender, event, pairing, match, override, **kwargs):
        received.append((event.pk, match.pk, override))

    rated_match_finished.connect(hook, dispatch_uid="test-rating-hook")
    try:
        event = event_with(bots(4), "single_elim", rated=True)
        services.event_start(event=event)
    finally:
        rated_match_finished.disconnect(dispatch_uid="test-rating-hook")
    finished(event)
    assert sorted(m for _, m, _ in received) == sorted(p.match_id for p in played(event))
    assert {(e, o) for e, _, o in received} == {(event.pk, False)}


def test_an_unrated_event_does_not_call_the_rating_hook():
    received = []
    rated_match_finished.connect(lambda **kw: received.append(kw), dispatch_uid="test-unrated")
    try:
        services.event_start(event=event_with(bots(2), "single_elim"))
    finally:
        rated_match_finished.disconnect(dispatch_uid="test-unrated")
    assert received == []


def test_the_command_runs_a_whole_bot_event_from_nothing():
    out = io.StringIO()
    call_command(
        "run_bot_event",
        "--players=6",
        "--format=double_elim",
        "--best-of=1",
        "--target=50",
        "--json",
        "--no-migrate",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["status"] == "finished" and report["players"] == 6
    assert report["mode"] == "embedded" and report["matches"] >= 10
    assert report["matches_per_second"] > 0 and report["champion"]


def test_the_command_refuses_an_unknown_format():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unknown format 'ladder'"):
        call_command("run_bot_event", "--format=ladder", "--no-migrate")


def test_a_rated_event_is_rated_in_the_rated_events_pool_and_standings_show_it():
    ladders = pytest.importorskip("ladders.models")  # the ladders app fills the rating hook
    event = event_with(bots(4), "single_elim", rated=True)
    services.event_start(event=event)
    finished(event)
    changes = ladders.RatingChange.objects.filter(ladder__slug="rated-events")
    assert changes.count() == 2 * len(played(event))
    from tournaments.selectors import standings_for_event

    rows = standings_for_event(event=event)
    assert all(row["rating"] is not None for row in rows)
    assert rows[0]["rating"] > 1500  # the champion won every match it played
