"""House bots an organiser adds to an event get first names, as the bots people play have."""

import pytest

from accounts.models import Player
from tests.factories import BotFactory, PlayerFactory
from tournaments import services
from tournaments.services.registration import BOT_FIRST_NAMES

pytestmark = pytest.mark.django_db


def test_added_bots_have_first_names_and_their_strategy():
    event = services.event_create(name="Club night", format="swiss")

    entries = services.bots_add(event=event, count=3, strategy="expert")

    names = [e.player.name for e in entries]
    assert names == [f"{first} (expert)" for first in BOT_FIRST_NAMES[:3]]
    assert all(e.player.kind == Player.Kind.BOT for e in entries)


def test_a_bot_name_in_use_or_like_one_in_use_is_skipped():
    BotFactory(name="Ada (expert)", bot_strategy="expert")
    PlayerFactory(name="ALMA (EXPERT)".title())  # "Alma (Expert)": taken, ignoring case
    event = services.event_create(name="Club night", format="swiss")

    entries = services.bots_add(event=event, count=2, strategy="expert")

    assert [e.player.name for e in entries] == ["Amos (expert)", "Anya (expert)"]


def test_once_every_name_is_used_they_come_round_again_numbered():
    for first in BOT_FIRST_NAMES:
        BotFactory(name=f"{first} (greedy)", bot_strategy="greedy")
    event = services.event_create(name="Club night", format="swiss")

    (entry,) = services.bots_add(event=event, count=1, strategy="greedy")

    assert entry.player.name == f"{BOT_FIRST_NAMES[0]} 2 (greedy)"
