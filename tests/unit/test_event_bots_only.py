"""An event for bots only takes house and external bots and refuses people (403 ``bots_only``,
by the registration endpoint and by an organiser alike).

The cast: alice owns the bot Robo; bob is a person.
"""

from __future__ import annotations

import pytest

from tests.factories import BotFactory
from tests.unit.test_bot_api_events import open_event, robo, token_client  # noqa: F401
from tournaments import services
from tournaments.models import Entry


@pytest.mark.django_db
def test_an_event_for_bots_only_takes_bots_and_refuses_people(robo, bob, bob_client):  # noqa: F811
    event = open_event(bots_only=True)
    response = bob_client.post(f"/api/events/{event.pk}/register")
    assert response.status_code == 403 and response.json()["code"] == "bots_only"
    with pytest.raises(services.TournamentError) as refused:
        services.entry_add(event=event, player=bob)  # nor by an organiser
    assert refused.value.code == "bots_only"
    assert token_client(robo).post(f"/api/events/{event.pk}/register").status_code == 201
    services.entry_add(event=event, player=BotFactory(bot_strategy="greedy"))
    assert not Entry.objects.filter(event=event, player=bob).exists()
    assert event.entries.count() == 2
