"""After a ladder match: "Play again" rejoins the same queue; "New opponent" rejoins it
without ever being paired with the last opponent (POST /api/ladders/{id}/queue
``{"new_opponent": true}``)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match
from ladders import services
from ladders.models import QueueEntry
from tests.factories import PlayerFactory
from tests.ladders import make_ladder, play_ladder_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(db):
    return make_ladder(name="Standard")


def queue_url(ladder) -> str:
    return f"/api/ladders/{ladder.pk}/queue"


def open_matches():
    return {
        frozenset((a, b))
        for a, b in Match.objects.filter(status__in=["scheduled", "active"]).values_list(
            "player_a_id", "player_b_id"
        )
    }


def test_play_again_pairs_the_last_two_again_when_nobody_else_waits(
    alice, bob, ladder, alice_client, bob_client
):
    play_ladder_match(ladder, alice, bob)
    assert alice_client.post(queue_url(ladder)).status_code == 201
    assert bob_client.post(queue_url(ladder)).status_code == 201
    services.matchmaker_pass(ladder_id=ladder.pk)
    assert open_matches() == {frozenset((alice.pk, bob.pk))}


def test_new_opponent_is_never_paired_with_the_last_one(
    alice, bob, ladder, alice_client, bob_client
):
    play_ladder_match(ladder, alice, bob)
    response = alice_client.post(queue_url(ladder), {"new_opponent": True}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "waiting"
    assert QueueEntry.objects.get(player=alice).avoid == bob
    assert bob_client.post(queue_url(ladder)).status_code == 201
    later = timezone.now() + timedelta(hours=1)  # the widest window: still no pair
    assert services.matchmaker_pass(ladder_id=ladder.pk, now=later).paired == 0
    charlie = PlayerFactory(user__username="charlie")
    services.queue_join(ladder=ladder, player=charlie, now=later)
    services.matchmaker_pass(ladder_id=ladder.pk, now=later)
    (paired,) = open_matches()  # charlie plays one of them; alice and bob still never meet
    assert charlie.pk in paired


def test_new_opponent_avoids_the_opponent_of_the_last_match_of_this_ladder(alice, bob, charlie):
    ladder, other = make_ladder(), make_ladder()
    play_ladder_match(ladder, alice, bob)
    play_ladder_match(other, alice, charlie)  # another ladder's match does not count here
    entry = services.queue_join(ladder=ladder, player=alice, new_opponent=True)
    assert entry.avoid_id == bob.pk


def test_new_opponent_before_any_match_avoids_nobody(alice, ladder):
    entry = services.queue_join(ladder=ladder, player=alice, new_opponent=True)
    assert entry.avoid_id is None


def test_new_opponent_takes_a_json_boolean_only(alice_client, ladder):
    response = alice_client.post(queue_url(ladder), {"new_opponent": "yes"}, format="json")
    assert response.status_code == 400
    assert "new_opponent" in str(response.json())
    assert not QueueEntry.objects.exists()
