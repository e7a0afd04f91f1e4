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
