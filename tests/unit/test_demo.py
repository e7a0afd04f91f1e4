"""`manage.py demo`: a staff account (password shown once) and bots, safe to rerun."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import Player

pytestmark = pytest.mark.django_db


def run_demo() -> str:
    out = StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


def test_demo_creates_staff_and_bots_once():
    first = run_demo()
    second = run_demo()

    assert "Password (shown only this once)" in first
    password = first.split("this once): ")[1].split()[0]
    staff = get_user_model().objects.get(username="admin")
    assert staff.is_staff and staff.check_password(password)
    assert "Password" not in second and "exists; password unchanged" in second
    bots = Player.objects.filter(kind="bot")
    assert bots.count() == 9  # five for the Quick ladder, four for the bot ladder
    assert set(bots.values_list("bot_strategy", flat=True)) == {"random", "greedy", "expert"}
    assert "Randy (random)" in bots.values_list("name", flat=True)


def test_demo_opens_a_ladder_with_the_bots_waiting_in_its_queue(alice):
    from ladders import services as ladder_services
    from ladders.models import Ladder, QueueEntry

    run_demo()
    output = run_demo()

    ladder = Ladder.objects.get(slug="quick")
    assert ladder.is_open and ladder.has_queue and not ladder.bot_pairs
    waiting = QueueEntry.objects.filter(ladder=ladder)
    assert waiting.count() == 5 and all(entry.player.is_bot for entry in waiting)
    assert "Ladder 'Quick ladder' is open" in output
    # A newcomer who joins is paired with one of the bots at once.
    ladder_services.queue_join(ladder=ladder, player=alice)
    ladder_services.matchmaker_pass(ladder_id=ladder.pk)
    assert not QueueEntry.objects.filter(player=alice).exists()
    assert QueueEntry.objects.filter(ladder=ladder).count() == 4


def test_demo_creates_a_bot_ladder_where_house_bots_play_each_other_and_bots_join(alice):
    """Bots only, 30 s a game with no increment; its house bots are paired continuously (they
    rejoin after each match) and an external bot joins with its token; a person cannot."""
    from rest_framework.test import APIClient

    from accounts import services as accounts
    from games.models import Match
    from ladders import services as ladder_services
    from ladders.models import Ladder, LadderMatch, QueueEntry

    run_demo()
    ladder = Ladder.objects.get(slug="bots")
    assert ladder.is_open and ladder.bots_only and ladder.bot_pairs
    assert (ladder.base_seconds, ladder.increment_seconds) == (30, 0)
    assert ladder.bot_requeue_seconds is not None
    waiting = QueueEntry.objects.filter(ladder=ladder)
    assert waiting.count() == 4 and all(entry.player.is_bot for entry in waiting)
    assert not QueueEntry.objects.filter(
        ladder__slug="quick", player__in=[entry.player for entry in waiting]
    ).exists()

    ladder_services.matchmaker_pass(ladder_id=ladder.pk)
    played = LadderMatch.objects.filter(ladder=ladder)
    assert played.count() == 2  # the four house bots, two and two
    assert {link.match.status for link in played} <= {
        Match.Status.SCHEDULED,
        Match.Status.ACTIVE,
        Match.Status.FINISHED,
    }

    robo = accounts.bot_register(owner=alice, name="Robo")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.bot_token_issue(bot=robo)[1]}")
    response = client.post(f"/api/ladders/{ladder.pk}/queue")
    assert response.status_code == 201, response.content
    person = APIClient()
    person.force_authenticate(alice.user)
    response = person.post(f"/api/ladders/{ladder.pk}/queue")
    assert response.status_code == 403 and response.json()["code"] == "bots_only"
    assert not QueueEntry.objects.filter(player=alice).exists()
