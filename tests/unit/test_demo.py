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
    assert bots.count() == 5
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
