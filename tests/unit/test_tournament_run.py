"""Bot events run from the start to the champion by themselves, in every format."""

import pytest

from games.models import Match
from tests.tournaments import bots, event_with, played
from tournaments import services
from tournaments.models import Entry, Event, Pairing, Round

# Real commits: each finished match advances the event and its next matches run on commit.
pytestmark = pytest.mark.django_db(transaction=True)


def test_an_eight_bot_single_elimination_runs_to_its_champion():
    event = event_with(bots(8), "single_elim")
    services.event_start(event=event)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert len(played(event)) == 7
    final = Pairing.objects.get(event=event, key="R3.1")
    assert event.champion_id == final.winner.player_id
    assert set(Round.objects.filter(event=event).values_list("status", flat=True)) == {"finished"}
    ranks = sorted(Entry.objects.filter(event=event).values_list("final_rank", flat=True))
    assert ranks == list(range(1, 9))
    assert Match.objects.filter(source=Match.Source.TOURNAMENT).count() == 7
